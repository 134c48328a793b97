package protocols

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
)

// A long streamed answer with many tool calls, written and read back: the
// per-event cost of a codec on both sides of a chat stream.
func BenchmarkStreamRoundTrip(b *testing.B) {
	var evs []chat.Event
	for i := 0; i < 50; i++ {
		evs = append(evs, stream(false)[1:len(stream(false))-1]...)
	}
	for _, c := range All() {
		b.Run(c.Name(), func(b *testing.B) {
			var buf bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				w := c.NewWriter(&buf, nil, nil)
				for _, ev := range evs {
					if c.Name() == chat.ProtocolAGUI && ev.Approval != nil {
						ev.Approval.InterruptID = ev.Approval.ID
					}
					if err := w.Write(ev); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				n := 0
				if err := c.ReadEvents(context.Background(), &buf, func(chat.Event) error { n++; return nil }); err != nil || n == 0 {
					b.Fatal(err, n)
				}
			}
			b.ReportMetric(float64(len(evs)), "events/op")
		})
	}
	// The baseline: the same events as JSON lines, written and read back
	// with encoding/json.
	b.Run("baseline=encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			for _, ev := range evs {
				if err := enc.Encode(ev); err != nil {
					b.Fatal(err)
				}
			}
			dec := json.NewDecoder(&buf)
			for dec.More() {
				var v map[string]any
				if err := dec.Decode(&v); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(len(evs)), "events/op")
	})
}

// BenchmarkDecodeRequest decodes each protocol's request body, beside
// encoding/json decoding the same body into generic values (the baseline).
func BenchmarkDecodeRequest(b *testing.B) {
	for _, c := range All() {
		body, _ := c.EncodeRequest(conversation())
		b.Run(c.Name()+"/baseline=encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var v any
				if err := json.Unmarshal(body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.Name()+"/codec", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := c.DecodeRequest(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
