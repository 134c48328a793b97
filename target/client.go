package target

import (
	"context"
	"encoding/json"

	"github.com/approval-conformance-kit/ack/chat"
)

// Client is the client role (the UI side): it opens sessions of a chat
// client against a chat endpoint the harness serves.
type Client interface {
	NewSession(ctx context.Context, cfg SessionConfig) (Session, error)
}

// SessionConfig starts a client session (POST /v1/client/sessions).
type SessionConfig struct {
	// ChatURL is the chat endpoint the harness serves for this session.
	ChatURL string `json:"chatURL"`
	// Protocol is the wire protocol: ag-ui, ag-ui-legacy or
	// ui-message-stream.
	Protocol string `json:"protocol"`
	// Dialect is the protocol's dialect the harness's chat server speaks
	// (chat.Dialects): the one the target declares for the protocol in
	// Features.ClientDialects, or empty for the protocol's default.
	Dialect string `json:"dialect,omitempty"`
	// Tools are the tools the client knows of.
	Tools []ClientTool `json:"tools"`
}

// ClientTool is a tool as the client knows it.
type ClientTool struct {
	Name string `json:"name"`
	// NeedsApproval is true for tools whose calls the server asks approval for.
	NeedsApproval bool `json:"needsApproval,omitempty"`
	// ClientSide is true for tools the client runs (their outputs come from
	// the harness through Session.ToolOutput).
	ClientSide bool `json:"clientSide,omitempty"`
}

// Session is one chat client session.
type Session interface {
	// Send is the user sending a message (POST .../send).
	Send(ctx context.Context, text string) (*ActionResult, error)
	// Approve is the user answering an approval (POST .../approval).
	Approve(ctx context.Context, a ApprovalAnswer) (*ActionResult, error)
	// ToolOutput gives a client-side tool call its output (POST .../tool-output).
	ToolOutput(ctx context.Context, toolCallID string, output json.RawMessage) (*ActionResult, error)
	// State reports the client's state (GET .../state).
	State(ctx context.Context) (*ClientState, error)
	// Wait blocks until the condition holds or ctx ends (POST .../wait).
	Wait(ctx context.Context, until WaitCondition) (*ClientState, error)
	// Close ends the session (DELETE).
	Close(ctx context.Context) error
}

// ApprovalAnswer is the user's answer to an approval.
type ApprovalAnswer struct {
	ApprovalID string `json:"approvalId"`
	Approved   bool   `json:"approved"`
	Reason     string `json:"reason,omitempty"`
}

// ActionResult is the client's reaction to a user action: accepted,
// refused with a message, or (a new message) held in the client's own
// queue: neither sent nor refused, to be sent when the client is ready.
type ActionResult struct {
	Refused bool   `json:"refused"`
	Error   string `json:"error,omitempty"`
	// Queued: the message is held in the client's queue, not sent.
	Queued bool `json:"queued,omitempty"`
}

// ClientState is the client's state: its messages with their tool-call parts
// (each with the history of its states) and whether it is busy.
type ClientState struct {
	// Busy is true while a request or a queued continuation is under way.
	Busy     bool           `json:"busy"`
	Messages []chat.Message `json:"messages"`
	// Queued are the user's messages held in the client's own queue: not
	// sent, and not refused (the AI SDK's experimental_queue holds a
	// message sent while an approval waits).
	Queued []chat.Message `json:"queued,omitempty"`
	// Error is the last error the client shows, if any.
	Error string `json:"error,omitempty"`
}

// Wait conditions.
const (
	// UntilIdle: the client is not busy.
	UntilIdle = "idle"
	// UntilApprovalRequested: the tool call is waiting for approval.
	UntilApprovalRequested = "approval-requested"
)

// WaitCondition is what Session.Wait waits for.
type WaitCondition struct {
	Until      string `json:"until"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// OrIdle also ends the wait when the client is idle: a condition an idle
	// client does not meet, it never will.
	OrIdle bool `json:"orIdle,omitempty"`
}

// Holds reports whether the state satisfies the condition.
func (w WaitCondition) Holds(s *ClientState) bool {
	if w.OrIdle && !s.Busy {
		return true
	}
	switch w.Until {
	case UntilIdle:
		return !s.Busy
	case UntilApprovalRequested:
		for _, m := range s.Messages {
			for _, p := range m.Parts {
				if p.Type == chat.PartToolCall && p.ToolCallID == w.ToolCallID && p.State == chat.ApprovalRequested {
					return true
				}
			}
		}
	}
	return false
}
