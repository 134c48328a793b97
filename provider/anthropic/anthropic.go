// Package anthropic is the Anthropic Messages wire format: request bodies
// with text, tool_use and tool_result blocks, message replies, and the
// event stream (message_start, content_block_start/delta/stop,
// message_delta, message_stop).
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/chat/sse"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

func init() { provider.Register(Codec{}) }

// Model is the model name the client sends.
const Model = "ack-simulated"

// Codec is the Messages format.
type Codec struct{}

// Profile implements provider.Codec.
func (Codec) Profile() wire.Profile { return wire.AnthropicMessages }

// Path implements provider.Codec.
func (Codec) Path() string { return "/messages" }

var finish = provider.FinishNames{llm.FinishStop: "end_turn", llm.FinishToolCalls: "tool_use", llm.FinishLength: "max_tokens"}

type request struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system,omitempty"`
	Messages  []message       `json:"messages"`
	Tools     []tool          `json:"tools,omitempty"`
	Stream    bool            `json:"stream,omitempty"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type tool struct {
	// Type is empty or "custom" for a tool the client runs; otherwise a
	// versioned server or client tool of Anthropic's ("web_search_20250305",
	// "bash_20250124", a toolset ...).
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func text(s string) block { return block{Type: "text", Text: &s} }

// blocksOf lays a canonical message out as content blocks.
func blocksOf(i int, m model.Message) ([]block, error) {
	var out []block
	for j, p := range m.Content {
		switch {
		case p.Type == model.PartText && m.Role != model.RoleTool:
			if p.Text != "" {
				out = append(out, text(p.Text))
			}
		case p.Type == model.PartToolCall && !p.ProviderExecuted && m.Role == model.RoleAssistant:
			input, err := provider.ValidJSON(p.Input, fmt.Sprintf("messages[%d].content[%d].input", i, j))
			if err != nil {
				return nil, err
			}
			out = append(out, block{Type: "tool_use", ID: p.ToolCallID, Name: p.ToolName, Input: input})
		case p.Type == model.PartToolResult && !p.ProviderExecuted && m.Role == model.RoleTool:
			c, _ := json.Marshal(provider.OutputText(p.Output)) // a string always marshals
			out = append(out, block{Type: "tool_result", ToolUseID: p.ToolCallID, Content: c, IsError: provider.IsFailure(p.Output)})
		}
	}
	return out, nil
}

// EncodeRequest implements provider.Codec: system messages go to system;
// user and tool messages in a row merge into one user message.
func (Codec) EncodeRequest(req *llm.Request, stream bool) ([]byte, error) {
	r := request{Model: Model, MaxTokens: 4096, Messages: []message{}, Stream: stream}
	system := ""
	var blocks [][]block
	var roles []string
	for i, m := range req.Messages {
		if m.Role == model.RoleSystem {
			if system != "" {
				system += "\n"
			}
			system += provider.Text(m)
			continue
		}
		role := "user"
		if m.Role == model.RoleAssistant {
			role = "assistant"
		}
		bs, err := blocksOf(i, m)
		if err != nil {
			return nil, err
		}
		if n := len(roles); n > 0 && roles[n-1] == role {
			blocks[n-1] = append(blocks[n-1], bs...)
			continue
		}
		roles = append(roles, role)
		blocks = append(blocks, bs)
	}
	for k, role := range roles {
		c, err := json.Marshal(append([]block{}, blocks[k]...))
		if err != nil {
			return nil, err
		}
		r.Messages = append(r.Messages, message{Role: role, Content: c})
	}
	if system != "" {
		r.System, _ = json.Marshal(system)
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return json.Marshal(r)
}

// contentBlocks reads content: a string or an array of blocks.
func contentBlocks(raw json.RawMessage) ([]block, error) {
	if s, ok := provider.UnmarshalString(raw); ok {
		return []block{text(s)}, nil
	}
	var bs []block
	if err := json.Unmarshal(raw, &bs); err != nil {
		return nil, errors.New("want a string or an array of content blocks")
	}
	return bs, nil
}

// resultText reads a tool_result's content: a string or text blocks.
func resultText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	bs, err := contentBlocks(raw)
	if err != nil {
		return "", err
	}
	var s string
	for _, b := range bs {
		if b.Text != nil {
			s += *b.Text
		}
	}
	return s, nil
}

// DecodeRequest implements provider.Codec: a user message's tool_result
// blocks become a canonical tool message and its text a user message, in
// their order; the view keeps one entry per wire message with each result's
// block index.
func (Codec) DecodeRequest(body []byte) (*provider.Decoded, error) {
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	if r.Messages == nil {
		return nil, errors.New("messages: missing")
	}
	d := &provider.Decoded{Request: &llm.Request{}, View: wire.View{Profile: wire.AnthropicMessages}, Stream: r.Stream, IncludeUsage: true}
	for i, t := range r.Tools {
		switch {
		case t.Type == "" || t.Type == "custom":
			if t.Name == "" {
				return nil, fmt.Errorf("tools[%d].name: missing", i)
			}
			d.Request.Tools = append(d.Request.Tools, llm.ToolDef{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		case t.Name != "":
			d.Request.Tools = append(d.Request.Tools, llm.ToolDef{Name: t.Name, ProviderExecuted: true})
		default: // a toolset: its members have no name of their own here
			d.Request.Tools = append(d.Request.Tools, llm.ToolDef{Name: t.Type, ProviderExecuted: true})
		}
	}
	msgs := &d.Request.Messages
	var names provider.CallNames // the results' tool names, in linear time
	if len(r.System) > 0 {
		s, err := resultText(r.System)
		if err != nil {
			return nil, fmt.Errorf("system: %w", err)
		}
		*msgs = append(*msgs, model.SystemText(s))
	}
	for i, m := range r.Messages {
		if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
			return nil, fmt.Errorf("messages[%d].role: unknown role %q", i, m.Role)
		}
		bs, err := contentBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		if m.Role == "system" {
			// A system message within the conversation (the AI SDK sends
			// one for a system message that is not first): its text.
			text := ""
			for _, b := range bs {
				if b.Type == "text" && b.Text != nil {
					text += *b.Text
				}
			}
			*msgs = append(*msgs, model.SystemText(text))
			d.View.Entries = append(d.View.Entries, wire.Entry{Role: "system", Canonical: len(*msgs) - 1})
			continue
		}
		entry := wire.Entry{Role: m.Role, Canonical: len(*msgs)}
		var cur *model.Message
		open := func(role model.Role) {
			if cur == nil || cur.Role != role {
				*msgs = append(*msgs, model.Message{Role: role})
				cur = &(*msgs)[len(*msgs)-1]
			}
		}
		for j, b := range bs {
			field := fmt.Sprintf("messages[%d].content[%d]", i, j)
			switch b.Type {
			case "text":
				if b.Text == nil {
					return nil, fmt.Errorf("%s.text: missing", field)
				}
				if m.Role == "assistant" {
					open(model.RoleAssistant)
				} else {
					open(model.RoleUser)
				}
				cur.Content = append(cur.Content, model.Text(*b.Text))
			case "tool_use":
				if m.Role != "assistant" {
					return nil, fmt.Errorf("%s: tool_use blocks belong in assistant messages", field)
				}
				if b.ID == "" || b.Name == "" {
					return nil, fmt.Errorf("%s: tool_use needs an id and a name", field)
				}
				input, err := provider.ValidJSON(b.Input, field+".input")
				if err != nil {
					return nil, err
				}
				open(model.RoleAssistant)
				cur.Content = append(cur.Content, model.ToolCall(b.ID, b.Name, input))
				entry.Calls = append(entry.Calls, b.ID)
			case "tool_result":
				if m.Role != "user" {
					return nil, fmt.Errorf("%s: tool_result blocks belong in user messages", field)
				}
				if b.ToolUseID == "" {
					return nil, fmt.Errorf("%s.tool_use_id: missing", field)
				}
				s, err := resultText(b.Content)
				if err != nil {
					return nil, fmt.Errorf("%s.content: %w", field, err)
				}
				open(model.RoleTool)
				cur.Content = append(cur.Content, model.ToolResult(b.ToolUseID, names.Name(*msgs, b.ToolUseID), provider.OutputFromText(s, b.IsError)))
				entry.Results = append(entry.Results, wire.Result{ID: b.ToolUseID, Block: j, Canonical: len(*msgs) - 1})
			default:
				// Images, documents and thinking blocks say nothing about tools.
			}
		}
		if cur == nil { // an empty message still takes its place
			role := model.RoleUser
			if m.Role == "assistant" {
				role = model.RoleAssistant
			}
			*msgs = append(*msgs, model.Message{Role: role})
		}
		d.View.Entries = append(d.View.Entries, entry)
	}
	return d, nil
}

type reply struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

func contentOf(parts []model.Part) []block {
	out := []block{}
	for _, p := range parts {
		switch {
		case p.Type == model.PartText:
			out = append(out, text(p.Text))
		case p.Type == model.PartToolCall && !p.ProviderExecuted:
			out = append(out, block{Type: "tool_use", ID: p.ToolCallID, Name: p.ToolName, Input: p.Input})
		}
	}
	return out
}

// EncodeResponse implements provider.Codec.
func (Codec) EncodeResponse(resp *llm.Response) ([]byte, error) {
	reason := finish.ToWire(resp.FinishReason)
	return json.Marshal(reply{ID: "msg_" + uuid.NewString(), Type: "message", Role: "assistant", Model: Model,
		Content: contentOf(resp.Content), StopReason: &reason, Usage: usage{resp.Usage.InputTokens, resp.Usage.OutputTokens}})
}

// DecodeResponse implements provider.Codec.
func (Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	var r reply
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if r.Type != "message" {
		return nil, fmt.Errorf("reply body: type: %q, want message", r.Type)
	}
	out := &llm.Response{FinishReason: llm.FinishOther, Usage: llm.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}}
	if r.StopReason != nil {
		out.FinishReason = finish.FromWire(*r.StopReason)
	}
	for j, b := range r.Content {
		switch b.Type {
		case "text":
			if b.Text != nil {
				out.Content = append(out.Content, model.Text(*b.Text))
			}
		case "tool_use":
			input, err := provider.ValidJSON(b.Input, fmt.Sprintf("content[%d].input", j))
			if err != nil {
				return nil, fmt.Errorf("reply body: %w", err)
			}
			out.Content = append(out.Content, model.ToolCall(b.ID, b.Name, input))
		}
	}
	return out, nil
}

// ErrorBody implements provider.Codec.
func (Codec) ErrorBody(status int, typ, message string) []byte {
	if typ == "" {
		typ = "invalid_request_error"
	}
	return []byte(wire.AnthropicErrorBody(message, typ, ""))
}

// event is a stream event.
type event struct {
	Type         string          `json:"type"`
	Message      *reply          `json:"message,omitempty"`
	Index        *int            `json:"index,omitempty"`
	ContentBlock *block          `json:"content_block,omitempty"`
	Delta        json.RawMessage `json:"delta,omitempty"`
	Usage        *usage          `json:"usage,omitempty"`
}

type streamWriter struct {
	w       io.Writer
	flush   func()
	id      string
	started bool
	index   int
	open    string // the type of the open block, "" if none
	calls   map[string]int
}

// NewStreamWriter implements provider.Codec.
func (Codec) NewStreamWriter(w io.Writer, flush func(), _ bool) provider.StreamWriter {
	return &streamWriter{w: w, flush: flush, id: "msg_" + uuid.NewString(), index: -1, calls: map[string]int{}}
}

func (s *streamWriter) emit(ev event) error {
	return sse.WriteNamedJSON(s.w, ev.Type, ev, s.flush)
}

func (s *streamWriter) closeBlock() error {
	if s.open == "" {
		return nil
	}
	s.open = ""
	i := s.index
	return s.emit(event{Type: "content_block_stop", Index: &i})
}

func (s *streamWriter) openBlock(b block) error {
	if err := s.closeBlock(); err != nil {
		return err
	}
	s.index++
	s.open = b.Type
	i := s.index
	return s.emit(event{Type: "content_block_start", Index: &i, ContentBlock: &b})
}

func (s *streamWriter) delta(d any) error {
	raw, _ := json.Marshal(d) // deltas are plain maps of strings
	i := s.index
	return s.emit(event{Type: "content_block_delta", Index: &i, Delta: raw})
}

func (s *streamWriter) Write(ev llm.StreamEvent) error {
	if !s.started {
		s.started = true
		if err := s.emit(event{Type: "message_start", Message: &reply{ID: s.id, Type: "message", Role: "assistant", Model: Model, Content: []block{}}}); err != nil {
			return err
		}
	}
	switch ev.Type {
	case llm.StreamTextDelta:
		if s.open != "text" {
			if err := s.openBlock(text("")); err != nil {
				return err
			}
		}
		return s.delta(map[string]string{"type": "text_delta", "text": ev.Text})
	case llm.StreamToolInputStart:
		if err := s.openBlock(block{Type: "tool_use", ID: ev.ToolCallID, Name: ev.ToolName, Input: json.RawMessage("{}")}); err != nil {
			return err
		}
		s.calls[ev.ToolCallID] = s.index
		return nil
	case llm.StreamToolInputDelta:
		if s.open != "tool_use" || s.calls[ev.ToolCallID] != s.index {
			return fmt.Errorf("anthropic stream: input for %s outside its block", ev.ToolCallID)
		}
		return s.delta(map[string]string{"type": "input_json_delta", "partial_json": ev.Delta})
	case llm.StreamPart:
		return nil
	case llm.StreamFinish:
		if err := s.closeBlock(); err != nil {
			return err
		}
		d, _ := json.Marshal(map[string]any{"stop_reason": finish.ToWire(ev.FinishReason), "stop_sequence": nil})
		if err := s.emit(event{Type: "message_delta", Delta: d, Usage: &usage{ev.Usage.InputTokens, ev.Usage.OutputTokens}}); err != nil {
			return err
		}
		return s.emit(event{Type: "message_stop"})
	}
	return nil
}

// ReadStream implements provider.Codec.
func (Codec) ReadStream(ctx context.Context, r io.Reader, yield func(llm.StreamEvent) error) error {
	sr := sse.NewReader(r)
	type call struct {
		id, name string
		args     []byte
	}
	blocks := map[int]*call{}
	var fin llm.StreamEvent
	fin.Type = llm.StreamFinish
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("the stream ended before message_stop")
		}
		if err != nil {
			return err
		}
		var ev event
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			return fmt.Errorf("event %d: %w", raw.Index, err)
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				fin.Usage.InputTokens = ev.Message.Usage.InputTokens
			}
		case "content_block_start":
			if ev.Index == nil || ev.ContentBlock == nil {
				return fmt.Errorf("event %d: content_block_start without index or block", raw.Index)
			}
			if b := ev.ContentBlock; b.Type == "tool_use" {
				blocks[*ev.Index] = &call{id: b.ID, name: b.Name}
				if err := yield(llm.StreamEvent{Type: llm.StreamToolInputStart, ToolCallID: b.ID, ToolName: b.Name}); err != nil {
					return err
				}
			}
		case "content_block_delta":
			var d struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			}
			if err := json.Unmarshal(ev.Delta, &d); err != nil {
				return fmt.Errorf("event %d: delta: %w", raw.Index, err)
			}
			switch d.Type {
			case "text_delta":
				if err := yield(llm.StreamEvent{Type: llm.StreamTextDelta, Text: d.Text}); err != nil {
					return err
				}
			case "input_json_delta":
				if ev.Index == nil || blocks[*ev.Index] == nil {
					return fmt.Errorf("event %d: input_json_delta outside a tool_use block", raw.Index)
				}
				c := blocks[*ev.Index]
				c.args = append(c.args, d.PartialJSON...)
				if err := yield(llm.StreamEvent{Type: llm.StreamToolInputDelta, ToolCallID: c.id, Delta: d.PartialJSON}); err != nil {
					return err
				}
			}
		case "content_block_stop":
			if ev.Index == nil {
				continue
			}
			if c := blocks[*ev.Index]; c != nil {
				input, err := provider.ValidJSON(c.args, "tool_use "+c.id+" input")
				if err != nil {
					return err
				}
				p := model.ToolCall(c.id, c.name, input)
				if err := yield(llm.StreamEvent{Type: llm.StreamPart, Part: &p}); err != nil {
					return err
				}
			}
		case "message_delta":
			var d struct {
				StopReason string `json:"stop_reason"`
			}
			_ = json.Unmarshal(ev.Delta, &d)
			fin.FinishReason = finish.FromWire(d.StopReason)
			if ev.Usage != nil {
				fin.Usage.OutputTokens = ev.Usage.OutputTokens
				if ev.Usage.InputTokens > 0 { // newer API versions repeat it here
					fin.Usage.InputTokens = ev.Usage.InputTokens
				}
			}
		case "message_stop":
			return yield(fin)
		case "error":
			return fmt.Errorf("event %d: the stream reported an error: %s", raw.Index, raw.Data)
		}
	}
}
