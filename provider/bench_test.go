package provider_test

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/approval-conformance-kit/ack/internal/cputime"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"

	_ "github.com/approval-conformance-kit/ack/provider/canonical"
)

// approvalPrompt is about n messages of approval exchanges.
func approvalPrompt(n int) []model.Message {
	msgs := []model.Message{model.SystemText("s")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, model.UserText("go on"),
			model.Message{Role: model.RoleAssistant, Content: []model.Part{model.Text("deleting"), model.ToolCall(id, "deleteFile", json.RawMessage(`{"path":"/a"}`)), model.ApprovalRequest("a"+id, id)}},
			model.Message{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a"+id, true, ""), model.ToolResult(id, "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`)))}})
	}
	return msgs[:n]
}

// BenchmarkCodecPerMessage shows each wire format's request costs the same
// per message from 10 to 100,000 messages, on both sides: the client
// encoding it, the server decoding it (and laying out its view). Each size
// cycles through distinct requests of about 100,000 messages in all, so
// that none runs from a warm cache; compare cpu-ns/message.
func BenchmarkCodecPerMessage(b *testing.B) {
	for _, p := range append(wire.Profiles[:len(wire.Profiles):len(wire.Profiles)], provider.Canonical) {
		codec, err := provider.Lookup(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{10, 100, 1000, 10000, 100000} {
			reqs := make([]*llm.Request, max(1, 100000/n))
			bodies := make([][]byte, len(reqs))
			for i := range reqs {
				reqs[i] = &llm.Request{Messages: approvalPrompt(n)}
				if bodies[i], err = codec.EncodeRequest(reqs[i], false); err != nil {
					b.Fatal(err)
				}
			}
			for _, side := range []string{"encode", "decode"} {
				b.Run(fmt.Sprintf("%s/%s/messages=%d", p, side, n), func(b *testing.B) {
					debug.FreeOSMemory()
					b.ReportAllocs()
					b.ResetTimer()
					cpu := cputime.Start()
					i := 0
					for b.Loop() {
						var err error
						if side == "encode" {
							_, err = codec.EncodeRequest(reqs[i%len(reqs)], false)
						} else {
							_, err = codec.DecodeRequest(bodies[i%len(bodies)])
						}
						if err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
					b.ReportMetric(cpu.PerOp(b.N)/float64(n), "cpu-ns/message")
				})
			}
		}
	}
}

// orphanPrompt is a user message and n-1 results of calls the prompt does
// not hold: the decoders look each call's name up in vain.
func orphanPrompt(n int) []model.Message {
	msgs := []model.Message{model.UserText("go")}
	for i := 1; i < n; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleTool, Content: []model.Part{
			model.ToolResult(fmt.Sprintf("call_%d", i), "deleteFile", model.TextOutput("done"))}})
	}
	return msgs
}

// BenchmarkDecodeOrphanResults shows a prompt whose results answer no call
// (one the provider rejects, which the simulator must read to say so)
// decodes in time linear in its length too.
func BenchmarkDecodeOrphanResults(b *testing.B) {
	for _, p := range wire.Profiles {
		codec, err := provider.Lookup(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{100, 1000, 10000, 100000} {
			body, err := codec.EncodeRequest(&llm.Request{Messages: orphanPrompt(n)}, false)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/messages=%d", p, n), func(b *testing.B) {
				cpu := cputime.Start()
				for b.Loop() {
					if _, err := codec.DecodeRequest(body); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(cpu.PerOp(b.N)/float64(n), "cpu-ns/message")
			})
		}
	}
}
