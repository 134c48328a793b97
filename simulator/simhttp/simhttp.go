// Package simhttp serves simulated models over HTTP in the providers' wire
// formats, like net/http/httptest: NewServer starts a loopback server with a
// URL and Close; each conversation is a simulator.Model added under its own
// path prefix, so many share one server.
//
// Routes, under <URL>/c/<name>/v1: POST /chat/completions (openai-chat),
// POST /responses (openai-responses), POST /messages (anthropic-messages);
// the route must match the model's profile. POST /canonical (the kit's
// canonical model API, package provider/canonical) serves every
// conversation: the prompt comes whole, result types and approval parts
// included, and the model's profile still decides the provider rules and
// the error bodies. Every call is decoded from the
// wire (the prompt as the provider lays it out, for its rules, and in the
// canonical model, for the script's expectations) and handed to the model;
// its reply is encoded as JSON or, when asked, as the provider's SSE stream.
// An OpenAI Responses conversation keeps what it answered, as the API does
// when its store is on: later requests may name earlier items by
// item_reference or continue a response by previous_response_id.
package simhttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/provider/openairesponses"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"

	// The wire formats register themselves.
	_ "github.com/approval-conformance-kit/ack/provider/all"
)

// Server is a simulator over HTTP.
type Server struct {
	// URL is the server's base URL (http://127.0.0.1:port).
	URL string

	srv      *http.Server
	listener net.Listener
	done     chan struct{}

	limits limits.Limits

	mu     sync.Mutex
	models map[string]*conversation
	order  []string // names, oldest first
}

// conversation is one served model, with the Responses store of what it
// answered (nil for the other formats).
type conversation struct {
	model *simulator.Model
	store *openairesponses.Store
}

// NewServer starts a server on 127.0.0.1 with a free port.
func NewServer() (*Server, error) { return Listen("127.0.0.1:0") }

// Listen starts a server on addr, with the default limits.
func Listen(addr string) (*Server, error) { return ListenWith(addr, limits.Default()) }

// ListenWith starts a server on addr with these limits: the time a
// client may take to send headers, the largest request body (413 beyond),
// the conversations served at once (Sessions: adding one more stops
// serving the oldest), and, for each conversation's model, the calls it
// answers and the request bytes its journal keeps (simulator.Model.Limit).
func ListenWith(addr string, lim limits.Limits) (*Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("simhttp: listen on %s: %w", addr, err)
	}
	lim = lim.WithDefaults()
	s := &Server{URL: "http://" + l.Addr().String(), listener: l, done: make(chan struct{}), models: map[string]*conversation{}, limits: lim}
	chat, _ := provider.Lookup(wire.OpenAIChat)
	s.srv = lim.Server(s, func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(chat.ErrorBody(status, "invalid_request_error", "simulator: "+msg))
	})
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l) // returns when Close is called
	}()
	return s, nil
}

// Close stops the server and its open streams.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Add serves a model under name and returns its base URL, to give a client
// as its API base ("<URL>/c/<name>/v1").
func (s *Server) Add(name string, m *simulator.Model) (string, error) {
	if name == "" || strings.ContainsAny(name, "/?#%") {
		return "", fmt.Errorf("simhttp: %q is not a usable conversation name", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, taken := s.models[name]; taken {
		return "", fmt.Errorf("simhttp: the conversation %q is already served", name)
	}
	c := &conversation{model: m}
	if m.Profile() == wire.OpenAIResponses {
		c.store = openairesponses.NewStore()
	}
	m.Limit(s.limits.Calls, s.limits.JournalBytes)
	s.models[name] = c
	s.order = append(s.order, name)
	for len(s.models) > s.limits.Sessions {
		oldest := s.order[0]
		s.order = s.order[1:]
		delete(s.models, oldest)
	}
	return s.BaseURL(name), nil
}

// Remove stops serving a conversation.
func (s *Server) Remove(name string) {
	s.mu.Lock()
	delete(s.models, name)
	if i := slices.Index(s.order, name); i >= 0 {
		s.order = slices.Delete(s.order, i, i+1)
	}
	s.mu.Unlock()
}

// BaseURL is the API base of a conversation.
func (s *Server) BaseURL(name string) string { return s.URL + "/c/" + name + "/v1" }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/c/")
	name, endpoint, ok2 := strings.Cut(rest, "/v1")
	found := codecFor(endpoint)
	codec := found
	if codec == nil {
		codec, _ = provider.Lookup(wire.OpenAIChat)
	}
	errs := codec // the error envelope
	fail := func(status int, typ, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(errs.ErrorBody(status, typ, msg))
	}
	if !ok || !ok2 || found == nil {
		fail(http.StatusNotFound, "not_found_error", fmt.Sprintf("simulator: no endpoint %s %s (want POST /c/<conversation>/v1/chat/completions, /responses, /messages or /canonical)", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(http.StatusMethodNotAllowed, "invalid_request_error", "simulator: only POST is served")
		return
	}
	s.mu.Lock()
	conv := s.models[name]
	s.mu.Unlock()
	if conv == nil {
		fail(http.StatusNotFound, "not_found_error", fmt.Sprintf("simulator: no conversation %q on this server", name))
		return
	}
	m, store := conv.model, conv.store
	if codec.Profile() == provider.Canonical {
		// The canonical API carries the prompt whole; the conversation's
		// provider profile still decides the rules and the error bodies.
		if pc, err := provider.Lookup(m.Profile()); err == nil {
			errs = pc
		}
		store = nil // it holds provider items, which this API never names
	} else if m.Profile() != codec.Profile() {
		fail(http.StatusNotFound, "not_found_error", fmt.Sprintf("simulator: the conversation %q speaks %s; %s is not its endpoint", name, m.Profile(), endpoint))
		return
	}
	body, err := readBody(w, r, s.limits.RequestBytes)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(http.StatusRequestEntityTooLarge, "invalid_request_error", "simulator: "+(&limits.TooLarge{What: "the request body", Limit: s.limits.RequestBytes, Flag: "max-request-bytes"}).Error())
			return
		}
		fail(http.StatusBadRequest, "invalid_request_error", "simulator: reading the body: "+err.Error())
		return
	}
	request := body // the request as the provider reads it
	if store != nil {
		request, err = store.Resolve(body)
		var unknown *openairesponses.ResolveError
		if errors.As(err, &unknown) {
			m.Unreadable("", body, unknown.Status, string(unknown.Body), unknown.Message)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(unknown.Status)
			_, _ = w.Write(unknown.Body)
			return
		}
		if err != nil {
			fail(http.StatusInternalServerError, "api_error", "simulator: "+err.Error())
			return
		}
	}
	dec, err := codec.DecodeRequest(request)
	var refused *llm.APIError
	if errors.As(err, &refused) { // the provider's own answer to a malformed request
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(refused.Status)
		_, _ = w.Write(refused.Body)
		return
	}
	if err != nil {
		msg := fmt.Sprintf("simulator: the %s request does not decode: %v", codec.Profile(), err)
		m.Unreadable("", body, http.StatusBadRequest, string(codec.ErrorBody(http.StatusBadRequest, "invalid_request_error", msg)), msg)
		fail(http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	mode := "generate"
	if dec.Stream {
		mode = "stream"
	}
	call := simulator.Call{Mode: mode, Request: dec.Request, Wire: body, Owned: true}
	if !dec.Lossless {
		view := dec.View
		call.View, call.Lossy = &view, true
	}
	reply, err := m.Handle(r.Context(), call)
	if err != nil {
		var apiErr *llm.APIError
		if errors.As(err, &apiErr) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(apiErr.Status)
			_, _ = w.Write(apiErr.Body)
			return
		}
		fail(http.StatusInternalServerError, "api_error", "simulator: "+err.Error())
		return
	}
	if !dec.Stream {
		if err := reply.Wait(r.Context()); err != nil {
			return // the client went away
		}
		resp := reply.Response()
		if codec.Profile() == wire.OpenAIResponses {
			for i := range resp.Content {
				resp.Content[i] = labelMCP(resp.Content[i], dec.Request.Tools)
			}
		}
		out, err := codec.EncodeResponse(resp)
		if err != nil {
			fail(http.StatusInternalServerError, "api_error", "simulator: encode the reply: "+err.Error())
			return
		}
		if store != nil {
			_ = store.Keep(request, out) // the reply was just encoded from a response object
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	sink := &recorder{Writer: w}
	sw := codec.NewStreamWriter(sink, func() {
		if flusher != nil {
			flusher.Flush()
		}
	}, dec.IncludeUsage)
	events := reply.StreamEvents()
	if codec.Profile() == wire.OpenAIResponses {
		for i := range events {
			if events[i].Part != nil {
				p := labelMCP(*events[i].Part, dec.Request.Tools)
				events[i].Part = &p
			}
		}
	}
	for _, ev := range events[:len(events)-1] {
		if sw.Write(ev) != nil {
			return
		}
	}
	if reply.Wait(r.Context()) != nil {
		return
	}
	sink.on = store != nil // the end holds the response the store keeps
	if sw.Write(events[len(events)-1]) != nil {
		return // the client went away
	}
	if store != nil {
		_ = store.KeepStream(request, sink.kept.Bytes()) // the end of the stream was just written
	}
}

// recorder passes writes through and, once on, keeps a copy.
type recorder struct {
	io.Writer
	on   bool
	kept bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.on {
		r.kept.Write(p)
	}
	return r.Writer.Write(p)
}

// codecFor returns the format of an endpoint path, or nil.
func codecFor(endpoint string) provider.Codec { return endpoints()[endpoint] }

// endpoints maps each endpoint path to its format, once the formats have
// registered.
var endpoints = sync.OnceValue(func() map[string]provider.Codec {
	m := map[string]provider.Codec{}
	for _, p := range append(wire.Profiles[:len(wire.Profiles):len(wire.Profiles)], provider.Canonical) {
		if c, err := provider.Lookup(p); err == nil {
			m[c.Path()] = c
		}
	}
	return m
})

// readBody reads a request body up to limit bytes. The buffer grows as
// bytes arrive, never to what the client declares before they do: a
// declared length costs nothing until it is sent (limits.Guard refuses
// one over the limit at once).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// labelMCP gives a provider-executed call or result of a Responses reply
// the server label of the MCP tool it belongs to, as the request declared
// it: the tool whose label is the call's tool name (or "ack-" and the
// name, as the harness labels them), else the request's only MCP tool.
func labelMCP(p model.Part, tools []llm.ToolDef) model.Part {
	if !p.ProviderExecuted || (p.Type != model.PartToolCall && p.Type != model.PartToolResult) {
		return p
	}
	var hosted []llm.ToolDef
	for _, t := range tools {
		if t.ProviderExecuted && t.ServerLabel != "" {
			if t.ServerLabel == p.ToolName || t.ServerLabel == "ack-"+p.ToolName {
				return openairesponses.LabelPart(p, t.ServerLabel)
			}
			hosted = append(hosted, t)
		}
	}
	if len(hosted) == 1 {
		return openairesponses.LabelPart(p, hosted[0].ServerLabel)
	}
	return p
}
