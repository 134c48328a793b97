package openairesponses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/approval-conformance-kit/ack/chat/sse"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/google/uuid"
)

// The streamed response: the server-sent events of a response as the
// Responses API sends them, written and read.

// event is a stream event.
type event struct {
	Type           string       `json:"type"`
	SequenceNumber int          `json:"sequence_number"`
	Response       *response    `json:"response,omitempty"`
	OutputIndex    *int         `json:"output_index,omitempty"`
	ContentIndex   *int         `json:"content_index,omitempty"`
	ItemID         string       `json:"item_id,omitempty"`
	Item           *item        `json:"item,omitempty"`
	Part           *contentPart `json:"part,omitempty"`
	Delta          string       `json:"delta,omitempty"`
	Text           *string      `json:"text,omitempty"`
	Arguments      *string      `json:"arguments,omitempty"`
}

type streamWriter struct {
	w       io.Writer
	flush   func()
	id      string
	seq     int
	parts   []model.Part
	pending []pendingCall
	// the item being streamed
	open     *item
	openText string
	openArgs string
	index    int
	// output is the items done so far, as response.completed lists them
	// (with the ids their events carried).
	output []item
}

// NewStreamWriter implements provider.Codec.
func (Codec) NewStreamWriter(w io.Writer, flush func(), _ bool) provider.StreamWriter {
	return &streamWriter{w: w, flush: flush, id: "resp_" + uuid.NewString(), index: -1}
}

func (s *streamWriter) emit(ev event) error {
	ev.SequenceNumber = s.seq
	s.seq++
	return sse.WriteNamedJSON(s.w, ev.Type, ev, s.flush)
}

func (s *streamWriter) add(it item) error {
	if err := s.done(); err != nil {
		return err
	}
	s.index++
	s.open = &it
	i := s.index
	return s.emit(event{Type: "response.output_item.added", OutputIndex: &i, Item: &it})
}

// done closes the open item.
func (s *streamWriter) done() error {
	if s.open == nil {
		return nil
	}
	it := *s.open
	s.open = nil
	i := s.index
	switch it.Type {
	case "message":
		it.Status, it.Content = "completed", textContent("output_text", s.openText)
		zero := 0
		if err := s.emit(event{Type: "response.output_text.done", OutputIndex: &i, ContentIndex: &zero, ItemID: it.ID, Text: strp(s.openText)}); err != nil {
			return err
		}
		part := contentPart{Type: "output_text", Text: s.openText, Annotations: &[]any{}}
		if err := s.emit(event{Type: "response.content_part.done", OutputIndex: &i, ContentIndex: &zero, ItemID: it.ID, Part: &part}); err != nil {
			return err
		}
	case "function_call":
		it.Status, it.Arguments = "completed", strp(s.openArgs)
		if err := s.emit(event{Type: "response.function_call_arguments.done", OutputIndex: &i, ItemID: it.ID, Arguments: strp(s.openArgs)}); err != nil {
			return err
		}
	}
	s.openText, s.openArgs = "", ""
	s.output = append(s.output, it)
	return s.emit(event{Type: "response.output_item.done", OutputIndex: &i, Item: &it})
}

func (s *streamWriter) Write(ev llm.StreamEvent) error {
	if s.seq == 0 {
		r := response{ID: s.id, Object: "response", CreatedAt: time.Now().Unix(), Status: "in_progress", Model: Model, Output: []item{}}
		if err := s.emit(event{Type: "response.created", Response: &r}); err != nil {
			return err
		}
	}
	switch ev.Type {
	case llm.StreamTextDelta:
		s.parts = appendText(s.parts, ev.Text)
		if s.open == nil || s.open.Type != "message" {
			if err := s.add(item{Type: "message", ID: "msg_" + uuid.NewString(), Role: "assistant", Status: "in_progress", Content: json.RawMessage("[]")}); err != nil {
				return err
			}
			i, zero := s.index, 0
			part := contentPart{Type: "output_text", Text: "", Annotations: &[]any{}}
			if err := s.emit(event{Type: "response.content_part.added", OutputIndex: &i, ContentIndex: &zero, ItemID: s.open.ID, Part: &part}); err != nil {
				return err
			}
		}
		s.openText += ev.Text
		i, zero := s.index, 0
		return s.emit(event{Type: "response.output_text.delta", OutputIndex: &i, ContentIndex: &zero, ItemID: s.open.ID, Delta: ev.Text})
	case llm.StreamToolInputStart:
		// Whether the provider runs the call is known at its part; the
		// item waits for it.
		if err := s.done(); err != nil {
			return err
		}
		s.pending = append(s.pending, pendingCall{id: ev.ToolCallID, name: ev.ToolName})
		return nil
	case llm.StreamToolInputDelta:
		for i := range s.pending {
			if s.pending[i].id == ev.ToolCallID {
				s.pending[i].deltas = append(s.pending[i].deltas, ev.Delta)
				return nil
			}
		}
		return fmt.Errorf("openai-responses stream: input for %s before its start", ev.ToolCallID)
	case llm.StreamPart:
		p := *ev.Part
		s.parts = append(s.parts, p)
		if p.Type == model.PartToolCall {
			return s.flushCall(p)
		}
		if p.Type == model.PartToolApprovalRequest || (p.Type == model.PartToolResult && p.ProviderExecuted) {
			items := outputItems(s.parts)
			if err := s.add(items[len(items)-1]); err != nil {
				return err
			}
			return s.done()
		}
		return nil
	case llm.StreamFinish:
		if err := s.done(); err != nil {
			return err
		}
		r := responseOf(s.id, &llm.Response{Content: s.parts, FinishReason: ev.FinishReason, Usage: ev.Usage}, "completed")
		r.Output = append([]item{}, s.output...)
		return s.emit(event{Type: "response.completed", Response: &r})
	}
	return nil
}

// pendingCall is a function call whose part has not come yet.
type pendingCall struct {
	id, name string
	deltas   []string
}

// flushCall streams a local call's item with its argument deltas, once its
// part has come; a provider-executed call's input is dropped (its approval
// request or result carries it).
func (s *streamWriter) flushCall(p model.Part) error {
	var pc pendingCall
	for i := range s.pending {
		if s.pending[i].id == p.ToolCallID {
			pc = s.pending[i]
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	if p.ProviderExecuted {
		return nil
	}
	if pc.id == "" { // a call with no input events: its whole input is one delta
		pc = pendingCall{id: p.ToolCallID, name: p.ToolName, deltas: []string{string(p.Input)}}
	}
	if err := s.add(item{Type: "function_call", ID: "fc_" + pc.id, CallID: pc.id, Name: pc.name, Arguments: strp(""), Status: "in_progress"}); err != nil {
		return err
	}
	for _, d := range pc.deltas {
		s.openArgs += d
		i := s.index
		if err := s.emit(event{Type: "response.function_call_arguments.delta", OutputIndex: &i, ItemID: s.open.ID, Delta: d}); err != nil {
			return err
		}
	}
	return s.done()
}

func appendText(parts []model.Part, text string) []model.Part {
	if n := len(parts); n > 0 && parts[n-1].Type == model.PartText {
		parts[n-1].Text += text
		return parts
	}
	return append(parts, model.Text(text))
}

// ReadStream implements provider.Codec: text and argument deltas as they
// come; whole parts from the items when they are done; the finish from
// response.completed.
func (Codec) ReadStream(ctx context.Context, r io.Reader, yield func(llm.StreamEvent) error) error {
	sr := sse.NewReader(r)
	callOf := map[string]string{} // item id -> call id
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("the stream ended before response.completed")
		}
		if err != nil {
			return err
		}
		var ev event
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			return fmt.Errorf("event %d: %w", raw.Index, err)
		}
		switch ev.Type {
		case "response.output_item.added":
			if ev.Item != nil && ev.Item.Type == "function_call" {
				callOf[ev.Item.ID] = ev.Item.CallID
				if err := yield(llm.StreamEvent{Type: llm.StreamToolInputStart, ToolCallID: ev.Item.CallID, ToolName: ev.Item.Name}); err != nil {
					return err
				}
			}
		case "response.output_text.delta":
			if err := yield(llm.StreamEvent{Type: llm.StreamTextDelta, Text: ev.Delta}); err != nil {
				return err
			}
		case "response.function_call_arguments.delta":
			callID, ok := callOf[ev.ItemID]
			if !ok {
				return fmt.Errorf("event %d: arguments for an unknown item %q", raw.Index, ev.ItemID)
			}
			if err := yield(llm.StreamEvent{Type: llm.StreamToolInputDelta, ToolCallID: callID, Delta: ev.Delta}); err != nil {
				return err
			}
		case "response.output_item.done":
			if ev.Item == nil || ev.Item.Type == "message" {
				continue
			}
			parts, _, err := contentOf([]item{*ev.Item}, nil)
			if err != nil {
				return fmt.Errorf("event %d: %w", raw.Index, err)
			}
			for i := range parts {
				if err := yield(llm.StreamEvent{Type: llm.StreamPart, Part: &parts[i]}); err != nil {
					return err
				}
			}
		case "response.completed", "response.incomplete":
			if ev.Response == nil {
				return fmt.Errorf("event %d: %s without its response", raw.Index, ev.Type)
			}
			_, finish, err := contentOf(ev.Response.Output, ev.Response)
			if err != nil {
				return fmt.Errorf("event %d: %w", raw.Index, err)
			}
			fin := llm.StreamEvent{Type: llm.StreamFinish, FinishReason: finish}
			if u := ev.Response.Usage; u != nil {
				fin.Usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
			}
			return yield(fin)
		case "response.failed", "error":
			return fmt.Errorf("event %d: the stream reported an error: %s", raw.Index, raw.Data)
		}
	}
}
