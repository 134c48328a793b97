package reference

import "github.com/approval-conformance-kit/ack/model"

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
	out := make([]model.Message, 0, len(h)+1)
	placed := map[string]bool{}
	edits := editedInputs(h, ix)

	for _, m := range h {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			out = append(out, model.Clone([]model.Message{m})[0])
		case model.RoleAssistant:
			msg := model.Message{Role: m.Role, ID: m.ID, ProviderOptions: m.ProviderOptions}
			var calls []string
			for _, p := range m.Content {
				if p.Type == model.PartToolApprovalRequest {
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
			results := model.Message{Role: model.RoleTool}
			for _, id := range calls {
				if res, ok := ix.Result(id); ok && !placed[id] {
					placed[id] = true
					results.Content = append(results.Content, res.Clone())
				}
			}
			if len(results.Content) > 0 {
				out = append(out, results)
			}
		case model.RoleTool:
			msg := model.Message{Role: m.Role, ID: m.ID, ProviderOptions: m.ProviderOptions}
			for _, p := range m.Content {
				// A result was placed after its call above.
				if p.Type != model.PartToolApprovalResponse {
					continue
				}
				if q, keep := r.forwardResponse(ix, p); keep {
					msg.Content = append(msg.Content, q)
				}
			}
			if len(msg.Content) > 0 {
				out = append(out, msg)
			}
		}
	}
	return out
}

// forwardResponse decides whether an approval response reaches the model:
// only the answer to a provider-executed call does (the provider runs the
// call), flagged providerExecuted whatever the client sent.
func (r *run) forwardResponse(ix *model.Index, p model.Part) (model.Part, bool) {
	req, ok := ix.Request(p.ApprovalID)
	if !ok {
		return model.Part{}, false // an orphan response
	}
	call, ok := ix.Call(req.ToolCallID)
	if !ok || !call.ProviderExecuted {
		return model.Part{}, false
	}
	q := p.Clone()
	q.ProviderExecuted = true
	return q, true
}
