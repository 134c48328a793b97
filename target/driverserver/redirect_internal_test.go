package driverserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
