package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
)

// A target that resumes from saved state gets, with each turn, the state
// its previous turn answered; a replayed request gets the state it was
// first sent with; the conversation id names the scenario throughout.
func TestResumeStateTravelsWithTheConversation(t *testing.T) {
	const feature = `Feature: resume
  @REQ-01 @PRE-01 @WIRE-04
  Scenario: state
    Given a tool "deleteFile" that needs approval
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
    Given the model may reply "Deleted."
    When the same request is sent again
    Then [WIRE-04] "call_1" has run 1 time
`
	info := fullInfo()
	info.Features.ResumeState = true
	var mu sync.Mutex
	var got []string
	var conversations []string
	n := 0
	tgt := &fakeTarget{info: info, turn: func(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
		mu.Lock()
		n++
		turn := n
		got = append(got, string(req.State))
		conversations = append(conversations, req.Conversation)
		mu.Unlock()
		state := json.RawMessage(fmt.Sprintf(`{"after":%d}`, turn))
		if turn == 1 {
			return &target.TurnResponse{State: state, FinishReason: "tool-calls", Messages: []model.Message{{Role: model.RoleAssistant, Content: []model.Part{
				model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)), model.ApprovalRequest("a1", "call_1")}}}}, nil
		}
		if turn == 2 {
			if _, err := req.Harness.Execute(ctx, target.ExecuteRequest{ToolName: "deleteFile", ToolCallID: "call_1", Input: json.RawMessage(`{"path":"/a"}`)}); err != nil {
				return nil, err
			}
		}
		return &target.TurnResponse{State: state, FinishReason: "stop", Messages: []model.Message{{Role: model.RoleAssistant, Content: []model.Part{model.Text("Deleted.")}}}}, nil
	}}
	s := runOne(t, tgt, feature, Options{})
	want := []string{"", `{"after":1}`, `{"after":1}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("states sent %q, want %q (the replay resends the state its request was first sent with)", got, want)
	}
	for _, c := range conversations {
		if c == "" || c != conversations[0] {
			t.Errorf("conversation ids %q: want one non-empty id for the scenario", conversations)
		}
	}
	if s.CheckVerdicts["REQ-01"] != report.Pass {
		t.Errorf("verdicts %v: %s", s.CheckVerdicts, s.Message)
	}
}
