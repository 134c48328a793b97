package steps

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
)

// oneAtATime is a conversation with a target that asks one approval at a
// time (as Mastra does): turn 1 makes d1 and d2 and asks for d1 only; turn 2
// takes the user's approval of d1, runs it, and asks for d2.
func oneAtATime(t *testing.T) (*world, *then) {
	t.Helper()
	w := &world{reported: map[string]bool{}, omitted: map[string]bool{}}
	w.harness = newHarness(&timeline{}, 0)
	w.tools = []*toolSpec{{name: "deleteFile"}}
	in := func(p string) json.RawMessage { return json.RawMessage(`{"path":"` + p + `"}`) }
	asked := model.Message{Role: model.RoleAssistant, Content: []model.Part{
		model.ToolCall("d1", "deleteFile", in("/a")), model.ToolCall("d2", "deleteFile", in("/b")),
		model.ApprovalRequest("a1", "d1"),
	}}
	w.turns = append(w.turns, &turnRecord{N: 1, FirstModelCall: 1, LastModelCall: 1, Response: &target.TurnResponse{
		Messages: []model.Message{asked}, FinishReason: "tool-calls",
		Events: []model.Event{{Type: model.EventToolCall}, {Type: model.EventToolCall}, {Type: model.EventToolApprovalRequest}, {Type: model.EventFinish}},
	}})
	w.history = []model.Message{model.UserText("delete /a and /b"), asked}
	return w, &then{world: func() *world { return w }}
}

// secondTurn adds turn 2: the user approved d1; the target ran it and
// asked for d2.
func secondTurn(w *world) {
	answer := model.Message{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a1", true, "")}}
	sent := append(append([]model.Message(nil), w.history...), answer)
	raw, _ := json.Marshal(sent)
	added := []model.Message{
		{Role: model.RoleTool, Content: []model.Part{model.ToolResult("d1", "deleteFile", &model.ToolOutput{Type: model.OutputJSON, Value: json.RawMessage(`{"deleted":"/a"}`)})}},
		{Role: model.RoleAssistant, Content: []model.Part{model.ApprovalRequest("a2", "d2")}},
	}
	w.turns = append(w.turns, &turnRecord{N: 2, Request: raw, FirstModelCall: 2, LastModelCall: 1, Response: &target.TurnResponse{Messages: added, FinishReason: "tool-calls"}})
	w.history = append(sent, added...)
	w.harness.runs = append(w.harness.runs, toolRun{Tool: "deleteFile", ToolCallID: "d1", Turn: 2})
}

func isBlocked(err error) bool {
	var b *blockedError
	return errors.As(err, &b)
}

// An approval a turn did not ask is REQ-01's failure, charged there; what
// later assertions read of it (the approval asked late that keeps the turn
// from ending, the run it could not make, the result no answer could give,
// a second approval id to compare, the stream event it could not carry)
// is blocked, not charged to their checks. Without that failure, the same
// readings fail.
func TestUnaskedApprovalBlocksItsConsequences(t *testing.T) {
	ctx := context.Background()
	for _, req01Failed := range []bool{true, false} {
		w, th := oneAtATime(t)
		if req01Failed {
			if err := th.approvalRequested(ctx, `"d1" and "d2"`); err == nil || isBlocked(err) {
				t.Fatalf("REQ-01's own assertion: %v, want a failure", err)
			}
			if w.unasked["d2"] != 1 || len(w.unasked) != 1 {
				t.Fatalf("unasked %v, want d2 of turn 1", w.unasked)
			}
		}
		type reading struct {
			name  string
			check func() error
		}
		turn1 := []reading{
			{"events", func() error {
				return th.eventsInOrder(ctx, "tool-approval-request, tool-approval-request")
			}},
			{"unique ids", func() error { return th.uniqueApprovalIDs(ctx) }},
		}
		for _, r := range turn1 {
			if err := r.check(); err == nil || isBlocked(err) != req01Failed {
				t.Errorf("REQ-01 failed: %v; %s: %v, want blocked: %v", req01Failed, r.name, err, req01Failed)
			}
		}
		secondTurn(w)
		w.check = "PART-01"
		turn2 := []reading{
			{"finish reason", func() error { return th.finishReason(ctx, "stop") }},
			{"runs", func() error { return th.ranTimes(ctx, "deleteFile", 2) }},
			{"result", func() error { return th.turnAddedOne(ctx, `"d1" and "d2"`) }},
		}
		for _, r := range turn2 {
			if err := r.check(); err == nil || isBlocked(err) != req01Failed {
				t.Errorf("REQ-01 failed: %v; %s: %v, want blocked: %v", req01Failed, r.name, err, req01Failed)
			}
		}
	}
}

// Blocking reaches only what the unasked approval took away: an event
// missing besides it, a run missing besides it, and the answered call's
// own missing result still fail.
func TestUnaskedApprovalBlocksNothingElse(t *testing.T) {
	ctx := context.Background()
	w, th := oneAtATime(t)
	_ = th.approvalRequested(ctx, `"d1" and "d2"`)
	w.turns[0].Response.Events = w.turns[0].Response.Events[:3] // no finish
	if err := th.eventsInOrder(ctx, "tool-approval-request, tool-approval-request, finish"); err == nil || isBlocked(err) {
		t.Errorf("a missing finish event beside the unasked approval: %v, want a failure", err)
	}
	secondTurn(w)
	w.harness.runs = nil // d1 was approved and never ran
	if err := th.ranTimes(ctx, "deleteFile", 2); err == nil || isBlocked(err) {
		t.Errorf("the approved call's run missing besides the unasked one: %v, want a failure", err)
	}
	w.turns[1].Response.Messages = w.turns[1].Response.Messages[1:] // no result for d1
	w.check = "PART-01"
	if err := th.turnAddedOne(ctx, `"d1"`); err == nil || isBlocked(err) {
		t.Errorf("the answered call's missing result: %v, want a failure", err)
	}
}

// withModel gives w a simulated model whose journal holds model call 1 of
// oneAtATime: the reply that made d1 and d2 (free calls name freeTool).
func withModel(t *testing.T, w *world, freeTool string) {
	t.Helper()
	calls := []simulator.ToolCall{{ID: "d1", Name: "deleteFile"}, {ID: "d2", Name: "deleteFile"}}
	if freeTool != "" {
		calls[1].Name = freeTool
	}
	sim, err := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{ToolCalls: calls}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Generate(context.Background(), &llm.Request{Messages: []model.Message{model.UserText("delete /a and /b")}}); err != nil {
		t.Fatal(err)
	}
	w.sim = sim
}

// A call whose approval the turn did not ask, left with neither a result
// nor a request, is REQ-01's failure: "every call of the turn has a result
// or a pending approval" (REQ-06) is blocked for it. A call that needed no
// approval left so still fails it, and so does the unasked call when
// REQ-01's assertion has not failed.
func TestUnaskedApprovalIsNoUnaccountedCall(t *testing.T) {
	ctx := context.Background()
	for _, req01Failed := range []bool{true, false} {
		w, th := oneAtATime(t)
		withModel(t, w, "")
		if req01Failed {
			_ = th.approvalRequested(ctx, `"d1" and "d2"`)
		}
		if err := th.everyCallAccounted(ctx); err == nil || isBlocked(err) != req01Failed {
			t.Errorf("REQ-01 failed: %v; every call accounted: %v, want blocked: %v", req01Failed, err, req01Failed)
		}
	}
	w, th := oneAtATime(t)
	withModel(t, w, "readFile") // d2 needs no approval, and has no result
	_ = th.approvalRequested(ctx, `"d1"`)
	if err := th.everyCallAccounted(ctx); err == nil || isBlocked(err) {
		t.Errorf("a free call without a result: %v, want a failure", err)
	}
}

// A turn that refuses a step it cannot run whole, with a message and no
// tool run, leaves no call dangling; a refusal that ran a tool, or gives
// no reason, does not meet REQ-06; a turn that succeeded is held to every
// call accounted for.
func TestEveryCallAccountedOrRefused(t *testing.T) {
	ctx := context.Background()
	w, th := oneAtATime(t)
	if err := th.everyCallAccountedOrRefused(ctx); err == nil {
		t.Error("a turn that succeeded with d2 neither asked nor resolved passed")
	}
	w.turns[0].Response = &target.TurnResponse{Error: &target.TurnError{Code: "Other", Message: "Tool archive not found"}}
	if err := th.everyCallAccountedOrRefused(ctx); err != nil {
		t.Errorf("a clear refusal with nothing run: %v", err)
	}
	w.harness.runs = append(w.harness.runs, toolRun{Tool: "deleteFile", ToolCallID: "d1", Turn: 1})
	if err := th.everyCallAccountedOrRefused(ctx); err == nil {
		t.Error("a refusal after a tool ran passed")
	}
	w.harness.runs = nil
	w.turns[0].Response.Error.Message = " "
	if err := th.everyCallAccountedOrRefused(ctx); err == nil {
		t.Error("a refusal without a message passed")
	}
}
