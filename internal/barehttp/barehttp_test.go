package barehttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const stream = "event: a\ndata: {\"b\":1,\"a\":[2]}\n\ndata: {\"c\":\"x\"}\n\ndata: [DONE]\n\n"

// The handler answers the recorded reply's JSON, encoded again or replayed.
func TestHandlerAnswersTheRecordedReply(t *testing.T) {
	for _, tc := range []struct {
		reply          string
		stream, replay bool
	}{
		{`{"id":"r","n":12345678901234567890,"s":"a\u00e9"}`, false, false},
		{`{"id":"r"}`, false, true},
		{stream, true, false},
		{stream, true, true},
	} {
		h, err := New([]byte(tc.reply), tc.stream, tc.replay)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !SameJSON(got, []byte(tc.reply), tc.stream) || (tc.replay && string(got) != tc.reply) {
			t.Errorf("answered %q for %q", got, tc.reply)
		}
		bad, err := http.Post(srv.URL, "application/json", strings.NewReader(`{`))
		if err != nil || bad.StatusCode != http.StatusBadRequest {
			t.Errorf("a request that is not JSON: %v %v", bad.StatusCode, err)
		}
		srv.Close()
	}
	if _, err := New([]byte("not json"), false, false); err == nil {
		t.Error("a reply that is not JSON was accepted")
	}
	if SameJSON([]byte(`{"a":1}`), []byte(`{"a":2}`), false) || SameJSON([]byte(stream), []byte("data: 1\n\n"), true) {
		t.Error("different replies compare equal")
	}
}
