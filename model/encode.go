package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON encodes the message in the canonical shape: system messages
// and string-content user messages with a plain string content, all others
// with an array of parts.
func (m Message) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"role":`)
	writeString(&buf, string(m.Role))
	if m.ID != "" {
		buf.WriteString(`,"id":`)
		writeString(&buf, m.ID)
	}
	buf.WriteString(`,"content":`)
	if (m.Role == RoleSystem || m.StringContent) && len(m.Content) == 1 && m.Content[0].Type == PartText && len(m.Content[0].ProviderOptions) == 0 {
		writeString(&buf, m.Content[0].Text)
	} else {
		buf.WriteByte('[')
		for i, p := range m.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			b, err := p.MarshalJSON()
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", i, err)
			}
			buf.Write(b)
		}
		buf.WriteByte(']')
	}
	writeRaw(&buf, "providerOptions", m.ProviderOptions)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalJSON encodes the part with exactly the fields of its type.
func (p Part) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	writeString(&buf, string(p.Type))
	switch p.Type {
	case PartText, PartReasoning:
		writeField(&buf, "text", p.Text)
	case PartFile:
		writeField(&buf, "mediaType", p.MediaType)
		writeField(&buf, "data", p.Data)
		if p.Filename != "" {
			writeField(&buf, "filename", p.Filename)
		}
	case PartToolCall:
		writeField(&buf, "toolCallId", p.ToolCallID)
		writeField(&buf, "toolName", p.ToolName)
		input := p.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		writeRaw(&buf, "input", input)
		if p.ProviderExecuted {
			buf.WriteString(`,"providerExecuted":true`)
		}
	case PartToolResult:
		writeField(&buf, "toolCallId", p.ToolCallID)
		writeField(&buf, "toolName", p.ToolName)
		out := p.Output
		if out == nil {
			return nil, fmt.Errorf("tool-result %q has no output", p.ToolCallID)
		}
		b, err := out.MarshalJSON()
		if err != nil {
			return nil, err
		}
		buf.WriteString(`,"output":`)
		buf.Write(b)
		if p.ProviderExecuted {
			buf.WriteString(`,"providerExecuted":true`)
		}
	case PartToolApprovalRequest:
		writeField(&buf, "approvalId", p.ApprovalID)
		writeField(&buf, "toolCallId", p.ToolCallID)
		if p.Signature != "" {
			writeField(&buf, "signature", p.Signature)
		}
		if p.Reason != "" {
			writeField(&buf, "reason", p.Reason)
		}
		if p.IsAutomatic {
			buf.WriteString(`,"isAutomatic":true`)
		}
	case PartToolApprovalResponse:
		writeField(&buf, "approvalId", p.ApprovalID)
		if p.Approved {
			buf.WriteString(`,"approved":true`)
		} else {
			buf.WriteString(`,"approved":false`)
		}
		if p.Reason != "" {
			writeField(&buf, "reason", p.Reason)
		}
		if len(p.EditedInput) > 0 {
			writeRaw(&buf, "editedInput", p.EditedInput)
		}
		if p.ProviderExecuted {
			buf.WriteString(`,"providerExecuted":true`)
		}
	default:
		return nil, fmt.Errorf("unknown part type %q", p.Type)
	}
	writeRaw(&buf, "providerOptions", p.ProviderOptions)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalJSON encodes the output with exactly the fields of its type.
func (o ToolOutput) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	writeString(&buf, string(o.Type))
	switch o.Type {
	case OutputJSON, OutputErrorJSON:
		v := o.Value
		if len(v) == 0 {
			v = json.RawMessage("null")
		}
		writeRaw(&buf, "value", v)
	case OutputText, OutputErrorText:
		v := o.Value
		if len(v) == 0 {
			v = json.RawMessage(`""`)
		}
		writeRaw(&buf, "value", v)
	case OutputExecutionDenied:
		if o.Reason != "" {
			writeField(&buf, "reason", o.Reason)
		}
	default:
		return nil, fmt.Errorf("unknown output type %q", o.Type)
	}
	writeRaw(&buf, "providerOptions", o.ProviderOptions)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// EncodeMessages encodes messages as a JSON array.
func EncodeMessages(msgs []Message) ([]byte, error) {
	if msgs == nil {
		msgs = []Message{}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return nil, fmt.Errorf("encode messages: %w", err)
	}
	return b, nil
}

func writeField(buf *bytes.Buffer, name, value string) {
	buf.WriteString(`,"`)
	buf.WriteString(name)
	buf.WriteString(`":`)
	writeString(buf, value)
}

func writeRaw(buf *bytes.Buffer, name string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	buf.WriteString(`,"`)
	buf.WriteString(name)
	buf.WriteString(`":`)
	buf.Write(compact(raw))
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // strings always marshal
	buf.Write(b)
}
