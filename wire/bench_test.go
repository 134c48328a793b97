package wire

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

// conversation builds n exchanges of user text, a call and its result.
func conversation(n int) []model.Message {
	msgs := []model.Message{model.SystemText("s")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, model.UserText("go"),
			model.Message{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall(id, "t", json.RawMessage(`{"a":1}`))}},
			model.Message{Role: model.RoleTool, Content: []model.Part{model.ToolResult(id, "t", model.TextOutput("ok"))}})
	}
	return msgs
}

// BenchmarkCheckMessages shows the check's cost grows linearly with the
// conversation: compare ns/op across the sizes.
func BenchmarkCheckMessages(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		msgs := conversation(n)
		for _, p := range Profiles {
			b.Run(fmt.Sprintf("%s/exchanges=%d", p, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if v := CheckMessages(p, msgs, "r"); len(v) != 0 {
						b.Fatal(v)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(msgs)), "ns/message")
			})
		}
	}
}
