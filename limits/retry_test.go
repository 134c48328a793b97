package limits

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A 503 is sent again, a new request with the whole body each time, until
// the server takes it; another status is the answer at once.
func TestSendRetriesA503(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != "hello" {
			t.Errorf("try %d: body %q", n.Load()+1, body)
		}
		switch {
		case r.URL.Path == "/500":
			n.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
		case n.Add(1) <= 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	send := func(path string) (*http.Response, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, retries, err := Send(ctx, srv.Client(), func() (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, strings.NewReader("hello"))
		})
		if err != nil {
			t.Fatal(err)
		}
		return resp, retries
	}
	resp, retries := send("/")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(got) != "ok" || retries != 2 || n.Load() != 3 {
		t.Errorf("%d %q after %d retries, %d requests; want 200 after 2 retries, 3 requests", resp.StatusCode, got, retries, n.Load())
	}
	n.Store(0)
	resp, retries = send("/500")
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || retries != 0 || n.Load() != 1 {
		t.Errorf("a 500: %d after %d retries, %d requests", resp.StatusCode, retries, n.Load())
	}
}

// A server that answers 503 to every try gets no try past the call's
// deadline: the last 503 is the answer, with the retries counted.
func TestSendStopsAtTheDeadline(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, retries, err := Send(ctx, srv.Client(), func() (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	})
	if err != nil {
		t.Fatalf("%v (after %d retries)", err, retries)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || retries < 1 || int(n.Load()) != retries+1 {
		t.Errorf("%d after %d retries, %d requests", resp.StatusCode, retries, n.Load())
	}
	if note := RetriedNote(retries); !strings.Contains(note, "sent again") {
		t.Errorf("note %q", note)
	}
}
