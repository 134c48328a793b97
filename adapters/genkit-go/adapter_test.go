package genkitgo

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// scripted is a model that answers with its replies in turn.
type scripted struct {
	mu      sync.Mutex
	replies [][]model.Part
}

func (m *scripted) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.replies) == 0 {
		return &llm.Response{Content: []model.Part{model.Text("done")}, FinishReason: llm.FinishStop}, nil
	}
	r := m.replies[0]
	m.replies = m.replies[1:]
	return &llm.Response{Content: r, FinishReason: llm.FinishStop}, nil
}

func (m *scripted) Stream(context.Context, *llm.Request, func(llm.StreamEvent) error) error {
	return errors.New("not used")
}

// racingHarness fails "fail" at once; "slow" returns only after "fail"
// has failed, so that Genkit reads the failure first and returns while
// "slow" still runs (FINDINGS.md, G6).
type racingHarness struct {
	failed   chan struct{}
	mu       sync.Mutex
	slowDone bool
}

func (h *racingHarness) Execute(ctx context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	if req.ToolName == "fail" {
		close(h.failed)
		return nil, errors.New("mail server down")
	}
	<-h.failed
	h.mu.Lock()
	h.slowDone = true
	h.mu.Unlock()
	return json.RawMessage(`{"ok":true}`), nil
}

func (h *racingHarness) Policy(context.Context, target.PolicyRequest) (bool, error) {
	return false, nil
}

func (h *racingHarness) ran() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slowDone
}

func raw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTurnEndsAfterTheRunsGenkitStarted: a failing tool ends Generate while
// its sibling still runs; the turn answers only once the sibling's run has
// ended, in a step and in a resume, so that the run belongs to the turn
// whatever the scheduling.
func TestTurnEndsAfterTheRunsGenkitStarted(t *testing.T) {
	calls := []model.Part{
		model.ToolCall("s", "slow", json.RawMessage(`{}`)),
		model.ToolCall("f", "fail", json.RawMessage(`{}`)),
	}
	cases := []struct {
		name     string
		approval target.Approval
		replies  [][]model.Part
		messages []model.Message
	}{
		{"step", target.ApprovalNever, [][]model.Part{calls}, []model.Message{model.UserText("go")}},
		{"resume", target.ApprovalAlways, nil, []model.Message{
			model.UserText("go"),
			{Role: model.RoleAssistant, Content: append(append([]model.Part(nil), calls...), model.ApprovalRequest("s", "s"), model.ApprovalRequest("f", "f"))},
			{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("s", true, ""), model.ApprovalResponse("f", true, "")}},
		}},
	}
	tg := New(context.Background())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i < 20; i++ {
				h := &racingHarness{failed: make(chan struct{})}
				resp, err := tg.Turn(context.Background(), &target.TurnRequest{
					Mode:     target.Generate,
					Model:    target.ModelEndpoint{API: target.APICanonical, Local: &scripted{replies: c.replies}},
					Tools:    []target.Tool{{Name: "slow", Approval: c.approval}, {Name: "fail", Approval: c.approval}},
					Toolkit:  target.ToolkitProvided,
					Messages: raw(t, c.messages),
					Harness:  h,
				})
				if err != nil {
					t.Fatal(err)
				}
				if resp.Error == nil || resp.Error.Code != "ToolExecution" {
					t.Fatalf("run %d: want the turn to fail with ToolExecution, got %+v", i, resp)
				}
				if !h.ran() {
					t.Fatalf("run %d: the turn answered before the run of slow, which Genkit started in it, ended", i)
				}
			}
		})
	}
}

// TestResumeRuns: a resume starts a run for each interrupted request with
// a restart, no response, no pending output, and a tool Genkit finds.
func TestResumeRuns(t *testing.T) {
	req := func(name, ref string, meta map[string]any) *ai.Part {
		p := ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: ref})
		p.Metadata = meta
		return p
	}
	last := &ai.Message{Role: ai.RoleModel, Content: []*ai.Part{
		ai.NewTextPart("on it"),
		req("a", "1", nil),
		req("a", "2", nil),
		req("b", "3", map[string]any{"pendingOutput": map[string]any{}}),
		req("gone", "4", nil),
		req("a", "5", nil),
		req("a", "6", nil),
	}}
	restarts := []*ai.Part{req("a", "1", nil), req("a", "1", nil), req("b", "3", nil), req("gone", "4", nil), req("a", "5", nil)}
	responds := []*ai.Part{ai.NewToolResponsePart(&ai.ToolResponse{Name: "a", Ref: "5"})}
	found := func(name string) bool { return name != "gone" }
	// 1 runs (one request, however many restarts name it); 2 and 6 have
	// no answer (the resume fails on them); 3 has its pending output; 4's
	// tool is gone; 5's response wins over its restart.
	if got := resumeRuns([]*ai.Message{ai.NewUserTextMessage("go"), last}, restarts, responds, found); got != 1 {
		t.Errorf("resumeRuns = %d, want 1", got)
	}
	if got := resumeRuns([]*ai.Message{last}, nil, responds, found); got != 0 {
		t.Errorf("resumeRuns without restarts = %d, want 0", got)
	}
}
