// Package llm is the language-model interface between an agent runtime and a
// model: the request an agent sends, the reply it gets, in one piece or as a
// stream, and the error a provider answers with.
//
// The simulator implements Model in-process; an HTTP model client implements
// it over a provider's wire format; the reference runtime consumes it.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// ToolDef is a tool as offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// ProviderExecuted marks a tool the provider runs itself (a hosted MCP
	// server); ServerLabel names its server.
	ProviderExecuted bool   `json:"providerExecuted,omitempty"`
	ServerLabel      string `json:"serverLabel,omitempty"`
}

// Request is one call to the model: the prompt and the tools offered.
type Request struct {
	Messages []model.Message
	Tools    []ToolDef
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// Finish reasons a model reports.
const (
	FinishStop      = "stop"
	FinishToolCalls = "tool-calls"
	FinishLength    = "length"
	FinishError     = "error"
	FinishOther     = "other"
)

// Response is the model's reply: assistant content parts (text, reasoning,
// tool calls, and for provider-executed tools their approval requests and
// results), the finish reason and the usage.
type Response struct {
	Content      []model.Part
	FinishReason string
	Usage        Usage
}

// StreamEventType names an event of a streamed model reply.
type StreamEventType string

// The events of a streamed reply. Tool input arrives as tool-input-start,
// tool-input-delta* and then one tool-call event with the complete part.
const (
	StreamTextDelta      StreamEventType = "text-delta"
	StreamReasoningDelta StreamEventType = "reasoning-delta"
	StreamToolInputStart StreamEventType = "tool-input-start"
	StreamToolInputDelta StreamEventType = "tool-input-delta"
	StreamPart           StreamEventType = "part"
	StreamFinish         StreamEventType = "finish"
)

// StreamEvent is one event of a streamed reply.
type StreamEvent struct {
	Type StreamEventType
	// Text is the text of a text-delta or reasoning-delta event.
	Text string
	// ToolCallID and ToolName identify the call of a tool-input event.
	ToolCallID string
	ToolName   string
	// Delta is a piece of a tool call's JSON input.
	Delta string
	// Part is a complete part (tool-call, tool-approval-request, tool-result).
	Part *model.Part
	// FinishReason and Usage end the stream.
	FinishReason string
	Usage        Usage
}

// Model is a language model.
type Model interface {
	// Generate returns the whole reply at once.
	Generate(ctx context.Context, req *Request) (*Response, error)
	// Stream delivers the reply as events to yield, in order. It returns the
	// first error of yield or of the model.
	Stream(ctx context.Context, req *Request, yield func(StreamEvent) error) error
}

// APIError is an error answered by a model provider (or the simulator acting
// as one): the HTTP status and the exact body.
type APIError struct {
	Status int
	// Type is the provider's error type, for example "invalid_request_error".
	Type string
	// Message is the provider's error message.
	Message string
	// Body is the exact response body.
	Body []byte
	// Check is the conformance check the error stands for, if any (the
	// simulator sets it, for example "WIRE-01").
	Check string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("model API error %d %s: %s", e.Status, e.Type, e.Message)
}

// Collect runs a streamed reply to its end and assembles the Response it
// amounts to. Text deltas are joined into text parts, in time linear in
// the text (a builder, not a string grown delta by delta: a reply of many
// small deltas would take quadratic time and memory).
func Collect(ctx context.Context, m Model, req *Request) (*Response, error) {
	resp := &Response{}
	var text *strings.Builder
	at := 0 // the index of the text part text builds
	flush := func() {
		if text != nil {
			resp.Content[at].Text = text.String()
			text = nil
		}
	}
	err := m.Stream(ctx, req, func(ev StreamEvent) error {
		switch ev.Type {
		case StreamTextDelta:
			if text == nil {
				resp.Content = append(resp.Content, model.Text(""))
				at, text = len(resp.Content)-1, &strings.Builder{}
			}
			text.WriteString(ev.Text)
		case StreamPart:
			if ev.Part != nil {
				flush()
				resp.Content = append(resp.Content, ev.Part.Clone())
			}
		case StreamFinish:
			resp.FinishReason = ev.FinishReason
			resp.Usage = ev.Usage
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	return resp, nil
}
