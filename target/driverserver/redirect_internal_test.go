package driverserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A callback that answers with a redirect is an error naming its status:
// the tool's input is never posted again where the redirect points.
func TestCallbackRedirectIsNotFollowed(t *testing.T) {
	reached := make(chan string, 1)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached <- r.URL.Path }))
	defer elsewhere.Close()
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer cb.Close()
	h := &harness{http: NewHandler(nil, nil).http, maxReply: 1 << 20}
	var out map[string]any
	err := h.post(context.Background(), cb.URL+"/execute", map[string]string{"input": "secret"}, &out)
	if err == nil || !strings.Contains(err.Error(), "HTTP 307") {
		t.Errorf("a redirecting callback: %v", err)
	}
	select {
	case p := <-reached:
		t.Errorf("the redirect was followed to %s", p)
	default:
	}
}

// A callback the harness's server refuses with 503 (at its bound of
// requests in flight, not acted on) is posted again, with backoff, within
// the turn: the tool's result arrives.
func TestBusyCallbackIsPostedAgain(t *testing.T) {
	var n atomic.Int32
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			http.Error(w, `{"error":{"code":"Busy","message":"busy"}}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output":"done"}`))
	}))
	defer cb.Close()
	h := &harness{http: NewHandler(nil, nil).http, maxReply: 1 << 20}
	var out map[string]any
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.post(ctx, cb.URL+"/execute", map[string]string{"input": "x"}, &out); err != nil || out["output"] != "done" || n.Load() != 2 {
		t.Errorf("a busy callback: %v, %v after %d posts", err, out, n.Load())
	}
}
