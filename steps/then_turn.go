package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// The assertions of the outcome of a turn: how it ended, or the clear refusal a rule asks for (PRE-05, PRE-06, ERR-01, ERR-02).

func (t *then) finishReason(_ context.Context, want string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if got := last.Response.FinishReason; got != want {
		if late := t.world().askedLate(last.Response.Messages); got == "tool-calls" && len(late) > 0 {
			return blocked("the turn ended with finish reason %q, want %q: it asks approval for %s, which an earlier turn did not ask (REQ-01's failure, charged there)", got, want, strings.Join(late, ", "))
		}
		return fmt.Errorf("the turn ended with finish reason %q, want %q", got, want)
	}
	return nil
}

func (t *then) failsWith(_ context.Context, code string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if last.Response.Error == nil {
		return fmt.Errorf("the turn succeeded (finish reason %q), want it to fail with %s", last.Response.FinishReason, code)
	}
	if got := last.Response.Error.Code; got != code {
		return crashedIfOther(last.Response.Error, fmt.Errorf("the turn failed with %s (%s), want %s", got, last.Response.Error.Message, code))
	}
	return nil
}

// failsClearly: the turn was refused as invalid input, with a message.
func (t *then) failsClearly(_ context.Context) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	e := last.Response.Error
	if e == nil {
		return fmt.Errorf("the turn succeeded (finish reason %q), want it refused with a clear error", last.Response.FinishReason)
	}
	if e.Code != "InvalidMessages" && e.Code != "InvalidApproval" {
		return crashedIfOther(e, fmt.Errorf("the turn failed with %s (%s), want InvalidMessages or InvalidApproval", e.Code, e.Message))
	}
	if strings.TrimSpace(e.Message) == "" {
		return harmed(checks.Crashed, fmt.Errorf("the turn failed with %s but no message says why", e.Code))
	}
	return nil
}

func (t *then) failsOrDenied(_ context.Context, code, callID string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if e := last.Response.Error; e != nil {
		clear := e.Code == code
		if code == "ToolNotFound" && (e.Code == "InvalidApproval" || e.Code == "InvalidMessages") && strings.TrimSpace(e.Message) != "" {
			clear = true // an SDK without a ToolNotFound error refuses the turn clearly
		}
		if !clear {
			return crashedIfOther(e, fmt.Errorf("the turn failed with %s (%s), want %s or a denial result for %s", e.Code, e.Message, code, callID))
		}
		if runs := t.world().runsOf(callID); len(runs) > 0 {
			return harmed(checks.RanAgainstAnswer, fmt.Errorf("the turn failed with %s, but %s ran %d time(s)%s", e.Code, callID, len(runs), turnsOf(runs)))
		}
		return nil
	}
	untyped := t.world().info.Features.UntypedResults
	for _, m := range last.Response.Messages {
		for _, p := range m.Content {
			if p.Type == model.PartToolResult && p.ToolCallID == callID && p.Output != nil && (untyped || p.Output.Type == model.OutputExecutionDenied) {
				if runs := t.world().runsOf(callID); len(runs) > 0 {
					return harmed(checks.RanAgainstAnswer, fmt.Errorf("%s got a result, but it ran %d time(s): a denial result is for a call that does not run", callID, len(runs)))
				}
				return nil
			}
		}
	}
	if err := t.deniedInPrompt(last, callID); err != nil {
		return err
	}
	return fmt.Errorf("the turn neither failed with %s nor gave %s a denial result (messages: %s)", code, callID, summarize(last.Response.Messages))
}

// deniedInPrompt judges a call the turn's messages hold no result for by
// what reached the model instead: when a model call of the turn received
// exactly one result for it, a denial (any result, for an untyped target),
// and it never ran, the call stayed a denial; the result missing from the
// messages is charged to the rule that requires it there. It returns nil
// when the prompt shows nothing of the kind.
func (t *then) deniedInPrompt(last *turnRecord, callID string) error {
	w := t.world()
	if w.sim == nil {
		return nil
	}
	for _, e := range w.sim.Journal() {
		if e.Call < last.FirstModelCall || e.Call > last.LastModelCall {
			continue
		}
		call := e.Call
		res := resultsFor(e.Prompt, callID)
		if len(res) != 1 {
			continue
		}
		why := fmt.Sprintf("model call %d received a result for %s, but turn %d added none to its messages (messages: %s)", call, callID, last.N, summarize(last.Response.Messages))
		var own error
		switch {
		case len(w.runsOf(callID)) > 0:
			own = harmed(checks.RanAgainstAnswer, fmt.Errorf("%s got a result, but it ran %d time(s): a denial result is for a call that does not run", callID, len(w.runsOf(callID))))
		case w.info.Features.UntypedResults:
		case e.Lossy:
			own = blocked("%s: over a provider wire its type is read from those messages", why)
		case res[0].Output.Type != model.OutputExecutionDenied:
			own = harmed(checks.Lost, fmt.Errorf("model call %d received a %s result for %s, want a denial", call, res[0].Output.Type, callID))
		}
		lost := harmSpec{harm: checks.Lost, show: resultNeverSeen(last.N, callID), byEnd: true}
		if turnResultRules[w.check] {
			return &harmError{spec: lost, err: errors.New(why)}
		}
		return &chargedError{check: w.resultRule(last, callID), why: why, own: own, spec: lost}
	}
	return nil
}

// asksOrFails: the turn asked approval for the call, or refused the turn
// with a clear error of its own (a model error is no refusal: the model
// was called).
func (t *then) asksOrFails(_ context.Context, callID string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if e := last.Response.Error; e != nil {
		if e.Code == "Model" {
			if _, rejected := t.world().rejectedIn(last); rejected {
				return blocked("turn %d failed because the model refused its prompt", last.N)
			}
			return fmt.Errorf("the turn failed with a model error (%s), want an approval request for %s or a refusal of the turn", e.Message, callID)
		}
		if strings.TrimSpace(e.Message) == "" {
			return harmed(checks.Crashed, fmt.Errorf("the turn failed with %s but no message says why", e.Code))
		}
		made := false
		for _, c := range t.world().callsMadeIn(last) {
			made = made || c.ID == callID
		}
		if !made {
			return fmt.Errorf("the turn failed with %s before the model made the call %s: its approval was never at stake", e.Code, callID)
		}
		return nil
	}
	if !hasRequest(last.Response.Messages, callID) {
		return fmt.Errorf("the turn neither failed nor asked approval for %s", callID)
	}
	return nil
}

// failsClearlyOrDenied: the turn was refused as invalid input with a
// message, or the call got a denial result and did not run.
func (t *then) failsClearlyOrDenied(ctx context.Context, callID string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if last.Response.Error != nil {
		return t.failsClearly(ctx)
	}
	return t.failsOrDenied(ctx, "InvalidMessages", callID)
}

// failedAsDeclared (ERR-02): a tool that failed gives the model an error
// result with its message (toolErrors "result", the default), or fails the
// turn with ToolExecution and a message that says so (toolErrors
// "turn-error"); never a dangling call.
func (t *then) failedAsDeclared(ctx context.Context, callID, text string) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	if w.info.Features.ToolErrors == "turn-error" {
		e := last.Response.Error
		if e == nil {
			return fmt.Errorf("the target declares that a failing tool fails the turn, but the turn succeeded (finish reason %q)", last.Response.FinishReason)
		}
		if w.server != nil {
			// A chat stream's error carries no code: its text says it.
			if !strings.Contains(e.Message, text) {
				return fmt.Errorf("the chat stream failed with %q, which does not say %q", e.Message, text)
			}
			return nil
		}
		if e.Code != "ToolExecution" {
			return fmt.Errorf("the turn failed with %s (%s), want ToolExecution for the failure of %s", e.Code, e.Message, callID)
		}
		if !strings.Contains(e.Message+" "+e.SDKError, text) {
			return fmt.Errorf("the turn failed with ToolExecution, but its message %q does not say %q", e.Message, text)
		}
		return nil
	}
	if last.FirstModelCall > last.LastModelCall {
		if e := last.Response.Error; e != nil {
			return fmt.Errorf("the turn failed with %s (%s) instead of giving the model an error result for %s (the target declares toolErrors: result)", e.Code, e.Message, callID)
		}
		return fmt.Errorf("the model was not called after %s failed: its error result never reached the model", callID)
	}
	// The prompt first: a failing tool with no result leaves a dangling
	// call there, which is this rule's failure (not only WIRE-01's). The
	// tool's own message is not required: an SDK may hide it. An approved
	// call's result is in the turn's first prompt; a call the model made
	// in this turn (one that needed no approval) has it in the prompt of
	// the model call after the one that made it.
	first := last.FirstModelCall
	if made := w.modelCallThatMade(last, callID); made > 0 {
		if made == last.LastModelCall {
			return fmt.Errorf("the model was not called after %s failed: its error result never reached the model", callID)
		}
		first = made + 1
	}
	call, ok := w.scenarioNumber(first)
	if !ok {
		return blocked("model call %d of turn %d was not scripted", first, last.N)
	}
	res, err := t.typedResult(call, callID)
	if err != nil {
		return err
	}
	if !w.info.Features.UntypedResults && (!res.Output.IsFailure() || res.Output.Type == model.OutputExecutionDenied) {
		return fmt.Errorf("model call %d received a %s result for the failed call %s, want an error result", call, res.Output.Type, callID)
	}
	if w.server != nil {
		return nil // what the client gets is judged by the chat stream's assertions
	}
	turn, err := w.lastOK()
	if err != nil {
		return err
	}
	out, ok := model.IndexOf(turn.Response.Messages).Result(callID)
	if !ok {
		return fmt.Errorf("the turn added no result for the failed call %s (messages: %s)", callID, summarize(turn.Response.Messages))
	}
	if !w.info.Features.UntypedResults && (!out.Output.IsFailure() || out.Output.Type == model.OutputExecutionDenied) {
		return fmt.Errorf("the turn's result for the failed call %s is of type %s, want an error result", callID, out.Output.Type)
	}
	return nil
}

// finishesOrRefuses: the turn finished, or refused its input as invalid
// with a message; a model error (the model was called and failed) is
// neither.
func (t *then) finishesOrRefuses(_ context.Context) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	e := last.Response.Error
	switch {
	case e == nil:
		return nil
	case e.Code == "Model":
		if _, rejected := w.rejectedIn(last); rejected {
			return blocked("turn %d failed because the model refused its prompt", last.N)
		}
		return fmt.Errorf("the turn failed with a model error (%s), want it finished or refused", e.Message)
	case e.Code != "InvalidMessages" && e.Code != "InvalidApproval" && e.Code != "MissingToolResults":
		return fmt.Errorf("the turn failed with %s (%s), want it finished or refused as invalid input", e.Code, e.Message)
	case strings.TrimSpace(e.Message) == "":
		return harmed(checks.Crashed, fmt.Errorf("the turn refused its input with %s but no message says why", e.Code))
	}
	return nil
}

// crashedIfOther grades a turn that failed with another error than the
// clear refusal due. An error of code Other that says nothing, or that is
// the runtime's own fault (a TypeError, a nil pointer, a panic), does not
// say what is wrong with the input: crashed. Any other error refuses the
// input under another name, which harms nobody.
func crashedIfOther(e *target.TurnError, err error) error {
	if e != nil && e.Code == "Other" && runtimeFault(e) {
		return harmed(checks.Crashed, fmt.Errorf("%w: the runtime failed on its own fault instead of refusing the input", err))
	}
	return err
}

// faultMarkers are the words of an error that is a program's own fault,
// not a refusal of its input.
var faultMarkers = []string{"TypeError", "ReferenceError", "RangeError: Maximum call stack", "Cannot read propert", "is not a function",
	"is not iterable", "undefined is not", "null pointer", "nil pointer", "panic:", "index out of range", "stack overflow"}

// runtimeFault reports whether a turn error says nothing, or is the
// runtime's own fault.
func runtimeFault(e *target.TurnError) bool {
	if strings.TrimSpace(e.Message) == "" && strings.TrimSpace(e.SDKError) == "" {
		return true
	}
	for _, m := range faultMarkers {
		if strings.Contains(e.Message, m) || strings.Contains(e.SDKError, m) {
			return true
		}
	}
	return false
}
