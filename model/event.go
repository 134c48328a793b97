package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// EventType names a stream event of an agent turn.
type EventType string

// The canonical stream events. The tool events carry a part and encode as
// that part: a tool-call event is the tool-call part.
const (
	EventStartStep           EventType = "start-step"
	EventTextDelta           EventType = "text-delta"
	EventToolCall            EventType = "tool-call"
	EventToolApprovalRequest EventType = "tool-approval-request"
	EventToolResult          EventType = "tool-result"
	EventFinishStep          EventType = "finish-step"
	EventFinish              EventType = "finish"
	EventError               EventType = "error"
)

// Event is one event of an agent turn's stream.
type Event struct {
	Type EventType
	// Text is the text of a text-delta event.
	Text string
	// Part is the part of a tool-call, tool-approval-request or tool-result
	// event.
	Part *Part
	// FinishReason is the reason of a finish-step or finish event.
	FinishReason string
	// Code and Message describe an error event.
	Code    string
	Message string
}

// PartEvent returns the event that carries a tool part.
func PartEvent(p Part) Event {
	q := p.Clone()
	return Event{Type: EventType(p.Type), Part: &q}
}

// MarshalJSON encodes the event; tool events encode as their part.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventToolCall, EventToolApprovalRequest, EventToolResult:
		if e.Part == nil {
			return nil, fmt.Errorf("%s event has no part", e.Type)
		}
		return e.Part.MarshalJSON()
	}
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	writeString(&buf, string(e.Type))
	switch e.Type {
	case EventStartStep:
	case EventTextDelta:
		writeField(&buf, "text", e.Text)
	case EventFinishStep, EventFinish:
		writeField(&buf, "finishReason", e.FinishReason)
	case EventError:
		writeField(&buf, "code", e.Code)
		writeField(&buf, "message", e.Message)
	default:
		return nil, fmt.Errorf("unknown event type %q", e.Type)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (e *Event) UnmarshalJSON(data []byte) error {
	v, err := decodeEvent(data, "event", -1)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// DecodeEvents strictly decodes a JSON array of events.
func DecodeEvents(data []byte) ([]Event, error) {
	items, err := readArray(data, "events")
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(items))
	for i, raw := range items {
		ev, err := decodeEvent(raw, fmt.Sprintf("events[%d]", i), i)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func decodeEvent(data []byte, path string, index int) (Event, error) {
	obj, err := readObject(data, path, index)
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
		p, err := decodePart(data, path, index, "")
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

// EncodeEvents encodes events as a JSON array.
func EncodeEvents(events []Event) ([]byte, error) {
	if events == nil {
		events = []Event{}
	}
	b, err := json.Marshal(events)
	if err != nil {
		return nil, fmt.Errorf("encode events: %w", err)
	}
	return b, nil
}
