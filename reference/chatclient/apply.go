package chatclient

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/chat"
)

// applyLocked applies one stream event to the messages; c.mu is held.
// Events about a tool call find its part wherever it is, so a continuation
// stream that reports results of an earlier message updates that message.
func (c *Client) applyLocked(ev chat.Event) {
	switch ev.Type {
	case chat.EventMessageStart:
		c.startMessageLocked(ev.MessageID)
	case chat.EventTextDelta:
		m := c.currentLocked()
		if n := len(m.Parts); n > 0 && m.Parts[n-1].Type == chat.PartText {
			m.Parts[n-1].Text += ev.Delta
		} else {
			m.Parts = append(m.Parts, chat.Part{Type: chat.PartText, Text: ev.Delta})
		}
	case chat.EventToolCallStart:
		if c.findCallLocked(ev.ToolCallID) != nil {
			return // a call the client already holds: nothing changes
		}
		c.newCallLocked(ev.ToolCallID, ev.ToolName)
	case chat.EventToolCallArgs:
		if p := c.callLocked(ev.ToolCallID, ev.ToolName); p.State.Rank() <= chat.InputStreaming.Rank() {
			p.InputText += ev.Delta
			c.setStateLocked(p, chat.InputStreaming)
		}
	case chat.EventToolCallEnd:
		p := c.callLocked(ev.ToolCallID, ev.ToolName)
		if p.State.Rank() > chat.InputComplete.Rank() {
			return
		}
		switch {
		case len(ev.Input) > 0:
			p.Input = append(json.RawMessage(nil), ev.Input...)
		case json.Valid([]byte(p.InputText)):
			p.Input = json.RawMessage(p.InputText)
		}
		c.setStateLocked(p, chat.InputComplete)
	case chat.EventApprovalRequested:
		if ev.Approval == nil {
			return
		}
		p := c.callLocked(ev.ToolCallID, ev.ToolName)
		if p.Approval != nil && p.Approval.ID == ev.Approval.ID {
			return // the same request again
		}
		if len(p.Input) == 0 && len(ev.Input) > 0 {
			p.Input = append(json.RawMessage(nil), ev.Input...)
		}
		a := *ev.Approval
		a.Approved = nil
		p.Approval = &a
		c.setStateLocked(p, chat.ApprovalRequested)
	case chat.EventToolResult:
		p := c.callLocked(ev.ToolCallID, ev.ToolName)
		p.Output = append(json.RawMessage(nil), ev.Output...)
		c.setStateLocked(p, chat.OutputAvailable)
	case chat.EventToolError:
		p := c.callLocked(ev.ToolCallID, ev.ToolName)
		p.ErrorText = ev.ErrorText
		c.setStateLocked(p, chat.OutputError)
	case chat.EventToolDenied:
		c.setStateLocked(c.callLocked(ev.ToolCallID, ev.ToolName), chat.OutputDenied)
	case chat.EventError:
		c.lastErr = ev.ErrorText
	}
}

// startMessageLocked makes the stream write to the assistant message with
// this id, continuing it if it is the last message (as a continuation of the
// same message does), or starting a new one.
func (c *Client) startMessageLocked(id string) {
	if id != "" {
		if n := len(c.messages); n > 0 && c.messages[n-1].ID == id && c.messages[n-1].Role == chat.RoleAssistant {
			c.current = n - 1
			return
		}
	}
	if id == "" {
		id = "msg-" + uuid.NewString()
	}
	c.messages = append(c.messages, chat.Message{ID: id, Role: chat.RoleAssistant})
	c.current = len(c.messages) - 1
}

// currentLocked returns the assistant message the stream writes to.
func (c *Client) currentLocked() *chat.Message {
	if c.current < 0 {
		c.startMessageLocked("")
	}
	return &c.messages[c.current]
}

func (c *Client) newCallLocked(id, name string) *chat.Part {
	m := c.currentLocked()
	m.Parts = append(m.Parts, chat.Part{Type: chat.PartToolCall, ToolCallID: id, ToolName: name, State: chat.AwaitingInput, History: []chat.ToolState{chat.AwaitingInput}})
	return &m.Parts[len(m.Parts)-1]
}

// callLocked returns the call's part, creating it if the stream skipped its
// start (an AG-UI interrupt may be the first news of a call).
func (c *Client) callLocked(id, name string) *chat.Part {
	if p := c.findCallLocked(id); p != nil {
		if p.ToolName == "" {
			p.ToolName = name
		}
		return p
	}
	return c.newCallLocked(id, name)
}

// setStateLocked moves a part to a state, never backwards: a state of a lower
// rank than the part's is ignored.
func (c *Client) setStateLocked(p *chat.Part, s chat.ToolState) {
	if s.Rank() < p.State.Rank() || s == p.State || p.State.Terminal() {
		return
	}
	p.State = s
	p.History = append(p.History, s)
}
