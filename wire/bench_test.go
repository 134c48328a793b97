package wire

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/approval-conformance-kit/ack/internal/cputime"
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

// coldConversations returns distinct conversations of about n messages,
// enough of them to hold about 100,000 messages in all: a benchmark that
// cycles through them reads memory no cache holds at every size, so that
// ns/message compares the cost per message, not whether the input fits in
// the cache (a 10-message prompt checked again and again always does).
func coldConversations(n int) [][]model.Message {
	convs := make([][]model.Message, max(1, 100000/n))
	for i := range convs {
		convs[i] = conversation(n / 3)
	}
	return convs
}

// BenchmarkCheckMessages shows the check's cost per message stays flat
// from 10 to 100,000 messages: compare ns/message (and cpu-ns/message,
// which a loaded machine does not inflate) across the sizes.
func BenchmarkCheckMessages(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000, 100000} {
		for _, p := range Profiles {
			b.Run(fmt.Sprintf("%s/messages=%d", p, n), func(b *testing.B) {
				convs := coldConversations(n)
				debug.FreeOSMemory() // collect, sweep and return the setup's garbage now, not while measuring
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cputime.Start()
				i := 0
				for b.Loop() {
					msgs := convs[i%len(convs)]
					i++
					if v := CheckMessages(p, msgs, "r"); len(v) != 0 {
						b.Fatal(v)
					}
				}
				perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(perOp/float64(len(convs[0])), "ns/message")
				b.ReportMetric(cpu.PerOp(b.N)/float64(len(convs[0])), "cpu-ns/message")
			})
		}
	}
}
