package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/record"
	"github.com/approval-conformance-kit/ack/wire"
)

// cmdRecord is `conformance record --upstream URL`: a recording proxy in
// front of a model endpoint. Its URL is the first line of stdout; each
// exchange is a line on stderr. It stops on Ctrl-C and exits 1 if a
// request broke a rule.
func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("record", stderr)
	upstream := fs.String("upstream", "", "the model endpoint's base URL (required); a request's path is appended to its path")
	addr := fs.String("listen", "127.0.0.1:0", "the address to listen on (127.0.0.1 by default: the proxy has no authentication)")
	journalPath := fs.String("journal", "journal.jsonl", "the journal: one JSON line per exchange, appended")
	refuse := fs.Bool("refuse", false, "answer a request the provider would reject with the provider's exact error, without forwarding it")
	profile := fs.String("provider", "openai-chat", "the provider whose rules apply to requests to the kit's canonical model API")
	maxBody := fs.Int64("max-body", record.DefaultMaxBody, "the largest request body accepted, in bytes")
	maxResponse := fs.Int64("max-response", record.DefaultMaxResponse, "how much of an answer is journaled, in bytes (the client gets all of it)")
	var lim limits.Limits
	lim.Register(fs, limits.HeaderTimeout, limits.BodyTimeout, limits.InFlight)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if err := lim.Check(); err != nil {
		return 0, usagef("%v", err)
	}
	if *upstream == "" {
		return 0, usagef("record: --upstream URL is required")
	}
	p, err := wire.ParseProfile(*profile)
	if err != nil {
		return 0, describeFlagErr("provider", err)
	}
	if *maxBody <= 0 || *maxResponse <= 0 {
		return 0, usagef("record: --max-body and --max-response must be positive")
	}
	jf, err := os.OpenFile(*journalPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return exitHarness, fmt.Errorf("record: the journal: %w", err)
	}
	defer jf.Close()
	var mu sync.Mutex
	exchanges, flagged := 0, 0
	proxy, err := record.New(record.Options{Upstream: *upstream, Journal: jf, Refuse: *refuse, Profile: p,
		MaxBody: *maxBody, MaxResponse: *maxResponse, OnExchange: func(e record.Entry) {
			mu.Lock()
			defer mu.Unlock()
			exchanges++
			if len(e.Findings) > 0 {
				flagged++
			}
			fmt.Fprintf(stderr, "#%d %s call %d %s %s: HTTP %d %s\n", e.Exchange, e.Conversation, e.Call, e.API, e.Mode, e.Status, e.Verdict)
			for _, f := range e.Findings {
				fmt.Fprintf(stderr, "    %s %s %s %v: %s\n", f.Path, f.Check, f.Kind, f.IDs, f.Detail)
			}
		}})
	if err != nil {
		return 0, usagef("%v", err)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return exitHarness, fmt.Errorf("record: listen on %s: %w", *addr, err)
	}
	lim.RequestBytes = *maxBody
	errorCodec, err := provider.Lookup(p)
	if err != nil {
		return exitHarness, err
	}
	srv := lim.Server(proxy, func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(errorCodec.ErrorBody(status, "invalid_request_error", "record: "+msg))
	})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	fmt.Fprintf(stdout, "http://%s\n", l.Addr())
	fmt.Fprintf(stderr, "recording %s at http://%s into %s (Ctrl-C to stop)\n", redacted(*upstream), l.Addr(), *journalPath)
	select {
	case <-ctx.Done():
	case err := <-served:
		return exitHarness, fmt.Errorf("record: %w", err)
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return exitHarness, fmt.Errorf("record: %w", err)
	}
	_ = srv.Close() // streams still open after the grace period
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(stdout, "%d exchange(s) recorded in %s, %d with findings\n", exchanges, *journalPath, flagged)
	if flagged > 0 {
		return exitFail, nil
	}
	return exitOK, nil
}

// redacted is a URL with its password, if it has one, replaced by xxxxx.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}
