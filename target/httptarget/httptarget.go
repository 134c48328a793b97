// Package httptarget drives an implementation over driver protocol v1
// (docs/driver-protocol.md): it is a target.Target whose agent turns and
// client sessions are HTTP calls to an adapter, and it serves the adapter's
// tool and policy callbacks on a loopback server of its own.
//
// Every call is bounded by its context and by the target's timeout. A
// target that refuses connections, hangs, answers an error status or
// answers something that is not a valid driver message yields a Go error:
// the harness reports it as error or timeout, never as a conformance
// failure.
package httptarget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

// Target is an implementation over HTTP.
type Target struct {
	base    string
	http    *http.Client
	timeout time.Duration
	cb      *callbacks
	cbAddr  string
	info    *target.Info
	limits  limits.Limits
}

// Option configures a Target.
type Option func(*Target)

// WithTimeout bounds each call that is not bounded by its context already
// (10s by default).
func WithTimeout(d time.Duration) Option { return func(t *Target) { t.timeout = d } }

// WithCallbackAddr sets where the callback server listens (127.0.0.1:0 by
// default; give another interface when the adapter runs elsewhere).
func WithCallbackAddr(addr string) Option { return func(t *Target) { t.cbAddr = addr } }

// WithLimits sets the bounds of the target's answers (ReplyBytes) and of
// its callback server (HeaderTimeout, RequestBytes); limits.Default()
// otherwise.
func WithLimits(l limits.Limits) Option { return func(t *Target) { t.limits = l.WithDefaults() } }

// WithHTTPClient sets the HTTP client of the calls to the adapter.
func WithHTTPClient(c *http.Client) Option { return func(t *Target) { t.http = c } }

// New returns a target at baseURL (the adapter's driver URL) and starts its
// callback server.
func New(baseURL string, opts ...Option) (*Target, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http target: %q is not an http(s) URL", baseURL)
	}
	t := &Target{base: strings.TrimRight(baseURL, "/"), http: &http.Client{CheckRedirect: refuseRedirect}, timeout: 10 * time.Second, cbAddr: "127.0.0.1:0", limits: limits.Default()}
	for _, o := range opts {
		o(t)
	}
	if t.cb, err = startCallbacks(t.cbAddr, t.limits); err != nil {
		return nil, err
	}
	return t, nil
}

// Close stops the callback server.
func (t *Target) Close() error { return t.cb.close() }

// call sends a request and decodes a 2xx answer into out. The answer
// must be application/json, within the reply limit, and valid against the
// schema of the message msg (docs/schemas/driver/<msg>.schema.json):
// anything else is an error, which the harness reports as such, never as
// a verdict on the target's conformance.
func (t *Target) call(ctx context.Context, method, path string, in, out any, msg string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("http target: encode %s %s: %w", method, path, err)
		}
		body = b
	}
	newReq := func() (*http.Request, error) {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, t.base+path, r)
		if err != nil {
			return nil, fmt.Errorf("http target: %w", err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, nil
	}
	// A target at its bound of requests in flight answers 503 without
	// acting on the request: it is sent again, with backoff, within the
	// call's timeout.
	resp, retries, err := limits.Send(ctx, t.http, newReq)
	if err != nil {
		return fmt.Errorf("http target: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("http target: %s %s: HTTP %d: %s%s", method, path, resp.StatusCode, bytes.TrimSpace(msg), limits.RetriedNote(retries))
	}
	if out == nil {
		return nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("http target: %s %s: the answer is not a valid %s message: %s", method, path, msg, fmt.Sprintf(format, args...))
	}
	if err := driver.CheckJSON(resp.Header); err != nil {
		return bad("%v", err)
	}
	data, err := driver.ReadBody(resp.Body, t.limits.ReplyBytes, "the answer")
	if err != nil {
		return fmt.Errorf("http target: %s %s: %w", method, path, err)
	}
	if err := driver.Validate(msg, data); err != nil {
		return bad("%v (docs/schemas/driver/%s.schema.json)", err, msg)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return bad("%v", err)
	}
	return nil
}

// Info implements target.Target (GET /v1/info).
func (t *Target) Info(ctx context.Context) (*target.Info, error) {
	var info target.Info
	if err := t.call(ctx, http.MethodGet, driver.PathInfo, nil, &info, driver.MsgInfo); err != nil {
		return nil, err
	}
	if info.Name == "" {
		return nil, errors.New("http target: GET /v1/info: name: missing")
	}
	if len(info.Roles) == 0 {
		return nil, errors.New("http target: GET /v1/info: roles: missing")
	}
	t.info = &info
	return &info, nil
}

func (t *Target) plays(role string) bool {
	if t.info == nil {
		return true // not asked yet: let the calls say
	}
	for _, r := range t.info.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// Agent implements target.Target.
func (t *Target) Agent() target.Agent {
	if !t.plays(target.RoleAgent) {
		return nil
	}
	return agent{t}
}

// Client implements target.Target.
func (t *Target) Client() target.Client {
	if !t.plays(target.RoleClient) {
		return nil
	}
	return client{t}
}

type agent struct{ t *Target }

// Turn implements target.Agent (POST /v1/agent/turn). The harness is served
// on the callback server for the duration of the turn.
func (a agent) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	if req.Model.BaseURL == "" {
		return nil, errors.New("http target: the turn has no model URL (the simulator must be served over HTTP)")
	}
	wireReq := *req
	wireReq.Tools = append([]target.Tool(nil), req.Tools...)
	if req.Harness != nil {
		release := a.t.cb.register(req.Harness, wireReq.Tools)
		defer release()
	}
	var resp target.TurnResponse
	if err := a.t.call(ctx, http.MethodPost, driver.PathTurn, &wireReq, &resp, driver.MsgTurnResponse); err != nil {
		return nil, err
	}
	if err := resp.Validate(); err != nil {
		return nil, fmt.Errorf("http target: POST %s: the answer is not a valid turn response: %w", driver.PathTurn, err)
	}
	return &resp, nil
}

// Wiring serves each scenario's simulator over HTTP, so that a turn's model
// endpoint is a URL the adapter can call. It implements steps.Wiring.
type Wiring struct {
	srv *simhttp.Server
}

// NewWiring starts the simulator's HTTP server (on 127.0.0.1, or addr),
// with the default limits.
func NewWiring(addr string) (*Wiring, error) { return NewWiringWith(addr, limits.Default()) }

// NewWiringWith starts the simulator's HTTP server with these limits
// (simhttp.ListenWith).
func NewWiringWith(addr string, lim limits.Limits) (*Wiring, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	srv, err := simhttp.ListenWith(addr, lim)
	if err != nil {
		return nil, err
	}
	return &Wiring{srv: srv}, nil
}

// Prepare serves sim (once per scenario) and points the turn at it. One
// base URL serves every model API (the provider wire of the simulator's
// profile, and the canonical API at {baseURL}/canonical), so the turn's
// model.api, chosen by the harness, decides which the adapter uses.
func (w *Wiring) Prepare(req *target.TurnRequest, sim *simulator.Model, _ target.Harness) error {
	name := fmt.Sprintf("s%p", sim)
	base := w.srv.BaseURL(name)
	if _, err := w.srv.Add(name, sim); err != nil && !strings.Contains(err.Error(), "already served") {
		return err
	}
	req.Model.BaseURL, req.Model.Local = base, nil
	return nil
}

// Close stops the simulator's server.
func (w *Wiring) Close() error { return w.srv.Close() }

// refuseRedirect stops the harness from following a target's redirect: a
// redirect would send the turn again, with its callback URLs and their
// tokens, wherever it points. The call fails with an error naming it (a
// harness error, never a verdict).
func refuseRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("the target answered %s %s with a redirect to %s: the harness does not follow redirects (it would send the request, its callback URLs and their tokens there); give --target the URL that answers", via[0].Method, via[0].URL.Redacted(), req.URL.Redacted())
}
