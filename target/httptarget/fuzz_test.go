package httptarget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
)

// answering is a transport that answers every request with one body, as
// application/json: the target's answer, without a network. A new
// session, unless the body is its answer, gets a valid one.
type answering struct {
	body        []byte
	sessionBody bool
}

func (a answering) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
	}
	body := a.body
	if r.URL.Path == "/v1/client/sessions" && !a.sessionBody {
		body = []byte(`{"sessionId":"s1"}`)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// FuzzAnswers: every answer the harness reads from a target (info, a turn,
// a session, an action, the client state), whatever it holds, is taken
// only when it fits its schema, or refused with an error; never a panic.
func FuzzAnswers(f *testing.F) {
	for i, body := range []string{
		`{"name":"x","version":"1","roles":["agent","client"],"features":{}}`,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"hi"}]}],"finishReason":"stop"}`,
		`{"sessionId":"s1"}`, `{"refused":false}`,
		`{"messages":[],"pendingApprovals":[],"busy":false}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Add(uint8(1), []byte(`{"messages":[],"finishReason":"error","error":{"code":"Model","message":"x"}}`))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		ht, err := httptarget.New("http://target.invalid", httptarget.WithHTTPClient(&http.Client{Transport: answering{body, kind%5 == 2}}), httptarget.WithTimeout(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer ht.Close()
		ctx := context.Background()
		check := func(v any, err error) {
			if err == nil && v == nil {
				t.Fatal("no answer and no error")
			}
			if err != nil && !strings.HasPrefix(err.Error(), "http target:") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
		}
		switch kind % 5 {
		case 0:
			check(ht.Info(ctx))
		case 1:
			msgs, _ := json.Marshal([]any{map[string]any{"role": "user", "content": "hi"}})
			check(ht.Agent().Turn(ctx, &target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{BaseURL: "http://sim.invalid/v1", API: "openai-chat"}, Messages: msgs}))
		case 2:
			check(ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: "http://chat.invalid/", Protocol: "ag-ui"}))
		case 3, 4:
			s, err := ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: "http://chat.invalid/", Protocol: "ag-ui"})
			if err != nil {
				t.Fatal(err)
			}
			if kind%5 == 3 {
				check(s.Send(ctx, "hi"))
			} else {
				check(s.State(ctx))
			}
		}
	})
}
