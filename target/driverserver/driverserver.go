// Package driverserver exposes a target.Target over driver protocol v1: it
// is the adapter side of the protocol, written once. An adapter for an SDK
// implements target.Target around the SDK (see target/inprocess for the
// reference's); this package turns it into the HTTP endpoints the harness
// calls, turning the tools' callback URLs into a target.Harness and the
// model endpoint into an llm.Model.
package driverserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

// ModelFactory makes the model a turn calls from its endpoint.
type ModelFactory func(target.ModelEndpoint) (llm.Model, error)

// Handler serves driver protocol v1 for one target.
type Handler struct {
	target  target.Target
	models  ModelFactory
	http    *http.Client
	maxWait time.Duration
	limits  limits.Limits
	now     func() time.Time

	mu       sync.Mutex
	sessions map[string]*openSession
	chats    map[string]target.Chat
}

// openSession is a client session with when it was last used and how
// many requests are using it now.
type openSession struct {
	s    target.Session
	last time.Time
	busy int
}

// Option configures a Handler.
type Option func(*Handler)

// WithCallbackClient sets the HTTP client of the tool and policy callbacks.
func WithCallbackClient(c *http.Client) Option { return func(h *Handler) { h.http = c } }

// WithLimits sets the server's bounds (limits.Default() otherwise): the
// header timeout and the largest request body (413 beyond, naming the
// flag); the largest turn answer it writes and callback answer it reads
// (ReplyBytes; the model's replies are bounded by the model factory); the
// most model calls of a turn (Steps: a turn asking options.maxSteps above
// it is refused, and a turn's model refuses calls past it); the client
// sessions open at once (Sessions: 429 beyond) and how long one may sit
// unused before it is closed (SessionIdle).
func WithLimits(l limits.Limits) Option { return func(h *Handler) { h.limits = l.WithDefaults() } }

// WithClock sets the clock that session idleness is measured by
// (time.Now by default), for tests.
func WithClock(now func() time.Time) Option { return func(h *Handler) { h.now = now } }

// NewHandler returns the handler of t; models makes each turn's model.
func NewHandler(t target.Target, models ModelFactory, opts ...Option) *Handler {
	h := &Handler{target: t, models: models, http: &http.Client{CheckRedirect: noRedirects}, maxWait: 30 * time.Second, limits: limits.Default(), now: time.Now, sessions: map[string]*openSession{}, chats: map[string]target.Chat{}}
	for _, o := range opts {
		o(h)
	}
	return h
}

// ServeHTTP implements http.Handler. A panic of the target is answered
// with a 500 Internal error envelope, never a dropped connection.
func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &trackingWriter{ResponseWriter: rw}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			if !w.wrote {
				driver.WriteError(w, http.StatusInternalServerError, "Internal", "%s %s: the target panicked: %v", r.Method, r.URL.Path, v)
			}
		}
	}()
	h.closeIdle(r.Context())
	switch {
	case r.URL.Path == driver.PathInfo && r.Method == http.MethodGet:
		info, err := h.target.Info(r.Context())
		if err != nil {
			driver.WriteError(w, http.StatusInternalServerError, "Internal", "info: %v", err)
			return
		}
		driver.WriteJSON(w, http.StatusOK, info)
	case r.URL.Path == driver.PathTurn && r.Method == http.MethodPost:
		h.turn(w, r)
	case r.URL.Path == driver.PathSessions && r.Method == http.MethodPost:
		h.newSession(w, r)
	case strings.HasPrefix(r.URL.Path, driver.PathSessions+"/"):
		h.session(w, r)
	case r.URL.Path == driver.PathChats && r.Method == http.MethodPost:
		h.newChat(w, r)
	case strings.HasPrefix(r.URL.Path, driver.PathChats+"/") && r.Method == http.MethodDelete:
		h.closeChat(w, r)
	default:
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no endpoint %s %s", r.Method, r.URL.Path)
	}
}

func (h *Handler) turn(w http.ResponseWriter, r *http.Request) {
	ag := h.target.Agent()
	if ag == nil {
		driver.WriteError(w, http.StatusNotImplemented, "NotImplemented", "this target does not play the agent role")
		return
	}
	var req target.TurnRequest
	if err := driver.ReadJSON(w, r, &req, h.limits.RequestBytes); err != nil {
		driver.WriteReadError(w, err)
		return
	}
	if err := validateTurn(&req); err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "%v", err)
		return
	}
	if req.Options.MaxSteps > h.limits.Steps {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "options.maxSteps: %d is more than this server allows (%d, --max-steps)", req.Options.MaxSteps, h.limits.Steps)
		return
	}
	if h.models == nil {
		driver.WriteError(w, http.StatusNotImplemented, "NotImplemented", "this server has no model client")
		return
	}
	m, err := h.models(req.Model)
	if err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "model: %v", err)
		return
	}
	req.Model.Local = &boundedModel{Model: m, max: h.limits.Steps}
	req.Harness = &harness{http: h.http, tools: req.Tools, maxReply: h.limits.ReplyBytes}
	resp, err := ag.Turn(r.Context(), &req)
	if err != nil {
		driver.WriteError(w, http.StatusInternalServerError, "Internal", "turn: %v", err)
		return
	}
	body, err := json.Marshal(resp)
	if err != nil {
		driver.WriteError(w, http.StatusInternalServerError, "Internal", "turn: the answer does not encode: %v", err)
		return
	}
	if int64(len(body)) > h.limits.ReplyBytes {
		driver.WriteError(w, http.StatusInternalServerError, "Internal", "turn: %v", &limits.TooLarge{What: fmt.Sprintf("the turn's answer (%d bytes)", len(body)), Limit: h.limits.ReplyBytes, Flag: "max-reply-bytes"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// boundedModel refuses model calls past a turn's bound, whatever the
// target's own step limit.
type boundedModel struct {
	llm.Model
	max   int
	calls atomic.Int64
}

func (m *boundedModel) count() error {
	if n := m.calls.Add(1); n > int64(m.max) {
		return fmt.Errorf("model call %d of the turn refused: this server allows %d model calls a turn (--max-steps)", n, m.max)
	}
	return nil
}

// Generate implements llm.Model.
func (m *boundedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := m.count(); err != nil {
		return nil, err
	}
	return m.Model.Generate(ctx, req)
}

// Stream implements llm.Model.
func (m *boundedModel) Stream(ctx context.Context, req *llm.Request, yield func(llm.StreamEvent) error) error {
	if err := m.count(); err != nil {
		return err
	}
	return m.Model.Stream(ctx, req, yield)
}

// validateTurn checks what a turn request must hold, naming the field at
// fault. An empty mode or toolkit means generate or provided, as in-process.
func validateTurn(req *target.TurnRequest) error {
	switch req.Mode {
	case "", target.Generate, target.Stream:
	default:
		return fmt.Errorf("mode: unknown mode %q (want generate or stream)", req.Mode)
	}
	if req.Model.BaseURL == "" {
		return errors.New("model.baseURL: missing")
	}
	if err := httpURL(req.Model.BaseURL); err != nil {
		return fmt.Errorf("model.baseURL: %w", err)
	}
	switch req.Toolkit {
	case "", target.ToolkitProvided, target.ToolkitAbsent, target.ToolkitEmpty:
	default:
		return fmt.Errorf("toolkit: unknown setting %q (want provided, absent or empty)", req.Toolkit)
	}
	switch req.Options.DenialPolicy {
	case "", "independent", "abort-remaining":
	default:
		return fmt.Errorf("options.denialPolicy: unknown policy %q (want independent or abort-remaining)", req.Options.DenialPolicy)
	}
	if req.Options.Concurrency < 0 || req.Options.MaxSteps < 0 {
		return errors.New("options: concurrency and maxSteps must not be negative")
	}
	seen := map[string]bool{}
	for i, t := range req.Tools {
		switch {
		case t.Name == "":
			return fmt.Errorf("tools[%d].name: missing", i)
		case seen[t.Name]:
			return fmt.Errorf("tools[%d].name: %q given twice", i, t.Name)
		}
		seen[t.Name] = true
		if t.ExecuteURL != "" {
			if err := httpURL(t.ExecuteURL); err != nil {
				return fmt.Errorf("tools[%d].executeURL: %w", i, err)
			}
		}
		if t.PolicyURL != "" {
			if err := httpURL(t.PolicyURL); err != nil {
				return fmt.Errorf("tools[%d].policyURL: %w", i, err)
			}
		}
		switch t.Approval {
		case target.ApprovalAlways, target.ApprovalNever, "":
		case target.ApprovalDynamic:
			if t.PolicyURL == "" {
				return fmt.Errorf("tools[%d].policyURL: missing for a dynamic policy", i)
			}
		default:
			return fmt.Errorf("tools[%d].approval: unknown policy %q (want always, never or dynamic)", i, t.Approval)
		}
	}
	return nil
}

// httpURL accepts an absolute http or https URL only: a target is never
// sent to read files (file://) or other schemes.
func httpURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", s)
	}
	return nil
}

// trackingWriter records whether an answer was started.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *trackingWriter) WriteHeader(status int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

func (w *trackingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *trackingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// harness runs tools and policies by calling the harness's callback URLs.
type harness struct {
	http     *http.Client
	tools    []target.Tool
	maxReply int64
}

func (h *harness) tool(name string) (target.Tool, error) {
	for _, t := range h.tools {
		if t.Name == name {
			return t, nil
		}
	}
	return target.Tool{}, fmt.Errorf("no tool %q in the turn", name)
}

func (h *harness) post(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	// The harness's callback server at its bound of requests in flight
	// answers 503 without acting on the call: it is sent again, with
	// backoff, within the turn.
	resp, retries, err := limits.Send(ctx, h.http, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		return req, nil
	})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("callback %s: HTTP %d: %s%s", url, resp.StatusCode, bytes.TrimSpace(msg), limits.RetriedNote(retries))
	}
	data, err := driver.ReadBody(resp.Body, h.maxReply, "the callback's answer")
	if err != nil {
		return fmt.Errorf("callback %s: %w", url, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("callback %s: %w", url, err)
	}
	return nil
}

// Execute implements target.Harness: POST executeURL {toolCallId, input}.
func (h *harness) Execute(ctx context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	t, err := h.tool(req.ToolName)
	if err != nil {
		return nil, err
	}
	if t.ExecuteURL == "" {
		return nil, fmt.Errorf("tool %q has no executeURL", t.Name)
	}
	var res driver.ExecuteResult
	if err := h.post(ctx, t.ExecuteURL, map[string]any{"toolCallId": req.ToolCallID, "input": req.Input}, &res); err != nil {
		return nil, err
	}
	if res.Error != "" {
		return nil, errors.New(res.Error)
	}
	if len(res.Output) == 0 {
		return json.RawMessage("null"), nil
	}
	return res.Output, nil
}

// Policy implements target.Harness: POST policyURL {toolCallId, input,
// messages}. An automatic decision counts as its NeedsApproval.
func (h *harness) Policy(ctx context.Context, req target.PolicyRequest) (bool, error) {
	d, err := h.Decide(ctx, req)
	if err != nil {
		return false, err
	}
	return d.NeedsApproval(), nil
}

// Decide implements target.Decider: the callback's answer, needsApproval
// (user-approval or not-applicable) or an automatic decision.
func (h *harness) Decide(ctx context.Context, req target.PolicyRequest) (target.PolicyDecision, error) {
	t, err := h.tool(req.ToolName)
	if err != nil {
		return target.PolicyDecision{}, err
	}
	msgs, err := model.EncodeMessages(req.Messages)
	if err != nil {
		return target.PolicyDecision{}, err
	}
	var res driver.PolicyResult
	if err := h.post(ctx, t.PolicyURL, map[string]any{"toolCallId": req.ToolCallID, "input": req.Input, "messages": json.RawMessage(msgs)}, &res); err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) && ctx.Err() == nil {
			// The harness dropped the connection: the scenario's policy
			// crashes. A Go policy function crashes by panicking, as a
			// JavaScript one throws; the runtime must fail closed.
			panic(fmt.Sprintf("the dynamic policy of %q crashed: %v", req.ToolName, err))
		}
		return target.PolicyDecision{}, err
	}
	if res.Error != "" {
		return target.PolicyDecision{}, errors.New(res.Error)
	}
	if res.Decision != "" {
		d := target.PolicyDecision{Decision: res.Decision, Reason: res.Reason}
		return d, d.Validate()
	}
	if res.NeedsApproval == nil {
		return target.PolicyDecision{}, errors.New("the policy callback answered without needsApproval")
	}
	if *res.NeedsApproval {
		return target.PolicyDecision{Decision: target.DecisionUserApproval}, nil
	}
	return target.PolicyDecision{Decision: target.DecisionNotApplicable}, nil
}

func (h *Handler) newSession(w http.ResponseWriter, r *http.Request) {
	cl := h.target.Client()
	if cl == nil {
		driver.WriteError(w, http.StatusNotImplemented, "NotImplemented", "this target does not play the client role")
		return
	}
	var cfg target.SessionConfig
	if err := driver.ReadJSON(w, r, &cfg, h.limits.RequestBytes); err != nil {
		driver.WriteReadError(w, err)
		return
	}
	if cfg.ChatURL == "" || cfg.Protocol == "" {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "chatURL and protocol are required")
		return
	}
	if err := httpURL(cfg.ChatURL); err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "chatURL: %v", err)
		return
	}
	h.mu.Lock()
	open := len(h.sessions)
	h.mu.Unlock()
	if open >= h.limits.Sessions {
		driver.WriteError(w, http.StatusTooManyRequests, "TooManySessions", "%d client sessions are open, the most this server allows (--max-sessions); close one (DELETE) first, or wait: a session unused for %s is closed", open, h.limits.SessionIdle)
		return
	}
	s, err := cl.NewSession(context.WithoutCancel(r.Context()), cfg)
	if err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "session: %v", err)
		return
	}
	id := uuid.NewString()
	h.mu.Lock()
	h.sessions[id] = &openSession{s: s, last: h.now()}
	h.mu.Unlock()
	driver.WriteJSON(w, http.StatusOK, driver.SessionCreated{SessionID: id})
}

// closeIdle closes the sessions unused for longer than SessionIdle (none
// while a request is using them).
func (h *Handler) closeIdle(ctx context.Context) {
	now := h.now()
	var idle []target.Session
	h.mu.Lock()
	for id, o := range h.sessions {
		if o.busy == 0 && now.Sub(o.last) > h.limits.SessionIdle {
			idle = append(idle, o.s)
			delete(h.sessions, id)
		}
	}
	h.mu.Unlock()
	for _, s := range idle {
		_ = s.Close(context.WithoutCancel(ctx))
	}
}

// use marks a session in use until the returned func is called.
func (h *Handler) use(id string) (target.Session, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	o := h.sessions[id]
	if o == nil {
		return nil, nil
	}
	o.busy++
	o.last = h.now()
	return o.s, func() {
		h.mu.Lock()
		o.busy--
		o.last = h.now()
		h.mu.Unlock()
	}
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, driver.PathSessions+"/")
	id, verb, _ := strings.Cut(rest, "/")
	s, done := h.use(id)
	if s == nil {
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no session %q (closed, or unused for longer than %s)", id, h.limits.SessionIdle)
		return
	}
	defer done()
	ctx := r.Context()
	act := func(res *target.ActionResult, err error) {
		if err != nil {
			driver.WriteError(w, http.StatusInternalServerError, "Internal", "%s: %v", verb, err)
			return
		}
		driver.WriteJSON(w, http.StatusOK, res)
	}
	read := func(v any) bool {
		if err := driver.ReadJSON(w, r, v, h.limits.RequestBytes); err != nil {
			driver.WriteReadError(w, err)
			return false
		}
		return true
	}
	switch {
	case verb == "" && r.Method == http.MethodDelete:
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
		if err := s.Close(ctx); err != nil {
			driver.WriteError(w, http.StatusInternalServerError, "Internal", "close: %v", err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case verb == "send" && r.Method == http.MethodPost:
		var req driver.SendRequest
		if read(&req) {
			act(s.Send(ctx, req.Text))
		}
	case verb == "approval" && r.Method == http.MethodPost:
		var req target.ApprovalAnswer
		if !read(&req) {
			return
		}
		if req.ApprovalID == "" {
			driver.WriteError(w, http.StatusBadRequest, "BadRequest", "approvalId: missing")
			return
		}
		act(s.Approve(ctx, req))
	case verb == "tool-output" && r.Method == http.MethodPost:
		var req driver.ToolOutputRequest
		if read(&req) {
			act(s.ToolOutput(ctx, req.ToolCallID, req.Output))
		}
	case verb == "state" && r.Method == http.MethodGet:
		st, err := s.State(ctx)
		if err != nil {
			driver.WriteError(w, http.StatusInternalServerError, "Internal", "state: %v", err)
			return
		}
		driver.WriteJSON(w, http.StatusOK, st)
	case verb == "wait" && r.Method == http.MethodPost:
		var req driver.WaitRequest
		if !read(&req) {
			return
		}
		switch {
		case req.Until != target.UntilIdle && req.Until != target.UntilApprovalRequested:
			driver.WriteError(w, http.StatusBadRequest, "BadRequest", "until: unknown condition %q (want idle or approval-requested)", req.Until)
			return
		case req.Until == target.UntilApprovalRequested && req.ToolCallID == "":
			driver.WriteError(w, http.StatusBadRequest, "BadRequest", "toolCallId: missing for approval-requested")
			return
		}
		bound := time.Duration(req.TimeoutMs) * time.Millisecond
		if bound <= 0 || bound > h.maxWait {
			bound = h.maxWait
		}
		wctx, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		st, err := s.Wait(wctx, target.WaitCondition{Until: req.Until, ToolCallID: req.ToolCallID, OrIdle: req.OrIdle})
		if err != nil && wctx.Err() == nil {
			driver.WriteError(w, http.StatusInternalServerError, "Internal", "wait: %v", err)
			return
		}
		if st == nil { // the bound passed: the state as it is
			if st, err = s.State(ctx); err != nil {
				driver.WriteError(w, http.StatusInternalServerError, "Internal", "state: %v", err)
				return
			}
		}
		driver.WriteJSON(w, http.StatusOK, st)
	default:
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no endpoint %s %s", r.Method, r.URL.Path)
	}
}

// newChat opens a chat endpoint of the server role: the target's chat
// server with its agent behind it, calling the model at cfg.model and the
// tools' callbacks.
func (h *Handler) newChat(w http.ResponseWriter, r *http.Request) {
	srv := target.ServerOf(h.target)
	if srv == nil {
		driver.WriteError(w, http.StatusNotImplemented, "NotImplemented", "this target does not play the server role")
		return
	}
	var cfg target.ChatConfig
	if err := driver.ReadJSON(w, r, &cfg, h.limits.RequestBytes); err != nil {
		driver.WriteReadError(w, err)
		return
	}
	if cfg.Protocol == "" {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "protocol: missing")
		return
	}
	if err := validateTurn(&target.TurnRequest{Model: cfg.Model, Tools: cfg.Tools, Options: cfg.Options}); err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "%v", err)
		return
	}
	if h.models == nil {
		driver.WriteError(w, http.StatusNotImplemented, "NotImplemented", "this server has no model client")
		return
	}
	h.mu.Lock()
	open := len(h.chats)
	h.mu.Unlock()
	if open >= h.limits.Sessions {
		driver.WriteError(w, http.StatusTooManyRequests, "TooManySessions", "%d chats are open, the most this server allows (--max-sessions); close one (DELETE) first", open)
		return
	}
	m, err := h.models(cfg.Model)
	if err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "model: %v", err)
		return
	}
	cfg.Model.Local = m
	cfg.Harness = &harness{http: h.http, tools: cfg.Tools, maxReply: h.limits.ReplyBytes}
	c, err := srv.NewChat(context.WithoutCancel(r.Context()), cfg)
	if err != nil {
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "chat: %v", err)
		return
	}
	id := uuid.NewString()
	h.mu.Lock()
	h.chats[id] = c
	h.mu.Unlock()
	driver.WriteJSON(w, http.StatusOK, driver.ChatCreated{ChatID: id, ChatURL: c.URL()})
}

// closeChat ends a chat endpoint (DELETE /v1/server/chats/{chatId}).
func (h *Handler) closeChat(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, driver.PathChats+"/")
	h.mu.Lock()
	c, ok := h.chats[id]
	delete(h.chats, id)
	h.mu.Unlock()
	if !ok {
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no chat %q", id)
		return
	}
	if err := c.Close(r.Context()); err != nil {
		driver.WriteError(w, http.StatusInternalServerError, "Internal", "closing chat %s: %v", id, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Close ends the client sessions and chats the harness left open.
func (h *Handler) Close() error {
	h.mu.Lock()
	open := h.sessions
	h.sessions = map[string]*openSession{}
	chats := h.chats
	h.chats = map[string]target.Chat{}
	h.mu.Unlock()
	var errs []error
	for id, c := range chats {
		if err := c.Close(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("chat %s: %w", id, err))
		}
	}
	for id, o := range open {
		if err := o.s.Close(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("session %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Server is a Handler on a loopback listener, like httptest.Server.
type Server struct {
	// URL is the driver URL (http://127.0.0.1:port).
	URL     string
	handler *Handler
	srv     *http.Server
	done    chan struct{}
}

// NewServer serves t on 127.0.0.1 with a free port.
func NewServer(t target.Target, models ModelFactory, opts ...Option) (*Server, error) {
	return Listen("127.0.0.1:0", t, models, opts...)
}

// Listen serves t on addr.
func Listen(addr string, t target.Target, models ModelFactory, opts ...Option) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("driver server: listen on %s: %w", addr, err)
	}
	h := NewHandler(t, models, opts...)
	s := &Server{URL: "http://" + l.Addr().String(), handler: h, srv: h.limits.Server(h, func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		driver.WriteError(w, status, refusalCode(status), "%s", msg)
	}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l) // ends on Close
	}()
	return s, nil
}

// Close stops the server and ends the sessions left open.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return errors.Join(err, s.handler.Close())
}

// refusalCode is the driver protocol's error code of a request a server's
// bounds refused.
func refusalCode(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "TooLarge"
	}
	return "Busy"
}

// noRedirects keeps a callback's redirect from sending the tool's input
// elsewhere: the 3xx answer is the callback's answer, an error.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
