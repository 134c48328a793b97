package provider_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
)

// A model that streams without end, or answers a huge JSON reply, fails
// the call at the bound, naming it, instead of taking the memory.
func TestRepliesAreBounded(t *testing.T) {
	for _, c := range codecs(t) {
		t.Run(string(c.Profile()), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.Header.Get("Accept"), "event-stream") {
					w.Header().Set("Content-Type", "text/event-stream")
					sw := c.NewStreamWriter(w, w.(http.Flusher).Flush, false)
					for r.Context().Err() == nil {
						if sw.Write(llm.StreamEvent{Type: llm.StreamTextDelta, Delta: strings.Repeat("x", 1000)}) != nil {
							return
						}
					}
					return
				}
				out, _ := c.EncodeResponse(&llm.Response{Content: []model.Part{model.Text(strings.Repeat("x", 50000))}, FinishReason: "stop"})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(out)
			}))
			defer srv.Close()
			client := &provider.Client{BaseURL: srv.URL, Codec: c, MaxReply: 20000}
			ctx := context.Background()
			req := &llm.Request{Messages: []model.Message{model.UserText("hi")}}
			_, err := client.Generate(ctx, req)
			var tl *limits.TooLarge
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), "the model's reply is larger than 20000 bytes (the limit, --max-reply-bytes)") {
				t.Errorf("generate: %v", err)
			}
			err = client.Stream(ctx, req, func(llm.StreamEvent) error { return nil })
			if !errors.As(err, &tl) {
				t.Errorf("stream: %v", err)
			}
		})
	}
}
