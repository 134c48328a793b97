package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// Options configure reading.
type Options struct {
	// Format forces the format; empty detects it by content.
	Format Format
	// Kind forces the kind of a request body (a canonical conversation sent
	// to the kit's model API is a prompt); empty goes by the format.
	Kind Kind
	// Profile is the provider whose rules apply to conversations that are
	// not a provider's request body (canonical, UI messages, AG-UI, a
	// journaled prompt without its wire body); openai-chat if empty.
	Profile wire.Profile
	// Keep keeps every message whole (texts, inputs, outputs), the tools and
	// the journaled replies. By default only a skeleton of each message is
	// kept: roles, part types, ids, tool names, decisions, output types.
	Keep bool
	// OnMessage, when set, sees each message whole as it is read, before it
	// is reduced to its skeleton: the request it belongs to (still being
	// read) and the message.
	OnMessage func(req *Request, m *Message)
}

// Request is one conversation as read: a whole request body, or one entry
// of a journal.
type Request struct {
	// N is the request's number in the input (1-based): the entry of a
	// journal, 1 for a single body.
	N int
	// Offset is where the request starts in the input.
	Offset int64
	// Format is the format the request was read in.
	Format Format
	// Kind says whether the messages reached a model or are an agent's input.
	Kind Kind
	// Profile is the provider whose rules apply.
	Profile wire.Profile
	// Prefix names the array the messages come from: "messages", "input",
	// "prompt", or "" for a bare array.
	Prefix string
	// Messages are the conversation in the canonical model, in order.
	Messages []Message
	// View is the conversation as the provider lays it out, for a provider's
	// request body; ViewSource gives, per entry, the index of the element of
	// the request's array it comes from.
	View       *wire.View
	ViewSource []int
	// ViewOffset gives, per view entry, where its element starts.
	ViewOffset []int64
	// Count is how many canonical messages were read (a provider body keeps
	// none of them without Options.Keep).
	Count int
	// Names are the tool names of the calls, by id.
	Names map[string]string
	// Stream says a provider body asked for a streamed reply.
	Stream bool
	// Tools are the tools offered (with Options.Keep).
	Tools []llm.ToolDef
	// Resume are AG-UI resume entries.
	Resume []chat.Resume
	// Waiting are calls the input leaves to the client (an AG-UI event
	// log's last run ended with them open and no approval asked).
	Waiting map[string]bool
	// Parts are the tool parts of UI messages (AI SDK, TanStack AI) and
	// what the reference chat server's conversion made of each.
	Parts []UIPart
	// Notes are things read but not checked.
	Notes []Note
	// Stored says the request refers to items the provider stored (an
	// OpenAI Responses item_reference or previous_response_id): results whose
	// calls live there cannot be paired.
	Stored bool
	// Journal is the entry's record, for a journal entry.
	Journal *Entry
	// Prompt and Wire are a journal entry's prompt (canonical) and its
	// provider request body, when the entry has them.
	Prompt, Wire *Request
	// Chat is a journal entry's chat request: the body a chat client sent
	// its server (UI messages, a RunAgentInput), a chat server's input.
	Chat *Request
}

// Path names element i of the request's array ("messages[3]").
func (r *Request) Path(i int) string { return fmt.Sprintf("%s[%d]", r.Prefix, i) }

// Message is one canonical message with where it was read from.
type Message struct {
	model.Message
	// Source is the index of the element of the request's array the message
	// comes from (the last one, when several were joined).
	Source int
	// Sources are every element joined into the message.
	Sources []int
	// Offset is where its (first) element starts in the input.
	Offset int64
}

// Entry is a journal entry's record of one model call.
type Entry struct {
	Scenario     string `json:"scenario,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	Call         int    `json:"call"`
	Turn         int    `json:"turn"`
	Mode         string `json:"mode,omitempty"`
	Verdict      string `json:"verdict,omitempty"`
	Status       int    `json:"status,omitempty"`
	ErrorBody    string `json:"errorBody,omitempty"`
	// API is the provider's wire format, for an entry of `conformance record`.
	API  string `json:"api,omitempty"`
	Path string `json:"path,omitempty"`
	// Tools are the names of the tools offered.
	Tools []string `json:"tools,omitempty"`
	// Reply is the model's reply (with Options.Keep).
	Reply *simulator.Reply `json:"reply,omitempty"`
}

// Note is something read but not checked.
type Note struct {
	Offset int64
	Field  string
	Text   string
}

// Error is input that cannot be read: bad JSON, or a field a format does
// not allow. Offset is the byte where the offending value starts.
type Error struct {
	Offset int64
	Field  string
	Msg    string
}

func (e *Error) Error() string {
	if e.Field != "" && !strings.HasPrefix(e.Msg, e.Field) {
		return fmt.Sprintf("byte %d: %s: %s", e.Offset, e.Field, e.Msg)
	}
	return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
}

// Read reads every request of the input in turn and hands each to fn, once
// it is complete. It stops at the first error: an *Error for unreadable
// input, or fn's error.
func Read(r io.Reader, opts Options, fn func(*Request) error) error {
	if opts.Profile == "" {
		opts.Profile = wire.OpenAIChat
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if (opts.Format == "" || opts.Format == AGUIEvents) && isSSE(br) {
		// An event log pasted as the stream was received.
		br = bufio.NewReaderSize(newSSEReader(br), 64<<10)
	}
	dec := json.NewDecoder(br)
	dec.UseNumber()
	rd := &reader{dec: dec, opts: opts}
	if log, array := isEventLog(br); opts.Format == AGUIEvents || (opts.Format == "" && log) {
		return rd.readEvents(array, fn)
	}
	for n := 1; ; n++ {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			if n == 1 {
				return &Error{Offset: 0, Msg: "the input is empty"}
			}
			return nil
		}
		if err != nil {
			return rd.syntax(err, start)
		}
		req, err := rd.request(tok, n, start)
		if err != nil {
			return err
		}
		if err := fn(req); err != nil {
			return err
		}
	}
}

// reader reads one input.
type reader struct {
	dec  *json.Decoder
	opts Options
	// names are the tool names of the calls read so far, by id.
	names map[string]string
	// partCalls are AG-UI calls whose message carries TanStack parts.
	partCalls map[string]bool
	// gemini pairs Gemini's calls and responses, which may have no ids.
	gemini *geminiCalls
	// recorded is set while a journal entry's recorded bodies are read: a
	// message that does not decode is a note there, not an error.
	recorded bool
	// pending are elements read before their format was known.
	pending []element
	// cands are the formats the last array's elements allow.
	cands set
	// noted are the notes already given for the request, by kind.
	noted map[string]bool
}

func (rd *reader) syntax(err error, at int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &Error{Offset: rd.syntaxOffset(), Msg: "not valid JSON: " + se.Error()}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &Error{Offset: te.Offset, Field: te.Field, Msg: te.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &Error{Offset: rd.dec.InputOffset(), Msg: "the input ends in the middle of a JSON value"}
	}
	return &Error{Offset: at, Msg: err.Error()}
}

// syntaxOffset finds where a syntax error is: the decoder's offset counts
// only what it consumed, so the value it failed on is scanned again from
// what it buffered.
func (rd *reader) syntaxOffset() int64 {
	start := rd.dec.InputOffset()
	buf, _ := io.ReadAll(rd.dec.Buffered()) // an in-memory buffer: no error
	var raw json.RawMessage
	var se *json.SyntaxError
	if err := json.NewDecoder(bytes.NewReader(buf)).Decode(&raw); errors.As(err, &se) && se.Offset > 0 {
		return start + se.Offset - 1
	}
	return start
}

// request reads one top-level value, whose first token is tok.
func (rd *reader) request(tok json.Token, n int, start int64) (*Request, error) {
	rd.names, rd.partCalls, rd.pending, rd.noted, rd.gemini = map[string]string{}, map[string]bool{}, nil, nil, nil
	req := &Request{N: n, Offset: start, Kind: rd.opts.Kind}
	cands := bodies
	if rd.opts.Format != "" && rd.opts.Format != Journal {
		cands = one(rd.opts.Format)
	}
	switch tok {
	case json.Delim('['):
		if rd.opts.Format == Journal {
			return nil, &Error{Offset: start, Msg: "a journal holds one JSON object per line, not an array"}
		}
		if err := rd.array(req, "", cands); err != nil {
			return nil, err
		}
		return req, rd.finish(req, cands)
	case json.Delim('{'):
		return req, rd.object(req, cands)
	}
	return nil, &Error{Offset: start, Msg: fmt.Sprintf("want a JSON object or array, got %v", tok)}
}

// journalKeys mark a journal entry.
var journalKeys = map[string]bool{"call": true, "verdict": true, "prompt": true, "wire": true, "errorBody": true, "reply": true, "violations": true, "chatRequest": true}

// object reads an object (the '{' is consumed): a request body, or a
// journal entry with its prompt and wire body.
func (rd *reader) object(req *Request, cands set) error {
	var tools, system json.RawMessage
	var toolsAt int64
	var journal Entry
	isJournal := rd.opts.Format == Journal
	for rd.dec.More() {
		at := rd.dec.InputOffset()
		kt, err := rd.dec.Token()
		if err != nil {
			return rd.syntax(err, at)
		}
		key, _ := kt.(string)
		if journalKeys[key] {
			isJournal = true
		}
		if h, ok := keyHints[key]; ok && !isJournal && cands&h != 0 {
			cands &= h
		}
		switch key {
		case "messages", "input", "contents":
			if isJournal {
				break
			}
			if err := rd.messages(req, key, cands); err != nil {
				return err
			}
			continue
		case "prompt":
			sub := &Request{N: req.N, Offset: rd.dec.InputOffset(), Kind: Prompt}
			pt, err := rd.dec.Token()
			if err != nil {
				return rd.syntax(err, at)
			}
			if pt == nil {
				continue // no prompt recorded
			}
			if pt != json.Delim('[') {
				return &Error{Offset: sub.Offset, Field: "prompt", Msg: fmt.Sprintf("want [, got %v", pt)}
			}
			rd.names, rd.pending = map[string]string{}, nil
			rd.recorded = true
			err = rd.array(sub, "prompt", one(Canonical))
			rd.recorded = false
			if err != nil {
				return err
			}
			if err := rd.finish(sub, one(Canonical)); err != nil {
				return err
			}
			sub.Kind = Prompt
			req.Prompt = sub
			continue
		case "wire":
			wt, err := rd.dec.Token()
			if err != nil {
				return rd.syntax(err, at)
			}
			if wt != json.Delim('{') {
				req.Notes = append(req.Notes, Note{Offset: at, Field: "wire", Text: "the wire body is not a JSON object: not checked"})
				if err := rd.skipAfter(wt); err != nil {
					return err
				}
				continue
			}
			// A provider's body, or the kit's canonical model API's: a prompt.
			sub := &Request{N: req.N, Offset: at, Kind: Prompt}
			saved := rd.names
			rd.names, rd.partCalls, rd.pending = map[string]string{}, map[string]bool{}, nil
			rd.recorded = true
			err = rd.object(sub, setOf(OpenAIChat, OpenAIResponses, AnthropicMessages, Canonical))
			rd.recorded = false
			if err != nil {
				return err
			}
			rd.names = saved
			req.Wire = sub
			continue
		case "chatRequest":
			n, err := rd.chatRequest(req)
			if err != nil {
				return err
			}
			journal.Call = n
			continue
		case "resume":
			var raw json.RawMessage
			if err := rd.dec.Decode(&raw); err != nil {
				return rd.syntax(err, at)
			}
			entries, err := decodeResume(raw)
			if err != nil {
				return &Error{Offset: at, Field: "resume", Msg: strings.TrimPrefix(err.Error(), "agui: ")}
			}
			req.Resume = entries
			continue
		case "model":
			var v any
			if err := rd.dec.Decode(&v); err != nil {
				return rd.syntax(err, at)
			}
			// A provider body names its model; a driver-protocol turn
			// carries an endpoint object.
			if providers := setOf(OpenAIChat, OpenAIResponses, AnthropicMessages); !isJournal && cands&providers != 0 {
				if _, ok := v.(string); ok {
					cands &= providers
				}
			}
			continue
		case "previous_response_id":
			var v any
			if err := rd.dec.Decode(&v); err != nil {
				return rd.syntax(err, at)
			}
			if id, ok := v.(string); ok && id != "" {
				req.Stored = true
				req.Notes = append(req.Notes, Note{Offset: at, Field: key, Text: fmt.Sprintf("continues the stored response %s: results of its calls are not paired", id)})
			}
			continue
		case "stream":
			var b any
			if err := rd.dec.Decode(&b); err != nil {
				return rd.syntax(err, at)
			}
			req.Stream = b == true
			continue
		case "tools":
			// Read with or without Keep: a tool that does not decode makes
			// the same error either way, at the tools' position.
			if err := rd.dec.Decode(&tools); err != nil {
				return rd.syntax(err, at)
			}
			toolsAt = rd.dec.InputOffset() - int64(len(tools)) // where the tools' value begins
			continue
		case "system":
			if !rd.opts.Keep {
				break
			}
			if err := rd.dec.Decode(&system); err != nil {
				return rd.syntax(err, at)
			}
			continue
		case "reply":
			if !rd.opts.Keep {
				break
			}
			var reply simulator.Reply
			if err := rd.dec.Decode(&reply); err != nil {
				return &Error{Offset: at, Field: "reply", Msg: err.Error()}
			}
			journal.Reply = &reply
			continue
		case "scenario", "conversation", "mode", "verdict", "errorBody", "api", "path":
			var s any
			if err := rd.dec.Decode(&s); err != nil {
				return rd.syntax(err, at)
			}
			str, _ := s.(string)
			switch key {
			case "scenario":
				journal.Scenario = str
			case "conversation":
				journal.Conversation = str
			case "mode":
				journal.Mode = str
			case "verdict":
				journal.Verdict = str
			case "errorBody":
				journal.ErrorBody = str
			case "api":
				journal.API = str
			case "path":
				journal.Path = str
			}
			continue
		case "call", "turn", "status":
			var num json.Number
			if err := rd.dec.Decode(&num); err != nil {
				return &Error{Offset: at, Field: key, Msg: "want a number"}
			}
			v, _ := num.Int64()
			switch key {
			case "call":
				journal.Call = int(v)
			case "turn":
				journal.Turn = int(v)
			case "status":
				journal.Status = int(v)
			}
			continue
		}
		if err := rd.skip(); err != nil {
			return err
		}
	}
	if _, err := rd.dec.Token(); err != nil { // '}'
		return rd.syntax(err, rd.dec.InputOffset())
	}
	if isJournal {
		req.Format, req.Kind = Journal, Prompt
		_ = json.Unmarshal(tools, &journal.Tools) // names, when the entry lists them
		req.Journal = &journal
		if req.Prompt == nil && req.Wire == nil && req.Chat == nil {
			return &Error{Offset: req.Offset, Msg: "a journal entry needs its prompt, its wire body or its chat request"}
		}
		if req.Wire != nil && req.Wire.Format == "" {
			return &Error{Offset: req.Wire.Offset, Field: "wire", Msg: "the wire body holds no messages or input"}
		}
		return nil
	}
	if req.Format == "" && len(rd.pending) == 0 && req.Prefix == "" && req.Messages == nil {
		return &Error{Offset: req.Offset, Msg: "no messages (want a conversation, a provider request body with messages or input, UI messages, a RunAgentInput, or a journal entry)"}
	}
	if err := rd.finish(req, cands); err != nil {
		return err
	}
	return rd.keepExtras(req, tools, toolsAt, system)
}

// messages reads the value of a body's "messages" or "input".
func (rd *reader) messages(req *Request, key string, cands set) error {
	at := rd.dec.InputOffset()
	switch key {
	case "messages":
		cands &^= setOf(OpenAIResponses, Gemini)
	case "contents":
		cands &= one(Gemini)
	default:
		cands &= one(OpenAIResponses)
	}
	if cands == 0 {
		return &Error{Offset: at, Field: key, Msg: fmt.Sprintf("a %s body has no %q", rd.opts.Format.Describe(), key)}
	}
	tok, err := rd.dec.Token()
	if err != nil {
		return rd.syntax(err, at)
	}
	if s, ok := tok.(string); ok && key == "input" {
		req.Prefix, req.Format = "input", OpenAIResponses
		m := model.UserText(s)
		if rd.opts.OnMessage != nil {
			rd.opts.OnMessage(req, &Message{Message: m, Source: 0, Sources: []int{0}, Offset: at})
		}
		req.Count++
		if rd.opts.Keep {
			req.Messages = append(req.Messages, Message{Message: m, Source: 0, Sources: []int{0}, Offset: at})
		}
		req.View = &wire.View{Profile: wire.OpenAIResponses, Entries: []wire.Entry{{Role: "message", Canonical: 0}}}
		req.ViewSource, req.ViewOffset = []int{0}, []int64{at}
		return nil
	}
	if tok != json.Delim('[') {
		return &Error{Offset: at, Field: key, Msg: fmt.Sprintf("want an array, got %v", tok)}
	}
	return rd.array(req, key, cands)
}

// minimalLimit is the size above which an element read before its format
// is known is kept as a stand-in holding only its role (it is plain text:
// anything else would have told the format).
const minimalLimit = 4 << 10

// array reads the elements of a messages array (the '[' is consumed),
// telling the format from them when it is not known yet.
func (rd *reader) array(req *Request, prefix string, cands set) error {
	req.Prefix = prefix
	for i := 0; rd.dec.More(); i++ {
		at := rd.dec.InputOffset()
		var raw json.RawMessage
		if err := rd.dec.Decode(&raw); err != nil {
			return rd.syntax(err, at)
		}
		e := element{prefix: prefix, index: i, offset: at, raw: raw}
		s := cands
		if _, forced := cands.single(); !forced || rd.opts.Format == "" {
			// Every element is classified, so that a message of another
			// format is an error rather than read wrong.
			s = classify(raw)
			if cands&s == 0 {
				return &Error{Offset: at, Field: e.path(), Msg: fmt.Sprintf("this message is %s, but the messages before it are %s", describeSet(s), describeSet(cands))}
			}
			cands &= s
		}
		if req.Format == "" {
			if f, ok := cands.single(); ok {
				if err := rd.decide(req, f); err != nil {
					return err
				}
			} else {
				rd.pending = append(rd.pending, rd.standIn(e, s))
				continue
			}
		}
		if err := rd.decodeElement(req, e); err != nil {
			return err
		}
	}
	if _, err := rd.dec.Token(); err != nil { // ']'
		return rd.syntax(err, rd.dec.InputOffset())
	}
	rd.cands = cands
	return nil
}

func describeSet(s set) string {
	if f, ok := s.single(); ok {
		return "in the " + f.Describe() + " format"
	}
	return "one of " + s.names()
}

// standIn keeps an element whose format is not known yet: whole when it is
// small or the content is kept, otherwise its role alone.
func (rd *reader) standIn(e element, s set) element {
	if rd.opts.Keep || rd.opts.OnMessage != nil || len(e.raw) <= minimalLimit {
		return e
	}
	var p probe
	if json.Unmarshal(e.raw, &p) != nil || p.Role == "" {
		return e
	}
	role, _ := json.Marshal(p.Role)
	if s.has(UIMessages) && !s.has(Canonical) {
		e.raw = json.RawMessage(`{"id":"","role":` + string(role) + `,"parts":[]}`)
	} else {
		e.raw = json.RawMessage(`{"role":` + string(role) + `,"content":""}`)
	}
	return e
}

// decide fixes the request's format and decodes the elements read before.
func (rd *reader) decide(req *Request, f Format) error {
	req.Format = f
	pending := rd.pending
	rd.pending = nil
	for _, e := range pending {
		if err := rd.decodeElement(req, e); err != nil {
			return err
		}
	}
	return nil
}

// finish settles the format of a body whose messages never told it, and
// its kind and profile.
func (rd *reader) finish(req *Request, cands set) error {
	if req.Format == "" {
		c := cands
		if rd.cands != 0 && c&rd.cands != 0 {
			c &= rd.cands
		}
		f, ok := c.first()
		if !ok {
			return &Error{Offset: req.Offset, Msg: "cannot tell the format"}
		}
		if err := rd.decide(req, f); err != nil {
			return err
		}
	}
	rd.cands = 0
	req.Names = rd.names
	if p, ok := req.Format.Provider(); ok {
		req.Kind, req.Profile = Prompt, p
		if req.View == nil {
			req.View = &wire.View{Profile: p}
		}
	} else {
		if req.Kind == "" {
			req.Kind = History
			if req.Format == Gemini {
				req.Kind = Prompt // a request body that reached Gemini
			}
		}
		req.Profile = rd.opts.Profile
		if req.Format == Gemini {
			req.Notes = append(req.Notes, Note{Offset: req.Offset, Field: req.Prefix,
				Text: fmt.Sprintf("Gemini's own error texts are not on record: the pairing rules of %s apply (--provider), and its answer is quoted", req.Profile)})
		}
	}
	if len(req.Resume) > 0 {
		if m := resumeAnswers(req.Resume, answered(req.Messages)); len(m.Content) > 0 {
			req.Messages = append(req.Messages, Message{Message: m, Source: -1, Offset: req.Offset})
		}
	}
	return nil
}

// keepExtras decodes the tools (and Anthropic's system prompt) of a body
// and, with Options.Keep, keeps them. Without Keep the tools are decoded
// only to find the error they would make, so that a transcript reads the
// same (one verdict, one position: toolsAt, where the tools begin) with
// and without Keep.
func (rd *reader) keepExtras(req *Request, tools json.RawMessage, toolsAt int64, system json.RawMessage) error {
	if !rd.opts.Keep {
		system = nil
	}
	if len(tools) == 0 && len(system) == 0 {
		return nil
	}
	p, ok := req.Format.Provider()
	if !ok {
		return nil
	}
	codec, err := provider.Lookup(p)
	if err != nil {
		return err
	}
	key := `"messages":[]`
	if req.Format == OpenAIResponses {
		key = `"input":[]`
	}
	body := "{" + key
	if len(tools) > 0 {
		body += `,"tools":` + string(tools)
	}
	if len(system) > 0 && req.Format == AnthropicMessages {
		body += `,"system":` + string(system)
	}
	d, err := codec.DecodeRequest([]byte(body + "}"))
	if err != nil {
		at := req.Offset
		if len(tools) > 0 && strings.Contains(err.Error(), "tools") {
			at = toolsAt
		}
		return &Error{Offset: at, Msg: strings.TrimPrefix(err.Error(), "request body: ")}
	}
	if !rd.opts.Keep {
		return nil
	}
	req.Tools = d.Request.Tools
	if len(d.Request.Messages) > 0 { // the system prompt
		sys := make([]Message, 0, len(req.Messages)+1)
		sys = append(sys, Message{Message: d.Request.Messages[0], Source: -1, Offset: req.Offset})
		req.Messages = append(sys, req.Messages...)
	}
	return nil
}

func (rd *reader) expect(d json.Delim, field string) error {
	at := rd.dec.InputOffset()
	tok, err := rd.dec.Token()
	if err != nil {
		return rd.syntax(err, at)
	}
	if tok != d {
		return &Error{Offset: at, Field: field, Msg: fmt.Sprintf("want %v, got %v", d, tok)}
	}
	return nil
}

// skip reads past the next value without keeping it.
func (rd *reader) skip() error {
	at := rd.dec.InputOffset()
	tok, err := rd.dec.Token()
	if err != nil {
		return rd.syntax(err, at)
	}
	return rd.skipAfter(tok)
}

// skipAfter reads past the rest of a value whose first token was read.
func (rd *reader) skipAfter(tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		at := rd.dec.InputOffset()
		t, err := rd.dec.Token()
		if err != nil {
			return rd.syntax(err, at)
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// answered maps the calls whose answers the messages already carry (bound
// to their calls) to the decision.
func answered(msgs []Message) map[string]bool {
	out := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalResponse && p.ToolCallID != "" {
				out[p.ToolCallID] = p.Approved
			}
		}
	}
	return out
}

// chatRequest reads a journal entry's chatRequest (the '{' not read yet):
// its number, its turn, and its body, a chat server's input.
func (rd *reader) chatRequest(req *Request) (int, error) {
	n := 0
	if err := rd.expect('{', "chatRequest"); err != nil {
		return 0, err
	}
	for rd.dec.More() {
		at := rd.dec.InputOffset()
		kt, err := rd.dec.Token()
		if err != nil {
			return 0, rd.syntax(err, at)
		}
		switch kt {
		case "body":
			sub := &Request{N: req.N, Offset: rd.dec.InputOffset(), Kind: History}
			if err := rd.expect('{', "chatRequest.body"); err != nil {
				return 0, err
			}
			saved := rd.names
			rd.names, rd.partCalls, rd.pending = map[string]string{}, map[string]bool{}, nil
			rd.recorded = true
			err := rd.object(sub, setOf(UIMessages, AGUI))
			rd.recorded = false
			if err != nil {
				return 0, err
			}
			rd.names = saved
			req.Chat = sub
			continue
		case "n":
			var num json.Number
			if err := rd.dec.Decode(&num); err != nil {
				return 0, &Error{Offset: at, Field: "chatRequest.n", Msg: "want a number"}
			}
			v, _ := num.Int64()
			n = int(v)
			continue
		}
		if err := rd.skip(); err != nil {
			return 0, err
		}
	}
	if _, err := rd.dec.Token(); err != nil { // '}'
		return 0, rd.syntax(err, rd.dec.InputOffset())
	}
	return n, nil
}
