package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
)

// then holds the assertions.
type then struct{ world func() *world }

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
		lost := harmSpec{harm: checks.Lost, show: resultNeverSeen(last.N, callID)}
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

func hasRequest(msgs []model.Message, callID string) bool {
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalRequest && p.ToolCallID == callID {
				return true
			}
		}
	}
	return false
}

func (t *then) approvalRequested(_ context.Context, ids string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	var missing []string
	for _, id := range parseIDs(ids) {
		if !hasRequest(last.Response.Messages, t.world().callIDIn(last.Response.Messages, id)) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.world().markUnasked(last.N, missing)
		return fmt.Errorf("the turn asked no approval for %s (its messages: %s)", strings.Join(missing, ", "), summarize(last.Response.Messages))
	}
	return nil
}

// requestBesideCall: the approval request for a call is in the assistant
// message that holds the call (REQ-01), not in a message of its own.
func (t *then) requestBesideCall(_ context.Context, id string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	callID := t.world().callIDIn(last.Response.Messages, id)
	for _, m := range last.Response.Messages {
		holds := false
		for _, p := range m.Content {
			if p.Type == model.PartToolCall && p.ToolCallID == callID {
				holds = true
			}
		}
		if !holds {
			continue
		}
		if hasRequest([]model.Message{m}, callID) {
			return nil
		}
		return fmt.Errorf("the assistant message that holds %s holds no approval request for it (the turn's messages: %s)", id, summarize(last.Response.Messages))
	}
	return fmt.Errorf("the turn's messages hold no call %s (its messages: %s)", id, summarize(last.Response.Messages))
}

func (t *then) noApprovalRequested(_ context.Context, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if hasRequest(last.Response.Messages, t.world().callIDIn(last.Response.Messages, callID)) {
		return fmt.Errorf("the turn asked approval for %s, which needs none", callID)
	}
	return nil
}

func (t *then) uniqueApprovalIDs(_ context.Context) error {
	seen := map[string]string{}
	for _, m := range t.world().history {
		for _, p := range m.Content {
			if p.Type != model.PartToolApprovalRequest {
				continue
			}
			if other, dup := seen[p.ApprovalID]; dup {
				return fmt.Errorf("approval id %q is used for both %s and %s", p.ApprovalID, other, p.ToolCallID)
			}
			seen[p.ApprovalID] = p.ToolCallID
		}
	}
	if len(seen) < 2 {
		if last, err := t.world().last(); err == nil && last.Response != nil && last.Response.Error != nil {
			return blocked("turn %d failed (%s), so the conversation holds %d approval request(s) to compare", last.N, last.Response.Error.Code, len(seen))
		}
		if len(t.world().unasked) > 0 {
			return blocked("the conversation holds %d approval request(s) to compare: approvals were not asked (REQ-01's failure, charged there)", len(seen))
		}
		return fmt.Errorf("the conversation holds %d approval request(s); the check needs at least 2", len(seen))
	}
	return nil
}

// everyCallAccounted: each local call the turn made has a result in the
// turn or a pending approval request. A call the turn was to ask approval
// for and did not is REQ-01's failure, charged there: it is blocked here,
// unless another call fails too.
func (t *then) everyCallAccounted(_ context.Context) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	w := t.world()
	ix := model.IndexOf(last.Response.Messages)
	made := w.callsMadeIn(last)
	if len(made) == 0 {
		return blocked("the model made no local tool call in turn %d (it was called %d time(s)), so there is nothing to account for", last.N, last.LastModelCall-last.FirstModelCall+1)
	}
	var unasked []string
	for _, c := range made {
		id := c.ID
		if _, in := ix.Call(id); !in {
			return harmedIf(checks.Lost, resultNeverSeen(last.N, id), fmt.Errorf("the model called %s (%s) in the turn, but the turn's messages do not hold the call (messages: %s)", id, c.Name, summarize(last.Response.Messages)))
		}
		_, hasResult := ix.Result(id)
		_, hasRequest := ix.RequestForCall(id)
		if !hasResult && !hasRequest {
			if n, ok := w.unasked[id]; ok && n == last.N {
				unasked = append(unasked, id)
				continue
			}
			return harmedIf(checks.Lost, resultNeverSeen(last.N, id), fmt.Errorf("call %s (%s) ended the turn with neither a result nor a pending approval", id, c.Name))
		}
	}
	if len(unasked) > 0 {
		return blocked("%s ended the turn with neither a result nor a pending approval: the turn asked no approval for them (REQ-01's failure, charged there)", strings.Join(unasked, ", "))
	}
	return nil
}

// everyCallAccountedOrRefused: as everyCallAccounted, or the turn failed
// with a message saying why (an SDK that refuses the model's reply may
// report it as a model error; the simulator's own refusals are blocked)
// and no tool ran in it: a failed turn stores none of its calls, so none is
// left without a result (REQ-06), and a runtime may refuse a step it
// cannot run whole (a tool outside the toolkit, an input its schema
// refuses).
func (t *then) everyCallAccountedOrRefused(ctx context.Context) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	e := last.Response.Error
	if e == nil {
		return t.everyCallAccounted(ctx)
	}
	if _, rejected := w.rejectedIn(last); rejected {
		return blocked("turn %d failed because the model refused its prompt", last.N)
	}
	if strings.TrimSpace(e.Message) == "" {
		return harmed(checks.Crashed, fmt.Errorf("the turn failed with %s but no message says why", e.Code))
	}
	for _, r := range w.harness.runsSnapshot() {
		if r.Turn == last.N {
			return harmed(checks.Lost, fmt.Errorf("the turn failed with %s (%s), but %s (%s) ran in it: its side effect happened and its result is lost with the turn", e.Code, e.Message, r.ToolCallID, r.Tool))
		}
	}
	return nil
}

func (t *then) firstMessageHolds(_ context.Context, ids string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if len(last.Response.Messages) == 0 || last.Response.Messages[0].Role != model.RoleTool {
		return fmt.Errorf("the turn's first message is not a tool message of results (messages: %s)", summarize(last.Response.Messages))
	}
	first := model.IndexOf(last.Response.Messages[:1])
	all := model.IndexOf(last.Response.Messages)
	var missing error
	for _, id := range parseIDs(ids) {
		if _, ok := all.Result(id); !ok {
			// Where a result that was never added goes is not this rule's.
			if missing == nil {
				missing = t.world().missingResult(last, id, fmt.Sprintf("turn %d added no result for %s (messages: %s)", last.N, id, summarize(last.Response.Messages)))
			}
			continue
		}
		if _, ok := first.Result(id); !ok {
			return fmt.Errorf("the turn's first message holds no result for %s (messages: %s)", id, summarize(last.Response.Messages))
		}
	}
	return missing
}

func (t *then) turnAddedResult(_ context.Context, typ, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	res, ok := model.IndexOf(last.Response.Messages).Result(callID)
	if !ok {
		return t.world().missingResult(last, callID, fmt.Sprintf("turn %d added no result for %s (messages: %s)", last.N, callID, summarize(last.Response.Messages)))
	}
	if t.world().info.Features.UntypedResults {
		return &naError{why: "the target declares untyped results: the type of its result for " + callID + " is not its own"}
	}
	if string(res.Output.Type) != typ {
		// A result of another type than the answer asked tells the model
		// something else happened: the answer is lost.
		return harmed(checks.Lost, fmt.Errorf("the turn's result for %s is of type %s, want %s", callID, res.Output.Type, typ))
	}
	return nil
}

// streamMatches: the approval-request events are the approval requests of
// the turn's messages, unchanged and in order, each after its call's event.
func (t *then) streamMatches(_ context.Context) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	var want []model.Part
	for _, m := range last.Response.Messages {
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalRequest {
				want = append(want, p)
			}
		}
	}
	if len(want) == 0 {
		return fmt.Errorf("the turn's messages hold no approval request to compare")
	}
	var got []model.Part
	seenCall := map[string]bool{}
	for i, ev := range last.Response.Events {
		switch ev.Type {
		case model.EventToolCall:
			seenCall[ev.Part.ToolCallID] = true
		case model.EventToolApprovalRequest:
			if !seenCall[ev.Part.ToolCallID] {
				return fmt.Errorf("event %d: the approval request for %s comes before its tool-call event", i, ev.Part.ToolCallID)
			}
			got = append(got, *ev.Part)
		}
	}
	if len(got) != len(want) {
		return fmt.Errorf("the stream carried %d approval-request event(s), the messages hold %d request(s)", len(got), len(want))
	}
	for i := range want {
		a, _ := json.Marshal(want[i])
		b, _ := json.Marshal(got[i])
		if string(a) != string(b) {
			return fmt.Errorf("approval-request event %d is %s, the message holds %s", i+1, b, a)
		}
	}
	return nil
}

// eventsInOrder: the stream carries these event types in this order,
// other events possibly between them.
func (t *then) eventsInOrder(_ context.Context, list string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	want := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
	i := 0
	var got []string
	for _, ev := range last.Response.Events {
		got = append(got, string(ev.Type))
		if i < len(want) && string(ev.Type) == want[i] {
			i++
		}
	}
	if i < len(want) {
		err := fmt.Errorf("the stream carried %v; want %v in that order", got, want)
		if unasked := t.world().unaskedIn(last.N); len(unasked) > 0 && inOrder(got, withoutApprovals(want, len(unasked))) {
			return blocked("%v: the turn asked no approval for %s (REQ-01's failure, charged there), and the stream carries the rest in order", err, strings.Join(unasked, ", "))
		}
		return err
	}
	return nil
}

// inOrder reports whether got holds want's items in order, others possibly
// between them.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// withoutApprovals is want without its last n approval-request events.
func withoutApprovals(want []string, n int) []string {
	out := append([]string(nil), want...)
	for i := len(out) - 1; i >= 0 && n > 0; i-- {
		if out[i] == string(model.EventToolApprovalRequest) {
			out = append(out[:i], out[i+1:]...)
			n--
		}
	}
	return out
}

func (t *then) carriesProviderRequest(_ context.Context, approvalID, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	ix := model.IndexOf(last.Response.Messages)
	req, ok := ix.Request(approvalID)
	if ok && req.ToolCallID != callID && t.world().suite.Wiring != nil {
		// Over a provider wire the provider's approval request does not
		// carry its call's id (OpenAI's mcp_approval_request has its own
		// id only): any provider-executed call of the turn will do.
		if call, found := ix.Call(req.ToolCallID); found && call.ProviderExecuted {
			callID = req.ToolCallID
		}
	}
	if !ok || req.ToolCallID != callID {
		return fmt.Errorf("the turn's messages do not carry the provider's approval request %s for %s (messages: %s)", approvalID, callID, summarize(last.Response.Messages))
	}
	return nil
}

// streamCarriesProviderRequest: in stream mode, the provider's approval
// request reaches the consumer as an approval-request event, as it is in
// the turn's messages.
func (t *then) streamCarriesProviderRequest(_ context.Context, approvalID string) error {
	w := t.world()
	if w.mode != target.Stream {
		return &naError{why: "generate mode has no stream"}
	}
	last, err := w.lastOK()
	if err != nil {
		return err
	}
	want, ok := model.IndexOf(last.Response.Messages).Request(approvalID)
	if !ok {
		return blocked("the turn's messages hold no approval request %s to compare with the stream", approvalID)
	}
	for _, ev := range last.Response.Events {
		if ev.Type == model.EventToolApprovalRequest && ev.Part != nil && ev.Part.ApprovalID == approvalID {
			a, _ := json.Marshal(want)
			b, _ := json.Marshal(*ev.Part)
			if string(a) != string(b) {
				return fmt.Errorf("the stream's approval-request event for %s is %s, the message holds %s", approvalID, b, a)
			}
			return nil
		}
	}
	return fmt.Errorf("the stream carried no approval-request event for %s", approvalID)
}

func (t *then) notRun(_ context.Context, what string) error {
	w := t.world()
	if runs := w.runsOf(what); len(runs) > 0 {
		return fmt.Errorf("%s ran %d time(s)%s, but must not run: %s", what, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	return nil
}

// answersOf says how the user answered the calls of some runs, so that a
// message about a run says why it should not have happened.
func (w *world) answersOf(runs []toolRun) string {
	seen := map[string]bool{}
	var out []string
	ix := model.IndexOf(w.history)
	for _, r := range runs {
		if seen[r.ToolCallID] {
			continue
		}
		seen[r.ToolCallID] = true
		req, ok := ix.RequestForCall(r.ToolCallID)
		if !ok {
			out = append(out, r.ToolCallID+" has no approval request in the conversation")
			continue
		}
		locs := ix.Responses[req.ApprovalID]
		if len(locs) == 0 {
			out = append(out, fmt.Sprintf("%s was never answered (approval %s)", r.ToolCallID, req.ApprovalID))
			continue
		}
		var answers []string
		for _, loc := range locs {
			p := ix.Part(loc)
			a := "denied"
			if p.Approved {
				a = "approved"
			}
			if p.Reason != "" {
				a += fmt.Sprintf(" (%q)", p.Reason)
			}
			answers = append(answers, a)
		}
		out = append(out, fmt.Sprintf("%s was %s (approval %s)", r.ToolCallID, strings.Join(answers, ", then "), req.ApprovalID))
	}
	return strings.Join(out, "; ")
}

func (t *then) ranTimes(_ context.Context, what string, n int) error {
	w := t.world()
	if runs := w.countedRunsOf(what); len(runs) != n {
		msg := fmt.Sprintf("%s ran %d time(s), want %d%s", what, len(runs), n, turnsOf(runs))
		if len(runs) > 0 {
			msg += ": " + w.answersOf(runs)
		}
		if unasked := w.unaskedNotRun(what); len(runs) < n && len(runs)+len(unasked) >= n {
			return blocked("%s: no approval was asked for %s (REQ-01's failure, charged there)", msg, strings.Join(unasked, ", "))
		}
		if len(runs) > n {
			return harmed(checks.RanAgainstAnswer, errors.New(msg))
		}
		return harmedIf(checks.Lost, neverRan(what, n), errors.New(msg))
	}
	return nil
}

func turnsOf(runs []toolRun) string {
	if len(runs) == 0 {
		return ""
	}
	var s []string
	for _, r := range runs {
		s = append(s, fmt.Sprintf("%s in turn %d", r.ToolCallID, r.Turn))
	}
	return " (" + strings.Join(s, ", ") + ")"
}

func (t *then) notRunWith(_ context.Context, what, input string) error {
	for _, r := range t.world().runsOf(what) {
		if model.JSONEqual(r.Input, json.RawMessage(input)) {
			return fmt.Errorf("%s ran with %s (call %s, turn %d)", what, input, r.ToolCallID, r.Turn)
		}
	}
	return nil
}

func (t *then) nothingRan(_ context.Context) error {
	if runs := t.world().harness.runsSnapshot(); len(runs) > 0 {
		return fmt.Errorf("%d tool run(s) happened, want none%s", len(runs), turnsOf(runs))
	}
	return nil
}

func (t *then) ranBefore(_ context.Context, what string, call int) error {
	w := t.world()
	runs := w.runsOf(what)
	if len(runs) == 0 {
		return harmedIf(checks.Lost, neverRan(what, 1), fmt.Errorf("%s never ran", what))
	}
	modelSeq := 0
	for _, e := range w.tl.snapshot() {
		if e.Kind == "model-call" && e.ModelCall == call {
			modelSeq = e.Seq
		}
	}
	if modelSeq == 0 {
		return fmt.Errorf("there was no model call %d", call)
	}
	for _, r := range runs {
		if r.Start > modelSeq {
			return fmt.Errorf("%s (%s) ran after model call %d", what, r.ToolCallID, call)
		}
	}
	return nil
}

func (t *then) atMostAtOnce(_ context.Context, n int) error {
	if got := t.world().harness.maxInFlight(); got > n {
		return fmt.Errorf("%d tools ran at once, want at most %d", got, n)
	}
	return nil
}

func (t *then) policySaw(_ context.Context, text string) error {
	policies := t.world().harness.policySnapshot()
	if len(policies) == 0 {
		return fmt.Errorf("the policy was never asked")
	}
	for _, p := range policies {
		if !strings.Contains(simulator.Corpus(p.Messages), text) {
			return fmt.Errorf("the policy for %s was not given the conversation (no %q in its %d message(s))", p.ToolCallID, text, len(p.Messages))
		}
	}
	return nil
}

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
			return harmedIf(checks.Refused, refusalFor(last.FirstModelCall), err)
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

// summarize renders messages briefly for an assertion message.
func summarize(msgs []model.Message) string {
	var parts []string
	for _, m := range msgs {
		var kinds []string
		for _, p := range m.Content {
			k := string(p.Type)
			if p.ToolCallID != "" {
				k += " " + p.ToolCallID
			}
			kinds = append(kinds, k)
		}
		parts = append(parts, fmt.Sprintf("%s[%s]", m.Role, strings.Join(kinds, ", ")))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// turnAddedOne: each call has exactly one result among the turn's messages
// (what the application stores and sends next time).
func (t *then) turnAddedOne(_ context.Context, ids string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	ix := model.IndexOf(last.Response.Messages)
	var missing error
	for _, id := range parseIDs(ids) {
		switch n := len(ix.Results[id]); n {
		case 1:
		case 0:
			if missing == nil {
				missing = t.world().missingResult(last, id, fmt.Sprintf("turn %d added no result for %s, want exactly one (messages: %s)", last.N, id, summarize(last.Response.Messages)))
			}
		default:
			return harmedIf(checks.Refused, refusalFor(last.FirstModelCall, id), fmt.Errorf("the turn added %d result(s) for %s, want exactly one (messages: %s)", n, id, summarize(last.Response.Messages)))
		}
	}
	return missing
}

func (t *then) turnHoldsNoResult(_ context.Context, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if n := len(model.IndexOf(last.Response.Messages).Results[callID]); n > 0 {
		return fmt.Errorf("the turn added %d result(s) for %s, want none", n, callID)
	}
	return nil
}

// streamResultsMatch: in stream mode, the stream carries one tool-result
// event for each result of the turn's messages, in their order and with
// the same output, and no result event for a call the messages hold no
// result for (stream mode resolves as generate mode does).
func (t *then) streamResultsMatch(_ context.Context) error {
	w := t.world()
	if w.mode != target.Stream {
		return &naError{why: "generate mode has no stream to compare"}
	}
	last, err := w.lastOK()
	if err != nil {
		return err
	}
	var want []model.Part
	for _, m := range last.Response.Messages {
		for _, p := range m.Content {
			if p.Type == model.PartToolResult {
				want = append(want, p)
			}
		}
	}
	var got []model.Part
	for _, ev := range last.Response.Events {
		if ev.Type == model.EventToolResult && ev.Part != nil {
			got = append(got, *ev.Part)
		}
	}
	if len(want) == 0 && len(got) == 0 {
		// Nothing to compare; a result the turn should have added is the
		// rule's that requires it (PRE-01, PRE-02), judged by its own steps.
		return blocked("turn %d added no result and its stream carried no result event: nothing to compare (messages: %s)", last.N, summarize(last.Response.Messages))
	}
	if len(got) != len(want) {
		return fmt.Errorf("the stream carried %d result event(s) (%s), the turn's messages hold %d result(s) (%s)", len(got), resultIDs(got), len(want), resultIDs(want))
	}
	// The events may come in any order (completion order, for calls run at
	// once): each result of the messages is matched to the event for its
	// call.
	used := make([]bool, len(got))
	for _, wp := range want {
		j := slices.IndexFunc(got, func(g model.Part) bool { return g.ToolCallID == wp.ToolCallID })
		for j >= 0 && used[j] {
			k := slices.IndexFunc(got[j+1:], func(g model.Part) bool { return g.ToolCallID == wp.ToolCallID })
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			return fmt.Errorf("the stream carried no result event for %s, whose result the turn's messages hold (events %s, messages %s)", wp.ToolCallID, resultIDs(got), resultIDs(want))
		}
		used[j] = true
		if w.info.Features.UntypedResults {
			continue
		}
		if !got[j].Output.Equal(wp.Output) {
			a, _ := json.Marshal(wp.Output)
			b, _ := json.Marshal(got[j].Output)
			return fmt.Errorf("the result event for %s carries %s, the message holds %s", wp.ToolCallID, b, a)
		}
	}
	return nil
}

func resultIDs(parts []model.Part) string {
	var ids []string
	for _, p := range parts {
		ids = append(ids, p.ToolCallID)
	}
	return "[" + strings.Join(ids, " ") + "]"
}

func (t *then) ranWith(_ context.Context, what, input string) error {
	runs := t.world().runsOf(what)
	if len(runs) == 0 {
		return fmt.Errorf("%s never ran", what)
	}
	for _, r := range runs {
		if !model.JSONEqual(r.Input, json.RawMessage(input)) {
			return fmt.Errorf("%s ran with %s (call %s, turn %d), want %s", what, r.Input, r.ToolCallID, r.Turn, input)
		}
	}
	return nil
}

// noLostSideEffects: a turn that failed ran no tool in it; a turn that
// succeeded holds a result for every call that ran in it.
func (t *then) noLostSideEffects(_ context.Context) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	var inTurn []toolRun
	for _, r := range w.harness.runsSnapshot() {
		if r.Turn == last.N {
			inTurn = append(inTurn, r)
		}
	}
	if e := last.Response.Error; e != nil {
		if len(inTurn) > 0 {
			return fmt.Errorf("the turn failed with %s after running %d tool(s)%s: their side effects happened, their results are lost", e.Code, len(inTurn), turnsOf(inTurn))
		}
		return nil
	}
	ix := model.IndexOf(last.Response.Messages)
	for _, r := range inTurn {
		if _, ok := ix.Result(r.ToolCallID); !ok {
			return fmt.Errorf("%s (%s) ran in the turn, but the turn's messages hold no result for it (messages: %s)", r.ToolCallID, r.Tool, summarize(last.Response.Messages))
		}
	}
	return nil
}

// policyAskedWithInput: the dynamic policy was asked for the call in the
// turn that made it, and every time it was asked for the call (a runtime
// may ask again when the answer comes) it was given that call's own input.
func (t *then) policyAskedWithInput(_ context.Context, callID string) error {
	w := t.world()
	var asked []policyCall
	for _, p := range w.harness.policySnapshot() {
		if p.ToolCallID == callID {
			asked = append(asked, p)
		}
	}
	if len(asked) == 0 {
		for _, rec := range w.turns {
			for _, c := range w.callsMadeIn(rec) {
				if c.ID == callID && rec.Response != nil && rec.Response.Error != nil {
					// A runtime that evaluates a step's policies at once
					// may end the turn (failing closed on another call's
					// policy) before it reaches this one.
					return blocked("the policy was never asked for %s: turn %d failed (%s) before it was", callID, rec.N, rec.Response.Error.Code)
				}
			}
		}
		return fmt.Errorf("the policy was never asked for %s", callID)
	}
	// The call as the model made it (the target's own messages may be
	// gone with a failed turn).
	var input json.RawMessage
	found := false
	for _, rec := range w.turns {
		for _, c := range w.callsMadeIn(rec) {
			if c.ID == callID {
				input, found = c.Input, true
			}
		}
	}
	if !found {
		call, ok := model.IndexOf(w.history).Call(callID)
		if !ok {
			return fmt.Errorf("neither the model nor the conversation made a call %s", callID)
		}
		input = call.Input
	}
	for _, a := range asked {
		if !model.JSONEqual(a.Input, input) {
			return fmt.Errorf("the policy for %s was given the input %s in turn %d; the call's input is %s", callID, a.Input, a.Turn, input)
		}
	}
	return nil
}

func (t *then) policySawCallID(_ context.Context, callID string) error {
	for _, p := range t.world().harness.policySnapshot() {
		if p.ToolCallID == callID {
			return nil
		}
	}
	var ids []string
	for _, p := range t.world().harness.policySnapshot() {
		ids = append(ids, p.ToolCallID)
	}
	return fmt.Errorf("no policy decision was asked with the toolCallId %s (asked with: %v)", callID, ids)
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

func (t *then) ranAtMostOnce(_ context.Context, what string) error {
	w := t.world()
	if runs := w.countedRunsOf(what); len(runs) > 1 {
		return fmt.Errorf("%s ran %d times%s, at most once is the rule: %s", what, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	return nil
}

// resolvedOnceOrRefused (PRE-11): duplicate or conflicting answers for a
// call lead to at most one run and exactly one result, in the turn's
// messages and in the prompt; or the turn refuses the message as invalid,
// with a message, and runs nothing.
func (t *then) resolvedOnceOrRefused(_ context.Context, callID string) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	runs := w.runsOf(callID)
	if e := last.Response.Error; e != nil {
		if _, rejected := w.rejectedIn(last); rejected {
			return blocked("turn %d failed because the model refused its prompt", last.N)
		}
		if e.Code != "InvalidApproval" && e.Code != "InvalidMessages" {
			return fmt.Errorf("the turn failed with %s (%s), want %s resolved once or the message refused as invalid", e.Code, e.Message, callID)
		}
		if strings.TrimSpace(e.Message) == "" {
			return harmed(checks.Crashed, fmt.Errorf("the turn refused the message with %s but no message says why", e.Code))
		}
		if len(runs) > 0 {
			return harmed(checks.RanAgainstAnswer, fmt.Errorf("the turn refused the message, but %s ran %d time(s)%s", callID, len(runs), turnsOf(runs)))
		}
		return nil
	}
	if len(runs) > 1 {
		return fmt.Errorf("%s ran %d times%s: %s", callID, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	if n := len(model.IndexOf(last.Response.Messages).Results[callID]); n != 1 {
		return fmt.Errorf("the turn added %d result(s) for %s, want exactly one (messages: %s)", n, callID, summarize(last.Response.Messages))
	}
	if last.FirstModelCall <= last.LastModelCall {
		call, ok := w.scenarioNumber(last.FirstModelCall)
		if !ok {
			return blocked("the first model call of turn %d was not scripted", last.N)
		}
		res, err := t.results(call, callID)
		if err != nil {
			return err
		}
		if len(res) != 1 {
			return fmt.Errorf("model call %d received %d result(s) for %s, want exactly one", call, len(res), callID)
		}
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

// hasRun: the call (or a call of the tool) ran, at least once; how often
// is another rule's (WIRE-03 within a turn, PRE-03 across turns).
func (t *then) hasRun(_ context.Context, what string) error {
	if runs := t.world().runsOf(what); len(runs) == 0 {
		return harmedIf(checks.Lost, neverRan(what, 1), fmt.Errorf("%s never ran", what))
	}
	return nil
}

// notRunAfterResult (PRE-03): once a call has a result in the
// conversation, it never runs again.
func (t *then) notRunAfterResult(_ context.Context, callID string) error {
	w := t.world()
	first := 0 // the turn after which the call had a result
	for _, rec := range w.turns {
		if _, ok := model.IndexOf(rec.sent).Result(callID); ok {
			first = rec.N - 1
			break
		}
		if rec.Response != nil {
			if _, ok := model.IndexOf(rec.Response.Messages).Result(callID); ok {
				first = rec.N
				break
			}
		}
	}
	if first == 0 {
		return blocked("the conversation never held a result for %s, so whether it ran again after one cannot be said", callID)
	}
	var again []toolRun
	for _, r := range w.runsOf(callID) {
		if r.Turn > first {
			again = append(again, r)
		}
	}
	if len(again) > 0 {
		return fmt.Errorf("%s had its result in turn %d and ran again%s", callID, first, turnsOf(again))
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
// clear refusal due: an error of code Other is the runtime's own failure,
// not a refusal of the input (crashed); another code refuses the input
// under another name, which harms nobody.
func crashedIfOther(e *target.TurnError, err error) error {
	if e != nil && e.Code == "Other" {
		return harmed(checks.Crashed, fmt.Errorf("%w: an error of code Other is the runtime failing, not a refusal of the input", err))
	}
	return err
}
