package reference

import (
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference/internal/fault"
)

// prompt builds what the model receives from the conversation:
//
//   - approval requests and responses are stripped, except the responses of
//     provider-executed calls, which are forwarded with providerExecuted set;
//   - orphan responses (matching no request) never reach the model;
//   - every local call's result is placed right after the assistant message
//     holding the call, in call order, wherever it sat in the history, so the
//     provider's adjacency rules hold; results of unknown calls and second
//     results of a call are dropped;
//   - messages left empty are dropped.
func (r *run) prompt() []model.Message {
	h := r.history
	ix := model.IndexOf(h)
	faults := r.agent.faults
	out := make([]model.Message, 0, len(h)+1)
	placed := map[string]bool{}
	edits := editedInputs(h, ix, faults)

	for _, m := range h {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			out = append(out, model.Clone([]model.Message{m})[0])
		case model.RoleAssistant:
			msg := model.Message{Role: m.Role, ID: m.ID, ProviderOptions: m.ProviderOptions}
			var calls []string
			for _, p := range m.Content {
				if p.Type == model.PartToolApprovalRequest && !faults.Has(fault.KeepApprovalParts) {
					continue
				}
				if p.Type == model.PartToolCall && !p.ProviderExecuted {
					calls = append(calls, p.ToolCallID)
				}
				msg.Content = append(msg.Content, asEdited(p.Clone(), edits))
			}
			if len(msg.Content) > 0 {
				out = append(out, msg)
			}
			if faults.Has(fault.NoResultPlacement) {
				continue
			}
			results := model.Message{Role: model.RoleTool}
			for _, id := range calls {
				if res, ok := ix.Result(id); ok && !placed[id] {
					placed[id] = true
					results.Content = append(results.Content, r.historicResult(res))
				}
			}
			if len(results.Content) > 0 {
				out = append(out, results)
			}
		case model.RoleTool:
			msg := model.Message{Role: m.Role, ID: m.ID, ProviderOptions: m.ProviderOptions}
			for _, p := range m.Content {
				switch p.Type {
				case model.PartToolResult:
					if faults.Has(fault.NoResultPlacement) {
						msg.Content = append(msg.Content, r.historicResult(p))
					}
				case model.PartToolApprovalResponse:
					if q, keep := r.forwardResponse(ix, p); keep {
						msg.Content = append(msg.Content, q)
					}
				}
			}
			if len(msg.Content) > 0 {
				out = append(out, msg)
			}
		}
	}
	return out
}

// forwardResponse decides whether an approval response reaches the model.
func (r *run) forwardResponse(ix *model.Index, p model.Part) (model.Part, bool) {
	faults := r.agent.faults
	req, ok := ix.Request(p.ApprovalID)
	if !ok {
		return p.Clone(), faults.Has(fault.ForwardOrphans)
	}
	call, ok := ix.Call(req.ToolCallID)
	if ok && call.ProviderExecuted {
		if !p.ProviderExecuted && faults.Has(fault.DropUnflaggedProviderApproval) {
			return p, false
		}
		q := p.Clone()
		q.ProviderExecuted = true
		if !p.Approved && faults.Has(fault.UnflaggedDenialStaysUnflagged) {
			q.ProviderExecuted = p.ProviderExecuted // the mutant flags approvals only
		}
		return q, true
	}
	if !ok {
		return p.Clone(), faults.Has(fault.ForwardOrphans)
	}
	return p.Clone(), faults.Has(fault.KeepApprovalParts)
}

// historicResult returns a result as the model sees it. The clean runtime
// keeps it as it is; a mutant rewrites old denials as error text.
func (r *run) historicResult(p model.Part) model.Part {
	q := p.Clone()
	if r.agent.faults.Has(fault.RewriteOldDenials) && q.Output != nil && q.Output.Type == model.OutputExecutionDenied && !r.addedResult(q.ToolCallID) {
		reason := q.Output.Reason
		if reason == "" {
			reason = DefaultDenialReason
		}
		q.Output = model.ErrorTextOutput(reason)
	}
	return q
}

// addedResult reports whether this turn produced the result for the call.
func (r *run) addedResult(toolCallID string) bool {
	for _, m := range r.added {
		for _, p := range m.Content {
			if p.Type == model.PartToolResult && p.ToolCallID == toolCallID {
				return true
			}
		}
	}
	return false
}
