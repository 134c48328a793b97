package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"encoding/json"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
)

// The assertions of what the model received: the prompts of the model calls (REQ-03, PRE-01, PRE-02, PRE-12, DEN-01 to DEN-03, PART-02, PROV-01, ERR-02).

func (t *then) modelCalledTimes(_ context.Context, n int) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if got := last.LastModelCall - last.FirstModelCall + 1; got != n {
		err := fmt.Errorf("the model was called %d time(s) in the turn, want %d", got, n)
		if got > n {
			// A model called again while a call waits sends a prompt the
			// provider refuses (the call dangles); calls that fewer or
			// hide the waiting call are judged by the rules of results.
			return harmedAny(checks.Refused, calledWhileWaiting(last.N), err)
		}
		return harmless(err)
	}
	return nil
}

func (t *then) modelNotCalled(ctx context.Context) error {
	return t.modelCalledTimes(ctx, 0)
}

func (t *then) noRejection(_ context.Context) error {
	w := t.world()
	if w.sim == nil {
		return nil
	}
	for _, e := range w.sim.Journal() {
		if e.Verdict == simulator.VerdictViolation {
			return fmt.Errorf("model call %d was rejected: %s", e.Call, e.Violations[0].Error())
		}
	}
	return nil
}

// prompt returns the prompt of a model call.
func (t *then) prompt(call int) ([]model.Message, error) {
	e, err := t.world().modelCall(call)
	if err != nil {
		return nil, err
	}
	return e.Prompt, nil
}

func (t *then) results(call int, callID string) ([]model.Part, error) {
	prompt, err := t.prompt(call)
	if err != nil {
		return nil, err
	}
	return resultsFor(prompt, callID), nil
}

// resultsFor is every result for callID in prompt, in order.
func resultsFor(prompt []model.Message, callID string) []model.Part {
	ix := model.IndexOf(prompt)
	var out []model.Part
	for _, loc := range ix.Results[callID] {
		out = append(out, ix.Part(loc))
	}
	return out
}

func (t *then) oneResult(call int, callID string) (model.Part, error) {
	res, err := t.results(call, callID)
	if err != nil {
		return model.Part{}, err
	}
	switch len(res) {
	case 0:
		why := fmt.Sprintf("model call %d received no result for %s", call, callID)
		w := t.world()
		if resultContentRules[w.check] {
			if e, err := w.modelCall(call); err == nil {
				if rec, ok := w.turnOf(e.Call); ok {
					owner := w.resultRule(rec, callID)
					return model.Part{}, &chargedError{check: owner, why: why, own: blocked("%s: that is %s's rule, charged there", why, owner)}
				}
			}
		}
		return model.Part{}, errors.New(why)
	case 1:
		return res[0], nil
	}
	// Two results for one call break a provider rule (WIRE-01), charged on
	// the model call itself; which one is "the" result cannot be said.
	return model.Part{}, blocked("model call %d received %d results for %s", call, len(res), callID)
}

// overWire reports whether a model call's prompt came over a provider wire,
// which carries tool outputs as text without their types.
func (t *then) overWire(call int) bool {
	e, err := t.world().modelCall(call)
	return err == nil && e.Lossy
}

// typedResult is the result of callID as model call n received it, with
// its type. Over a provider wire the type is not on the wire, so it is
// read from the target's own account of the conversation: the messages the
// turn of that call added, else the conversation the turn was given.
func (t *then) typedResult(call int, callID string) (model.Part, error) {
	res, err := t.oneResult(call, callID)
	if err != nil || !t.overWire(call) {
		return res, err
	}
	w := t.world()
	e, err := w.modelCall(call)
	if err != nil {
		return model.Part{}, err
	}
	n := e.Call // the journal's number, which the turns' bounds count in
	for _, rec := range w.turns {
		if n < rec.FirstModelCall || (rec.LastModelCall > 0 && n > rec.LastModelCall) {
			continue
		}
		if rec.Response != nil {
			ix := model.IndexOf(rec.Response.Messages)
			if locs := ix.Results[callID]; len(locs) > 0 {
				return ix.Part(locs[len(locs)-1]), nil
			}
		}
		if msgs, err := model.DecodeMessages(rec.Request); err == nil {
			ix := model.IndexOf(msgs)
			if locs := ix.Results[callID]; len(locs) > 0 {
				return ix.Part(locs[len(locs)-1]), nil
			}
		}
	}
	for _, rec := range w.turns {
		if n >= rec.FirstModelCall && n <= rec.LastModelCall {
			if _, rejected := w.rejectedIn(rec); rejected {
				return model.Part{}, blocked("model call %d received a result for %s over the wire, and its turn failed on a refused prompt, so the target's messages that would give its type are gone", call, callID)
			}
			if rec.Response != nil && rec.Response.Error == nil {
				// The result reached the model but not the turn's messages:
				// that absence is the rule's that requires the result there.
				return model.Part{}, w.missingResult(rec, callID, fmt.Sprintf("model call %d received a result for %s over the wire, but turn %d added none to its messages (messages: %s)", call, callID, rec.N, summarize(rec.Response.Messages)))
			}
		}
	}
	return model.Part{}, fmt.Errorf("model call %d received a result for %s over the wire, but the target's messages hold none", call, callID)
}

// wireText is the text of the result model call n received for callID (the
// output's text, or its JSON).
func (t *then) wireText(call int, callID string) (string, error) {
	res, err := t.oneResult(call, callID)
	if err != nil {
		return "", err
	}
	if s := res.Output.TextValue(); s != "" {
		return s, nil
	}
	if res.Output.Type == model.OutputExecutionDenied {
		return res.Output.Reason, nil
	}
	return string(res.Output.Value), nil
}

func (t *then) receivedResult(_ context.Context, call int, typ, callID string) error {
	if t.world().info.Features.UntypedResults {
		// The SDK's results carry no type: what reaches the model is one
		// result for the call; whether it ran is judged by the runs.
		_, err := t.oneResult(call, callID)
		return err
	}
	res, err := t.typedResult(call, callID)
	if err != nil {
		return err
	}
	if string(res.Output.Type) != typ {
		return fmt.Errorf("model call %d received a %s result for %s, want %s", call, res.Output.Type, callID, typ)
	}
	return nil
}

func (t *then) receivedExactlyOne(_ context.Context, call int, ids string) error {
	for _, id := range parseIDs(ids) {
		res, err := t.results(call, id)
		if err != nil {
			return err
		}
		if len(res) != 1 {
			return fmt.Errorf("model call %d received %d result(s) for %s, want exactly one", call, len(res), id)
		}
	}
	return nil
}

func (t *then) noApprovalParts(_ context.Context, call int) error {
	if t.overWire(call) {
		return &naError{why: "a provider wire carries no approval parts, so it cannot show them (the canonical model API can)"}
	}
	prompt, err := t.prompt(call)
	if err != nil {
		return err
	}
	for i, m := range prompt {
		for j, p := range m.Content {
			if p.Type == model.PartToolApprovalRequest || (p.Type == model.PartToolApprovalResponse && !p.ProviderExecuted) {
				return fmt.Errorf("model call %d received a %s part (%s) at messages[%d].content[%d]", call, p.Type, p.ApprovalID, i, j)
			}
		}
	}
	return nil
}

func (t *then) notReceivedText(_ context.Context, call int, text string) error {
	prompt, err := t.prompt(call)
	if err != nil {
		return err
	}
	if strings.Contains(simulator.Corpus(prompt), text) {
		return fmt.Errorf("model call %d received the text %q", call, text)
	}
	return nil
}

func (t *then) receivedError(_ context.Context, call int, callID, text string) error {
	res, err := t.typedResult(call, callID)
	if err != nil {
		return err
	}
	if t.world().info.Features.UntypedResults {
		// No type to read: the error's text must reach the model.
	} else if !res.Output.IsFailure() || res.Output.Type == model.OutputExecutionDenied {
		return fmt.Errorf("model call %d received a %s result for %s, want an error result", call, res.Output.Type, callID)
	}
	body, err := t.wireText(call, callID)
	if err != nil {
		return err
	}
	if !strings.Contains(body, text) {
		return fmt.Errorf("model call %d received the error %q for %s, want it to contain %q", call, body, callID, text)
	}
	return nil
}

func (t *then) sameResult(_ context.Context, call int, callID string, earlier int) error {
	a, err := t.oneResult(earlier, callID)
	if err != nil {
		return err
	}
	b, err := t.oneResult(call, callID)
	if err != nil {
		return err
	}
	if !a.Output.Equal(b.Output) {
		x, _ := json.Marshal(a.Output)
		y, _ := json.Marshal(b.Output)
		return fmt.Errorf("the result for %s changed between model calls %d and %d: %s became %s", callID, earlier, call, x, y)
	}
	return nil
}

func (t *then) sameDenialText(_ context.Context, call int, a, b string) error {
	untyped := t.world().info.Features.UntypedResults
	if !untyped {
		// An untyped target's results have no type to read: only the
		// text that reaches the model is compared.
		x, err := t.typedResult(call, a)
		if err != nil {
			return err
		}
		y, err := t.typedResult(call, b)
		if err != nil {
			return err
		}
		for _, r := range []model.Part{x, y} {
			if r.Output.Type != model.OutputExecutionDenied {
				return blocked("model call %d received a %s result for %s, not a denial", call, r.Output.Type, r.ToolCallID)
			}
		}
		if x.Output.Reason != y.Output.Reason {
			return fmt.Errorf("two denials without a reason read differently: %q and %q", x.Output.Reason, y.Output.Reason)
		}
	}
	if t.overWire(call) || untyped {
		tx, err := t.wireText(call, a)
		if err != nil {
			return err
		}
		ty, err := t.wireText(call, b)
		if err != nil {
			return err
		}
		if tx != ty {
			return fmt.Errorf("two denials without a reason read differently on the wire: %q and %q", tx, ty)
		}
	}
	return nil
}

func (t *then) receivedProviderApproval(_ context.Context, call int, approvalID, answer string) error {
	prompt, err := t.prompt(call)
	if err != nil {
		return err
	}
	want := answer == "approved"
	ix := model.IndexOf(prompt)
	for _, loc := range ix.Responses[approvalID] {
		p := ix.Part(loc)
		if p.ProviderExecuted && p.Approved == want {
			return nil
		}
	}
	return fmt.Errorf("model call %d did not receive the provider approval %s as %s (providerExecuted: true)", call, approvalID, answer)
}

func (t *then) providerApprovalOrError(ctx context.Context, call int, approvalID, answer string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if e := last.Response.Error; e != nil {
		if slices.Contains([]string{"InvalidMessages", "InvalidApproval"}, e.Code) && strings.TrimSpace(e.Message) != "" {
			return nil
		}
		return fmt.Errorf("the turn failed with %s (%s), want the approval forwarded or a clear refusal", e.Code, e.Message)
	}
	return t.receivedProviderApproval(ctx, call, approvalID, answer)
}

// receivedReason (DEN-02): the denial of a call reached the model with the
// user's reason, in the output (or, over a provider wire, in its text).
func (t *then) receivedReason(_ context.Context, call int, callID, reason string) error {
	w := t.world()
	if w.noDenialReasons() {
		return &naError{why: "the target declares that its approval API takes no denial reason"}
	}
	res, err := t.oneResult(call, callID)
	if err != nil {
		return err
	}
	if !t.overWire(call) && !w.info.Features.UntypedResults {
		if res.Output.Type != model.OutputExecutionDenied {
			return blocked("model call %d received a %s result for %s, not a denial", call, res.Output.Type, callID)
		}
		if res.Output.Reason != reason {
			return fmt.Errorf("model call %d received the denial of %s with the reason %q, want the user's %q", call, callID, res.Output.Reason, reason)
		}
		return nil
	}
	text, err := t.wireText(call, callID)
	if err != nil {
		return err
	}
	if !strings.Contains(text, reason) {
		return fmt.Errorf("model call %d received the denial of %s as %q, without the user's reason %q", call, callID, text, reason)
	}
	return nil
}

// skippedText is the result a call gets under the abort-remaining denial
// policy, word for word.
const skippedText = "Error: Tool execution was skipped due to previous tool denial."

// receivedSkipped (PART-02): the call reached the model with the skipped
// result, exactly.
func (t *then) receivedSkipped(_ context.Context, call int, callID string) error {
	w := t.world()
	res, err := t.oneResult(call, callID)
	if err != nil {
		return err
	}
	text := res.Output.TextValue()
	if t.overWire(call) || w.info.Features.UntypedResults {
		if text, err = t.wireText(call, callID); err != nil {
			return err
		}
	} else if res.Output.Type != model.OutputErrorText {
		return fmt.Errorf("model call %d received a %s result for %s, want the error-text %q", call, res.Output.Type, callID, skippedText)
	}
	if text != skippedText {
		return fmt.Errorf("model call %d received %q for %s, want exactly %q", call, text, callID, skippedText)
	}
	return nil
}
