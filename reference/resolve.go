package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
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
}

// plan is what pre-resolution will do.
type plan struct {
	decisions []*decision
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

	byCall := map[string]*decision{}
	var order []*decision
	for _, loc := range ix.ResponseOrder {
		resp := ix.Part(loc)
		reqLoc, ok := ix.Requests[resp.ApprovalID]
		if !ok {
			if r.agent.refuseOrphans {
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
			continue // the provider's own approval: forwarded, never run here
		}
		if len(ix.Results[call.ToolCallID]) > 0 {
			continue // already has a result: never run again
		}
		d, seen := byCall[call.ToolCallID]
		if !seen {
			d = &decision{approvalID: req.ApprovalID, request: req, call: call, callMsg: ix.Calls[call.ToolCallID].Message,
				callPos: position[call.ToolCallID], approved: resp.Approved, reason: resp.Reason, edited: resp.EditedInput}
			byCall[call.ToolCallID] = d
			order = append(order, d)
			continue
		}
		if d.approved != resp.Approved {
			// Conflicting answers for one call: fail safe, deny.
			if d.approved {
				d.reason = resp.Reason
			}
			d.approved = false
			if d.reason == "" {
				d.reason = "conflicting approval responses"
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].callPos < order[j].callPos })
	p := &plan{decisions: order}

	if len(p.decisions) > 0 && len(r.turn.Tools) == 0 {
		names := make([]string, len(p.decisions))
		for i, d := range p.decisions {
			names[i] = d.call.ToolName
		}
		return nil, toolkitRequired(names)
	}
	for _, d := range p.decisions {
		if d.approved && !r.agent.verify(d.request.Signature, d.approvalID, d.call.ToolCallID, d.call.ToolName, d.call.Input) {
			return nil, &Error{Code: InvalidApproval, Message: fmt.Sprintf(
				"approval %s for call %s (%s) was not issued by this runtime, or the call changed after it was issued: its signature does not match",
				d.approvalID, d.call.ToolCallID, d.call.ToolName)}
		}
	}
	if len(r.turn.Tools) > 0 {
		if err := r.checkToolsExist(p); err != nil {
			return nil, err
		}
	}
	if err := r.checkAllAnswered(ix, byCall); err != nil {
		return nil, err
	}
	return p, nil
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
			continue
		}
		if denied[d.callMsg] && r.denialPolicy() == AbortRemaining {
			outputs[i] = model.ErrorTextOutput(SkippedText)
			continue
		}
		tool, ok := r.tools[d.call.ToolName]
		if !ok {
			continue // collect refused an approved call to a missing tool
		}
		jobs = append(jobs, job{run: func(ctx context.Context) {
			outputs[i] = r.executeApproved(ctx, tool, d)
		}})
	}
	r.runJobs(ctx, jobs)
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
	return r.addResults(msg)
}

// denialPolicy is the turn's denial policy.
func (r *run) denialPolicy() DenialPolicy {
	if r.turn.DenialPolicy != "" {
		return r.turn.DenialPolicy
	}
	return r.agent.denial
}

// addResults appends a tool message of results and emits their events.
func (r *run) addResults(msg model.Message) error {
	r.append(msg)
	for _, part := range msg.Content {
		if err := r.emit(model.PartEvent(part)); err != nil {
			return err
		}
	}
	return nil
}

// denialOutput is the result of a denied call: an execution-denied output
// with the user's reason or, untyped, a text result saying it.
func (r *run) denialOutput(reason string) *model.ToolOutput {
	if r.agent.noReasons {
		reason = ""
	}
	if !r.agent.untyped {
		return model.DeniedOutput(reason)
	}
	if reason == "" {
		return model.TextOutput("Tool execution was denied by the user.")
	}
	return model.TextOutput("Tool execution was denied by the user: " + reason)
}

// executeApproved runs an approved call once, unless the ledger shows the
// approval already ran (a replay or a duplicate).
func (r *run) executeApproved(ctx context.Context, tool Tool, d *decision) *model.ToolOutput {
	prior, seen, record, err := r.agent.ledger.claim(ctx, d.approvalID)
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
	out = r.execute(ctx, tool, d.ranCall())
	return out
}
