// Package record is a recording proxy in front of a model endpoint: an SDK
// (or a whole staging environment) points its base URL at the proxy, which
// forwards every request to the upstream and its answer back unchanged,
// JSON and server-sent events alike, journals every exchange, and lints
// every request as it passes (package lint). With Refuse set, a request the
// provider would reject is answered with the provider's exact HTTP 400 and
// never reaches the upstream.
//
// Routes are told by the path's end: /chat/completions (OpenAI Chat
// Completions), /responses (OpenAI Responses), /messages (Anthropic
// Messages) and /canonical (the kit's canonical model API). Other requests
// are forwarded without a record.
//
// The journal is JSON lines, one per exchange, in the shape of the
// simulator's journal entries (call, mode, wire, verdict, status, reply,
// errorBody) with the proxy's own fields (exchange, conversation, api,
// path, time, response, findings): conformance lint, replay and scenario
// from-transcript read it. Exchanges are grouped into conversations by an
// X-Ack-Conversation header, by an OpenAI Responses previous_response_id,
// or by their prompts: a request whose prompt extends an earlier one's, on
// the same endpoint, continues its conversation.
package record

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// Defaults of Options.
const (
	DefaultMaxBody     = provider.MaxRequestBody
	DefaultMaxResponse = 32 << 20
	// ConversationHeader names a request's conversation explicitly.
	ConversationHeader = "X-Ack-Conversation"
	// keptConversations bounds the conversations remembered for grouping.
	keptConversations = 1024
)

// Verdicts of an exchange.
const (
	// VerdictOK: the upstream answered 2xx.
	VerdictOK = "ok"
	// VerdictViolation: the request breaks a provider rule and was forwarded.
	VerdictViolation = "violation"
	// VerdictRefused: the request breaks a provider rule and the proxy
	// answered the provider's error itself.
	VerdictRefused = "refused"
	// VerdictError: the upstream answered an error.
	VerdictError = "error"
	// VerdictUnreachable: the upstream could not be reached.
	VerdictUnreachable = "upstream-error"
)

// Options configure a Proxy.
type Options struct {
	// Upstream is the model endpoint's base URL; a request's path is
	// appended to its path.
	Upstream string
	// Journal receives one JSON line per exchange.
	Journal io.Writer
	// Refuse answers a request the provider would reject with the
	// provider's exact error, without forwarding it.
	Refuse bool
	// Profile is the provider whose rules apply to the canonical model
	// API's requests (openai-chat if empty).
	Profile wire.Profile
	// MaxBody bounds a request body; MaxResponse bounds what of a response
	// is journaled (the client still gets all of it).
	MaxBody, MaxResponse int64
	// Transport reaches the upstream (http.DefaultTransport if nil).
	Transport http.RoundTripper
	// OnExchange, when set, is called with each exchange once journaled.
	OnExchange func(Entry)
}

// Entry is one journaled exchange.
type Entry struct {
	Exchange     int       `json:"exchange"`
	Conversation string    `json:"conversation"`
	Call         int       `json:"call"`
	Time         time.Time `json:"time"`
	API          string    `json:"api"`
	Path         string    `json:"path"`
	Mode         string    `json:"mode"`
	// Wire is the request body (a JSON string when it is not JSON).
	Wire  json.RawMessage `json:"wire"`
	Tools []string        `json:"tools,omitempty"`
	// Verdict is ok, violation, refused, error or upstream-error.
	Verdict    string `json:"verdict"`
	Status     int    `json:"status"`
	DurationMs int64  `json:"durationMs"`
	// Reply is the model's reply, decoded (for replay).
	Reply *simulator.Reply `json:"reply,omitempty"`
	// ErrorBody is an error answer's body.
	ErrorBody string `json:"errorBody,omitempty"`
	// Response is the answer as received: JSON, or the text of the event
	// stream; Truncated says it was cut at MaxResponse. The proxy holds a
	// stream's first 256 KiB in memory and the rest in a temporary file:
	// a longer stream's text is in the journal's line, and not in the
	// Entry OnExchange is given.
	Response  json.RawMessage `json:"response,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	// Findings are what lint found in the request.
	Findings []lint.Finding `json:"findings,omitempty"`
	// Note says why the reply could not be decoded, if it could not.
	Note string `json:"note,omitempty"`
}

// Proxy is the recording proxy, an http.Handler.
type Proxy struct {
	opts     Options
	upstream *url.URL
	rp       *httputil.ReverseProxy

	mu        sync.Mutex
	exchanges int
	convs     []*conversation
	byResp    map[string]*conversation
	named     map[string]*conversation
	journalMu sync.Mutex
}

// conversation is what grouping remembers of one conversation: a few
// words whatever its length (its prompt is summed up, not kept).
type conversation struct {
	id    string
	named bool   // by the X-Ack-Conversation header
	path  string // the endpoint it speaks to
	calls int
	// n and sum are the length of its last prompt and reply, in messages,
	// and their chained fingerprint (chain).
	n   int
	sum uint64
}

// New returns a proxy to opts.Upstream.
func New(opts Options) (*Proxy, error) {
	u, err := url.Parse(opts.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("record: upstream %q is not an http(s) URL", opts.Upstream)
	}
	if opts.Journal == nil {
		opts.Journal = io.Discard
	}
	if opts.Profile == "" {
		opts.Profile = wire.OpenAIChat
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxResponse <= 0 {
		opts.MaxResponse = DefaultMaxResponse
	}
	p := &Proxy{opts: opts, upstream: u, byResp: map[string]*conversation{}, named: map[string]*conversation{}}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = u.Host
		},
		FlushInterval: -1, // streams pass event by event
		Transport:     opts.Transport,
		ModifyResponse: func(resp *http.Response) error {
			if ex, ok := resp.Request.Context().Value(exchangeKey{}).(*exchange); ok {
				ex.status = resp.StatusCode
				ex.stream = strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
				ex.body = spool{limit: p.opts.MaxResponse, stream: ex.stream}
				resp.Body = &tee{ReadCloser: resp.Body, ex: ex, p: p}
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
			body := []byte(fmt.Sprintf("record: the upstream %s cannot be reached: %v", u.Redacted(), err))
			if ex != nil {
				body = ex.codec.ErrorBody(http.StatusBadGateway, "api_error", string(body))
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write(body)
			if ex != nil {
				ex.entry.Verdict, ex.entry.Status, ex.entry.ErrorBody = VerdictUnreachable, http.StatusBadGateway, string(body)
				p.finish(ex)
			}
		},
	}
	return p, nil
}

type exchangeKey struct{}

func contextWith(r *http.Request, ex *exchange) context.Context {
	return context.WithValue(r.Context(), exchangeKey{}, ex)
}

// exchange is one request in flight.
type exchange struct {
	entry   Entry
	codec   provider.Codec
	api     wire.Profile
	start   time.Time
	status  int
	stream  bool
	body    spool
	ended   sync.Once
	done    sync.Once
	respIDs func(string)
}

// routeOf returns the model API of a path, by its end.
func routeOf(path string) (wire.Profile, bool) {
	path = strings.TrimRight(path, "/")
	for _, api := range []wire.Profile{wire.OpenAIChat, wire.OpenAIResponses, wire.AnthropicMessages, provider.Canonical} {
		c, err := provider.Lookup(api)
		if err == nil && strings.HasSuffix(path, c.Path()) {
			return api, true
		}
	}
	return "", false
}

// forwarded are the methods of the model APIs; any other (CONNECT, TRACE,
// PUT...) is refused.
var forwarded = map[string]bool{http.MethodGet: true, http.MethodPost: true, http.MethodDelete: true}

// refusePath says why a request's path is not forwarded ("" when it is):
// only a clean path, with no dot segment, encoded dot or slash, or
// backslash, is appended to the upstream's base path, so that no request
// reaches past it.
func refusePath(r *http.Request) string {
	raw := r.URL.EscapedPath()
	lower := strings.ToLower(raw)
	switch {
	case !strings.HasPrefix(r.URL.Path, "/"):
		return "the path must start with /"
	case strings.Contains(lower, "%2e"), strings.Contains(lower, "%2f"), strings.Contains(lower, "%5c"), strings.Contains(r.URL.Path, "\\"):
		return "the path holds an encoded dot, slash or backslash"
	case path.Clean(r.URL.Path) != r.URL.Path && path.Clean(r.URL.Path)+"/" != r.URL.Path:
		return "the path is not clean (a dot segment or a doubled slash)"
	}
	return ""
}

// refuse answers a request the proxy does not forward, in the API's error
// envelope.
func (p *Proxy) refuse(w http.ResponseWriter, status int, msg string) {
	c, _ := provider.Lookup(p.opts.Profile)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(c.ErrorBody(status, "invalid_request_error", "record: "+msg))
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !forwarded[r.Method] {
		w.Header().Set("Allow", "GET, POST, DELETE")
		p.refuse(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s is not a method of the model APIs; only GET, POST and DELETE are forwarded", r.Method))
		return
	}
	if why := refusePath(r); why != "" {
		p.refuse(w, http.StatusBadRequest, fmt.Sprintf("%s is not forwarded: %s", r.URL.EscapedPath(), why))
		return
	}
	api, ok := routeOf(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		p.rp.ServeHTTP(w, r) // not a model call: passed through, not recorded
		return
	}
	codec, _ := provider.Lookup(api) // routeOf found it
	errorCodec := codec
	if api == provider.Canonical {
		errorCodec, _ = provider.Lookup(p.opts.Profile)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, p.opts.MaxBody))
	if err != nil {
		status, msg := http.StatusBadRequest, "record: reading the request body: "+err.Error()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("record: the request body is larger than %d bytes", p.opts.MaxBody)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(errorCodec.ErrorBody(status, "invalid_request_error", msg))
		return
	}
	ex := &exchange{codec: errorCodec, api: api, start: time.Now()}
	ex.entry = Entry{Time: ex.start.UTC(), API: string(api), Path: r.URL.Path, Mode: "generate", Wire: rawJSON(body)}
	req := p.decode(codec, body, &ex.entry)
	ex.respIDs = p.group(r, body, req, &ex.entry)

	format, profile := transcript.Format(api), api
	if api == provider.Canonical {
		format, profile = transcript.Canonical, p.opts.Profile
	}
	res, lerr := lint.Read(bytes.NewReader(body), lint.Options{Format: format, Profile: profile, Kind: transcript.Prompt})
	if lerr == nil {
		ex.entry.Findings = res.Findings
	} else {
		ex.entry.Note = "the request could not be linted: " + lerr.Error()
	}
	if p.opts.Refuse && lerr == nil {
		if ans := res.Answer(); ans != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(ans.Status)
			_, _ = io.WriteString(w, ans.Body)
			ex.entry.Verdict, ex.entry.Status, ex.entry.ErrorBody = VerdictRefused, ans.Status, ans.Body
			p.finish(ex)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	p.rp.ServeHTTP(w, r.WithContext(contextWith(r, ex)))
}

// decode reads the request's prompt with its codec, for grouping and the
// journal's mode and tools; nil when it does not decode (the upstream will
// say why).
func (p *Proxy) decode(codec provider.Codec, body []byte, e *Entry) *llm.Request {
	d, err := codec.DecodeRequest(body)
	if err != nil {
		e.Note = "the request does not decode: " + err.Error()
		return nil
	}
	if d.Stream {
		e.Mode = "stream"
	}
	for _, t := range d.Request.Tools {
		e.Tools = append(e.Tools, t.Name)
	}
	return d.Request
}

// group assigns the exchange its conversation and numbers, and returns
// what to call with the response ids its answer carries (for
// previous_response_id).
func (p *Proxy) group(r *http.Request, body []byte, req *llm.Request, e *Entry) func(string) {
	var sums []uint64 // sums[i]: the chained fingerprint of the first i messages
	if req != nil {
		sums = chained(req.Messages)
	}
	var prev struct {
		PreviousResponseID string `json:"previous_response_id"`
	}
	_ = json.Unmarshal(body, &prev) // an optional field of a body that decoded or not
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exchanges++
	e.Exchange = p.exchanges
	var c *conversation
	if name := r.Header.Get(ConversationHeader); name != "" {
		c = p.named[name]
		if c == nil {
			c = &conversation{id: name, named: true}
			p.named[name] = c
			p.remember(c)
		}
	} else if prev.PreviousResponseID != "" {
		c = p.byResp[prev.PreviousResponseID]
	}
	if c == nil && len(sums) > 1 {
		best := 0
		for _, cand := range p.convs {
			if n := cand.n; cand.path == r.URL.Path && n > best && n < len(sums) && sums[n] == cand.sum {
				c, best = cand, n
			}
		}
	}
	if c == nil {
		c = &conversation{id: fmt.Sprintf("c%d", p.exchanges), path: r.URL.Path}
		p.remember(c)
	}
	c.calls++
	c.n, c.sum = 0, chainStart
	if len(sums) > 0 {
		c.n, c.sum = len(sums)-1, sums[len(sums)-1]
	}
	e.Conversation, e.Call = c.id, c.calls
	return func(id string) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.byResp[id] = c
		if len(p.byResp) > 4*keptConversations {
			p.byResp = map[string]*conversation{id: c}
		}
	}
}

// remember keeps a conversation for grouping; past keptConversations the
// oldest is forgotten, its name too (a later request that names it starts
// it again).
func (p *Proxy) remember(c *conversation) {
	p.convs = append(p.convs, c)
	for len(p.convs) > keptConversations {
		old := p.convs[0]
		p.convs[0] = nil
		p.convs = p.convs[1:]
		if old.named && p.named[old.id] == old {
			delete(p.named, old.id)
		}
	}
}

// extend adds the reply to a conversation's prefix.
func (p *Proxy) extend(id string, reply *llm.Response) {
	fp := fingerprint(model.Message{Role: model.RoleAssistant, Content: reply.Content})
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.convs {
		if c.id == id {
			c.n, c.sum = c.n+1, chain(c.sum, fp)
		}
	}
}

// chainStart is the chained fingerprint of no message.
const chainStart uint64 = 14695981039346656037

// chain extends a chained fingerprint by one message's.
func chain(sum, fp uint64) uint64 { return (sum ^ fp) * 1099511628211 }

// chained returns the chained fingerprints of every prefix of a prompt:
// out[i] sums up its first i messages (role, text, calls and results).
func chained(msgs []model.Message) []uint64 {
	out := make([]uint64, 1, len(msgs)+1)
	out[0] = chainStart
	for _, m := range msgs {
		out = append(out, chain(out[len(out)-1], fingerprint(m)))
	}
	return out
}

func fingerprint(m model.Message) uint64 {
	h := fnv.New64a()
	role := m.Role
	if role == model.RoleTool {
		role = model.RoleUser // the wires disagree on where results live
	}
	h.Write([]byte(role))
	for _, p := range m.Content {
		switch p.Type {
		case model.PartText:
			h.Write([]byte("t" + p.Text))
		case model.PartToolCall:
			h.Write([]byte("c" + p.ToolCallID))
		case model.PartToolResult:
			h.Write([]byte("r" + p.ToolCallID))
		}
	}
	return h.Sum64()
}

// rawJSON keeps a body as JSON, or as a JSON string when it is not JSON.
func rawJSON(body []byte) json.RawMessage {
	if json.Valid(body) {
		var b bytes.Buffer
		if json.Compact(&b, body) == nil {
			return b.Bytes()
		}
	}
	s, _ := json.Marshal(string(body)) // a string always marshals
	return s
}

// tee passes the answer through and keeps a bounded copy of it; the
// exchange is journaled when the answer ends.
type tee struct {
	io.ReadCloser
	ex *exchange
	p  *Proxy
}

func (t *tee) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if n > 0 {
		t.ex.body.Write(b[:n])
	}
	if err == io.EOF {
		t.p.answered(t.ex)
	}
	return n, err
}

func (t *tee) Close() error {
	err := t.ReadCloser.Close()
	t.p.answered(t.ex)
	return err
}

// answered journals an exchange whose answer ended: its reply decoded.
func (p *Proxy) answered(ex *exchange) { ex.ended.Do(func() { p.decodeAnswer(ex) }) }

func (p *Proxy) decodeAnswer(ex *exchange) {
	e := &ex.entry
	e.Status = ex.status
	e.Truncated = ex.body.cut
	if note := ex.body.note(); note != "" {
		e.Note = note
	}
	var raw []byte // the answer, when it is all in memory
	if ex.body.inMemory() {
		raw = ex.body.mem
		if ex.stream {
			e.Response = jsonString(raw) // escaped straight from the bytes, not through a copy as a string
		} else {
			e.Response = rawJSON(raw)
		}
	} // else finish writes the stream into the journal from its file
	switch {
	case ex.status/100 == 2:
		e.Verdict = VerdictOK
		if ex.body.cut {
			// A cut body is never decoded: what it would give is not the
			// reply, and decoding holds it several times over.
			if e.Note == "" {
				e.Note = fmt.Sprintf("the reply is larger than %d bytes (--max-response): cut, not decoded", p.opts.MaxResponse)
			}
			break
		}
		resp, id, err := p.decodeReply(ex, raw)
		if err != nil {
			e.Note = fmt.Sprintf("the reply could not be decoded: %v", err)
		} else {
			reply := transcript.ReplyOf(resp)
			e.Reply = &reply
			p.extend(e.Conversation, resp)
			if id != "" && ex.respIDs != nil {
				ex.respIDs(id)
			}
		}
	default:
		e.Verdict = VerdictError
		if raw == nil {
			raw, _ = readAll(&ex.body)
		}
		e.ErrorBody = string(raw)
	}
	if hasWireFinding(e.Findings) {
		e.Verdict = VerdictViolation
	}
	p.finish(ex)
}

// decodeReply decodes a whole answer, from memory or, for a stream past
// the window, from its file as a stream (what that holds is the reply, not
// the stream's bytes), and finds its response id.
func (p *Proxy) decodeReply(ex *exchange, raw []byte) (*llm.Response, string, error) {
	if raw != nil || !ex.stream {
		if raw == nil {
			var err error
			if raw, err = readAll(&ex.body); err != nil {
				return nil, "", err
			}
		}
		resp, err := transcript.DecodeReply(ex.api, raw, ex.stream)
		if err != nil {
			return nil, "", err
		}
		return resp, responseID(ex.api, raw), nil
	}
	r, err := ex.body.reader()
	if err != nil {
		return nil, "", err
	}
	resp, err := transcript.DecodeReplyFrom(ex.api, r, true)
	if err != nil {
		return nil, "", err
	}
	id := ""
	if r, err = ex.body.reader(); err == nil {
		id = responseIDFrom(ex.api, r)
	}
	return resp, id, nil
}

func readAll(s *spool) ([]byte, error) {
	r, err := s.reader()
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

func hasWireFinding(fs []lint.Finding) bool {
	for _, f := range fs {
		if f.Provider != nil {
			return true
		}
	}
	return false
}

// responseID finds an OpenAI Responses response id in an answer: the
// object's id, or the response of its events.
func responseID(api wire.Profile, raw []byte) string {
	if api != wire.OpenAIResponses {
		return "" // no other API continues a response by its id
	}
	var obj struct {
		Object string `json:"object"`
		ID     string `json:"id"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Object == "response" {
		return obj.ID
	}
	return responseIDFrom(api, bytes.NewReader(raw))
}

// responseIDFrom finds the response id in the events of a stream, line by
// line (a line longer than the reader's buffer is passed over in pieces:
// an event's data line that holds the response is never that long).
func responseIDFrom(api wire.Profile, r io.Reader) string {
	if api != wire.OpenAIResponses {
		return ""
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var obj struct {
		Response struct {
			ID string `json:"id"`
		} `json:"response"`
	}
	for {
		line, err := br.ReadSlice('\n')
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok && err != bufio.ErrBufferFull && bytes.Contains(data, []byte(`"response"`)) {
			if json.Unmarshal(bytes.TrimSpace(data), &obj) == nil && obj.Response.ID != "" {
				return obj.Response.ID
			}
		}
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull { // the rest of a long line
				_, err = br.ReadSlice('\n')
			}
		}
		if err != nil {
			return ""
		}
	}
}

// finish journals the exchange once.
func (p *Proxy) finish(ex *exchange) {
	ex.done.Do(func() {
		defer ex.body.close()
		ex.entry.DurationMs = time.Since(ex.start).Milliseconds()
		p.journal(ex)
		if p.opts.OnExchange != nil {
			p.opts.OnExchange(ex.entry)
		}
	})
}

// journal writes the exchange's line. A journal that fails loses lines,
// not traffic.
func (p *Proxy) journal(ex *exchange) {
	line, err := json.Marshal(ex.entry)
	if err != nil {
		line, _ = json.Marshal(map[string]any{"exchange": ex.entry.Exchange, "note": "the entry could not be encoded: " + err.Error()})
	}
	p.journalMu.Lock()
	defer p.journalMu.Unlock()
	if err == nil && !ex.body.inMemory() {
		// A stream past the window: its text goes into the line from its
		// file, a chunk at a time, as the entry's response.
		if r, rerr := ex.body.reader(); rerr == nil {
			_, _ = p.opts.Journal.Write(line[:len(line)-1])
			_, _ = io.WriteString(p.opts.Journal, `,"response":`)
			_ = writeJSONString(p.opts.Journal, r)
			_, _ = io.WriteString(p.opts.Journal, "}\n")
			return
		}
	}
	_, _ = p.opts.Journal.Write(line)
	_, _ = p.opts.Journal.Write([]byte{'\n'})
}

// jsonString encodes bytes as a JSON string, invalid UTF-8 as U+FFFD, as
// encoding/json would encode them as a Go string, without first copying
// them into one.
func jsonString(b []byte) json.RawMessage {
	out := make([]byte, 0, len(b)+len(b)/16+2)
	out = append(out, '"')
	out = appendEscaped(out, b)
	return append(out, '"')
}

// appendEscaped appends b to out escaped as in a JSON string (without its
// quotes).
func appendEscaped(out, b []byte) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				out = append(out, '\\', c)
			case c == '\n':
				out = append(out, '\\', 'n')
			case c == '\r':
				out = append(out, '\\', 'r')
			case c == '\t':
				out = append(out, '\\', 't')
			case c < 0x20:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
