// Package chat is the protocol-neutral model of the UI side of tool
// approval: the messages a chat client keeps, with tool-call parts and their
// states; the events a chat server streams to it; the requests the client
// sends back; and the codec interface that the wire protocols (AG-UI, the
// Vercel AI SDK UI message stream) implement.
package chat

import (
	"context"
	"encoding/json"
	"io"
)

// ToolState is the state of a tool-call part in a client (check CHAIN-04).
type ToolState string

// The tool-call states, in the order a part moves through them. The last
// three are terminal.
const (
	AwaitingInput     ToolState = "awaiting-input"
	InputStreaming    ToolState = "input-streaming"
	InputComplete     ToolState = "input-complete"
	ApprovalRequested ToolState = "approval-requested"
	ApprovalResponded ToolState = "approval-responded"
	OutputAvailable   ToolState = "output-available"
	OutputError       ToolState = "output-error"
	OutputDenied      ToolState = "output-denied"
)

// Rank orders the states: a part's state never moves to a lower rank.
// Terminal states share the highest rank; unknown states rank 0.
func (s ToolState) Rank() int {
	switch s {
	case AwaitingInput:
		return 1
	case InputStreaming:
		return 2
	case InputComplete:
		return 3
	case ApprovalRequested:
		return 4
	case ApprovalResponded:
		return 5
	case OutputAvailable, OutputError, OutputDenied:
		return 6
	}
	return 0
}

// Terminal reports whether the state is final.
func (s ToolState) Terminal() bool { return s.Rank() == 6 }

// Known reports whether s is one of the states above.
func (s ToolState) Known() bool { return s.Rank() > 0 }

// Roles of chat messages.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
)

// Message is one message a client keeps.
type Message struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part types.
const (
	PartText     = "text"
	PartToolCall = "tool-call"
)

// Part is a text part or a tool-call part.
type Part struct {
	Type string `json:"type"`
	// Text is the text of a text part.
	Text string `json:"text,omitempty"`

	ToolCallID string `json:"toolCallId,omitempty"`
	ToolName   string `json:"toolName,omitempty"`
	// InputText accumulates the streamed arguments.
	InputText string `json:"inputText,omitempty"`
	// Input is the complete input, once known.
	Input json.RawMessage `json:"input,omitempty"`
	State ToolState       `json:"state,omitempty"`
	// History lists every state the part has been in, in order.
	History  []ToolState `json:"history,omitempty"`
	Approval *Approval   `json:"approval,omitempty"`
	// Output is the tool's output, once available.
	Output json.RawMessage `json:"output,omitempty"`
	// ErrorText is the tool's error, for output-error.
	ErrorText        string `json:"errorText,omitempty"`
	ProviderExecuted bool   `json:"providerExecuted,omitempty"`
}

// Approval is the approval of a tool-call part.
type Approval struct {
	ID string `json:"id"`
	// Approved is nil until the user answers.
	Approved *bool  `json:"approved,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Signature is the server's opaque signature of the request, if any; a
	// client must send it back unchanged.
	Signature string `json:"signature,omitempty"`
	// InterruptID is set when the request came as an AG-UI interrupt; the
	// answer then goes back as a resume entry.
	InterruptID string `json:"interruptId,omitempty"`
}

// Clone returns a deep copy of the messages.
func Clone(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		out[i].Parts = make([]Part, len(m.Parts))
		for j, p := range m.Parts {
			q := p
			q.Input = append(json.RawMessage(nil), p.Input...)
			q.Output = append(json.RawMessage(nil), p.Output...)
			q.History = append([]ToolState(nil), p.History...)
			if p.Approval != nil {
				a := *p.Approval
				if p.Approval.Approved != nil {
					v := *p.Approval.Approved
					a.Approved = &v
				}
				q.Approval = &a
			}
			out[i].Parts[j] = q
		}
	}
	return out
}

// EventType names a chat stream event.
type EventType string

// The chat stream events, protocol-neutral.
const (
	// EventRunStarted opens a stream.
	EventRunStarted EventType = "run-started"
	// EventMessageStart starts an assistant message (MessageID).
	EventMessageStart EventType = "message-start"
	// EventTextDelta adds text to the current message.
	EventTextDelta EventType = "text-delta"
	// EventToolCallStart creates a tool-call part (ToolCallID, ToolName).
	EventToolCallStart EventType = "tool-call-start"
	// EventToolCallArgs streams a piece of the input (Delta).
	EventToolCallArgs EventType = "tool-call-args"
	// EventToolCallEnd completes the input (Input, when known).
	EventToolCallEnd EventType = "tool-call-end"
	// EventApprovalRequested asks approval for a call (ToolCallID, Approval,
	// and, when the protocol says, ToolName and Input).
	EventApprovalRequested EventType = "approval-requested"
	// EventToolResult delivers a call's output (Output).
	EventToolResult EventType = "tool-result"
	// EventToolError delivers a call's failure (ErrorText).
	EventToolError EventType = "tool-error"
	// EventToolDenied says a call was denied.
	EventToolDenied EventType = "tool-denied"
	// EventFinish ends the run (FinishReason).
	EventFinish EventType = "finish"
	// EventError reports a failed run (ErrorText).
	EventError EventType = "error"
)

// Event is one chat stream event.
type Event struct {
	Type         EventType       `json:"type"`
	MessageID    string          `json:"messageId,omitempty"`
	Delta        string          `json:"delta,omitempty"`
	ToolCallID   string          `json:"toolCallId,omitempty"`
	ToolName     string          `json:"toolName,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	Approval     *Approval       `json:"approval,omitempty"`
	Output       json.RawMessage `json:"output,omitempty"`
	ErrorText    string          `json:"errorText,omitempty"`
	FinishReason string          `json:"finishReason,omitempty"`
}

// Request is what a client sends to a chat server: the conversation, and,
// for AG-UI interrupts, the resume entries answering them.
type Request struct {
	ThreadID    string    `json:"threadId,omitempty"`
	RunID       string    `json:"runId,omitempty"`
	ParentRunID string    `json:"parentRunId,omitempty"`
	Messages    []Message `json:"messages"`
	Resume      []Resume  `json:"resume,omitempty"`
}

// Resume answers an AG-UI interrupt.
type Resume struct {
	InterruptID string `json:"interruptId"`
	Approved    bool   `json:"approved"`
	Reason      string `json:"reason,omitempty"`
}

// Protocol names.
const (
	// ProtocolAGUI is AG-UI with approvals as RUN_FINISHED interrupts
	// (TanStack AI 0.44 and later).
	ProtocolAGUI = "ag-ui"
	// ProtocolAGUILegacy is AG-UI with CUSTOM approval-requested events
	// (TanStack AI up to 0.42).
	ProtocolAGUILegacy = "ag-ui-legacy"
	// ProtocolUIMessageStream is the Vercel AI SDK UI message stream.
	ProtocolUIMessageStream = "ui-message-stream"
)

// Protocols lists the protocol names.
var Protocols = []string{ProtocolAGUI, ProtocolAGUILegacy, ProtocolUIMessageStream}

// Dialect names. A protocol's dialect is the exact shape of its events and
// requests as one range of released servers and clients speaks it; each is
// named after the TanStack AI server release it was read from.
const (
	// DialectTanStackAI058 is the interrupt form as @tanstack/ai 0.58 and
	// its client @tanstack/ai-client 0.33 speak it: approval interrupts
	// carry a response schema and the "tanstack:interruptBinding" metadata
	// that binds them to the tool, the call and the interrupted run.
	DialectTanStackAI058 = "tanstack-ai-0.58"
	// DialectTanStackAI042 is the legacy form as @tanstack/ai 0.42 and its
	// client 0.22 speak it: RunAgentInput requests whose messages carry
	// UIMessage parts, CUSTOM events with "value", TOOL_CALL_START with
	// "toolCallName", results as TOOL_CALL_RESULT. The same events serve
	// @tanstack/ai 0.13 and later, whose clients before 0.11 post
	// {messages, data} with UIMessages, which the server reads too.
	DialectTanStackAI042 = "tanstack-ai-0.42"
	// DialectTanStackAI06 is the legacy form as @tanstack/ai 0.6 to 0.10
	// and their clients 0.5 to 0.7.9 speak it: requests are {messages,
	// data} with UIMessages, CUSTOM events carry "value", TOOL_CALL_START
	// carries "toolName", results come as TOOL_CALL_END with "result", a
	// failed run as RUN_ERROR with "error.message".
	DialectTanStackAI06 = "tanstack-ai-0.6"
	// DialectTanStackAI05 is the legacy form as @tanstack/ai 0.5 and its
	// client 0.4 speak it: as DialectTanStackAI06, but CUSTOM events carry
	// their payload as "data".
	DialectTanStackAI05 = "tanstack-ai-0.5"
)

// Dialects lists each protocol's dialects, its default first. A protocol
// that is not listed has one shape only, and its dialect is empty.
var Dialects = map[string][]string{
	ProtocolAGUI:       {DialectTanStackAI058},
	ProtocolAGUILegacy: {DialectTanStackAI042, DialectTanStackAI06, DialectTanStackAI05},
}

// DefaultDialect returns the dialect a protocol is spoken in when none is
// named ("" for a protocol without dialects).
func DefaultDialect(protocol string) string {
	if ds := Dialects[protocol]; len(ds) > 0 {
		return ds[0]
	}
	return ""
}

// Codec is one wire protocol between a chat client and a chat server.
type Codec interface {
	// Name is the protocol's name.
	Name() string
	// EncodeRequest encodes a client's request body (JSON).
	EncodeRequest(req *Request) ([]byte, error)
	// DecodeRequest decodes a request body on the server side; errors name
	// the offending field.
	DecodeRequest(body []byte) (*Request, error)
	// ResponseHeaders are the HTTP headers a server sends with a stream
	// (Content-Type and any protocol marker).
	ResponseHeaders() map[string]string
	// NewWriter returns a writer of server-sent events to w; flush is called
	// after every event. req is the request being answered (for thread and
	// run ids); it may be nil.
	NewWriter(w io.Writer, flush func(), req *Request) EventWriter
	// ReadEvents reads a response stream on the client side, delivering each
	// event to yield in order, until the stream ends or yield fails.
	ReadEvents(ctx context.Context, r io.Reader, yield func(Event) error) error
}

// EventWriter writes a response stream.
type EventWriter interface {
	// Write writes one event.
	Write(ev Event) error
	// Close ends the stream (writing a terminator, if the protocol has one).
	Close() error
}
