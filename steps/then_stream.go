package steps

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"encoding/json"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// The assertions of what a turn streams: approval requests and results as events (REQ-07, PRE-08, PROV-01).

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
