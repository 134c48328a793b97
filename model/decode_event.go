package model

import (
	"fmt"
)

// Decoding stream events: each event and the part it carries.

func (d *decoder) events() ([]Event, error) {
	if !d.consume('[') || !d.enter() {
		return nil, errSyntax
	}
	evs := make([]Event, 0, 8)
	for i := 0; ; i++ {
		done, ok := d.elem(i == 0)
		if !ok {
			return nil, errSyntax
		}
		if done {
			return evs, nil
		}
		e, err := d.event(loc{base: "events", item: i, part: -1, index: i})
		if err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
}

func (d *decoder) event(l loc) (Event, error) {
	var ev eventText
	p, fs, err := d.partWalk(l, &ev)
	if err != nil {
		return Event{}, err
	}
	if err := d.checkPartType(&fs, p.Type, l); err != nil {
		return Event{}, err
	}
	e := Event{Type: EventType(p.Type)}
	only := func(list string, mask uint32) error {
		return d.only(&fs, mask, func(k string) bool { return partField([]byte(k), true)&mask != 0 }, list, l)
	}
	switch e.Type {
	case EventToolCall, EventToolApprovalRequest, EventToolResult:
		if err := d.checkPart(&p, &fs, l); err != nil {
			return Event{}, err
		}
		e.Part = &p
	case EventStartStep:
		err = only("type", pType)
	case EventTextDelta:
		if err = only("type, text", pType|pText); err == nil {
			err = d.checkPresentString(&fs, pText, "text", l)
			e.Text = p.Text
		}
	case EventFinishStep, EventFinish:
		if err = only("type, finishReason", pType|pFinishReason); err == nil {
			err = d.checkString(&fs, pFinishReason, "finishReason", ev.finishReason, true, l)
			e.FinishReason = ev.finishReason
		}
	case EventError:
		if err = only("type, code, message", pType|pCode|pMessage); err == nil {
			if err = d.checkString(&fs, pCode, "code", ev.code, false, l); err == nil {
				err = d.checkString(&fs, pMessage, "message", ev.message, false, l)
			}
			e.Code, e.Message = ev.code, ev.message
		}
	default:
		return Event{}, l.fail("type", fmt.Sprintf("unknown event type %q", p.Type))
	}
	if err != nil {
		return Event{}, err
	}
	return e, nil
}
