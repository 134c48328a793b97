package openairesponses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

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
type Store struct {
	mu        sync.Mutex
	items     map[string]json.RawMessage
	responses map[string][]json.RawMessage
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
	var s string
	if json.Unmarshal(raw, &s) == nil {
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
	var out []json.RawMessage
	if env.PreviousResponseID != "" {
		prev, ok := s.responses[env.PreviousResponseID]
		if !ok {
			code := "previous_response_not_found"
			return nil, resolveError(http.StatusBadRequest, fmt.Sprintf("Previous response with id '%s' not found.", env.PreviousResponseID), "previous_response_id", &code)
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
				return nil, resolveError(http.StatusNotFound, fmt.Sprintf("Item with id '%s' not found.", ref.ID), "input", nil)
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
// said store: false.
func (s *Store) Keep(request, reply []byte) error {
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
	s.mu.Lock()
	defer s.mu.Unlock()
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
// whole stream or only its end.
func (s *Store) KeepStream(request, stream []byte) error {
	var name string
	var data []byte
	for line := range bytes.Lines(stream) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0: // the end of an event
			if resp, ok := completedResponse(name, data); ok {
				return s.Keep(request, resp)
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
	if resp, ok := completedResponse(name, data); ok {
		return s.Keep(request, resp)
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
