// Package repro reproduces findings of Genkit Go's certification with
// Genkit alone: no kit, no adapter. Each test asserts Genkit's behaviour
// as FINDINGS.md describes it, and fails (pointing at the finding to
// update) once Genkit behaves otherwise.
package repro

import (
	"context"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/middleware"
)

// world is Genkit with a scripted model (each call answers the next
// reply, then text) and a deleteFile tool that counts its runs.
type world struct {
	g     *genkit.Genkit
	model ai.Model
	tool  ai.Tool

	mu      sync.Mutex
	runs    int
	replies []*ai.Message
}

func newWorld(t *testing.T, name string, replies ...*ai.Message) *world {
	t.Helper()
	w := &world{replies: replies}
	w.g = genkit.Init(context.Background(), genkit.WithPlugins(&middleware.Middleware{}))
	w.model = genkit.DefineModel(w.g, "repro/"+name, &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}},
		func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			msg := ai.NewModelTextMessage("done")
			if len(w.replies) > 0 {
				msg, w.replies = w.replies[0], w.replies[1:]
			}
			return &ai.ModelResponse{Request: req, Message: msg, FinishReason: ai.FinishReasonStop}, nil
		})
	w.tool = genkit.DefineTool(w.g, "deleteFile", "deletes a file", func(_ *ai.ToolContext, in map[string]any) (map[string]any, error) {
		w.mu.Lock()
		w.runs++
		w.mu.Unlock()
		return map[string]any{"deleted": in["path"]}, nil
	})
	return w
}

func (w *world) generate(t *testing.T, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	t.Helper()
	base := []ai.GenerateOption{ai.WithModel(w.model), ai.WithTools(w.tool), ai.WithUse(&middleware.ToolApproval{})}
	return genkit.Generate(context.Background(), w.g, append(base, opts...)...)
}

func calls(refs ...string) *ai.Message {
	m := &ai.Message{Role: ai.RoleModel}
	for _, r := range refs {
		m.Content = append(m.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: "deleteFile", Ref: r, Input: map[string]any{"path": "/" + r}}))
	}
	return m
}

func approve(w *world, p *ai.Part) *ai.Part {
	return w.tool.Restart(p, &ai.RestartOptions{ResumedMetadata: map[string]any{"toolApproved": true}})
}

// TestG4ReplayedRestartRunsAgain: FINDINGS.md G4 (WIRE-04). The same
// approval (a restart of the interrupted request) sent again runs the
// tool again.
func TestG4ReplayedRestartRunsAgain(t *testing.T) {
	w := newWorld(t, "g4", calls("c1"))
	first, err := w.generate(t, ai.WithPrompt("delete /c1"))
	if err != nil {
		t.Fatal(err)
	}
	ints := first.Interrupts()
	if len(ints) != 1 || w.runs != 0 {
		t.Fatalf("want one interrupt and no run, got %d and %d run(s)", len(ints), w.runs)
	}
	history := first.History()
	for i := 0; i < 2; i++ {
		if _, err := w.generate(t, ai.WithMessages(history...), ai.WithToolRestarts(approve(w, ints[0]))); err != nil {
			t.Fatal(err)
		}
	}
	if w.runs != 2 {
		t.Errorf("G4 no longer reproduces: the approval sent twice ran the tool %d time(s) (FINDINGS.md says 2)", w.runs)
	}
}

// TestG2PartialResumeFails: FINDINGS.md G2 (PRE-09). A resume that
// answers one of two interrupts fails: the answered call gets no result,
// and the application must send its answer again with the other's.
func TestG2PartialResumeFails(t *testing.T) {
	w := newWorld(t, "g2", calls("c1", "c2"))
	first, err := w.generate(t, ai.WithPrompt("delete /c1 and /c2"))
	if err != nil {
		t.Fatal(err)
	}
	ints := first.Interrupts()
	if len(ints) != 2 {
		t.Fatalf("want two interrupts, got %d", len(ints))
	}
	_, err = w.generate(t, ai.WithMessages(first.History()...), ai.WithToolRestarts(approve(w, ints[0])))
	if err == nil {
		t.Errorf("G2 no longer reproduces: a resume answering one of two interrupts succeeded (%d run(s))", w.runs)
	}
}
