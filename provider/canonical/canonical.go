// Package canonical is the kit's own model API (model.api "canonical" in
// driver protocol v1, docs/driver-protocol.md): the prompt an SDK gives its
// model, in the kit's canonical model, with nothing dropped. A provider wire
// carries tool outputs as text and has no place for approval parts, so it
// cannot show a denial rewritten as an error or an approval part forwarded
// to the model; this API can, for SDKs that accept an application's own
// model (the AI SDK's LanguageModel interface, Effect's LanguageModel.make,
// TanStack AI adapters).
//
// One endpoint, POST <base>/canonical. The request is {"messages",
// "tools", "options", "stream"}: canonical messages, tool definitions and
// the call options, decoded strictly (an unknown field, type or role is an
// error naming the field). The reply is {"content","finishReason","usage"}
// with canonical content parts, or, when stream is true, server-sent events
// each holding one JSON event (text-delta, reasoning-delta,
// tool-input-start, tool-input-delta, a whole part, and finish last). The
// API has no provider rules of its own: the server applies the rules, and
// answers with the exact error bodies, of the conversation's provider
// profile.
package canonical

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/chat/sse"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

func init() { provider.Register(Codec{}) }

// Path is the endpoint under the model's base URL.
const Path = "/canonical"

// Codec is the canonical model API.
type Codec struct{}

// Profile implements provider.Codec.
func (Codec) Profile() wire.Profile { return provider.Canonical }

// Path implements provider.Codec.
func (Codec) Path() string { return Path }

// FinishReasons are the finish reasons a reply may carry.
var FinishReasons = []string{llm.FinishStop, llm.FinishToolCalls, llm.FinishLength, "content-filter", llm.FinishError, llm.FinishOther}

// The stream event types beside the part events (a part event has the
// part's own type: tool-call, tool-approval-request, tool-result, ...).
const (
	EventTextDelta      = "text-delta"
	EventReasoningDelta = "reasoning-delta"
	EventToolInputStart = "tool-input-start"
	EventToolInputDelta = "tool-input-delta"
	EventFinish         = "finish"
)

// Options are the call options of a request: what the SDK asked of the
// model beside the prompt and the tools. The simulator reads none of them;
// they are checked for shape and kept in the journal with the body.
type Options struct {
	ToolChoice       *ToolChoice     `json:"toolChoice,omitempty"`
	MaxOutputTokens  *int            `json:"maxOutputTokens,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	TopP             *float64        `json:"topP,omitempty"`
	TopK             *int            `json:"topK,omitempty"`
	PresencePenalty  *float64        `json:"presencePenalty,omitempty"`
	FrequencyPenalty *float64        `json:"frequencyPenalty,omitempty"`
	StopSequences    []string        `json:"stopSequences,omitempty"`
	Seed             *int            `json:"seed,omitempty"`
	ResponseFormat   json.RawMessage `json:"responseFormat,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ProviderOptions  json.RawMessage `json:"providerOptions,omitempty"`
}

// ToolChoice is how the model may use the tools: auto, none, required, or
// one tool by name.
type ToolChoice struct {
	Type     string `json:"type"`
	ToolName string `json:"toolName,omitempty"`
}

// Request is a request body.
type Request struct {
	Messages []model.Message `json:"messages"`
	Tools    []llm.ToolDef   `json:"tools,omitempty"`
	Options  *Options        `json:"options,omitempty"`
	Stream   bool            `json:"stream,omitempty"`
}

// Response is a whole (non-streamed) reply.
type Response struct {
	Content      []model.Part `json:"content"`
	FinishReason string       `json:"finishReason"`
	Usage        llm.Usage    `json:"usage"`
}

// EncodeRequest implements provider.Codec: the prompt and the tools as they
// are.
func (Codec) EncodeRequest(req *llm.Request, stream bool) ([]byte, error) {
	msgs := req.Messages
	if msgs == nil {
		msgs = []model.Message{}
	}
	return json.Marshal(Request{Messages: msgs, Tools: req.Tools, Stream: stream})
}

// DecodeRequest implements provider.Codec, strictly.
func (Codec) DecodeRequest(body []byte) (*provider.Decoded, error) {
	obj, err := readObject(body, "")
	if err != nil {
		return nil, err
	}
	if err := obj.only("messages", "tools", "options", "stream"); err != nil {
		return nil, err
	}
	raw, ok := obj.fields["messages"]
	if !ok {
		return nil, obj.fail("messages", "missing field")
	}
	msgs, err := model.DecodeMessagesAt(raw, "messages")
	if err != nil {
		return nil, err
	}
	d := &provider.Decoded{Request: &llm.Request{Messages: msgs}, IncludeUsage: true, Lossless: true}
	if raw, ok := obj.fields["stream"]; ok {
		if err := json.Unmarshal(raw, &d.Stream); err != nil {
			return nil, obj.fail("stream", "want a boolean, got "+kind(raw))
		}
	}
	if raw, ok := obj.fields["tools"]; ok {
		if d.Request.Tools, err = decodeTools(raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := obj.fields["options"]; ok {
		if _, err := decodeOptions(raw); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func decodeTools(raw json.RawMessage) ([]llm.ToolDef, error) {
	var items []json.RawMessage
	if kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		return nil, fmt.Errorf("tools: want an array, got %s", kind(raw))
	}
	tools := make([]llm.ToolDef, 0, len(items))
	seen := map[string]bool{}
	for i, item := range items {
		path := fmt.Sprintf("tools[%d]", i)
		obj, err := readObject(item, path)
		if err != nil {
			return nil, err
		}
		if err := obj.only("name", "description", "inputSchema", "providerExecuted", "serverLabel"); err != nil {
			return nil, err
		}
		var t llm.ToolDef
		if t.Name, err = obj.str("name", true); err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, obj.fail("name", fmt.Sprintf("the tool %q is defined twice", t.Name))
		}
		seen[t.Name] = true
		if t.Description, err = obj.str("description", false); err != nil {
			return nil, err
		}
		if s, ok := obj.fields["inputSchema"]; ok {
			if kind(s) != "object" {
				return nil, obj.fail("inputSchema", "want a JSON Schema object, got "+kind(s))
			}
			t.InputSchema = compact(s)
		}
		if t.ProviderExecuted, err = obj.boolean("providerExecuted"); err != nil {
			return nil, err
		}
		if t.ServerLabel, err = obj.str("serverLabel", false); err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// decodeOptions reads the call options strictly.
func decodeOptions(raw json.RawMessage) (*Options, error) {
	obj, err := readObject(raw, "options")
	if err != nil {
		return nil, err
	}
	if err := obj.only("toolChoice", "maxOutputTokens", "temperature", "topP", "topK", "presencePenalty", "frequencyPenalty",
		"stopSequences", "seed", "responseFormat", "reasoning", "providerOptions"); err != nil {
		return nil, err
	}
	var o Options
	for _, k := range obj.order {
		v := obj.fields[k]
		switch k {
		case "toolChoice":
			tc, err := readObject(v, "options.toolChoice")
			if err != nil {
				return nil, err
			}
			if err := tc.only("type", "toolName"); err != nil {
				return nil, err
			}
			c := &ToolChoice{}
			if c.Type, err = tc.str("type", true); err != nil {
				return nil, err
			}
			if c.ToolName, err = tc.str("toolName", c.Type == "tool"); err != nil {
				return nil, err
			}
			switch {
			case !slices.Contains([]string{"auto", "none", "required", "tool"}, c.Type):
				return nil, tc.fail("type", fmt.Sprintf("unknown tool choice %q (want auto, none, required or tool)", c.Type))
			case c.Type != "tool" && c.ToolName != "":
				return nil, tc.fail("toolName", "only a tool choice of type tool names a tool")
			}
			o.ToolChoice = c
		case "maxOutputTokens", "topK", "seed":
			var n int
			if kind(v) != "number" || json.Unmarshal(v, &n) != nil {
				return nil, obj.fail(k, "want an integer, got "+kind(v))
			}
			if k == "maxOutputTokens" && n < 1 {
				return nil, obj.fail(k, "must be at least 1")
			}
			switch k {
			case "maxOutputTokens":
				o.MaxOutputTokens = &n
			case "topK":
				o.TopK = &n
			default:
				o.Seed = &n
			}
		case "temperature", "topP", "presencePenalty", "frequencyPenalty":
			var f float64
			if kind(v) != "number" || json.Unmarshal(v, &f) != nil {
				return nil, obj.fail(k, "want a number, got "+kind(v))
			}
			switch k {
			case "temperature":
				o.Temperature = &f
			case "topP":
				o.TopP = &f
			case "presencePenalty":
				o.PresencePenalty = &f
			default:
				o.FrequencyPenalty = &f
			}
		case "stopSequences":
			if kind(v) != "array" || json.Unmarshal(v, &o.StopSequences) != nil {
				return nil, obj.fail(k, "want an array of strings, got "+kind(v))
			}
		case "responseFormat":
			rf, err := readObject(v, "options.responseFormat")
			if err != nil {
				return nil, err
			}
			if err := rf.only("type", "schema", "name", "description"); err != nil {
				return nil, err
			}
			typ, err := rf.str("type", true)
			if err != nil {
				return nil, err
			}
			if typ != "text" && typ != "json" {
				return nil, rf.fail("type", fmt.Sprintf("unknown response format %q (want text or json)", typ))
			}
			o.ResponseFormat = compact(v)
		case "reasoning":
			if o.Reasoning, err = obj.str(k, true); err != nil {
				return nil, err
			}
		case "providerOptions":
			if kind(v) != "object" {
				return nil, obj.fail(k, "want an object, got "+kind(v))
			}
			o.ProviderOptions = compact(v)
		}
	}
	return &o, nil
}

// EncodeResponse implements provider.Codec.
func (Codec) EncodeResponse(resp *llm.Response) ([]byte, error) {
	content := resp.Content
	if content == nil {
		content = []model.Part{}
	}
	reason := resp.FinishReason
	if reason == "" {
		reason = llm.FinishStop
	}
	return json.Marshal(Response{Content: content, FinishReason: reason, Usage: resp.Usage})
}

// DecodeResponse implements provider.Codec, strictly: the content parts
// are those an assistant message may hold.
func (Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	obj, err := readObject(body, "")
	if err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if err := obj.only("content", "finishReason", "usage"); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	out := &llm.Response{}
	raw, ok := obj.fields["content"]
	if !ok {
		return nil, fmt.Errorf("reply body: %w", obj.fail("content", "missing field"))
	}
	if out.Content, err = model.DecodePartsAt(raw, "content", model.RoleAssistant); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if out.FinishReason, err = finishReason(obj); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if out.Usage, err = usage(obj); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	return out, nil
}

func finishReason(obj *object) (string, error) {
	r, err := obj.str("finishReason", true)
	if err != nil {
		return "", err
	}
	if !slices.Contains(FinishReasons, r) {
		return "", obj.fail("finishReason", fmt.Sprintf("unknown finish reason %q (want one of %s)", r, strings.Join(FinishReasons, ", ")))
	}
	return r, nil
}

func usage(obj *object) (llm.Usage, error) {
	raw, ok := obj.fields["usage"]
	if !ok {
		return llm.Usage{}, obj.fail("usage", "missing field")
	}
	u, err := readObject(raw, obj.at("usage"))
	if err != nil {
		return llm.Usage{}, err
	}
	if err := u.only("inputTokens", "outputTokens"); err != nil {
		return llm.Usage{}, err
	}
	var out llm.Usage
	for _, f := range []struct {
		name string
		into *int
	}{{"inputTokens", &out.InputTokens}, {"outputTokens", &out.OutputTokens}} {
		v, ok := u.fields[f.name]
		if !ok {
			return llm.Usage{}, u.fail(f.name, "missing field")
		}
		if kind(v) != "number" || json.Unmarshal(v, f.into) != nil || *f.into < 0 {
			return llm.Usage{}, u.fail(f.name, "want a count of tokens (an integer, 0 or more)")
		}
	}
	return out, nil
}

// ErrorBody implements provider.Codec: the OpenAI envelope, for answers
// given before the conversation (and so its provider profile) is known.
func (Codec) ErrorBody(status int, typ, message string) []byte {
	if typ == "" {
		typ = "invalid_request_error"
	}
	return []byte(wire.OpenAIErrorBody(message, typ, nil, nil))
}

// event is a stream event that is not a part.
type event struct {
	Type         string     `json:"type"`
	Text         *string    `json:"text,omitempty"`
	ToolCallID   string     `json:"toolCallId,omitempty"`
	ToolName     string     `json:"toolName,omitempty"`
	Delta        *string    `json:"delta,omitempty"`
	FinishReason string     `json:"finishReason,omitempty"`
	Usage        *llm.Usage `json:"usage,omitempty"`
}

type streamWriter struct {
	w     io.Writer
	flush func()
}

// NewStreamWriter implements provider.Codec: every event is one SSE event
// whose data is the event's JSON.
func (Codec) NewStreamWriter(w io.Writer, flush func(), _ bool) provider.StreamWriter {
	return &streamWriter{w: w, flush: flush}
}

func (s *streamWriter) Write(ev llm.StreamEvent) error {
	var v any
	switch ev.Type {
	case llm.StreamTextDelta:
		v = event{Type: EventTextDelta, Text: &ev.Text}
	case llm.StreamReasoningDelta:
		v = event{Type: EventReasoningDelta, Text: &ev.Text}
	case llm.StreamToolInputStart:
		v = event{Type: EventToolInputStart, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName}
	case llm.StreamToolInputDelta:
		v = event{Type: EventToolInputDelta, ToolCallID: ev.ToolCallID, Delta: &ev.Delta}
	case llm.StreamPart:
		if ev.Part == nil {
			return errors.New("canonical stream: a part event without its part")
		}
		v = *ev.Part
	case llm.StreamFinish:
		reason := ev.FinishReason
		if reason == "" {
			reason = llm.FinishStop
		}
		u := ev.Usage
		v = event{Type: EventFinish, FinishReason: reason, Usage: &u}
	default:
		return fmt.Errorf("canonical stream: unknown event type %q", ev.Type)
	}
	return sse.WriteJSON(s.w, v, s.flush)
}

// ReadStream implements provider.Codec, strictly; the finish event ends the
// stream.
func (Codec) ReadStream(ctx context.Context, r io.Reader, yield func(llm.StreamEvent) error) error {
	sr := sse.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return errors.New("the stream ended before its finish event")
		}
		if err != nil {
			return err
		}
		ev, err := DecodeEvent(raw.Data, fmt.Sprintf("event %d", raw.Index))
		if err != nil {
			return err
		}
		if err := yield(ev); err != nil {
			return err
		}
		if ev.Type == llm.StreamFinish {
			return nil
		}
	}
}

// DecodeEvent strictly decodes one stream event; errors start with path.
func DecodeEvent(data []byte, path string) (llm.StreamEvent, error) {
	obj, err := readObject(data, path)
	if err != nil {
		return llm.StreamEvent{}, err
	}
	typ, err := obj.str("type", true)
	if err != nil {
		return llm.StreamEvent{}, err
	}
	var ev llm.StreamEvent
	switch typ {
	case EventTextDelta, EventReasoningDelta:
		ev.Type = llm.StreamTextDelta
		if typ == EventReasoningDelta {
			ev.Type = llm.StreamReasoningDelta
		}
		if err = obj.only("type", "text"); err == nil {
			ev.Text, err = obj.strPresent("text")
		}
	case EventToolInputStart:
		ev.Type = llm.StreamToolInputStart
		if err = obj.only("type", "toolCallId", "toolName"); err == nil {
			if ev.ToolCallID, err = obj.str("toolCallId", true); err == nil {
				ev.ToolName, err = obj.str("toolName", true)
			}
		}
	case EventToolInputDelta:
		ev.Type = llm.StreamToolInputDelta
		if err = obj.only("type", "toolCallId", "delta"); err == nil {
			if ev.ToolCallID, err = obj.str("toolCallId", true); err == nil {
				ev.Delta, err = obj.strPresent("delta")
			}
		}
	case EventFinish:
		ev.Type = llm.StreamFinish
		if err = obj.only("type", "finishReason", "usage"); err == nil {
			if ev.FinishReason, err = finishReason(obj); err == nil {
				ev.Usage, err = usage(obj)
			}
		}
	default:
		p, perr := model.DecodePartAt(data, path, model.RoleAssistant)
		if perr != nil {
			var de *model.DecodeError
			if errors.As(perr, &de) && strings.HasPrefix(de.Reason, "unknown part type") {
				return llm.StreamEvent{}, obj.fail("type", fmt.Sprintf("unknown event type %q (want text-delta, reasoning-delta, tool-input-start, tool-input-delta, finish, or a part an assistant message may hold)", typ))
			}
			return llm.StreamEvent{}, perr
		}
		ev = llm.StreamEvent{Type: llm.StreamPart, Part: &p}
	}
	if err != nil {
		return llm.StreamEvent{}, err
	}
	return ev, nil
}

// object is a JSON object read strictly, with its path for errors.
type object struct {
	path   string
	fields map[string]json.RawMessage
	order  []string
}

func (o *object) at(field string) string {
	if o.path == "" {
		return field
	}
	return o.path + "." + field
}

func (o *object) fail(field, reason string) error {
	return fmt.Errorf("%s: %s", o.at(field), reason)
}

func (o *object) only(allowed ...string) error {
	for _, k := range o.order {
		if !slices.Contains(allowed, k) {
			return o.fail(k, "unknown field (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return nil
}

func (o *object) str(field string, required bool) (string, error) {
	raw, ok := o.fields[field]
	if !ok {
		if required {
			return "", o.fail(field, "missing field")
		}
		return "", nil
	}
	var s string
	if kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", o.fail(field, "want a string, got "+kind(raw))
	}
	if required && s == "" {
		return "", o.fail(field, "must not be empty")
	}
	return s, nil
}

func (o *object) strPresent(field string) (string, error) {
	if _, ok := o.fields[field]; !ok {
		return "", o.fail(field, "missing field")
	}
	return o.str(field, false)
}

func (o *object) boolean(field string) (bool, error) {
	raw, ok := o.fields[field]
	if !ok {
		return false, nil
	}
	var b bool
	if kind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		return false, o.fail(field, "want a boolean, got "+kind(raw))
	}
	return b, nil
}

// readObject decodes a JSON object, refusing duplicate keys and trailing
// data. path names it in errors ("" for a whole body).
func readObject(data []byte, path string) (*object, error) {
	where := path
	if where == "" {
		where = "body"
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", where, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: want an object, got %s", where, kind(data))
	}
	obj := &object{path: path, fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %v", where, err)
		}
		key, _ := tok.(string) // object keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %v", obj.at(key), err)
		}
		if _, dup := obj.fields[key]; dup {
			return nil, obj.fail(key, "duplicate field")
		}
		obj.fields[key] = raw
		obj.order = append(obj.order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %v", where, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", where)
	}
	return obj, nil
}

// kind names the JSON type of a raw value.
func kind(raw []byte) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func compact(raw []byte) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return b.Bytes()
}
