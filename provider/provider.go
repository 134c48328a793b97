// Package provider carries model calls over the providers' HTTP wire
// formats: the Codec interface each format implements (openaichat,
// openairesponses, anthropic), an llm.Model client over HTTP, and the
// helpers the formats share for tool outputs.
package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/wire"
)

// MaxRequestBody bounds a request body a server reads.
const MaxRequestBody = 8 << 20

// Decoded is a provider request as a server reads it.
type Decoded struct {
	// Request is the prompt and tools in the canonical model.
	Request *llm.Request
	// View is the prompt as the provider lays it out, for its rules.
	View wire.View
	// Stream says the client asked for a stream.
	Stream bool
	// IncludeUsage says a stream is to end with the usage: OpenAI Chat
	// Completions sends it only when stream_options.include_usage asks;
	// the other formats always carry it.
	IncludeUsage bool
	// Lossless says Request is the whole canonical prompt (the Canonical
	// API): View is empty, the server lays the prompt out with the
	// conversation's provider profile, and result types are exact.
	Lossless bool
}

// Canonical is the kit's own model API (package provider/canonical): the
// prompt in the canonical model, nothing dropped. It has no provider rules
// of its own: a server applies the rules and the exact error bodies of the
// conversation's provider profile.
const Canonical wire.Profile = "canonical"

// Codec is one provider's wire format, on both sides.
type Codec interface {
	// Profile is the provider profile the format belongs to (Canonical for
	// the kit's own API).
	Profile() wire.Profile
	// Path is the endpoint path under the base URL ("/chat/completions").
	Path() string
	// EncodeRequest writes a client's request body.
	EncodeRequest(req *llm.Request, stream bool) ([]byte, error)
	// DecodeRequest reads a request body on the server; errors name the
	// JSON field.
	DecodeRequest(body []byte) (*Decoded, error)
	// EncodeResponse writes a whole (non-streamed) reply.
	EncodeResponse(resp *llm.Response) ([]byte, error)
	// DecodeResponse reads a whole reply on the client.
	DecodeResponse(body []byte) (*llm.Response, error)
	// NewStreamWriter returns a writer of a streamed reply as SSE to w; flush
	// is called after each event.
	NewStreamWriter(w io.Writer, flush func(), includeUsage bool) StreamWriter
	// ReadStream reads a streamed reply on the client, delivering events in
	// the llm.StreamEvent form, the finish last.
	ReadStream(ctx context.Context, r io.Reader, yield func(llm.StreamEvent) error) error
	// ErrorBody is the provider's error envelope.
	ErrorBody(status int, typ, message string) []byte
}

// StreamWriter writes a streamed reply.
type StreamWriter interface {
	// Write writes one event; the finish event ends the stream.
	Write(ev llm.StreamEvent) error
}

// DefaultDenialText is what a denial without a reason reads as on a wire
// (the Vercel AI SDK's wording).
const DefaultDenialText = "Tool call execution denied."

// OutputText is a tool output as the text a provider carries: text as is,
// JSON as JSON, a denial as its reason (or DefaultDenialText).
func OutputText(o *model.ToolOutput) string {
	switch {
	case o == nil:
		return ""
	case o.Type == model.OutputText || o.Type == model.OutputErrorText:
		return o.TextValue()
	case o.Type == model.OutputExecutionDenied:
		if o.Reason != "" {
			return o.Reason
		}
		return DefaultDenialText
	}
	return string(o.Value)
}

// OutputFromText reads a tool output a provider carried as text: JSON
// other than a bare string is a JSON output, anything else text; isError
// (Anthropic's flag) makes it an error.
func OutputFromText(s string, isError bool) *model.ToolOutput {
	var v any
	if mayBeJSONValue(s) && json.Unmarshal([]byte(s), &v) == nil {
		if _, str := v.(string); !str {
			if isError {
				return &model.ToolOutput{Type: model.OutputErrorJSON, Value: json.RawMessage(s)}
			}
			return model.JSONOutput(json.RawMessage(s))
		}
	}
	if isError {
		return model.ErrorTextOutput(s)
	}
	return model.TextOutput(s)
}

// UnmarshalString reads raw into a string as json.Unmarshal does (a JSON
// string, or null as ""), and reports whether it could: what cannot be a
// string (an object, an array) is refused at its first byte, and a string
// without escapes is read without a parse.
func UnmarshalString(raw []byte) (string, bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || (t[0] != '"' && t[0] != 'n') {
		return "", false
	}
	if s, ok := plainString(t); ok {
		return s, true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// plainString reads a JSON string (and nothing after it but white space)
// without escapes or bytes outside printable ASCII.
func plainString(raw []byte) (string, bool) {
	raw = bytes.TrimRight(raw, " \t\r\n")
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}

// mayBeJSONValue reports whether s may be JSON other than a string: it
// starts (after JSON's white space) as an object, array, literal or number
// does. Text that cannot is spared a parse.
func mayBeJSONValue(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && strings.IndexByte("{[tfn-0123456789", t[0]) >= 0
}

// IsFailure reports whether an output is an error or a denial (Anthropic's
// is_error).
func IsFailure(o *model.ToolOutput) bool { return o != nil && o.IsFailure() }

// Text joins a message's text parts.
func Text(m model.Message) string {
	var s string
	for _, p := range m.Content {
		if p.Type == model.PartText {
			s += p.Text
		}
	}
	return s
}

// ValidJSON returns raw if it is JSON, or "{}" when empty; it fails on
// anything else, naming the field.
func ValidJSON(raw json.RawMessage, field string) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("%s: not valid JSON", field)
	}
	return raw, nil
}

// Codecs are the wire formats by profile; the format packages register
// themselves here.
var codecs = map[wire.Profile]Codec{}

// Register adds a format (called from the format packages' init).
func Register(c Codec) { codecs[c.Profile()] = c }

// Lookup returns the format of a profile.
func Lookup(p wire.Profile) (Codec, error) {
	c, ok := codecs[p]
	if !ok {
		return nil, fmt.Errorf("provider: no wire format for %q", p)
	}
	return c, nil
}

// parseAPI reads a model API name: a provider profile, or Canonical.
func parseAPI(s string) (wire.Profile, error) {
	if s == string(Canonical) {
		return Canonical, nil
	}
	p, err := wire.ParseProfile(s)
	if err != nil {
		return "", fmt.Errorf("provider: %w", err)
	}
	return p, nil
}

// FinishToWire and FinishFromWire map the canonical finish reasons to a
// provider's names and back.
type FinishNames map[string]string

// ToWire returns the provider's name of a canonical finish reason.
func (f FinishNames) ToWire(reason string) string {
	if s, ok := f[reason]; ok {
		return s
	}
	return f[llm.FinishStop]
}

// FromWire returns the canonical finish reason of a provider's name.
func (f FinishNames) FromWire(name string) string {
	for k, v := range f {
		if v == name {
			return k
		}
	}
	return llm.FinishOther
}

// CallName finds the tool name of a call earlier in the conversation ("" for
// an orphan result): the wires name a result's call by id only.
func CallName(msgs []model.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, p := range msgs[i].Content {
			if p.Type == model.PartToolCall && p.ToolCallID == id {
				return p.ToolName
			}
		}
	}
	return ""
}

// CallNames is CallName for a decoder building a conversation, in time
// linear in the conversation: each part is read once, the last message's
// as it grows. Its zero value is ready to use for one conversation.
type CallNames struct {
	older   map[string]string // the calls of msgs[:at], the latest message's winning
	current map[string]string // the calls of msgs[at] read so far, the first winning
	at      int
	parts   int // how many of msgs[at]'s parts are read
}

// Name returns the tool name of the call id in msgs ("" for none): the
// call in the latest message that has one, as CallName finds it. msgs
// only grows between calls: messages are appended, and only the last one
// gets more parts.
func (c *CallNames) Name(msgs []model.Message, id string) string {
	if len(msgs) == 0 {
		return ""
	}
	if c.older == nil {
		c.older, c.current = map[string]string{}, map[string]string{}
	}
	for {
		content := msgs[c.at].Content
		for ; c.parts < len(content); c.parts++ {
			if p := content[c.parts]; p.Type == model.PartToolCall {
				if _, seen := c.current[p.ToolCallID]; !seen {
					c.current[p.ToolCallID] = p.ToolName
				}
			}
		}
		if c.at == len(msgs)-1 {
			break
		}
		for k, v := range c.current { // msgs[at] is finished
			c.older[k] = v
		}
		clear(c.current)
		c.at, c.parts = c.at+1, 0
	}
	if name, ok := c.current[id]; ok {
		return name
	}
	return c.older[id]
}
