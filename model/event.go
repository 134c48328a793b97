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
