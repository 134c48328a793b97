package steps

import (
	"context"
	"fmt"
	"strings"

	"encoding/json"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
)

// The assertions of the approval requests a turn issues and the policies that decide them (REQ-01, REQ-02, REQ-04, REQ-06).

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
		err := fmt.Errorf("the turn asked no approval for %s (its messages: %s)", strings.Join(missing, ", "), summarize(last.Response.Messages))
		if last.LastModelCall < last.FirstModelCall {
			// The turn never called the model: the user's message that was
			// to lead to the call never reached it.
			return harmed(checks.Lost, fmt.Errorf("%w: the turn never called the model, so the user's message is lost", err))
		}
		// Asking in a later turn (one approval at a time) loses nothing;
		// a call never asked and never answered shows its harm where its
		// missing result is read (REQ-06, WIRE-01, PRE-01).
		return harmless(err)
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
			return harmedByEnd(checks.Lost, resultNeverSeen(last.N, id), fmt.Errorf("the model called %s (%s) in the turn, but the turn's messages do not hold the call (messages: %s)", id, c.Name, summarize(last.Response.Messages)))
		}
		_, hasResult := ix.Result(id)
		_, hasRequest := ix.RequestForCall(id)
		if !hasResult && !hasRequest {
			if n, ok := w.unasked[id]; ok && n == last.N {
				unasked = append(unasked, id)
				continue
			}
			return harmedByEnd(checks.Lost, resultNeverSeen(last.N, id), fmt.Errorf("call %s (%s) ended the turn with neither a result nor a pending approval", id, c.Name))
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
