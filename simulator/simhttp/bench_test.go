package simhttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

// One model call over loopback HTTP, per format and mode: encode, serve,
// validate the prompt, reply, decode. The cost the HTTP path adds to every
// model call of a scenario.
func BenchmarkModelCallOverHTTP(b *testing.B) {
	srv, err := simhttp.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	prompt := []model.Message{model.SystemText("be careful"), model.UserText("delete a and b")}
	for _, p := range wire.Profiles {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/stream=%v", p, stream), func(b *testing.B) {
				turns := make([]simulator.Turn, b.N)
				for i := range turns {
					turns[i] = simulator.Turn{Reply: simulator.Reply{Text: "Deleting both.", ToolCalls: []simulator.ToolCall{
						{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)}}}}
				}
				sim, err := simulator.New(simulator.Script{Provider: p, Turns: turns})
				if err != nil {
					b.Fatal(err)
				}
				base, err := srv.Add(fmt.Sprintf("b-%s-%v-%d", p, stream, b.N), sim)
				if err != nil {
					b.Fatal(err)
				}
				client, _ := provider.NewClient(base, string(p))
				req := &llm.Request{Messages: prompt}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					var err error
					if stream {
						_, err = llm.Collect(context.Background(), client, req)
					} else {
						_, err = client.Generate(context.Background(), req)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
