// Package uistream is the Vercel AI SDK UI message stream protocol (v1):
// requests carrying UIMessages whose tool parts hold their state and
// approval, and a stream of UI message chunks over server-sent events ending
// with [DONE].
package uistream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/sse"
)

// Codec is the UI message stream protocol.
type Codec struct{}

// Name implements chat.Codec.
func (Codec) Name() string { return chat.ProtocolUIMessageStream }

// ResponseHeaders implements chat.Codec.
func (Codec) ResponseHeaders() map[string]string {
	return map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
		"Connection": "keep-alive", "X-Vercel-AI-UI-Message-Stream": "v1", "X-Accel-Buffering": "no"}
}

// body is the request DefaultChatTransport sends.
type body struct {
	ID        string        `json:"id"`
	Messages  []wireMessage `json:"messages"`
	Trigger   string        `json:"trigger,omitempty"`
	MessageID string        `json:"messageId,omitempty"`
}

type wireMessage struct {
	ID    string            `json:"id"`
	Role  string            `json:"role"`
	Parts []json.RawMessage `json:"parts"`
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolPart is a tool-<name> part (static tools) or a dynamic-tool part.
type toolPart struct {
	Type             string          `json:"type"`
	ToolName         string          `json:"toolName,omitempty"`
	ToolCallID       string          `json:"toolCallId"`
	State            string          `json:"state"`
	Input            json.RawMessage `json:"input,omitempty"`
	Output           json.RawMessage `json:"output,omitempty"`
	ErrorText        string          `json:"errorText,omitempty"`
	Approval         *wireApproval   `json:"approval,omitempty"`
	ProviderExecuted bool            `json:"providerExecuted,omitempty"`
}

type wireApproval struct {
	ID        string `json:"id"`
	Approved  *bool  `json:"approved,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Signature string `json:"signature,omitempty"`
}

// The AI SDK's part states for ours; awaiting-input has no name of its own
// (a part without input yet is input-streaming).
var stateToWire = map[chat.ToolState]string{
	chat.AwaitingInput:     "input-streaming",
	chat.InputStreaming:    "input-streaming",
	chat.InputComplete:     "input-available",
	chat.ApprovalRequested: "approval-requested",
	chat.ApprovalResponded: "approval-responded",
	chat.OutputAvailable:   "output-available",
	chat.OutputError:       "output-error",
	chat.OutputDenied:      "output-denied",
}

func stateFromWire(s string) (chat.ToolState, bool) {
	for k, v := range stateToWire {
		if v == s && k != chat.AwaitingInput {
			return k, true
		}
	}
	return "", false
}

// EncodeRequest implements chat.Codec. The request's ThreadID is the chat id.
func (Codec) EncodeRequest(req *chat.Request) ([]byte, error) {
	b := body{ID: req.ThreadID, Messages: []wireMessage{}, Trigger: "submit-message"}
	for i, m := range req.Messages {
		wm := wireMessage{ID: m.ID, Role: m.Role, Parts: []json.RawMessage{}}
		for j, p := range m.Parts {
			var raw []byte
			var err error
			switch p.Type {
			case chat.PartText:
				raw, err = json.Marshal(textPart{Type: "text", Text: p.Text})
			case chat.PartToolCall:
				tp := toolPart{Type: "tool-" + p.ToolName, ToolCallID: p.ToolCallID, State: stateToWire[p.State],
					Input: p.Input, Output: p.Output, ErrorText: p.ErrorText, ProviderExecuted: p.ProviderExecuted}
				if tp.State == "" {
					return nil, fmt.Errorf("uistream: messages[%d].parts[%d].state: unknown state %q", i, j, p.State)
				}
				if len(tp.Input) == 0 && tp.State != "input-streaming" {
					tp.Input = json.RawMessage("{}")
				}
				if p.State == chat.OutputAvailable && len(tp.Output) == 0 {
					tp.Output = json.RawMessage("null")
				}
				if a := p.Approval; a != nil {
					tp.Approval = &wireApproval{ID: a.ID, Approved: a.Approved, Reason: a.Reason, Signature: a.Signature}
				}
				raw, err = json.Marshal(tp)
			default:
				return nil, fmt.Errorf("uistream: messages[%d].parts[%d].type: unknown part type %q", i, j, p.Type)
			}
			if err != nil {
				return nil, fmt.Errorf("uistream: messages[%d].parts[%d]: %w", i, j, err)
			}
			wm.Parts = append(wm.Parts, raw)
		}
		b.Messages = append(b.Messages, wm)
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == chat.RoleAssistant {
		b.MessageID = req.Messages[n-1].ID
	}
	return json.Marshal(b)
}

// ignoredParts are UIMessage parts that say nothing about tool calls.
var ignoredParts = map[string]bool{"step-start": true, "reasoning": true, "file": true, "source-url": true, "source-document": true}

// DecodeRequest implements chat.Codec.
func (Codec) DecodeRequest(raw []byte) (*chat.Request, error) {
	var b body
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("uistream: request body: %w", err)
	}
	if b.Messages == nil {
		return nil, errors.New("uistream: request body: messages: missing")
	}
	req := &chat.Request{ThreadID: b.ID, Messages: []chat.Message{}}
	for i, wm := range b.Messages {
		switch wm.Role {
		case chat.RoleUser, chat.RoleAssistant, chat.RoleSystem:
		default:
			return nil, fmt.Errorf("uistream: messages[%d].role: unknown role %q", i, wm.Role)
		}
		m := chat.Message{ID: wm.ID, Role: wm.Role}
		for j, rp := range wm.Parts {
			var head struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(rp, &head); err != nil {
				return nil, fmt.Errorf("uistream: messages[%d].parts[%d]: %w", i, j, err)
			}
			switch {
			case head.Type == "text":
				var tp textPart
				if err := json.Unmarshal(rp, &tp); err != nil {
					return nil, fmt.Errorf("uistream: messages[%d].parts[%d]: %w", i, j, err)
				}
				m.Parts = append(m.Parts, chat.Part{Type: chat.PartText, Text: tp.Text})
			case head.Type == "dynamic-tool" || strings.HasPrefix(head.Type, "tool-"):
				p, err := decodeTool(rp, head.Type)
				if err != nil {
					return nil, fmt.Errorf("uistream: messages[%d].parts[%d]%w", i, j, err)
				}
				m.Parts = append(m.Parts, p)
			case ignoredParts[head.Type] || strings.HasPrefix(head.Type, "data-"):
			case head.Type == "":
				return nil, fmt.Errorf("uistream: messages[%d].parts[%d].type: missing", i, j)
			default:
				return nil, fmt.Errorf("uistream: messages[%d].parts[%d].type: unknown part type %q", i, j, head.Type)
			}
		}
		req.Messages = append(req.Messages, m)
	}
	return req, nil
}

func decodeTool(raw json.RawMessage, typ string) (chat.Part, error) {
	var tp toolPart
	if err := json.Unmarshal(raw, &tp); err != nil {
		return chat.Part{}, fmt.Errorf(": %w", err)
	}
	name := strings.TrimPrefix(typ, "tool-")
	if typ == "dynamic-tool" {
		name = tp.ToolName
		if name == "" {
			return chat.Part{}, errors.New(".toolName: missing on a dynamic-tool part")
		}
	}
	if name == "" {
		return chat.Part{}, errors.New(".type: a tool part needs a tool name after tool-")
	}
	if tp.ToolCallID == "" {
		return chat.Part{}, errors.New(".toolCallId: missing")
	}
	st, ok := stateFromWire(tp.State)
	if !ok {
		return chat.Part{}, fmt.Errorf(".state: unknown state %q", tp.State)
	}
	if len(tp.Input) > 0 && !json.Valid(tp.Input) {
		return chat.Part{}, errors.New(".input: not valid JSON")
	}
	p := chat.Part{Type: chat.PartToolCall, ToolCallID: tp.ToolCallID, ToolName: name, State: st, Input: tp.Input,
		Output: tp.Output, ErrorText: tp.ErrorText, ProviderExecuted: tp.ProviderExecuted}
	if a := tp.Approval; a != nil {
		if a.ID == "" {
			return chat.Part{}, errors.New(".approval.id: missing")
		}
		p.Approval = &chat.Approval{ID: a.ID, Approved: a.Approved, Reason: a.Reason, Signature: a.Signature}
	}
	return p, nil
}

// chunk is every UI message chunk field this codec writes or reads.
type chunk struct {
	Type             string          `json:"type"`
	MessageID        string          `json:"messageId,omitempty"`
	ID               string          `json:"id,omitempty"`
	Delta            string          `json:"delta,omitempty"`
	ToolCallID       string          `json:"toolCallId,omitempty"`
	ToolName         string          `json:"toolName,omitempty"`
	InputTextDelta   string          `json:"inputTextDelta,omitempty"`
	Input            json.RawMessage `json:"input,omitempty"`
	Output           json.RawMessage `json:"output,omitempty"`
	Preliminary      bool            `json:"preliminary,omitempty"`
	ErrorText        string          `json:"errorText,omitempty"`
	ApprovalID       string          `json:"approvalId,omitempty"`
	Signature        string          `json:"signature,omitempty"`
	FinishReason     string          `json:"finishReason,omitempty"`
	ProviderExecuted bool            `json:"providerExecuted,omitempty"`
}

type writer struct {
	w        io.Writer
	flush    func()
	started  bool
	inStep   bool
	textID   string
	texts    int
	calls    map[string]*callState
	finished bool
	errored  bool
	closed   bool
}

type callState struct {
	name string
	args strings.Builder
	done bool
}

// NewWriter implements chat.Codec.
func (Codec) NewWriter(w io.Writer, flush func(), _ *chat.Request) chat.EventWriter {
	return &writer{w: w, flush: flush, calls: map[string]*callState{}}
}

func (wr *writer) emit(c chunk) error {
	if err := sse.WriteJSON(wr.w, c, wr.flush); err != nil {
		return fmt.Errorf("uistream: %s: %w", c.Type, err)
	}
	return nil
}

func (wr *writer) closeText() error {
	if wr.textID == "" {
		return nil
	}
	id := wr.textID
	wr.textID = ""
	return wr.emit(chunk{Type: "text-end", ID: id})
}

func (wr *writer) call(id, name string) *callState {
	cs, ok := wr.calls[id]
	if !ok {
		cs = &callState{name: name}
		wr.calls[id] = cs
	}
	if cs.name == "" {
		cs.name = name
	}
	return cs
}

// Write implements chat.EventWriter.
func (wr *writer) Write(ev chat.Event) error {
	if wr.closed || wr.finished || wr.errored {
		return fmt.Errorf("uistream: %s event after the stream ended", ev.Type)
	}
	if !wr.started {
		wr.started = true
		if ev.Type == chat.EventMessageStart {
			return wr.emit(chunk{Type: "start", MessageID: ev.MessageID})
		}
		if err := wr.emit(chunk{Type: "start"}); err != nil {
			return err
		}
	}
	if ev.Type != chat.EventTextDelta {
		if err := wr.closeText(); err != nil {
			return err
		}
	}
	if err := wr.step(ev.Type); err != nil {
		return err
	}
	switch ev.Type {
	case chat.EventRunStarted:
		return nil
	case chat.EventMessageStart:
		return wr.emit(chunk{Type: "start", MessageID: ev.MessageID})
	case chat.EventTextDelta:
		if wr.textID == "" {
			wr.texts++
			wr.textID = fmt.Sprintf("text-%d", wr.texts)
			if err := wr.emit(chunk{Type: "text-start", ID: wr.textID}); err != nil {
				return err
			}
		}
		return wr.emit(chunk{Type: "text-delta", ID: wr.textID, Delta: ev.Delta})
	case chat.EventToolCallStart:
		wr.call(ev.ToolCallID, ev.ToolName)
		return wr.emit(chunk{Type: "tool-input-start", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName})
	case chat.EventToolCallArgs:
		wr.call(ev.ToolCallID, ev.ToolName).args.WriteString(ev.Delta)
		return wr.emit(chunk{Type: "tool-input-delta", ToolCallID: ev.ToolCallID, InputTextDelta: ev.Delta})
	case chat.EventToolCallEnd:
		return wr.inputAvailable(ev)
	case chat.EventApprovalRequested:
		if ev.Approval == nil || ev.Approval.ID == "" {
			return fmt.Errorf("uistream: approval-requested event for %q without an approval id", ev.ToolCallID)
		}
		if cs, ok := wr.calls[ev.ToolCallID]; (!ok || !cs.done) && ev.ToolName != "" {
			// The AI SDK client needs the part before its approval request.
			if err := wr.inputAvailable(ev); err != nil {
				return err
			}
		}
		return wr.emit(chunk{Type: "tool-approval-request", ApprovalID: ev.Approval.ID, ToolCallID: ev.ToolCallID, Signature: ev.Approval.Signature})
	case chat.EventToolResult:
		out := ev.Output
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		return wr.emit(chunk{Type: "tool-output-available", ToolCallID: ev.ToolCallID, Output: out})
	case chat.EventToolError:
		return wr.emit(chunk{Type: "tool-output-error", ToolCallID: ev.ToolCallID, ErrorText: ev.ErrorText})
	case chat.EventToolDenied:
		return wr.emit(chunk{Type: "tool-output-denied", ToolCallID: ev.ToolCallID})
	case chat.EventFinish:
		wr.finished = true
		return wr.emit(chunk{Type: "finish", FinishReason: ev.FinishReason})
	case chat.EventError:
		wr.errored = true
		return wr.emit(chunk{Type: "error", ErrorText: ev.ErrorText})
	}
	return fmt.Errorf("uistream: unknown event type %q", ev.Type)
}

// step frames the model's output in steps, as the AI SDK's server does: a
// start-step before the first text or tool call of a step, a finish-step
// before the finish. The outcomes of calls answered by the request (tool
// results, denials, errors) that come before any new output come before the
// step, as streamText sends them.
func (wr *writer) step(t chat.EventType) error {
	switch t {
	case chat.EventTextDelta, chat.EventToolCallStart, chat.EventToolCallArgs, chat.EventToolCallEnd, chat.EventApprovalRequested:
		if !wr.inStep {
			wr.inStep = true
			return wr.emit(chunk{Type: "start-step"})
		}
	case chat.EventFinish, chat.EventMessageStart:
		return wr.finishStep()
	}
	return nil
}

func (wr *writer) finishStep() error {
	if !wr.inStep {
		return nil
	}
	wr.inStep = false
	return wr.emit(chunk{Type: "finish-step"})
}

func (wr *writer) inputAvailable(ev chat.Event) error {
	cs := wr.call(ev.ToolCallID, ev.ToolName)
	cs.done = true
	input := ev.Input
	if len(input) == 0 && json.Valid([]byte(cs.args.String())) {
		input = json.RawMessage(cs.args.String())
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return wr.emit(chunk{Type: "tool-input-available", ToolCallID: ev.ToolCallID, ToolName: cs.name, Input: input})
}

// Close implements chat.EventWriter: it finishes an unfinished stream and
// writes the [DONE] terminator.
func (wr *writer) Close() error {
	if wr.closed {
		return nil
	}
	if !wr.started {
		wr.started = true
		if err := wr.emit(chunk{Type: "start"}); err != nil {
			return err
		}
	}
	if err := wr.closeText(); err != nil {
		return err
	}
	if !wr.finished && !wr.errored {
		wr.finished = true
		if err := wr.finishStep(); err != nil {
			return err
		}
		if err := wr.emit(chunk{Type: "finish"}); err != nil {
			return err
		}
	}
	wr.closed = true
	if _, err := io.WriteString(wr.w, "data: [DONE]\n\n"); err != nil {
		return fmt.Errorf("uistream: write [DONE]: %w", err)
	}
	if wr.flush != nil {
		wr.flush()
	}
	return nil
}

// ReadEvents implements chat.Codec. Chunks that carry nothing about tool
// approval (steps, reasoning, sources, data, metadata) are skipped.
func (Codec) ReadEvents(ctx context.Context, r io.Reader, yield func(chat.Event) error) error {
	sr := sse.NewReader(r)
	started := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("uistream: %w", err)
		}
		if string(raw.Data) == "[DONE]" {
			return nil
		}
		var c chunk
		if err := json.Unmarshal(raw.Data, &c); err != nil {
			return fmt.Errorf("uistream: chunk %d: %w", raw.Index, err)
		}
		if c.Type == "" {
			return fmt.Errorf("uistream: chunk %d: type: missing", raw.Index)
		}
		evs, err := translate(c, started)
		if err != nil {
			return fmt.Errorf("uistream: chunk %d (%s): %w", raw.Index, c.Type, err)
		}
		for _, ev := range evs {
			if err := yield(ev); err != nil {
				return err
			}
		}
	}
}

func translate(c chunk, started map[string]bool) ([]chat.Event, error) {
	needCall := func() error {
		if c.ToolCallID == "" {
			return errors.New("toolCallId: missing")
		}
		return nil
	}
	switch c.Type {
	case "start":
		if c.MessageID == "" {
			return nil, nil
		}
		return []chat.Event{{Type: chat.EventMessageStart, MessageID: c.MessageID}}, nil
	case "text-delta":
		return []chat.Event{{Type: chat.EventTextDelta, Delta: c.Delta}}, nil
	case "tool-input-start":
		if err := needCall(); err != nil {
			return nil, err
		}
		started[c.ToolCallID] = true
		return []chat.Event{{Type: chat.EventToolCallStart, ToolCallID: c.ToolCallID, ToolName: c.ToolName}}, nil
	case "tool-input-delta":
		if err := needCall(); err != nil {
			return nil, err
		}
		return []chat.Event{{Type: chat.EventToolCallArgs, ToolCallID: c.ToolCallID, Delta: c.InputTextDelta}}, nil
	case "tool-input-available", "tool-input-error":
		if err := needCall(); err != nil {
			return nil, err
		}
		var out []chat.Event
		if !started[c.ToolCallID] {
			started[c.ToolCallID] = true
			out = append(out, chat.Event{Type: chat.EventToolCallStart, ToolCallID: c.ToolCallID, ToolName: c.ToolName})
		}
		out = append(out, chat.Event{Type: chat.EventToolCallEnd, ToolCallID: c.ToolCallID, ToolName: c.ToolName, Input: c.Input})
		if c.Type == "tool-input-error" {
			out = append(out, chat.Event{Type: chat.EventToolError, ToolCallID: c.ToolCallID, ErrorText: c.ErrorText})
		}
		return out, nil
	case "tool-approval-request":
		if err := needCall(); err != nil {
			return nil, err
		}
		if c.ApprovalID == "" {
			return nil, errors.New("approvalId: missing")
		}
		return []chat.Event{{Type: chat.EventApprovalRequested, ToolCallID: c.ToolCallID, Approval: &chat.Approval{ID: c.ApprovalID, Signature: c.Signature}}}, nil
	case "tool-output-available":
		if err := needCall(); err != nil {
			return nil, err
		}
		if c.Preliminary {
			return nil, nil // a preliminary output is not the result
		}
		out := c.Output
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		return []chat.Event{{Type: chat.EventToolResult, ToolCallID: c.ToolCallID, Output: out}}, nil
	case "tool-output-error":
		if err := needCall(); err != nil {
			return nil, err
		}
		return []chat.Event{{Type: chat.EventToolError, ToolCallID: c.ToolCallID, ErrorText: c.ErrorText}}, nil
	case "tool-output-denied":
		if err := needCall(); err != nil {
			return nil, err
		}
		return []chat.Event{{Type: chat.EventToolDenied, ToolCallID: c.ToolCallID}}, nil
	case "finish":
		return []chat.Event{{Type: chat.EventFinish, FinishReason: c.FinishReason}}, nil
	case "error":
		return []chat.Event{{Type: chat.EventError, ErrorText: c.ErrorText}}, nil
	case "abort":
		return []chat.Event{{Type: chat.EventError, ErrorText: "the stream was aborted"}}, nil
	}
	return nil, nil
}
