// Package repro reproduces the findings of ADK Go's certification with ADK
// alone: no kit, no adapter. Each test asserts ADK's behaviour as
// FINDINGS.md describes it, and fails (pointing at the finding to update)
// once ADK behaves otherwise.
package repro

import (
	"context"
	"iter"
	"sync"
	"testing"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

// scripted is a model.LLM that answers each call with the next reply.
type scripted struct {
	mu      sync.Mutex
	replies []*genai.Content
	calls   int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) GenerateContent(_ context.Context, _ *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		s.mu.Lock()
		c := genai.NewContentFromText("done", genai.RoleModel)
		if s.calls < len(s.replies) {
			c = s.replies[s.calls]
		}
		s.calls++
		s.mu.Unlock()
		yield(&model.LLMResponse{Content: c, TurnComplete: true, FinishReason: genai.FinishReasonStop}, nil)
	}
}

func call(id, name string, args map[string]any) *genai.Content {
	return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: args}}}}
}

// setup is an agent of model m with one tool that needs confirmation,
// counting its runs, on a fresh in-memory session; run sends a message.
func setup(t *testing.T, m *scripted) (run func(*genai.Content) []*session.Event, runs *int) {
	t.Helper()
	n := 0
	deleteFile, err := functiontool.New(functiontool.Config{Name: "deleteFile", RequireConfirmation: true},
		func(agent.Context, map[string]any) (map[string]any, error) {
			n++
			return map[string]any{"deleted": true}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	a, err := llmagent.New(llmagent.Config{Name: "agent", Model: m, Tools: []tool.Tool{deleteFile}})
	if err != nil {
		t.Fatal(err)
	}
	svc := session.InMemoryService()
	s, err := svc.Create(context.Background(), &session.CreateRequest{AppName: "repro", UserID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Config{AppName: "repro", Agent: a, SessionService: svc})
	if err != nil {
		t.Fatal(err)
	}
	return func(msg *genai.Content) []*session.Event {
		var evs []*session.Event
		for ev, err := range r.Run(context.Background(), "u", s.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		return evs
	}, &n
}

// confirmationIDs are the ids of the adk_request_confirmation calls.
func confirmationIDs(evs []*session.Event) []string {
	var ids []string
	for _, ev := range evs {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name == toolconfirmation.FunctionCallName {
				ids = append(ids, p.FunctionCall.ID)
			}
		}
	}
	return ids
}

func confirm(ids ...string) *genai.Content {
	c := &genai.Content{Role: genai.RoleUser}
	for _, id := range ids {
		c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: toolconfirmation.FunctionCallName, Response: map[string]any{"confirmed": true}}})
	}
	return c
}

// TestA1ConfirmationSentAgainRunsTheCallAgain: FINDINGS.md A1 (PRE-03,
// WIRE-04). The same confirmation, sent again after the call ran, runs it
// again.
func TestA1ConfirmationSentAgainRunsTheCallAgain(t *testing.T) {
	run, runs := setup(t, &scripted{replies: []*genai.Content{call("c1", "deleteFile", map[string]any{"path": "/a"})}})
	ids := confirmationIDs(run(genai.NewContentFromText("delete /a", genai.RoleUser)))
	if len(ids) != 1 || *runs != 0 {
		t.Fatalf("want one confirmation request and no run, got %v and %d run(s)", ids, *runs)
	}
	run(confirm(ids[0]))
	if *runs != 1 {
		t.Fatalf("the confirmed call ran %d time(s), want 1", *runs)
	}
	run(confirm(ids[0]))
	if *runs != 2 {
		t.Errorf("A1 no longer reproduces: the confirmation sent again ran the call %d time(s) in all (FINDINGS.md says 2)", *runs)
	}
}

// TestA2ModelCalledWhileConfirmationsWait: FINDINGS.md A2 (REQ-03). With
// two calls waiting, answering one calls the model though the other still
// waits.
func TestA2ModelCalledWhileConfirmationsWait(t *testing.T) {
	both := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "deleteFile", Args: map[string]any{"path": "/a"}}},
		{FunctionCall: &genai.FunctionCall{ID: "c2", Name: "deleteFile", Args: map[string]any{"path": "/b"}}},
	}}
	m := &scripted{replies: []*genai.Content{both}}
	run, _ := setup(t, m)
	ids := confirmationIDs(run(genai.NewContentFromText("delete /a and /b", genai.RoleUser)))
	if len(ids) != 2 {
		t.Fatalf("want two confirmation requests, got %v", ids)
	}
	m.mu.Lock()
	before := m.calls
	m.mu.Unlock()
	run(confirm(ids[0]))
	m.mu.Lock()
	after := m.calls
	m.mu.Unlock()
	if after == before {
		t.Errorf("A2 no longer reproduces: answering one of two confirmations did not call the model")
	}
}
