// Package openaichat is the OpenAI Chat Completions wire format: request
// bodies with messages and tool_calls, chat.completion replies, and
// chat.completion.chunk streams with tool-call deltas, a usage chunk and
// [DONE].
package openaichat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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

// Codec is the Chat Completions format.
type Codec struct{}

// Profile implements provider.Codec.
func (Codec) Profile() wire.Profile { return wire.OpenAIChat }

// Path implements provider.Codec.
func (Codec) Path() string { return "/chat/completions" }

var finish = provider.FinishNames{llm.FinishStop: "stop", llm.FinishToolCalls: "tool_calls", llm.FinishLength: "length"}

type request struct {
	Model         string         `json:"model"`
	Messages      []message      `json:"messages"`
	Tools         []tool         `json:"tools,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []toolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	// Custom is the call of a custom tool (type custom): free-form text
	// input, no JSON arguments.
	Custom *customCall `json:"custom,omitempty"`
}

type customCall struct {
	Name  string `json:"name"`
	Input string `json:"input"`
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
	// Custom is a custom tool (type custom): a name, a description and an
	// input format, the input being free-form text.
	Custom *struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
	} `json:"custom,omitempty"`
}

func str(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// EncodeRequest implements provider.Codec. Approval parts and
// provider-executed calls have no place on this wire and are left out.
func (Codec) EncodeRequest(req *llm.Request, stream bool) ([]byte, error) {
	r := request{Model: Model, Messages: []message{}, Stream: stream}
	if stream {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	for _, t := range req.Tools {
		var wt tool
		wt.Type = "function"
		wt.Function.Name, wt.Function.Description, wt.Function.Parameters = t.Name, t.Description, t.InputSchema
		r.Tools = append(r.Tools, wt)
	}
	for i, m := range req.Messages {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			r.Messages = append(r.Messages, message{Role: string(m.Role), Content: str(provider.Text(m))})
		case model.RoleAssistant:
			wm := message{Role: "assistant", Content: json.RawMessage("null")}
			if t := provider.Text(m); t != "" {
				wm.Content = str(t)
			}
			visible := false
			for j, p := range m.Content {
				if p.Type == model.PartText {
					visible = true
				}
				if p.Type != model.PartToolCall || p.ProviderExecuted {
					continue
				}
				input, err := provider.ValidJSON(p.Input, fmt.Sprintf("messages[%d].content[%d].input", i, j))
				if err != nil {
					return nil, err
				}
				var tc toolCall
				tc.ID, tc.Type = p.ToolCallID, "function"
				tc.Function.Name, tc.Function.Arguments = p.ToolName, string(input)
				wm.ToolCalls = append(wm.ToolCalls, tc)
				visible = true
			}
			if visible {
				r.Messages = append(r.Messages, wm)
			}
		case model.RoleTool:
			for _, p := range m.Content {
				if p.Type == model.PartToolResult && !p.ProviderExecuted {
					r.Messages = append(r.Messages, message{Role: "tool", ToolCallID: p.ToolCallID, Content: str(provider.OutputText(p.Output))})
				}
			}
		}
	}
	return json.Marshal(r)
}

// content reads a message's content: a string, null, or text parts.
func content(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	s, ok := provider.UnmarshalString(raw)
	if ok {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of text parts")
	}
	for _, p := range parts {
		s += p.Text
	}
	return s, nil
}

// DecodeRequest implements provider.Codec: consecutive tool messages become
// one canonical tool message; the view keeps one entry per wire message.
func (Codec) DecodeRequest(body []byte) (*provider.Decoded, error) {
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	if r.Messages == nil {
		return nil, errors.New("messages: missing")
	}
	d := &provider.Decoded{Request: &llm.Request{}, View: wire.View{Profile: wire.OpenAIChat}, Stream: r.Stream,
		IncludeUsage: r.StreamOptions != nil && r.StreamOptions.IncludeUsage}
	for i, t := range r.Tools {
		def, err := toolDef(t)
		if err != nil {
			return nil, fmt.Errorf("tools[%d].%w", i, err)
		}
		d.Request.Tools = append(d.Request.Tools, def)
	}
	msgs := &d.Request.Messages
	var names provider.CallNames // the results' tool names, in linear time
	for i, m := range r.Messages {
		text, err := content(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer", "user":
			role := model.RoleUser
			if m.Role != "user" {
				role = model.RoleSystem
			}
			*msgs = append(*msgs, model.Message{Role: role, Content: []model.Part{model.Text(text)}})
			d.View.Entries = append(d.View.Entries, wire.Entry{Role: m.Role, Canonical: len(*msgs) - 1})
		case "assistant":
			am := model.Message{Role: model.RoleAssistant}
			if text != "" {
				am.Content = append(am.Content, model.Text(text))
			}
			entry := wire.Entry{Role: "assistant"}
			for j, tc := range m.ToolCalls {
				if tc.ID == "" {
					return nil, fmt.Errorf("messages[%d].tool_calls[%d].id: missing", i, j)
				}
				call, err := callPart(tc, fmt.Sprintf("messages[%d].tool_calls[%d]", i, j))
				if err != nil {
					return nil, err
				}
				am.Content = append(am.Content, call)
				entry.Calls = append(entry.Calls, tc.ID)
			}
			*msgs = append(*msgs, am)
			entry.Canonical = len(*msgs) - 1
			d.View.Entries = append(d.View.Entries, entry)
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("messages[%d].tool_call_id: missing", i)
			}
			if n := len(*msgs); n == 0 || (*msgs)[n-1].Role != model.RoleTool || i == 0 || r.Messages[i-1].Role != "tool" {
				*msgs = append(*msgs, model.Message{Role: model.RoleTool})
			}
			at := len(*msgs) - 1
			(*msgs)[at].Content = append((*msgs)[at].Content, model.ToolResult(m.ToolCallID, names.Name(*msgs, m.ToolCallID), provider.OutputFromText(text, false)))
			d.View.Entries = append(d.View.Entries, wire.Entry{Role: "tool", Results: []wire.Result{{ID: m.ToolCallID, Canonical: at}}, Canonical: at})
		default:
			return nil, fmt.Errorf("messages[%d].role: unknown role %q", i, m.Role)
		}
	}
	return d, nil
}

// toolDef reads a tool: a function (JSON Schema parameters) or a custom
// tool (free-form input), as the API and the openai client's
// ChatCompletionTool union have them.
func toolDef(t tool) (llm.ToolDef, error) {
	switch t.Type {
	case "function", "":
		if t.Function.Name == "" {
			return llm.ToolDef{}, errors.New("function.name: missing")
		}
		return llm.ToolDef{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters}, nil
	case "custom":
		if t.Custom == nil || t.Custom.Name == "" {
			return llm.ToolDef{}, errors.New("custom.name: missing")
		}
		return llm.ToolDef{Name: t.Custom.Name, Description: t.Custom.Description}, nil
	}
	return llm.ToolDef{}, fmt.Errorf("type: unknown tool type %q (want function or custom)", t.Type)
}

// callPart reads an assistant message's tool call: a function call with
// JSON arguments, or a custom tool call, whose free-form input becomes a
// JSON string.
func callPart(tc toolCall, field string) (model.Part, error) {
	if tc.Type == "custom" {
		if tc.Custom == nil || tc.Custom.Name == "" {
			return model.Part{}, fmt.Errorf("%s.custom.name: missing", field)
		}
		return model.ToolCall(tc.ID, tc.Custom.Name, str(tc.Custom.Input)), nil
	}
	if tc.Function.Name == "" {
		return model.Part{}, fmt.Errorf("%s.function.name: missing", field)
	}
	input, err := provider.ValidJSON(json.RawMessage(tc.Function.Arguments), field+".function.arguments")
	if err != nil {
		return model.Part{}, err
	}
	return model.ToolCall(tc.ID, tc.Function.Name, input), nil
}

type completion struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

type choice struct {
	Index        int      `json:"index"`
	Message      *message `json:"message,omitempty"`
	Delta        *delta   `json:"delta,omitempty"`
	FinishReason *string  `json:"finish_reason"`
}

type delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func usageOf(u llm.Usage) *usage {
	return &usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
}

// EncodeResponse implements provider.Codec.
func (Codec) EncodeResponse(resp *llm.Response) ([]byte, error) {
	msg := message{Role: "assistant", Content: json.RawMessage("null")}
	text := ""
	for _, p := range resp.Content {
		switch {
		case p.Type == model.PartText:
			text += p.Text
		case p.Type == model.PartToolCall && !p.ProviderExecuted:
			var tc toolCall
			tc.ID, tc.Type = p.ToolCallID, "function"
			tc.Function.Name, tc.Function.Arguments = p.ToolName, string(p.Input)
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
	}
	if text != "" {
		msg.Content = str(text)
	}
	reason := finish.ToWire(resp.FinishReason)
	return json.Marshal(completion{ID: "chatcmpl-" + uuid.NewString(), Object: "chat.completion", Created: time.Now().Unix(), Model: Model,
		Choices: []choice{{Message: &msg, FinishReason: &reason}}, Usage: usageOf(resp.Usage)})
}

// DecodeResponse implements provider.Codec.
func (Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if len(c.Choices) == 0 || c.Choices[0].Message == nil {
		return nil, errors.New("reply body: choices[0].message: missing")
	}
	m := c.Choices[0].Message
	out := &llm.Response{FinishReason: llm.FinishOther}
	if c.Choices[0].FinishReason != nil {
		out.FinishReason = finish.FromWire(*c.Choices[0].FinishReason)
	}
	text, err := content(m.Content)
	if err != nil {
		return nil, fmt.Errorf("reply body: choices[0].message.content: %w", err)
	}
	if text != "" {
		out.Content = append(out.Content, model.Text(text))
	}
	for j, tc := range m.ToolCalls {
		input, err := provider.ValidJSON(json.RawMessage(tc.Function.Arguments), fmt.Sprintf("choices[0].message.tool_calls[%d].function.arguments", j))
		if err != nil {
			return nil, fmt.Errorf("reply body: %w", err)
		}
		out.Content = append(out.Content, model.ToolCall(tc.ID, tc.Function.Name, input))
	}
	if c.Usage != nil {
		out.Usage = llm.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	return out, nil
}

// ErrorBody implements provider.Codec.
func (Codec) ErrorBody(status int, typ, message string) []byte {
	if typ == "" {
		typ = "invalid_request_error"
	}
	return []byte(wire.OpenAIErrorBody(message, typ, nil, nil))
}

type streamWriter struct {
	w            io.Writer
	flush        func()
	id           string
	created      int64
	includeUsage bool
	started      bool
	calls        map[string]int
}

// NewStreamWriter implements provider.Codec.
func (Codec) NewStreamWriter(w io.Writer, flush func(), includeUsage bool) provider.StreamWriter {
	return &streamWriter{w: w, flush: flush, id: "chatcmpl-" + uuid.NewString(), created: time.Now().Unix(), includeUsage: includeUsage, calls: map[string]int{}}
}

func (s *streamWriter) chunk(d *delta, reason *string) error {
	c := completion{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: Model, Choices: []choice{{Delta: d, FinishReason: reason}}}
	return sse.WriteJSON(s.w, c, s.flush)
}

func (s *streamWriter) Write(ev llm.StreamEvent) error {
	if !s.started {
		s.started = true
		empty := ""
		if err := s.chunk(&delta{Role: "assistant", Content: &empty}, nil); err != nil {
			return err
		}
	}
	switch ev.Type {
	case llm.StreamTextDelta:
		text := ev.Text
		return s.chunk(&delta{Content: &text}, nil)
	case llm.StreamToolInputStart:
		idx := len(s.calls)
		s.calls[ev.ToolCallID] = idx
		tc := toolCall{Index: &idx, ID: ev.ToolCallID, Type: "function"}
		tc.Function.Name = ev.ToolName
		return s.chunk(&delta{ToolCalls: []toolCall{tc}}, nil)
	case llm.StreamToolInputDelta:
		idx, ok := s.calls[ev.ToolCallID]
		if !ok {
			return fmt.Errorf("openai-chat stream: input for %s before its start", ev.ToolCallID)
		}
		tc := toolCall{Index: &idx}
		tc.Function.Arguments = ev.Delta
		return s.chunk(&delta{ToolCalls: []toolCall{tc}}, nil)
	case llm.StreamPart:
		return nil // a complete call was already streamed; other parts have no place here
	case llm.StreamFinish:
		reason := finish.ToWire(ev.FinishReason)
		if err := s.chunk(&delta{}, &reason); err != nil {
			return err
		}
		if s.includeUsage {
			c := completion{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: Model, Choices: []choice{}, Usage: usageOf(ev.Usage)}
			if err := sse.WriteJSON(s.w, c, s.flush); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(s.w, "data: [DONE]\n\n"); err != nil {
			return err
		}
		if s.flush != nil {
			s.flush()
		}
		return nil
	}
	return nil
}

// ReadStream implements provider.Codec: tool calls are assembled by index
// and delivered whole when the stream finishes.
func (Codec) ReadStream(ctx context.Context, r io.Reader, yield func(llm.StreamEvent) error) error {
	sr := sse.NewReader(r)
	type call struct {
		id, name string
		args     []byte
	}
	var calls []*call
	byIndex := map[int]*call{}
	reason := ""
	var use *usage
	finishNow := func() error {
		for _, c := range calls {
			input, err := provider.ValidJSON(c.args, "tool call "+c.id+" arguments")
			if err != nil {
				return err
			}
			p := model.ToolCall(c.id, c.name, input)
			if err := yield(llm.StreamEvent{Type: llm.StreamPart, Part: &p}); err != nil {
				return err
			}
		}
		ev := llm.StreamEvent{Type: llm.StreamFinish, FinishReason: finish.FromWire(reason)}
		if use != nil {
			ev.Usage = llm.Usage{InputTokens: use.PromptTokens, OutputTokens: use.CompletionTokens}
		}
		return yield(ev)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("the stream ended before [DONE]")
		}
		if err != nil {
			return err
		}
		if string(raw.Data) == "[DONE]" {
			return finishNow()
		}
		var c completion
		if err := json.Unmarshal(raw.Data, &c); err != nil {
			return fmt.Errorf("chunk %d: %w", raw.Index, err)
		}
		if c.Usage != nil {
			use = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				reason = *ch.FinishReason
			}
			if ch.Delta == nil {
				continue
			}
			if ch.Delta.Content != nil && *ch.Delta.Content != "" {
				if err := yield(llm.StreamEvent{Type: llm.StreamTextDelta, Text: *ch.Delta.Content}); err != nil {
					return err
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				idx := len(calls)
				if tc.Index != nil {
					idx = *tc.Index
				}
				cur, ok := byIndex[idx]
				if !ok {
					if tc.ID == "" {
						return fmt.Errorf("chunk %d: tool_calls[index %d]: the first delta has no id", raw.Index, idx)
					}
					cur = &call{id: tc.ID, name: tc.Function.Name}
					byIndex[idx] = cur
					calls = append(calls, cur)
					if err := yield(llm.StreamEvent{Type: llm.StreamToolInputStart, ToolCallID: cur.id, ToolName: cur.name}); err != nil {
						return err
					}
				}
				if tc.Function.Arguments != "" {
					cur.args = append(cur.args, tc.Function.Arguments...)
					if err := yield(llm.StreamEvent{Type: llm.StreamToolInputDelta, ToolCallID: cur.id, Delta: tc.Function.Arguments}); err != nil {
						return err
					}
				}
			}
		}
	}
}
