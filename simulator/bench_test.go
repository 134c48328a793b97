package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/approval-conformance-kit/ack/internal/cputime"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// approvalConversation is about n messages of approval exchanges: a user
// message, a call with its approval request, the approval and the result.
func approvalConversation(n int) []model.Message {
	msgs := []model.Message{model.SystemText("s")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, model.UserText("go on"),
			model.Message{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall(id, "deleteFile", json.RawMessage(`{"path":"/a"}`)), model.ApprovalRequest("a"+id, id)}},
			model.Message{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a"+id, true, ""), model.ToolResult(id, "deleteFile", model.TextOutput("deleted"))}})
	}
	return msgs[:n]
}

// BenchmarkCallPerMessage shows a model call's cost per prompt message
// stays flat from 10 to 100,000 messages: the journal's copy, the
// provider's rules and a turn's expectations (a result, no approval
// parts, a text the prompt contains) all read the prompt once. Each size
// cycles through distinct prompts of about 100,000 messages in all, so
// that none runs from a warm cache; compare cpu-ns/message.
func BenchmarkCallPerMessage(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000, 100000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			reqs := make([]*llm.Request, max(1, 100000/n))
			for i := range reqs {
				reqs[i] = &llm.Request{Messages: approvalConversation(n)}
			}
			last := reqs[0].Messages[len(reqs[0].Messages)-1]
			var want []ResultExpect
			if p := last.Content[len(last.Content)-1]; p.Type == model.PartToolResult {
				want = []ResultExpect{{ToolCallID: p.ToolCallID, Type: string(model.OutputText)}}
			}
			turn := Turn{Expect: &Expect{Results: want, Contains: []string{"go on"}}, Reply: Reply{Text: "ok"}}
			newModel := func() *Model {
				turns := make([]Turn, 64)
				for i := range turns {
					turns[i] = turn
				}
				m, err := New(Script{Turns: turns})
				if err != nil {
					b.Fatal(err)
				}
				return m
			}
			m := newModel()
			debug.FreeOSMemory()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cputime.Start()
			i := 0
			for b.Loop() {
				if i%64 == 63 { // a scenario makes a few calls, not millions
					m = newModel()
				}
				if _, err := m.Generate(context.Background(), reqs[i%len(reqs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
			b.ReportMetric(cpu.PerOp(b.N)/float64(n), "cpu-ns/message")
		})
	}
}
