package steps

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/approval-conformance-kit/ack/model"
)

// Edited approvals (EDIT-01, EDIT-02): an approving answer that carries
// editedInput, for targets that declare editedApprovals.

// approvesEdited approves a call with its input edited.
func (u *user) approvesEdited(ctx context.Context, callID, input string) error {
	w := u.world()
	if err := w.requireFeature("editedApprovals", "edited approvals"); err != nil {
		return err
	}
	if !json.Valid([]byte(input)) {
		return fmt.Errorf("the edited input of %s is not JSON: %s", callID, input)
	}
	p, err := u.response(callID, true, "")
	if err != nil {
		return err
	}
	p.EditedInput = json.RawMessage(input)
	return w.send(ctx, toolMessage(p))
}

// receivedEditedCall: the prompt of a model call holds the call with the
// edited input, and a result for it after it.
func (t *then) receivedEditedCall(_ context.Context, call int, callID, input string) error {
	prompt, err := t.prompt(call)
	if err != nil {
		return err
	}
	c, ok := model.IndexOf(prompt).Call(callID)
	if !ok {
		return fmt.Errorf("model call %d received no call %s", call, callID)
	}
	if !model.JSONEqual(c.Input, json.RawMessage(input)) {
		return fmt.Errorf("model call %d received the call %s with %s, want the edited input %s: the model is told its own call ran", call, callID, c.Input, input)
	}
	if len(resultsFor(prompt, callID)) == 0 {
		return fmt.Errorf("model call %d received the call %s without a result", call, callID)
	}
	return nil
}
