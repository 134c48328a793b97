package simulator

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// BenchmarkGenerateInProcess measures one validated, journaled call.
func BenchmarkGenerateInProcess(b *testing.B) {
	req := &llm.Request{Messages: []model.Message{model.UserText("x"), assistantCalls("c1"), toolResult("c1", model.TextOutput("ok"))}}
	turns := make([]Turn, b.N)
	for i := range turns {
		turns[i] = Turn{Reply: Reply{Text: "ok"}}
	}
	m, err := New(Script{Turns: turns})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Generate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
