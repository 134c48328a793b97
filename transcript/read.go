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
