package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference/internal/fault"
)

// decision is an answered approval of a local call still without a result.
type decision struct {
	approvalID string
	request    model.Part
	call       model.Part
	callMsg    int // index of the assistant message holding the call
	callPos    int // position of the call in the conversation's call order
	approved   bool
	reason     string
	edited     json.RawMessage // the input an approving answer edited (edit.go)
	duplicates int             // further responses that agreed with the first
}

// plan is what pre-resolution will do.
type plan struct {
	decisions []*decision
	// providerRuns are provider-executed calls a mutant runs locally.
	providerRuns []model.Part
}

// collect matches approval responses to requests and decides, per call, what
// pre-resolution does. It also validates the history: every local call must
// end up with a result, and every approved call must be genuine.
func (r *run) collect() (*plan, error) {
	h := r.history
	ix := model.IndexOf(h)
	if err := validateHistory(h, ix); err != nil {
		return nil, err
	}
	position := map[string]int{}
	for i, id := range ix.CallOrder {
		position[id] = i
	}

	requests := map[string]model.Loc{}
	lastAssistant := -1
	for i, m := range h {
		if m.Role == model.RoleAssistant {
			lastAssistant = i
		}
	}
	for id, loc := range ix.Requests {
		if r.agent.faults.Has(fault.LastAssistantOnly) && loc.Message != lastAssistant {
			continue
		}
		requests[id] = loc
	}

	byCall := map[string]*decision{}
	var order []*decision
	var providerRuns []model.Part
	firstInMessage := map[int]bool{}
	lastTool := -1
	for i, m := range h {
		if m.Role == model.RoleTool {
			lastTool = i
		}
	}
	firstMsg := map[string]int{} // the message of a call's first answer
	for _, loc := range ix.ResponseOrder {
		if r.agent.faults.Has(fault.LastToolMessageOnly) && loc.Message != lastTool {
			continue
		}
		if r.agent.faults.Has(fault.FirstResponseOnly) {
			if firstInMessage[loc.Message] {
				continue
			}
			firstInMessage[loc.Message] = true
		}
		resp := ix.Part(loc)
		reqLoc, ok := requests[resp.ApprovalID]
		if !ok && r.agent.faults.Has(fault.CallIDAsApprovalID) {
			// The mutant confuses approval ids with tool call ids.
			if req, found := ix.RequestForCall(resp.ApprovalID); found {
				reqLoc, ok = requests[req.ApprovalID]
			}
		}
		if !ok && len(ix.ResponseOrder) == 1 && r.agent.faults.Has(fault.StrayAnswerTakesLatest) {
			reqLoc, ok = latestOpenRequest(ix, requests)
		}
		if !ok {
			if r.agent.refuseOrphans || r.agent.faults.Has(fault.StrayResponseBlocks) {
				return nil, &Error{Code: InvalidApproval, Message: fmt.Sprintf(
					"approval response %s (messages[%d]) matches no approval request of this conversation", resp.ApprovalID, loc.Message)}
			}
			continue // orphan response: never acted on, stripped from the prompt
		}
		req := ix.Part(reqLoc)
		call, ok := ix.Call(req.ToolCallID)
		if !ok {
			continue // a request without a call
		}
		if call.ProviderExecuted {
			if resp.Approved && r.agent.faults.Has(fault.RunProviderExecuted) {
				providerRuns = append(providerRuns, call)
			}
			continue // the provider's own approval: forwarded, never run here
		}
		resolved := false
		for _, res := range ix.Results[call.ToolCallID] {
			if r.agent.faults.Has(fault.ResultBeforeAnswerIgnored) && res.Message != loc.Message && res.Message > lastAssistant {
				continue // the mutant reads results in the answer's message and in earlier turns only
			}
			if !r.agent.faults.Has(fault.ResultInSameMessageIgnored) || res.Message < loc.Message {
				resolved = true
			}
		}
		if resolved && !r.agent.faults.Has(fault.ReexecuteResolved) {
			continue // already has a result: never run again
		}
		d, seen := byCall[call.ToolCallID]
		if seen && r.agent.faults.Has(fault.ConflictAcrossMessagesBoth) && firstMsg[call.ToolCallID] != loc.Message && d.approved != resp.Approved {
			// The mutant decides each message on its own.
			seen = false
		}
		if !seen {
			firstMsg[call.ToolCallID] = loc.Message
		}
		if !seen {
			d = &decision{approvalID: req.ApprovalID, request: req, call: call, callMsg: ix.Calls[call.ToolCallID].Message,
				callPos: position[call.ToolCallID], approved: resp.Approved, reason: resp.Reason, edited: resp.EditedInput}
			byCall[call.ToolCallID] = d
			order = append(order, d)
			continue
		}
		switch {
		case d.approved != resp.Approved:
			// Conflicting answers for one call: fail safe, deny.
			if d.approved {
				d.reason = resp.Reason
			}
			d.approved = false
			if d.reason == "" {
				d.reason = "conflicting approval responses"
			}
		default:
			d.duplicates++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].callPos < order[j].callPos })
	p := &plan{decisions: order, providerRuns: providerRuns}

	noToolkit := len(r.turn.Tools) == 0
	if r.agent.faults.Has(fault.EmptyToolkitUnchecked) {
		noToolkit = r.turn.Tools == nil
	}
	if len(p.decisions) > 0 && noToolkit && !r.agent.faults.Has(fault.NoToolkitCheck) {
		names := make([]string, len(p.decisions))
		for i, d := range p.decisions {
			names[i] = d.call.ToolName
		}
		return nil, toolkitRequired(names)
	}
	if !r.agent.faults.Has(fault.NoSignatureCheck) {
		for _, d := range p.decisions {
			if r.agent.faults.Has(fault.ExemptForgeryUnchecked) && r.policyExempts(d) {
				continue // the mutant verifies only what its policy would ask about
			}
			if d.approved && !r.agent.verify(d.request.Signature, d.approvalID, d.call.ToolCallID, d.call.ToolName, d.call.Input) {
				return nil, &Error{Code: InvalidApproval, Message: fmt.Sprintf(
					"approval %s for call %s (%s) was not issued by this runtime, or the call changed after it was issued: its signature does not match",
					d.approvalID, d.call.ToolCallID, d.call.ToolName)}
			}
		}
	}
	if !r.agent.faults.Has(fault.ValidateLate) && !r.agent.faults.Has(fault.SkipUnknownTool) && len(r.turn.Tools) > 0 {
		if err := r.checkToolsExist(p); err != nil {
			return nil, err
		}
	}
	if r.agent.faults.Has(fault.RunUnanswered) {
		// The mutant takes a call still waiting for its answer as approved.
		for _, id := range ix.CallOrder {
			call, _ := ix.Call(id)
			req, hasReq := ix.RequestForCall(id)
			_, hasResult := ix.Result(id)
			if _, decided := byCall[id]; decided || !hasReq || hasResult || call.ProviderExecuted {
				continue
			}
			d := &decision{approvalID: req.ApprovalID, request: req, call: call, callMsg: ix.Calls[id].Message, callPos: position[id], approved: true}
			byCall[id] = d
			p.decisions = append(p.decisions, d)
		}
	}
	if err := r.checkAllAnswered(ix, byCall); err != nil {
		return nil, err
	}
	return p, nil
}

// latestOpenRequest is the request of the latest call still without a
// result: what a mutant takes a lone stray answer to mean.
func latestOpenRequest(ix *model.Index, requests map[string]model.Loc) (model.Loc, bool) {
	var best model.Loc
	found := false
	for _, loc := range requests {
		if _, done := ix.Result(ix.Part(loc).ToolCallID); done {
			continue
		}
		if !found || loc.Message > best.Message || (loc.Message == best.Message && loc.Part > best.Part) {
			best, found = loc, true
		}
	}
	return best, found
}

// policyExempts reports whether the call's dynamic policy, asked again,
// needs no approval for it.
func (r *run) policyExempts(d *decision) bool {
	tool, ok := r.tools[d.call.ToolName]
	return ok && tool.Approval.kind == "dynamic" && !r.needsApproval(context.Background(), tool, d.call, r.history)
}

func (r *run) checkToolsExist(p *plan) error {
	for _, d := range p.decisions {
		if _, ok := r.tools[d.call.ToolName]; d.approved && !ok {
			return toolNotFound(d.call.ToolName, r.toolNames)
		}
	}
	return nil
}

// checkAllAnswered refuses a history in which a local call would reach the
// model without a result: neither answered nor resolved.
func (r *run) checkAllAnswered(ix *model.Index, decided map[string]*decision) error {
	var missing []string
	for _, id := range ix.CallOrder {
		call, _ := ix.Call(id)
		if call.ProviderExecuted {
			continue
		}
		if _, ok := ix.Result(id); ok {
			continue
		}
		if _, ok := decided[id]; ok {
			continue
		}
		if req, ok := ix.RequestForCall(id); ok {
			missing = append(missing, fmt.Sprintf("%s (%s, approval %s has no response)", id, call.ToolName, req.ApprovalID))
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s, no result)", id, call.ToolName))
		}
	}
	if len(missing) > 0 {
		return &Error{Code: MissingToolResults, Message: "tool calls without a result or an approval response: " + strings.Join(missing, ", ")}
	}
	return nil
}

// validateHistory refuses histories that cannot be interpreted safely.
func validateHistory(h []model.Message, ix *model.Index) error {
	seen := map[string]int{}
	for i, m := range h {
		for _, p := range m.Content {
			if p.Type != model.PartToolCall {
				continue
			}
			if first, dup := seen[p.ToolCallID]; dup {
				return &Error{Code: InvalidMessages, Message: fmt.Sprintf(
					"tool call id %q is used by two calls (messages[%d] and messages[%d])", p.ToolCallID, first, i)}
			}
			seen[p.ToolCallID] = i
		}
	}
	for id, loc := range ix.Requests {
		req := ix.Part(loc)
		if call, ok := ix.Calls[req.ToolCallID]; ok && call.Message > loc.Message {
			return &Error{Code: InvalidMessages, Message: fmt.Sprintf(
				"approval request %s (messages[%d]) comes before its call %s (messages[%d])", id, loc.Message, req.ToolCallID, call.Message)}
		}
	}
	return nil
}

// resolve runs the approved calls, turns the denied ones into denial
// results, and appends the results as one tool message.
func (r *run) resolve(ctx context.Context, p *plan) error {
	outputs := make([]*model.ToolOutput, len(p.decisions))
	denied := map[int]bool{} // assistant messages with a denied call
	var jobs []job
	for i, d := range p.decisions {
		i, d := i, d
		if !d.approved {
			outputs[i] = r.denialOutput(d.reason)
			denied[d.callMsg] = true
			if r.agent.faults.Has(fault.ExecuteDenied) {
				if tool, ok := r.tools[d.call.ToolName]; ok {
					jobs = append(jobs, job{run: func(ctx context.Context) { r.execute(ctx, tool, d.call) }})
				}
			}
			continue
		}
		if denied[d.callMsg] {
			switch {
			case r.agent.faults.Has(fault.LostResultsOnPartialDenial):
				continue // the rest of the step is never processed
			case r.denialPolicy() == AbortRemaining && r.agent.faults.Has(fault.WrongSkipText):
				outputs[i] = model.ErrorTextOutput("Error: Tool execution skipped.")
				continue
			case r.denialPolicy() == AbortRemaining:
				outputs[i] = model.ErrorTextOutput(SkippedText)
				continue
			}
		}
		tool, ok := r.tools[d.call.ToolName]
		if !ok {
			continue // SkipUnknownTool or ValidateLate mutants; the clean runtime refused earlier
		}
		runs := 1
		if r.agent.faults.Has(fault.DoubleExecuteDuplicates) {
			runs += d.duplicates
		}
		if r.agent.faults.Has(fault.ExecuteTwice) {
			runs++
		}
		if r.agent.faults.Has(fault.RerunApprovedOnPartialDenial) && r.stepHasDenial(p, d.callMsg) {
			runs++
		}
		jobs = append(jobs, job{run: func(ctx context.Context) {
			outputs[i] = r.executeApproved(ctx, tool, d, runs)
		}})
	}
	for _, call := range p.providerRuns {
		if tool, ok := r.tools[call.ToolName]; ok {
			call := call
			jobs = append(jobs, job{run: func(ctx context.Context) { r.execute(ctx, tool, call) }})
		}
	}
	if r.agent.faults.Has(fault.ValidateLate) {
		// The mutant runs what it can first and validates afterwards.
		r.runJobs(ctx, jobs)
		if err := r.checkToolsExist(p); err != nil {
			return err
		}
	} else {
		r.runJobs(ctx, jobs)
	}
	if err := ctx.Err(); err != nil {
		return &Error{Code: Other, Message: "turn canceled while running approved tools", Err: err}
	}

	var parts []model.Part
	for i, d := range p.decisions {
		if outputs[i] == nil {
			continue
		}
		parts = append(parts, model.ToolResult(d.call.ToolCallID, d.call.ToolName, outputs[i]))
	}
	if len(parts) == 0 {
		return nil
	}
	msg := model.Message{Role: model.RoleTool, Content: parts}
	if r.agent.faults.Has(fault.ResultsAfterModelCall) {
		r.deferred = &msg
		return nil
	}
	return r.addResults(msg)
}

// denialPolicy is the turn's denial policy.
func (r *run) denialPolicy() DenialPolicy {
	if r.turn.DenialPolicy != "" {
		return r.turn.DenialPolicy
	}
	return r.agent.denial
}

func (r *run) stepHasDenial(p *plan, msg int) bool {
	for _, d := range p.decisions {
		if d.callMsg == msg && !d.approved {
			return true
		}
	}
	return false
}

// addResults appends a tool message of results and emits their events.
func (r *run) addResults(msg model.Message) error {
	if r.agent.faults.Has(fault.DenialsMissingFromTurn) {
		// The model gets every result; the turn reports (and streams)
		// only those that are not denials.
		r.history = append(r.history, msg)
		kept := model.Message{Role: msg.Role}
		for _, p := range msg.Content {
			if p.Output == nil || p.Output.Type != model.OutputExecutionDenied {
				kept.Content = append(kept.Content, p)
			}
		}
		if len(kept.Content) == 0 {
			return nil
		}
		r.added = append(r.added, kept)
		msg = kept
	} else {
		r.append(msg)
	}
	if r.agent.faults.Has(fault.DuplicateResultsMessage) {
		r.added = append(r.added, msg) // the turn reports it twice; the prompt holds it once
	}
	if r.agent.faults.Has(fault.StreamDropsResultEvents) {
		return nil
	}
	for _, part := range msg.Content {
		if err := r.emit(model.PartEvent(part)); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) denialOutput(reason string) *model.ToolOutput {
	switch {
	case r.agent.faults.Has(fault.DenialAsText):
		return model.TextOutput("denied")
	case r.agent.faults.Has(fault.DropDenialReason):
		return model.DeniedOutput("")
	case r.agent.untyped:
		if reason == "" {
			return model.TextOutput("Tool execution was denied by the user.")
		}
		return model.TextOutput("Tool execution was denied by the user: " + reason)
	}
	return model.DeniedOutput(reason)
}

// executeApproved runs an approved call once, unless the ledger shows the
// approval already ran (a replay or a duplicate).
func (r *run) executeApproved(ctx context.Context, tool Tool, d *decision, runs int) *model.ToolOutput {
	if r.agent.faults.Has(fault.NoReplayLedger) {
		var out *model.ToolOutput
		for i := 0; i < runs; i++ {
			out = r.execute(ctx, tool, d.ranCall(r.agent.faults))
		}
		return out
	}
	key := d.approvalID
	if r.agent.faults.Has(fault.LedgerKeyedByAction) {
		key = d.call.ToolName + "\n" + string(canonicalJSON(d.call.Input)) // the mutant's key: the action, not the approval
	}
	prior, seen, record, err := r.agent.ledger.claim(ctx, key)
	if err != nil {
		return model.ErrorTextOutput("Error: " + err.Error())
	}
	if seen {
		if prior == nil {
			return model.ErrorTextOutput("Error: an earlier run of this approval did not complete; it is not run again.")
		}
		return prior
	}
	var out *model.ToolOutput
	defer func() { record(out) }()
	for i := 0; i < runs; i++ {
		out = r.execute(ctx, tool, d.ranCall(r.agent.faults))
	}
	return out
}
