package protocols

import (
	"bytes"
	"context"
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
}

func BenchmarkDecodeRequest(b *testing.B) {
	for _, c := range All() {
		body, _ := c.EncodeRequest(conversation())
		b.Run(c.Name(), func(b *testing.B) {
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
