package openairesponses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

// Store keeps what a server has answered, as the Responses API stores
// responses (its store parameter is on by default): each output item by
// its id, and each response by its id with the conversation it ended. A
// later request may then name earlier items by reference ({"type":
// "item_reference","id":...}: the AI SDK sends earlier assistant messages
// and provider tool items that way) or continue a response
// (previous_response_id); Resolve expands both, so the prompt is read and
// checked whole, as the provider reads it. A Store is safe for concurrent
// use; a server keeps one per conversation.
//
// Keeping a reply costs nothing but a note: what the replies hold is read
// only when a request names an item or a response, so that the requests
// that never do (most of them) pay nothing for the store.
type Store struct {
	mu        sync.Mutex
	items     map[string]json.RawMessage
	responses map[string][]json.RawMessage
	// unread are the replies kept and not yet read, oldest first.
	unread []keptReply
}

// keptReply is a reply kept and not yet read: the request as Resolve
// returned it, and the response object (or, from a stream, the data of
// its last event, named event).
type keptReply struct {
	request, reply []byte
	event          string
	stream         bool
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{items: map[string]json.RawMessage{}, responses: map[string][]json.RawMessage{}}
}

// ResolveError is a reference to something the store does not hold, with
// the status and body the Responses API answers.
type ResolveError struct {
	Status  int
	Message string
	// Body is the provider's error envelope.
	Body []byte
}

func (e *ResolveError) Error() string { return e.Message }

func resolveError(status int, message, param string, code *string) *ResolveError {
	return &ResolveError{Status: status, Message: message, Body: []byte(wire.OpenAIErrorBody(message, "invalid_request_error", &param, code))}
}

// requestEnvelope is the part of a request body the store reads.
type requestEnvelope struct {
	Input              json.RawMessage `json:"input"`
	PreviousResponseID string          `json:"previous_response_id"`
	Store              *bool           `json:"store"`
}

// inputItems reads a request's input as raw items; a string is one user
// message.
func inputItems(raw json.RawMessage) ([]json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if s, ok := provider.UnmarshalString(raw); ok {
		b, _ := json.Marshal(map[string]any{"role": "user", "content": s}) // a string always marshals
		return []json.RawMessage{b}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("input: want a string or an array of items")
	}
	return items, nil
}

// Resolve returns the request body with the items of the
// previous_response_id chain put before its input and every item_reference
// in its input replaced by the item it names. A body that needs neither is
// returned as is. A name the store does not hold is a *ResolveError with
// the provider's answer; a body that is not a JSON object is returned as is,
// for the decoder to report.
func (s *Store) Resolve(body []byte) ([]byte, error) {
	if !bytes.Contains(body, []byte("item_reference")) && !bytes.Contains(body, []byte("previous_response_id")) {
		return body, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return body, nil
	}
	var env requestEnvelope
	if json.Unmarshal(body, &env) != nil {
		return body, nil
	}
	items, err := inputItems(env.Input)
	if err != nil {
		return body, nil
	}
	if env.PreviousResponseID != "" {
		// The provider names input items as sent, before the chain.
		if err := missingOutput(items); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.read()
	var out []json.RawMessage
	if env.PreviousResponseID != "" {
		prev, ok := s.responses[env.PreviousResponseID]
		if !ok {
			code := "previous_response_not_found"
			return nil, resolveError(http.StatusBadRequest, fmt.Sprintf(wire.ResponsesPreviousNotFoundText, env.PreviousResponseID), "previous_response_id", &code)
		}
		out = append(out, prev...)
	}
	for _, raw := range items {
		var ref struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(raw, &ref) == nil && ref.Type == "item_reference" {
			it, ok := s.items[ref.ID]
			if !ok {
				return nil, resolveError(http.StatusNotFound, fmt.Sprintf(wire.ResponsesItemNotFoundText, ref.ID), "input", nil)
			}
			raw = it
		}
		out = append(out, raw)
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	fields["input"], _ = json.Marshal(out) // raw JSON values always marshal
	delete(fields, "previous_response_id")
	return json.Marshal(fields)
}

// missingOutput finds a call output without its output among items as
// sent, with the provider's answer.
func missingOutput(items []json.RawMessage) *ResolveError {
	for i, raw := range items {
		var it struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil || (it.Type != "function_call_output" && it.Type != "custom_tool_call_output") {
			continue
		}
		if len(it.Output) == 0 || string(it.Output) == "null" {
			e := MissingParameter(fmt.Sprintf("input[%d].output", i))
			return &ResolveError{Status: e.Status, Message: e.Message, Body: e.Body}
		}
	}
	return nil
}

// Keep records the reply to a request: request is the body as Resolve
// returned it, reply the response object. Nothing is kept when the request
// said store: false. Both are read when a later request names something;
// a request or reply that does not read then is passed over.
func (s *Store) Keep(request, reply []byte) error {
	s.mu.Lock()
	s.unread = append(s.unread, keptReply{request: request, reply: reply})
	s.mu.Unlock()
	return nil
}

// read indexes the replies kept since the last read, in order.
func (s *Store) read() {
	for _, k := range s.unread {
		reply := k.reply
		if k.stream {
			resp, ok := completedResponse(k.event, k.reply)
			if !ok {
				continue
			}
			reply = resp
		}
		_ = s.index(k.request, reply) // a reply the server just wrote
	}
	s.unread = nil
}

// index records what a reply holds; the caller holds s.mu.
func (s *Store) index(request, reply []byte) error {
	var env requestEnvelope
	if err := json.Unmarshal(request, &env); err != nil {
		return fmt.Errorf("responses store: the request: %w", err)
	}
	if env.Store != nil && !*env.Store {
		return nil
	}
	items, err := inputItems(env.Input)
	if err != nil {
		return fmt.Errorf("responses store: the request: %w", err)
	}
	var resp struct {
		ID     string            `json:"id"`
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(reply, &resp); err != nil {
		return fmt.Errorf("responses store: the reply: %w", err)
	}
	for _, raw := range resp.Output {
		var it struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &it) == nil && it.ID != "" {
			s.items[it.ID] = raw
		}
	}
	if resp.ID != "" {
		s.responses[resp.ID] = append(append([]json.RawMessage(nil), items...), resp.Output...)
	}
	return nil
}

// KeepStream records a streamed reply: the response of its
// response.completed (or response.incomplete) event. stream may be the
// whole stream or only its end. A stream without that event is an error;
// the event's response is read when a later request names something.
func (s *Store) KeepStream(request, stream []byte) error {
	var name string
	var data []byte
	keep := func() bool {
		switch {
		case len(data) == 0:
			return false
		case name == "response.completed" || name == "response.incomplete":
			s.mu.Lock()
			s.unread = append(s.unread, keptReply{request: request, reply: data, event: name, stream: true})
			s.mu.Unlock()
			return true
		case name == "":
			if resp, ok := completedResponse(name, data); ok {
				return s.Keep(request, resp) == nil
			}
		}
		return false
	}
	for line := range bytes.Lines(stream) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0: // the end of an event
			if keep() {
				return nil
			}
			name, data = "", nil
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[len("event:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
		}
	}
	if keep() {
		return nil
	}
	return errors.New("responses store: the stream has no response.completed")
}

// completedResponse returns the response of a response.completed or
// response.incomplete event.
func completedResponse(name string, data []byte) (json.RawMessage, bool) {
	if len(data) == 0 || name != "" && name != "response.completed" && name != "response.incomplete" {
		return nil, false // named events need no parse
	}
	var e struct {
		Type     string          `json:"type"`
		Response json.RawMessage `json:"response"`
	}
	if json.Unmarshal(data, &e) != nil || len(e.Response) == 0 {
		return nil, false
	}
	return e.Response, e.Type == "response.completed" || e.Type == "response.incomplete"
}
