// Package model is the canonical conversation model of the kit: the messages,
// parts and tool outputs that scenarios, the driver protocol, transcripts and
// the reference runtime all share.
//
// The shape follows the Vercel AI SDK's ModelMessage, the most widely used of
// the SDKs the kit certifies:
//
//	{"role":"assistant","content":[
//	  {"type":"tool-call","toolCallId":"call_1","toolName":"deleteFile","input":{"path":"/a"}},
//	  {"type":"tool-approval-request","approvalId":"appr_1","toolCallId":"call_1"}]}
//	{"role":"tool","content":[
//	  {"type":"tool-approval-response","approvalId":"appr_1","approved":false,"reason":"no"},
//	  {"type":"tool-result","toolCallId":"call_1","toolName":"deleteFile",
//	   "output":{"type":"execution-denied","reason":"no"}}]}
//
// Decoding is strict (see DecodeMessages): an unknown part type, a wrong
// field type or a missing id is a *DecodeError that names the message index
// and the field.
package model

import (
	"bytes"
	"encoding/json"
)

// Role is the author of a message.
type Role string

// The four roles of the canonical model.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType names the kind of a content part.
type PartType string

// The part types of the canonical model.
const (
	PartText                 PartType = "text"
	PartReasoning            PartType = "reasoning"
	PartFile                 PartType = "file"
	PartToolCall             PartType = "tool-call"
	PartToolResult           PartType = "tool-result"
	PartToolApprovalRequest  PartType = "tool-approval-request"
	PartToolApprovalResponse PartType = "tool-approval-response"
)

// OutputType names the kind of a tool result's output.
type OutputType string

// The tool output types of the canonical model.
const (
	OutputJSON            OutputType = "json"
	OutputText            OutputType = "text"
	OutputErrorText       OutputType = "error-text"
	OutputErrorJSON       OutputType = "error-json"
	OutputExecutionDenied OutputType = "execution-denied"
)

// Message is one message of a conversation.
//
// A system message carries its text in Content as a single text part and is
// encoded with a plain string content. A user message whose content was a
// plain string keeps StringContent so that it encodes the same way again.
type Message struct {
	Role          Role
	Content       []Part
	StringContent bool
	// ID is the optional message id some SDKs carry; it is kept, not interpreted.
	ID string
	// ProviderOptions is opaque provider-specific data, kept as it came.
	ProviderOptions json.RawMessage
}

// Part is one content part of a message. Which fields are meaningful depends
// on Type; the decoder enforces that the required ones are present.
type Part struct {
	Type PartType

	// Text is the text of a text or reasoning part.
	Text string

	// MediaType, Data and Filename describe a file part.
	MediaType string
	Data      string
	Filename  string

	// ToolCallID identifies the call of a tool-call, tool-result or
	// tool-approval-request part.
	ToolCallID string
	// ToolName is the tool of a tool-call or tool-result part.
	ToolName string
	// Input is the JSON input of a tool-call part.
	Input json.RawMessage
	// ProviderExecuted marks a tool-call, tool-result or approval response
	// that belongs to a tool the provider runs itself.
	ProviderExecuted bool

	// Output is the output of a tool-result part.
	Output *ToolOutput

	// ApprovalID identifies the approval of a request or response part.
	ApprovalID string
	// Approved is the decision of a tool-approval-response part.
	Approved bool
	// EditedInput is the input an approving tool-approval-response runs
	// the call with instead of the model's (an edited approval); empty
	// when the call runs as the model made it.
	EditedInput json.RawMessage
	// Reason is the optional reason of an approval request or response.
	Reason string
	// Signature is the opaque signature of a tool-approval-request part,
	// binding it to the call's id, name and input.
	Signature string
	// IsAutomatic marks an approval request decided by a policy, not a user.
	IsAutomatic bool

	// ProviderOptions is opaque provider-specific data, kept as it came.
	ProviderOptions json.RawMessage
}

// ToolOutput is the output of a tool result.
type ToolOutput struct {
	Type OutputType
	// Value is the output's value: any JSON for json and error-json, a JSON
	// string for text and error-text. It is empty for execution-denied.
	Value json.RawMessage
	// Reason is the optional reason of an execution-denied output.
	Reason string
	// ProviderOptions is opaque provider-specific data, kept as it came.
	ProviderOptions json.RawMessage
}

// IsFailure reports whether the output represents a failure: an error or a
// denial.
func (o *ToolOutput) IsFailure() bool {
	if o == nil {
		return false
	}
	switch o.Type {
	case OutputErrorText, OutputErrorJSON, OutputExecutionDenied:
		return true
	}
	return false
}

// TextValue returns the string value of a text or error-text output, and ""
// for other outputs.
func (o *ToolOutput) TextValue() string {
	if o == nil || (o.Type != OutputText && o.Type != OutputErrorText) {
		return ""
	}
	if s, ok := stringValue(o.Value); ok {
		return s
	}
	var s string
	if err := json.Unmarshal(o.Value, &s); err != nil {
		return ""
	}
	return s
}

// stringValue reads raw when it is exactly one JSON string, as
// encoding/json would, without its reflection.
func stringValue(raw json.RawMessage) (string, bool) {
	d := &decoder{data: raw}
	if d.peek() != '"' {
		return "", false
	}
	s, ok := d.readString()
	return s, ok && d.pos == len(raw)
}

// Equal reports whether two outputs are the same, comparing JSON values by
// meaning rather than by bytes.
func (o *ToolOutput) Equal(p *ToolOutput) bool {
	if o == nil || p == nil {
		return o == p
	}
	return o.Type == p.Type && o.Reason == p.Reason && jsonEqual(o.Value, p.Value)
}

// JSONOutput returns a json output holding v, which must be valid JSON.
func JSONOutput(v json.RawMessage) *ToolOutput {
	return &ToolOutput{Type: OutputJSON, Value: compact(v)}
}

// TextOutput returns a text output.
func TextOutput(s string) *ToolOutput {
	return &ToolOutput{Type: OutputText, Value: mustString(s)}
}

// ErrorTextOutput returns an error-text output.
func ErrorTextOutput(s string) *ToolOutput {
	return &ToolOutput{Type: OutputErrorText, Value: mustString(s)}
}

// DeniedOutput returns an execution-denied output with an optional reason.
func DeniedOutput(reason string) *ToolOutput {
	return &ToolOutput{Type: OutputExecutionDenied, Reason: reason}
}

// Text returns a text part.
func Text(s string) Part { return Part{Type: PartText, Text: s} }

// ToolCall returns a tool-call part.
func ToolCall(id, name string, input json.RawMessage) Part {
	return Part{Type: PartToolCall, ToolCallID: id, ToolName: name, Input: compact(input)}
}

// ToolResult returns a tool-result part.
func ToolResult(id, name string, out *ToolOutput) Part {
	return Part{Type: PartToolResult, ToolCallID: id, ToolName: name, Output: out}
}

// ApprovalRequest returns a tool-approval-request part.
func ApprovalRequest(approvalID, toolCallID string) Part {
	return Part{Type: PartToolApprovalRequest, ApprovalID: approvalID, ToolCallID: toolCallID}
}

// ApprovalResponse returns a tool-approval-response part.
func ApprovalResponse(approvalID string, approved bool, reason string) Part {
	return Part{Type: PartToolApprovalResponse, ApprovalID: approvalID, Approved: approved, Reason: reason}
}

// UserText returns a user message with one text part.
func UserText(s string) Message {
	return Message{Role: RoleUser, Content: []Part{Text(s)}}
}

// SystemText returns a system message.
func SystemText(s string) Message {
	return Message{Role: RoleSystem, Content: []Part{Text(s)}, StringContent: true}
}

// Clone returns a deep copy of the messages. The copy is made in a few
// allocations (the parts, the outputs, the raw JSON), so that copying a
// long conversation costs per message what a short one does.
func Clone(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	nParts, nOutputs, nRaw := 0, 0, 0
	for _, m := range msgs {
		nParts += len(m.Content)
		nRaw += len(m.ProviderOptions)
		for _, p := range m.Content {
			nRaw += len(p.Input) + len(p.ProviderOptions)
			if p.Output != nil {
				nOutputs++
				nRaw += len(p.Output.Value) + len(p.Output.ProviderOptions)
			}
		}
	}
	out := make([]Message, len(msgs))
	parts := make([]Part, nParts)
	outputs := make([]ToolOutput, nOutputs)
	arena := make([]byte, 0, nRaw)
	keep := func(r json.RawMessage) json.RawMessage {
		if len(r) == 0 {
			return nil
		}
		n := len(arena)
		arena = append(arena, r...)
		return arena[n:len(arena):len(arena)]
	}
	for i, m := range msgs {
		out[i] = m
		out[i].ProviderOptions = keep(m.ProviderOptions)
		content := parts[:len(m.Content):len(m.Content)]
		parts = parts[len(m.Content):]
		for j, p := range m.Content {
			content[j] = p
			content[j].Input = keep(p.Input)
			content[j].ProviderOptions = keep(p.ProviderOptions)
			if p.Output != nil {
				o := &outputs[0]
				outputs = outputs[1:]
				*o = *p.Output
				o.Value = keep(p.Output.Value)
				o.ProviderOptions = keep(p.Output.ProviderOptions)
				content[j].Output = o
			}
		}
		out[i].Content = content
	}
	return out
}

// Clone returns a deep copy of the part.
func (p Part) Clone() Part {
	q := p
	q.Input = cloneRaw(p.Input)
	q.ProviderOptions = cloneRaw(p.ProviderOptions)
	if p.Output != nil {
		o := *p.Output
		o.Value = cloneRaw(p.Output.Value)
		o.ProviderOptions = cloneRaw(p.Output.ProviderOptions)
		q.Output = &o
	}
	return q
}

func cloneRaw(r json.RawMessage) json.RawMessage {
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

func compact(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return v
	}
	if bytes.IndexAny(v, " \t\r\n") < 0 {
		// Nothing to take out: JSON without white space is compact as it
		// is (and anything else is kept as it is).
		return append(json.RawMessage(nil), v...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return v
	}
	return buf.Bytes()
}

// jsonEqual compares two JSON documents by value. Two empty documents are
// equal; an empty and a non-empty one are not.
func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return deepEqualJSON(x, y)
}

func deepEqualJSON(x, y any) bool {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for k, v := range xv {
			w, ok := yv[k]
			if !ok || !deepEqualJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return false
		}
		for i := range xv {
			if !deepEqualJSON(xv[i], yv[i]) {
				return false
			}
		}
		return true
	default:
		return x == y
	}
}

// JSONEqual reports whether two JSON documents have the same value.
func JSONEqual(a, b json.RawMessage) bool { return jsonEqual(a, b) }
