package model

import (
	"encoding/json"
	"fmt"
	"testing"
)

// benchConversation encodes about n messages: a system message, then
// exchanges of a user message, an assistant tool call with its approval
// request, and a tool message with the approval and the result.
func benchConversation(n int) []byte {
	msgs := []Message{SystemText("s")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, UserText("go"),
			Message{Role: RoleAssistant, Content: []Part{ToolCall(id, "t", json.RawMessage(`{"path":"/a","n":1}`)), ApprovalRequest("a"+id, id)}},
			Message{Role: RoleTool, Content: []Part{ApprovalResponse("a"+id, true, ""), ToolResult(id, "t", JSONOutput(json.RawMessage(`{"ok":true}`)))}})
	}
	b, _ := EncodeMessages(msgs[:n])
	return b
}

// BenchmarkDecodeMessages compares the strict decoder with encoding/json
// decoding the same bytes into generic values (the baseline), at sizes from
// 10 to 100,000 messages. ns/message shows the cost stays linear.
func BenchmarkDecodeMessages(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000, 100000} {
		b.Run(fmt.Sprintf("messages=%d/strict", n), func(b *testing.B) {
			data := benchConversation(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeMessages(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
		})
		b.Run(fmt.Sprintf("messages=%d/baseline=encoding-json", n), func(b *testing.B) {
			data := benchConversation(n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v []map[string]any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
		})
	}
}
