package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// Edited approvals (EDIT-01, EDIT-02): an approving answer that carries
// editedInput, for targets that declare editedApprovals.

// approvesEdited approves a call with its input edited.
func (u *user) approvesEdited(ctx context.Context, callID, input string) error {
	p, err := u.edited(callID, input)
	if err != nil {
		return err
	}
	return u.world().send(ctx, toolMessage(p))
}

// edited is an approving answer for callID with its input edited to input.
func (u *user) edited(callID, input string) (model.Part, error) {
	if err := u.world().requireFeature("editedApprovals", "edited approvals"); err != nil {
		return model.Part{}, err
	}
	if !json.Valid([]byte(input)) {
		return model.Part{}, fmt.Errorf("the edited input of %s is not JSON: %s", callID, input)
	}
	p, err := u.response(callID, true, "")
	if err != nil {
		return model.Part{}, err
	}
	p.EditedInput = json.RawMessage(input)
	return p, nil
}

// approvesEditedBeside answers two calls in one message: one approved with
// its input edited, the other approved as the model made it.
func (u *user) approvesEditedBeside(ctx context.Context, callID, input, plainID string) error {
	p, err := u.edited(callID, input)
	if err != nil {
		return err
	}
	q, err := u.response(plainID, true, "")
	if err != nil {
		return err
	}
	return u.world().send(ctx, toolMessage(p, q))
}

// approvesEditedAfterOrphan sends, in one message, an answer whose approval
// id matches no request and then an edited approval of callID.
func (u *user) approvesEditedAfterOrphan(ctx context.Context, callID, input, unknown string) error {
	p, err := u.edited(callID, input)
	if err != nil {
		return err
	}
	return u.world().send(ctx, toolMessage(model.ApprovalResponse(unknown, true, ""), p))
}

// approvesEditedTwice approves callID twice in one message, each time with
// another edited input: a conflict of edits no conforming client sends.
func (u *user) approvesEditedTwice(ctx context.Context, callID, first, second string) error {
	p, err := u.edited(callID, first)
	if err != nil {
		return err
	}
	q, err := u.edited(callID, second)
	if err != nil {
		return err
	}
	return u.world().send(ctx, toolMessage(p, q))
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
		// A result missing from the prompt is the rule of the answer's
		// check (PRE-01), not of the input the model is shown.
		return blocked("model call %d received the call %s without a result: whether its result reaches the model is PRE-01's rule", call, callID)
	}
	return nil
}

// receivedEditedCallOrRefused: as receivedEditedCall, or the turn refused
// the message with a clear error (PRE-04 lets a runtime refuse a message
// that holds an answer matching no request).
func (t *then) receivedEditedCallOrRefused(ctx context.Context, call int, callID, input string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if e := last.Response.Error; e != nil && (e.Code == "InvalidApproval" || e.Code == "InvalidMessages") && strings.TrimSpace(e.Message) != "" {
		return nil
	}
	return t.receivedEditedCall(ctx, call, callID, input)
}

// sawAsRan: every prompt that holds the call beside its result shows it
// with the input it ran with (whichever of several edits the runtime
// honoured). A call that never ran is judged by other rules.
func (t *then) sawAsRan(_ context.Context, callID string) error {
	w := t.world()
	runs := w.runsOf(callID)
	if len(runs) == 0 || w.sim == nil {
		return nil
	}
	ran := runs[0].Input
	seen := 0
	for _, e := range w.sim.Journal() {
		c, ok := model.IndexOf(e.Prompt).Call(callID)
		if !ok || len(resultsFor(e.Prompt, callID)) == 0 {
			continue
		}
		seen++
		if !model.JSONEqual(c.Input, ran) {
			return fmt.Errorf("model call %d received the call %s with %s beside its result, but it ran with %s: the model is told another input ran", e.Call, callID, c.Input, ran)
		}
	}
	if seen == 0 {
		return blocked("no prompt held %s beside its result (whether its result reached the model is another rule's)", callID)
	}
	return nil
}
