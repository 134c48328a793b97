package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
)

// then holds the assertions.
type then struct{ world func() *world }

func (t *then) finishReason(_ context.Context, want string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if got := last.Response.FinishReason; got != want {
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
		return fmt.Errorf("the turn failed with %s (%s), want %s", got, last.Response.Error.Message, code)
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
		return fmt.Errorf("the turn failed with %s (%s), want InvalidMessages or InvalidApproval", e.Code, e.Message)
	}
	if strings.TrimSpace(e.Message) == "" {
		return fmt.Errorf("the turn failed with %s but no message says why", e.Code)
	}
	return nil
}

func (t *then) failsOrDenied(_ context.Context, code, callID string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if e := last.Response.Error; e != nil {
		if e.Code != code {
			return fmt.Errorf("the turn failed with %s (%s), want %s or a denial result for %s", e.Code, e.Message, code, callID)
		}
		return nil
	}
	for _, m := range last.Response.Messages {
		for _, p := range m.Content {
			if p.Type == model.PartToolResult && p.ToolCallID == callID && p.Output != nil && p.Output.Type == model.OutputExecutionDenied {
				return nil
			}
		}
	}
	return fmt.Errorf("the turn neither failed with %s nor gave %s a denial result", code, callID)
}

func (t *then) asksOrFails(_ context.Context, callID string) error {
	last, err := t.world().last()
	if err != nil {
		return err
	}
	if last.Response.Error != nil {
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
	for _, id := range parseIDs(ids) {
		if !hasRequest(last.Response.Messages, t.world().callIDIn(last.Response.Messages, id)) {
			return fmt.Errorf("the turn asked no approval for %s (its messages: %s)", id, summarize(last.Response.Messages))
		}
	}
	return nil
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
		return fmt.Errorf("the conversation holds %d approval request(s); the check needs at least 2", len(seen))
	}
	return nil
}

// everyCallAccounted: each local call the turn made has a result in the
// turn or a pending approval request.
func (t *then) everyCallAccounted(_ context.Context) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	ix := model.IndexOf(last.Response.Messages)
	for _, id := range ix.CallOrder {
		call, _ := ix.Call(id)
		if call.ProviderExecuted {
			continue
		}
		_, hasResult := ix.Result(id)
		_, hasRequest := ix.RequestForCall(id)
		if !hasResult && !hasRequest {
			return fmt.Errorf("call %s (%s) ended the turn with neither a result nor a pending approval", id, call.ToolName)
		}
	}
	if len(ix.CallOrder) == 0 {
		return fmt.Errorf("the turn made no calls")
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
	for _, id := range parseIDs(ids) {
		if _, ok := first.Result(id); !ok {
			return fmt.Errorf("the turn's first message holds no result for %s (messages: %s)", id, summarize(last.Response.Messages))
		}
	}
	return nil
}

func (t *then) turnAddedResult(_ context.Context, typ, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	res, ok := model.IndexOf(last.Response.Messages).Result(callID)
	if !ok {
		return fmt.Errorf("the turn added no result for %s", callID)
	}
	if string(res.Output.Type) != typ {
		return fmt.Errorf("the turn's result for %s is of type %s, want %s", callID, res.Output.Type, typ)
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
		return fmt.Errorf("the stream carried %v; want %v in that order", got, want)
	}
	return nil
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
	if t.world().mode == "stream" {
		for _, ev := range last.Response.Events {
			if ev.Type == model.EventToolApprovalRequest && ev.Part.ApprovalID == approvalID {
				return nil
			}
		}
		return fmt.Errorf("the stream carried no approval-request event for %s", approvalID)
	}
	return nil
}

func (t *then) notRun(_ context.Context, what string) error {
	if runs := t.world().runsOf(what); len(runs) > 0 {
		return fmt.Errorf("%s ran %d time(s), want never (first in turn %d)", what, len(runs), runs[0].Turn)
	}
	return nil
}

func (t *then) ranTimes(_ context.Context, what string, n int) error {
	if runs := t.world().runsOf(what); len(runs) != n {
		return fmt.Errorf("%s ran %d time(s), want %d%s", what, len(runs), n, turnsOf(runs))
	}
	return nil
}

func (t *then) ranAtMost(_ context.Context, what string, n int) error {
	if runs := t.world().runsOf(what); len(runs) > n {
		return fmt.Errorf("%s ran %d time(s), want at most %d%s", what, len(runs), n, turnsOf(runs))
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

func (t *then) failedRanNothing(_ context.Context) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	if last.Response.Error == nil {
		return nil
	}
	var inTurn []toolRun
	for _, r := range w.harness.runsSnapshot() {
		if r.Turn == last.N {
			inTurn = append(inTurn, r)
		}
	}
	if len(inTurn) > 0 {
		return fmt.Errorf("the turn failed with %s after running %d tool(s)%s: their side effects happened, their results are lost", last.Response.Error.Code, len(inTurn), turnsOf(inTurn))
	}
	return nil
}

func (t *then) ranBefore(_ context.Context, what string, call int) error {
	w := t.world()
	runs := w.runsOf(what)
	if len(runs) == 0 {
		return fmt.Errorf("%s never ran", what)
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

func (t *then) policyAskedOnce(_ context.Context, callID string) error {
	w := t.world()
	var asked []policyCall
	for _, p := range w.harness.policySnapshot() {
		if p.ToolCallID == callID {
			asked = append(asked, p)
		}
	}
	if len(asked) != 1 {
		return fmt.Errorf("the policy was asked %d time(s) for %s, want once", len(asked), callID)
	}
	call, ok := model.IndexOf(w.history).Call(callID)
	if !ok {
		return fmt.Errorf("the conversation holds no call %s", callID)
	}
	if !model.JSONEqual(asked[0].Input, call.Input) {
		return fmt.Errorf("the policy for %s was given the input %s, the call's input is %s", callID, asked[0].Input, call.Input)
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
		return fmt.Errorf("the model was called %d time(s) in the turn, want %d", got, n)
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
	ix := model.IndexOf(prompt)
	var out []model.Part
	for _, loc := range ix.Results[callID] {
		out = append(out, ix.Part(loc))
	}
	return out, nil
}

func (t *then) oneResult(call int, callID string) (model.Part, error) {
	res, err := t.results(call, callID)
	if err != nil {
		return model.Part{}, err
	}
	if len(res) == 0 {
		return model.Part{}, fmt.Errorf("model call %d received no result for %s", call, callID)
	}
	return res[0], nil
}

// overWire reports whether a model call's prompt came over a provider wire,
// which carries tool outputs as text without their types.
func (t *then) overWire(call int) bool {
	e, err := t.world().modelCall(call)
	return err == nil && len(e.Wire) > 0
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
	for _, rec := range w.turns {
		if call < rec.FirstModelCall || (rec.LastModelCall > 0 && call > rec.LastModelCall) {
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
	res, err := t.typedResult(call, callID)
	if err != nil {
		return err
	}
	if string(res.Output.Type) != typ {
		return fmt.Errorf("model call %d received a %s result for %s, want %s", call, res.Output.Type, callID, typ)
	}
	return nil
}

func (t *then) receivedDenial(_ context.Context, call int, callID, reason string) error {
	res, err := t.typedResult(call, callID)
	if err != nil {
		return err
	}
	if res.Output.Type != model.OutputExecutionDenied {
		return fmt.Errorf("model call %d received a %s result for %s, want execution-denied", call, res.Output.Type, callID)
	}
	if res.Output.Reason != reason {
		return fmt.Errorf("model call %d received the denial reason %q for %s, want %q", call, res.Output.Reason, callID, reason)
	}
	if t.overWire(call) && reason != "" {
		text, err := t.wireText(call, callID)
		if err != nil {
			return err
		}
		if !strings.Contains(text, reason) {
			return fmt.Errorf("model call %d received the denial of %s as %q on the wire, without the reason %q", call, callID, text, reason)
		}
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
	if !res.Output.IsFailure() || res.Output.Type == model.OutputExecutionDenied {
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
			return fmt.Errorf("model call %d received a %s result for %s, want execution-denied", call, r.Output.Type, r.ToolCallID)
		}
	}
	if x.Output.Reason != y.Output.Reason {
		return fmt.Errorf("two denials without a reason read differently: %q and %q", x.Output.Reason, y.Output.Reason)
	}
	if t.overWire(call) {
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
