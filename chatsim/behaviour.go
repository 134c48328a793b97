package chatsim

import (
	"encoding/json"

	"github.com/approval-conformance-kit/ack/chat"
)

// Behaviour is what the scripted server does beyond the events a script
// gives it: what a conforming server of the protocol does on its own. A
// script then answers as such a server would, unless the scenario says it
// models another one (SetBehaviour).
type Behaviour struct {
	// ReuseMessageID: a continuation (a request whose last message is the
	// assistant's) streams into the message it continues, under that
	// message's id, as the AI SDK's own server does when it is given the
	// original messages (streamText(...).toUIMessageStream({originalMessages})).
	// Without it, every answer starts the message the script names; a
	// server built with createUIMessageStream() and no original messages
	// behaves that way.
	ReuseMessageID bool
	// ReportAnswered: a continuation first reports the outcome of each call
	// the request answered and the script does not report itself: the
	// output of an approved call (ReportedOutput), the denial of a denied
	// one; as the AI SDK's streamText does before anything new.
	ReportAnswered bool
}

// ReportedOutput is the output ReportAnswered gives an approved call.
var ReportedOutput = json.RawMessage(`{"ok":true}`)

// Conforming returns the behaviour of a conforming server of the protocol.
func Conforming(protocol string) Behaviour {
	switch protocol {
	case chat.ProtocolUIMessageStream:
		return Behaviour{ReuseMessageID: true, ReportAnswered: true}
	}
	return Behaviour{}
}

// SetBehaviour changes what the server does beyond the script, for the
// requests still to come.
func (c *Conversation) SetBehaviour(b Behaviour) {
	c.mu.Lock()
	c.behaviour = b
	c.mu.Unlock()
}

// Behaviour returns what the server does beyond the script.
func (c *Conversation) Behaviour() Behaviour {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.behaviour
}

// continued returns the id of the assistant message a request continues, or
// "" when the request does not continue one.
func continued(req *chat.Request) string {
	if req == nil || len(req.Messages) == 0 {
		return ""
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != chat.RoleAssistant {
		return ""
	}
	return last.ID
}

// openAnswers are the calls a request answers that have no outcome yet, in
// the order the request holds them.
func openAnswers(rec *Request) []Answer {
	state := map[string]chat.ToolState{}
	if rec.Decoded != nil {
		for _, m := range rec.Decoded.Messages {
			for _, p := range m.Parts {
				if p.Type == chat.PartToolCall {
					state[p.ToolCallID] = p.State
				}
			}
		}
	}
	var out []Answer
	seen := map[string]bool{}
	for _, a := range rec.Answers {
		if a.ToolCallID == "" || seen[a.ToolCallID] || state[a.ToolCallID].Terminal() {
			continue
		}
		seen[a.ToolCallID] = true
		out = append(out, a)
	}
	return out
}

// apply returns the events to stream for a scripted turn answering rec.
func (b Behaviour) apply(rec *Request, events []chat.Event) []chat.Event {
	out := append([]chat.Event(nil), events...)
	if b.ReuseMessageID {
		if id := continued(rec.Decoded); id != "" {
			found := false
			for i := range out {
				if out[i].Type == chat.EventMessageStart {
					out[i].MessageID = id
					found = true
				}
			}
			if !found {
				out = append([]chat.Event{{Type: chat.EventMessageStart, MessageID: id}}, out...)
			}
		}
	}
	if b.ReportAnswered {
		reported := map[string]bool{}
		for _, ev := range out {
			switch ev.Type {
			case chat.EventToolResult, chat.EventToolDenied, chat.EventToolError:
				reported[ev.ToolCallID] = true
			}
		}
		var prelude []chat.Event
		for _, a := range openAnswers(rec) {
			if reported[a.ToolCallID] {
				continue
			}
			if a.Approved {
				prelude = append(prelude, chat.Event{Type: chat.EventToolResult, ToolCallID: a.ToolCallID, Output: ReportedOutput})
			} else {
				prelude = append(prelude, chat.Event{Type: chat.EventToolDenied, ToolCallID: a.ToolCallID})
			}
		}
		if len(prelude) > 0 {
			at := 0
			for at < len(out) && (out[at].Type == chat.EventMessageStart || out[at].Type == chat.EventRunStarted) {
				at++
			}
			out = append(out[:at], append(prelude, out[at:]...)...)
		}
	}
	return out
}
