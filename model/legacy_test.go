package model

// The decoder as it was before the single-pass rewrite, kept as the oracle
// of the differential tests: the new decoder must accept and reject exactly
// what it did, with the same error.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func legacyDecodeMessagesAt(data []byte, prefix string) ([]Message, error) {
	items, err := legacyReadArray(data, prefix)
	if err != nil {
		return nil, err
	}
	msgs := make([]Message, 0, len(items))
	for i, raw := range items {
		m, err := legacyDecodeMessage(raw, fmt.Sprintf("%s[%d]", prefix, i), i)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

var legacyAllowedParts = map[Role]map[PartType]bool{
	RoleUser:      {PartText: true, PartFile: true},
	RoleAssistant: {PartText: true, PartReasoning: true, PartFile: true, PartToolCall: true, PartToolResult: true, PartToolApprovalRequest: true},
	RoleTool:      {PartToolResult: true, PartToolApprovalResponse: true},
}

func legacyDecodeMessage(data []byte, path string, index int) (Message, error) {
	obj, err := legacyReadObject(data, path, index)
	if err != nil {
		return Message{}, err
	}
	if err := obj.only("role", "content", "id", "providerOptions"); err != nil {
		return Message{}, err
	}
	role, err := obj.str("role", true)
	if err != nil {
		return Message{}, err
	}
	m := Message{Role: Role(role)}
	switch m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return Message{}, obj.fail("role", fmt.Sprintf("unknown role %q (want system, user, assistant or tool)", role))
	}
	if m.ID, err = obj.str("id", false); err != nil {
		return Message{}, err
	}
	if m.ProviderOptions, err = obj.object("providerOptions"); err != nil {
		return Message{}, err
	}
	raw, ok := obj.fields["content"]
	if !ok {
		return Message{}, obj.fail("content", "missing field")
	}
	if kind := legacyJsonKind(raw); kind == "string" {
		if m.Role == RoleTool {
			return Message{}, obj.fail("content", "a tool message's content must be an array of parts, got a string")
		}
		var s string
		_ = json.Unmarshal(raw, &s) // kind checked above
		m.Content = []Part{Text(s)}
		m.StringContent = true
		return m, nil
	}
	if m.Role == RoleSystem {
		return Message{}, obj.fail("content", "a system message's content must be a string, got "+legacyJsonKind(raw))
	}
	items, err := legacyReadArray(raw, path+".content")
	if err != nil {
		return Message{}, legacyWithIndex(err, index, "content")
	}
	m.Content = make([]Part, 0, len(items))
	for j, item := range items {
		p, err := legacyDecodePart(item, fmt.Sprintf("%s.content[%d]", path, j), index, m.Role)
		if err != nil {
			return Message{}, err
		}
		m.Content = append(m.Content, p)
	}
	return m, nil
}

func legacyDecodePart(data []byte, path string, index int, role Role) (Part, error) {
	obj, err := legacyReadObject(data, path, index)
	if err != nil {
		return Part{}, err
	}
	typ, err := obj.str("type", true)
	if err != nil {
		return Part{}, err
	}
	p := Part{Type: PartType(typ)}
	if role != "" {
		allowed := legacyAllowedParts[role]
		if _, known := legacyPartFields[p.Type]; known && !allowed[p.Type] {
			return Part{}, obj.fail("type", fmt.Sprintf("part type %q is not allowed in a %s message", typ, role))
		}
	}
	fields, known := legacyPartFields[p.Type]
	if !known {
		return Part{}, obj.fail("type", fmt.Sprintf("unknown part type %q (want one of %s)", typ, legacyKnownPartTypes()))
	}
	if err := obj.only(fields...); err != nil {
		return Part{}, err
	}
	if p.ProviderOptions, err = obj.object("providerOptions"); err != nil {
		return Part{}, err
	}
	switch p.Type {
	case PartText, PartReasoning:
		p.Text, err = obj.strPresent("text")
	case PartFile:
		if p.MediaType, err = obj.str("mediaType", true); err != nil {
			return Part{}, err
		}
		if p.Data, err = obj.strPresent("data"); err != nil {
			return Part{}, err
		}
		p.Filename, err = obj.str("filename", false)
	case PartToolCall:
		if p.ToolCallID, err = obj.str("toolCallId", true); err != nil {
			return Part{}, err
		}
		if p.ToolName, err = obj.str("toolName", true); err != nil {
			return Part{}, err
		}
		if p.Input, err = obj.anyJSON("input", true); err != nil {
			return Part{}, err
		}
		p.ProviderExecuted, err = obj.boolean("providerExecuted", false)
	case PartToolResult:
		if p.ToolCallID, err = obj.str("toolCallId", true); err != nil {
			return Part{}, err
		}
		if p.ToolName, err = obj.str("toolName", true); err != nil {
			return Part{}, err
		}
		if p.ProviderExecuted, err = obj.boolean("providerExecuted", false); err != nil {
			return Part{}, err
		}
		raw, ok := obj.fields["output"]
		if !ok {
			return Part{}, obj.fail("output", "missing field")
		}
		p.Output, err = legacyDecodeOutput(raw, path+".output", index)
	case PartToolApprovalRequest:
		if p.ApprovalID, err = obj.str("approvalId", true); err != nil {
			return Part{}, err
		}
		if p.ToolCallID, err = obj.str("toolCallId", true); err != nil {
			return Part{}, err
		}
		if p.Signature, err = obj.str("signature", false); err != nil {
			return Part{}, err
		}
		if p.Reason, err = obj.str("reason", false); err != nil {
			return Part{}, err
		}
		p.IsAutomatic, err = obj.boolean("isAutomatic", false)
	case PartToolApprovalResponse:
		if p.ApprovalID, err = obj.str("approvalId", true); err != nil {
			return Part{}, err
		}
		if p.Approved, err = obj.boolean("approved", true); err != nil {
			return Part{}, err
		}
		if p.Reason, err = obj.str("reason", false); err != nil {
			return Part{}, err
		}
		if p.EditedInput, err = obj.anyJSON("editedInput", false); err != nil {
			return Part{}, err
		}
		p.ProviderExecuted, err = obj.boolean("providerExecuted", false)
	}
	if err != nil {
		return Part{}, err
	}
	return p, nil
}

var legacyPartFields = map[PartType][]string{
	PartText:                 {"type", "text", "providerOptions"},
	PartReasoning:            {"type", "text", "providerOptions"},
	PartFile:                 {"type", "mediaType", "data", "filename", "providerOptions"},
	PartToolCall:             {"type", "toolCallId", "toolName", "input", "providerExecuted", "providerOptions"},
	PartToolResult:           {"type", "toolCallId", "toolName", "output", "providerExecuted", "providerOptions"},
	PartToolApprovalRequest:  {"type", "approvalId", "toolCallId", "signature", "reason", "isAutomatic", "providerOptions"},
	PartToolApprovalResponse: {"type", "approvalId", "approved", "reason", "editedInput", "providerExecuted", "providerOptions"},
}

func legacyKnownPartTypes() string {
	return "text, reasoning, file, tool-call, tool-result, tool-approval-request, tool-approval-response"
}

func legacyDecodeOutput(data []byte, path string, index int) (*ToolOutput, error) {
	obj, err := legacyReadObject(data, path, index)
	if err != nil {
		return nil, err
	}
	typ, err := obj.str("type", true)
	if err != nil {
		return nil, err
	}
	o := &ToolOutput{Type: OutputType(typ)}
	switch o.Type {
	case OutputJSON, OutputErrorJSON:
		if err := obj.only("type", "value", "providerOptions"); err != nil {
			return nil, err
		}
		if o.Value, err = obj.anyJSON("value", true); err != nil {
			return nil, err
		}
	case OutputText, OutputErrorText:
		if err := obj.only("type", "value", "providerOptions"); err != nil {
			return nil, err
		}
		raw, ok := obj.fields["value"]
		if !ok {
			return nil, obj.fail("value", "missing field")
		}
		if k := legacyJsonKind(raw); k != "string" {
			return nil, obj.fail("value", fmt.Sprintf("want a string for a %s output, got %s", typ, k))
		}
		o.Value = compact(raw)
	case OutputExecutionDenied:
		if err := obj.only("type", "reason", "providerOptions"); err != nil {
			return nil, err
		}
		if o.Reason, err = obj.str("reason", false); err != nil {
			return nil, err
		}
	default:
		return nil, obj.fail("type", fmt.Sprintf("unknown output type %q (want json, text, error-text, error-json or execution-denied)", typ))
	}
	if o.ProviderOptions, err = obj.object("providerOptions"); err != nil {
		return nil, err
	}
	return o, nil
}

// legacyObject is a decoded JSON legacyObject with the context needed for errors.
type legacyObject struct {
	path   string
	index  int
	fields map[string]json.RawMessage
	order  []string
}

func (o *legacyObject) fail(field, reason string) error {
	return &DecodeError{Path: o.path + "." + field, Message: o.index, Field: field, Reason: reason}
}

func (o *legacyObject) only(allowed ...string) error {
	for _, k := range o.order {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			return o.fail(k, "unknown field (allowed: "+strings.Join(allowed, ", ")+")")
		}
	}
	return nil
}

func (o *legacyObject) str(field string, required bool) (string, error) {
	raw, ok := o.fields[field]
	if !ok {
		if required {
			return "", o.fail(field, "missing field")
		}
		return "", nil
	}
	if k := legacyJsonKind(raw); k != "string" {
		return "", o.fail(field, "want a string, got "+legacyDescribe(raw))
	}
	var s string
	_ = json.Unmarshal(raw, &s) // kind checked above
	if required && s == "" {
		return "", o.fail(field, "must not be empty")
	}
	return s, nil
}

// strPresent reads a string field that must be present but may be empty.
func (o *legacyObject) strPresent(field string) (string, error) {
	if _, ok := o.fields[field]; !ok {
		return "", o.fail(field, "missing field")
	}
	return o.str(field, false)
}

func (o *legacyObject) boolean(field string, required bool) (bool, error) {
	raw, ok := o.fields[field]
	if !ok {
		if required {
			return false, o.fail(field, "missing field")
		}
		return false, nil
	}
	if k := legacyJsonKind(raw); k != "boolean" {
		return false, o.fail(field, "want a boolean, got "+legacyDescribe(raw))
	}
	return bytes.Equal(bytes.TrimSpace(raw), []byte("true")), nil
}

func (o *legacyObject) anyJSON(field string, required bool) (json.RawMessage, error) {
	raw, ok := o.fields[field]
	if !ok {
		if required {
			return nil, o.fail(field, "missing field")
		}
		return nil, nil
	}
	return compact(raw), nil
}

func (o *legacyObject) object(field string) (json.RawMessage, error) {
	raw, ok := o.fields[field]
	if !ok {
		return nil, nil
	}
	if k := legacyJsonKind(raw); k != "object" {
		return nil, o.fail(field, "want an object, got "+legacyDescribe(raw))
	}
	return compact(raw), nil
}

func legacyDescribe(raw json.RawMessage) string {
	k := legacyJsonKind(raw)
	switch k {
	case "string", "number", "boolean":
		s := string(bytes.TrimSpace(raw))
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return k + " " + s
	}
	return k
}

// legacyJsonKind names the JSON type of a raw value.
func legacyJsonKind(raw json.RawMessage) string {
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
	default:
		return "number"
	}
}

// legacyReadObject decodes a JSON legacyObject, refusing duplicate keys.
func legacyReadObject(data []byte, path string, index int) (*legacyObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, &DecodeError{Path: path, Message: index, Reason: "invalid JSON: " + legacySyntaxReason(err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &DecodeError{Path: path, Message: index, Reason: "want an object, got " + legacyDescribe(data)}
	}
	obj := &legacyObject{path: path, index: index, fields: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &DecodeError{Path: path, Message: index, Reason: "invalid JSON: " + legacySyntaxReason(err)}
		}
		key, _ := tok.(string) // legacyObject keys are always strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &DecodeError{Path: path + "." + key, Message: index, Field: key, Reason: "invalid JSON: " + legacySyntaxReason(err)}
		}
		if _, dup := obj.fields[key]; dup {
			return nil, &DecodeError{Path: path + "." + key, Message: index, Field: key, Reason: "duplicate field"}
		}
		obj.fields[key] = raw
		obj.order = append(obj.order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, &DecodeError{Path: path, Message: index, Reason: "invalid JSON: " + legacySyntaxReason(err)}
	}
	if err := legacyExpectEOF(dec); err != nil {
		return nil, &DecodeError{Path: path, Message: index, Reason: err.Error()}
	}
	return obj, nil
}

// legacyReadArray decodes a JSON array into its raw items.
func legacyReadArray(data []byte, path string) ([]json.RawMessage, error) {
	if k := legacyJsonKind(data); k != "array" {
		if k == "nothing" {
			return nil, &DecodeError{Path: path, Message: -1, Reason: "empty input, want an array"}
		}
		return nil, &DecodeError{Path: path, Message: -1, Reason: "want an array, got " + legacyDescribe(data)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var items []json.RawMessage
	if err := dec.Decode(&items); err != nil {
		return nil, &DecodeError{Path: path, Message: -1, Reason: "invalid JSON: " + legacySyntaxReason(err)}
	}
	if err := legacyExpectEOF(dec); err != nil {
		return nil, &DecodeError{Path: path, Message: -1, Reason: err.Error()}
	}
	return items, nil
}

func legacyExpectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func legacySyntaxReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

func legacyWithIndex(err error, index int, field string) error {
	var de *DecodeError
	if errors.As(err, &de) {
		de.Message = index
		if de.Field == "" {
			de.Field = field
		}
	}
	return err
}

// legacyDecodeEvents strictly decodes a JSON array of events.
func legacyDecodeEvents(data []byte) ([]Event, error) {
	items, err := legacyReadArray(data, "events")
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(items))
	for i, raw := range items {
		ev, err := legacyDecodeEvent(raw, fmt.Sprintf("events[%d]", i), i)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func legacyDecodeEvent(data []byte, path string, index int) (Event, error) {
	obj, err := legacyReadObject(data, path, index)
	if err != nil {
		return Event{}, err
	}
	typ, err := obj.str("type", true)
	if err != nil {
		return Event{}, err
	}
	e := Event{Type: EventType(typ)}
	switch e.Type {
	case EventToolCall, EventToolApprovalRequest, EventToolResult:
		p, err := legacyDecodePart(data, path, index, "")
		if err != nil {
			return Event{}, err
		}
		e.Part = &p
	case EventStartStep:
		err = obj.only("type")
	case EventTextDelta:
		if err = obj.only("type", "text"); err == nil {
			e.Text, err = obj.strPresent("text")
		}
	case EventFinishStep, EventFinish:
		if err = obj.only("type", "finishReason"); err == nil {
			e.FinishReason, err = obj.str("finishReason", true)
		}
	case EventError:
		if err = obj.only("type", "code", "message"); err == nil {
			if e.Code, err = obj.str("code", false); err == nil {
				e.Message, err = obj.str("message", false)
			}
		}
	default:
		return Event{}, obj.fail("type", fmt.Sprintf("unknown event type %q", typ))
	}
	return e, err
}
