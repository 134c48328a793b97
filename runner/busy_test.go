package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// busyChats is the reference whose chat endpoints are behind a proxy that
// refuses every other request with 503, as a server at its bound of
// requests in flight does: the request is not acted on.
type busyChats struct {
	*inprocess.Target
	refused atomic.Int32
}

func (b *busyChats) Server() target.Server { return busyServer{b} }

type busyServer struct{ b *busyChats }

func (s busyServer) NewChat(ctx context.Context, cfg target.ChatConfig) (target.Chat, error) {
	chat, err := s.b.Target.Server().NewChat(ctx, cfg)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(chat.URL())
	if err != nil {
		return nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			s.b.refused.Add(1)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	return busyChat{Chat: chat, srv: srv, url: srv.URL + u.Path}, nil
}

type busyChat struct {
	target.Chat
	srv *httptest.Server
	url string
}

func (c busyChat) URL() string { return c.url }
func (c busyChat) Close(ctx context.Context) error {
	c.srv.Close()
	return c.Chat.Close(ctx)
}

// The server role's harness sends a chat request refused with 503 again,
// with backoff, within the step's timeout, before the answer counts: the
// chat scenarios pass on the reference behind a busy endpoint.
func TestServerRoleRetriesABusyChatEndpoint(t *testing.T) {
	tgt := &busyChats{Target: inprocess.New(reference.New(), "reference")}
	run, err := Run(context.Background(), Options{Target: tgt, Tags: "@server and @PRE-02", NoScenarios: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) == 0 || tgt.refused.Load() == 0 {
		t.Fatalf("%d scenarios, %d requests refused: the test refused nothing", len(run.Scenarios), tgt.refused.Load())
	}
	for _, s := range run.Scenarios {
		if s.Verdict != report.Pass {
			t.Errorf("%s: %s: %s", s.ID, s.Verdict, s.Message)
		}
	}
}
