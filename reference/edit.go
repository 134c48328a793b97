package reference

import (
	"encoding/json"

	"github.com/approval-conformance-kit/ack/model"
)

// Edited approvals: an approving tool-approval-response may carry
// editedInput, the input the user approved instead of the model's. The
// call then runs with the edited input, never the original, and the model
// sees the call as it ran: the edited input beside its result. An edit on
// a denial changes nothing (nothing runs).

// ranCall is the call as the decision runs it: with the edited input of
// an approving answer that carries one.
func (d *decision) ranCall() model.Part {
	if !d.approved || len(d.edited) == 0 {
		return d.call
	}
	c := d.call.Clone()
	c.Input = d.edited
	return c
}

// editedInputs maps each local call of the history whose first approving
// answer edited its input to that input.
func editedInputs(h []model.Message, ix *model.Index) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	answered := map[string]bool{}
	for _, loc := range ix.ResponseOrder {
		resp := ix.Part(loc)
		req, ok := ix.Request(resp.ApprovalID)
		if !ok || answered[req.ToolCallID] {
			continue
		}
		answered[req.ToolCallID] = true
		if resp.Approved && len(resp.EditedInput) > 0 {
			out[req.ToolCallID] = resp.EditedInput
		}
	}
	return out
}

// asEdited is a call part of the prompt as it ran: with its edited input,
// if its approval edited it.
func asEdited(p model.Part, edits map[string]json.RawMessage) model.Part {
	if p.Type != model.PartToolCall || p.ProviderExecuted {
		return p
	}
	if in, ok := edits[p.ToolCallID]; ok {
		p.Input = in
	}
	return p
}
