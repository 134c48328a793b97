package model

import (
	"encoding/json"
	"fmt"
	"testing"
)

func benchConversation(n int) []byte {
	msgs := []Message{SystemText("s")}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, UserText("go"),
			Message{Role: RoleAssistant, Content: []Part{ToolCall(id, "t", json.RawMessage(`{"path":"/a","n":1}`)), ApprovalRequest("a"+id, id)}},
			Message{Role: RoleTool, Content: []Part{ApprovalResponse("a"+id, true, ""), ToolResult(id, "t", JSONOutput(json.RawMessage(`{"ok":true}`)))}})
	}
	b, _ := EncodeMessages(msgs)
	return b
}

// BenchmarkDecodeMessages compares the strict decoder with plain
// encoding/json decoding of the same document (the "json" sub-benchmark);
// the ratio is the price of strictness.
func BenchmarkDecodeMessages(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		data := benchConversation(n)
		b.Run(fmt.Sprintf("strict/exchanges=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeMessages(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("json/exchanges=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v []map[string]any
				if err := json.Unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
