package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/sse"
)

// Codec is AG-UI over SSE. With Interrupts set, approval requests travel as
// interrupts in the RUN_FINISHED outcome; without, as CUSTOM events.
// Dialect is one of chat.Dialects of the form (empty: its default).
type Codec struct {
	Interrupts bool
	Dialect    string
}

// dialect returns the codec's dialect, resolved.
func (c Codec) dialect() string {
	if c.Dialect != "" {
		return c.Dialect
	}
	return chat.DefaultDialect(c.Name())
}

// old reports whether the codec speaks a dialect before TanStack AI 0.13:
// {messages, data} requests, tool names as toolName, results as
// TOOL_CALL_END, a failed run's error as an object.
func (c Codec) old() bool {
	d := c.dialect()
	return !c.Interrupts && (d == chat.DialectTanStackAI05 || d == chat.DialectTanStackAI06)
}

// customData reports whether CUSTOM events carry their payload as "data"
// (TanStack AI 0.5) rather than "value".
func (c Codec) customData() bool { return !c.Interrupts && c.dialect() == chat.DialectTanStackAI05 }

// Name implements chat.Codec.
func (c Codec) Name() string {
	if c.Interrupts {
		return chat.ProtocolAGUI
	}
	return chat.ProtocolAGUILegacy
}

// EncodeRequest implements chat.Codec: a RunAgentInput whose assistant
// messages carry both AG-UI toolCalls (with tool messages for outcomes) and
// TanStack UIMessage parts, and whose resume entries answer interrupts; in
// the dialect of TanStack AI 0.5, {messages, data} with UIMessages.
func (c Codec) EncodeRequest(req *chat.Request) ([]byte, error) {
	if c.old() {
		return encodeUIRequest(req)
	}
	return encodeRequest(req)
}

// DecodeRequest implements chat.Codec. Parts, when a message has them, are
// what the client knows; otherwise the toolCalls and tool messages are read.
func (c Codec) DecodeRequest(body []byte) (*chat.Request, error) {
	if c.old() {
		return decodeUIRequest(body)
	}
	return decodeRequest(body)
}

// ResponseHeaders implements chat.Codec.
func (c Codec) ResponseHeaders() map[string]string {
	return map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
}

// event is every AG-UI event field this codec writes or reads.
type event struct {
	Type            string          `json:"type"`
	ThreadID        string          `json:"threadId,omitempty"`
	RunID           string          `json:"runId,omitempty"`
	MessageID       string          `json:"messageId,omitempty"`
	Role            string          `json:"role,omitempty"`
	Delta           string          `json:"delta,omitempty"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	ToolCallName    string          `json:"toolCallName,omitempty"`
	ToolName        string          `json:"toolName,omitempty"`
	ParentMessageID string          `json:"parentMessageId,omitempty"`
	Input           json.RawMessage `json:"input,omitempty"`
	Content         *string         `json:"content,omitempty"`
	State           string          `json:"state,omitempty"`
	// Error is a string on a TOOL_CALL_RESULT and {message, code} on the
	// RUN_ERROR of TanStack AI 0.5.
	Error  json.RawMessage `json:"error,omitempty"`
	Result *string         `json:"result,omitempty"`
	Name   string          `json:"name,omitempty"`
	// Value is a CUSTOM event's payload; TanStack AI 0.5 calls it Data.
	Value        json.RawMessage `json:"value,omitempty"`
	Data         json.RawMessage `json:"data,omitempty"`
	FinishReason string          `json:"finishReason,omitempty"`
	Outcome      *outcome        `json:"outcome,omitempty"`
	Message      string          `json:"message,omitempty"`
	Messages     []wireMessage   `json:"messages,omitempty"`
	Metadata     *runMetadata    `json:"metadata,omitempty"`
}

type runMetadata struct {
	TanStack struct {
		FinishReason string `json:"finishReason,omitempty"`
	} `json:"tanstack"`
}

type outcome struct {
	Type       string      `json:"type"`
	Interrupts []interrupt `json:"interrupts,omitempty"`
}

type interrupt struct {
	ID             string            `json:"id"`
	Reason         string            `json:"reason"`
	Message        string            `json:"message,omitempty"`
	ToolCallID     string            `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage   `json:"responseSchema,omitempty"`
	Metadata       interruptMetadata `json:"metadata"`
}

type interruptMetadata struct {
	Kind       string          `json:"kind"`
	ToolName   string          `json:"toolName,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	ApprovalID string          `json:"approvalId,omitempty"`
	Signature  string          `json:"signature,omitempty"`
	Binding    *binding        `json:"tanstack:interruptBinding,omitempty"`
}

// customApproval is the value of a CUSTOM approval-requested event.
type customApproval struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Approval   wireApproval    `json:"approval"`
}

// Custom event names.
const (
	customApprovalRequested = "approval-requested"
	customToolDenied        = "tool-output-denied"
)

// deniedResult05 is the result TanStack AI 0.5 to 0.10 gives a denied call.
const deniedResult05 = `{"error":"User declined tool execution"}`

type writer struct {
	codec     Codec
	w         io.Writer
	flush     func()
	threadID  string
	runID     string
	started   bool
	messageID string
	textOpen  bool
	finished  bool
	errored   bool
	pending   []interrupt
}

// NewWriter implements chat.Codec.
func (c Codec) NewWriter(w io.Writer, flush func(), req *chat.Request) chat.EventWriter {
	wr := &writer{codec: c, w: w, flush: flush, runID: "run-" + uuid.NewString()}
	if req != nil {
		wr.threadID = req.ThreadID
		if req.RunID != "" {
			wr.runID = req.RunID
		}
	}
	if wr.threadID == "" {
		wr.threadID = "thread-" + uuid.NewString()
	}
	return wr
}

// custom is a CUSTOM event with its payload where the dialect puts it.
func (wr *writer) custom(name string, payload json.RawMessage) event {
	if wr.codec.customData() {
		return event{Type: "CUSTOM", Name: name, Data: payload}
	}
	return event{Type: "CUSTOM", Name: name, Value: payload}
}

func (wr *writer) emit(ev event) error {
	if err := sse.WriteJSON(wr.w, ev, wr.flush); err != nil {
		return fmt.Errorf("agui: %s: %w", ev.Type, err)
	}
	return nil
}

func (wr *writer) start() error {
	if wr.started {
		return nil
	}
	wr.started = true
	return wr.emit(event{Type: "RUN_STARTED", ThreadID: wr.threadID, RunID: wr.runID})
}

func (wr *writer) closeText() error {
	if !wr.textOpen {
		return nil
	}
	wr.textOpen = false
	return wr.emit(event{Type: "TEXT_MESSAGE_END", MessageID: wr.messageID})
}

func (wr *writer) message() string {
	if wr.messageID == "" {
		wr.messageID = "msg-" + uuid.NewString()
	}
	return wr.messageID
}

// Write implements chat.EventWriter.
func (wr *writer) Write(ev chat.Event) error {
	if wr.finished || wr.errored {
		return fmt.Errorf("agui: %s event after the run ended", ev.Type)
	}
	if err := wr.start(); err != nil {
		return err
	}
	if ev.Type != chat.EventTextDelta {
		if err := wr.closeText(); err != nil {
			return err
		}
	}
	switch ev.Type {
	case chat.EventRunStarted:
		return nil
	case chat.EventMessageStart:
		wr.messageID = ev.MessageID
		return nil
	case chat.EventTextDelta:
		if !wr.textOpen {
			wr.textOpen = true
			if err := wr.emit(event{Type: "TEXT_MESSAGE_START", MessageID: wr.message(), Role: "assistant"}); err != nil {
				return err
			}
		}
		return wr.emit(event{Type: "TEXT_MESSAGE_CONTENT", MessageID: wr.message(), Delta: ev.Delta})
	case chat.EventToolCallStart:
		if wr.codec.old() {
			return wr.emit(event{Type: "TOOL_CALL_START", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName})
		}
		return wr.emit(event{Type: "TOOL_CALL_START", ToolCallID: ev.ToolCallID, ToolCallName: ev.ToolName, ParentMessageID: wr.message()})
	case chat.EventToolCallArgs:
		return wr.emit(event{Type: "TOOL_CALL_ARGS", ToolCallID: ev.ToolCallID, Delta: ev.Delta})
	case chat.EventToolCallEnd:
		if wr.codec.old() {
			return wr.emit(event{Type: "TOOL_CALL_END", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Input: ev.Input})
		}
		return wr.emit(event{Type: "TOOL_CALL_END", ToolCallID: ev.ToolCallID, ToolCallName: ev.ToolName, Input: ev.Input})
	case chat.EventApprovalRequested:
		if ev.Approval == nil || ev.Approval.ID == "" {
			return fmt.Errorf("agui: approval-requested event for %q without an approval id", ev.ToolCallID)
		}
		if wr.codec.Interrupts {
			id := ev.Approval.InterruptID
			if id == "" {
				id = ev.Approval.ID
			}
			wr.pending = append(wr.pending, approvalInterrupt(id, ev, wr.runID))
			return nil
		}
		payload, _ := json.Marshal(customApproval{ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Input: ev.Input,
			Approval: wireApproval{ID: ev.Approval.ID, NeedsApproval: true, Signature: ev.Approval.Signature}})
		return wr.emit(wr.custom(customApprovalRequested, payload))
	case chat.EventToolResult:
		out := ev.Output
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		content := string(out)
		if wr.codec.old() {
			return wr.emit(event{Type: "TOOL_CALL_END", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Result: &content})
		}
		return wr.emit(event{Type: "TOOL_CALL_RESULT", MessageID: "tool-" + ev.ToolCallID, ToolCallID: ev.ToolCallID, Role: "tool", Content: &content})
	case chat.EventToolError:
		b, _ := json.Marshal(map[string]string{"error": ev.ErrorText})
		content := string(b)
		if wr.codec.old() {
			return wr.emit(event{Type: "TOOL_CALL_END", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Result: &content})
		}
		text, _ := json.Marshal(ev.ErrorText)
		return wr.emit(event{Type: "TOOL_CALL_RESULT", MessageID: "tool-" + ev.ToolCallID, ToolCallID: ev.ToolCallID, Role: "tool", Content: &content, State: "output-error", Error: text})
	case chat.EventToolDenied:
		if wr.codec.old() {
			// TanStack AI 0.5 answers a denied call with this result.
			content := deniedResult05
			return wr.emit(event{Type: "TOOL_CALL_END", ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Result: &content})
		}
		payload, _ := json.Marshal(map[string]string{"toolCallId": ev.ToolCallID})
		return wr.emit(wr.custom(customToolDenied, payload))
	case chat.EventFinish:
		return wr.finish(ev.FinishReason)
	case chat.EventError:
		wr.errored = true
		if wr.codec.old() {
			e, _ := json.Marshal(map[string]string{"message": ev.ErrorText})
			return wr.emit(event{Type: "RUN_ERROR", RunID: wr.runID, Error: e})
		}
		return wr.emit(event{Type: "RUN_ERROR", Message: ev.ErrorText})
	}
	return fmt.Errorf("agui: unknown event type %q", ev.Type)
}

func (wr *writer) finish(reason string) error {
	wr.finished = true
	ev := event{Type: "RUN_FINISHED", ThreadID: wr.threadID, RunID: wr.runID, FinishReason: reason}
	if len(wr.pending) > 0 {
		ev.Outcome = &outcome{Type: "interrupt", Interrupts: wr.pending}
		wr.pending = nil
		if ev.FinishReason == "" {
			ev.FinishReason = "tool_calls"
		}
	}
	return wr.emit(ev)
}

// Close implements chat.EventWriter: a run that was not finished or failed
// is finished now (carrying any interrupts).
func (wr *writer) Close() error {
	if wr.finished || wr.errored {
		return nil
	}
	if err := wr.start(); err != nil {
		return err
	}
	if err := wr.closeText(); err != nil {
		return err
	}
	return wr.finish("")
}

// ReadEvents implements chat.Codec.
func (c Codec) ReadEvents(ctx context.Context, r io.Reader, yield func(chat.Event) error) error {
	rd := &reader{yield: yield, started: map[string]bool{}, ended: map[string]bool{}, old: c.old(), customData: c.customData()}
	sr := sse.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("agui: %w", err)
		}
		var ev event
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			return fmt.Errorf("agui: event %d: %w", raw.Index, err)
		}
		if ev.Type == "" {
			return fmt.Errorf("agui: event %d: type: missing", raw.Index)
		}
		if err := rd.handle(ev); err != nil {
			return fmt.Errorf("agui: event %d (%s): %w", raw.Index, ev.Type, err)
		}
	}
}

type reader struct {
	yield      func(chat.Event) error
	messageID  string
	started    map[string]bool
	ended      map[string]bool
	old        bool // a dialect before TanStack AI 0.13 (see Codec.old)
	customData bool // CUSTOM payloads as "data"
}

func (rd *reader) enter(messageID string) error {
	if messageID == "" || messageID == rd.messageID {
		return nil
	}
	rd.messageID = messageID
	return rd.yield(chat.Event{Type: chat.EventMessageStart, MessageID: messageID})
}

func (rd *reader) handle(ev event) error {
	switch ev.Type {
	case "RUN_STARTED":
		return rd.yield(chat.Event{Type: chat.EventRunStarted})
	case "TEXT_MESSAGE_START":
		return rd.enter(ev.MessageID)
	case "TEXT_MESSAGE_CONTENT":
		if err := rd.enter(ev.MessageID); err != nil {
			return err
		}
		return rd.yield(chat.Event{Type: chat.EventTextDelta, Delta: ev.Delta})
	case "TOOL_CALL_START":
		if ev.ToolCallID == "" {
			return errors.New("toolCallId: missing")
		}
		if err := rd.enter(ev.ParentMessageID); err != nil {
			return err
		}
		rd.started[ev.ToolCallID] = true
		return rd.yield(chat.Event{Type: chat.EventToolCallStart, ToolCallID: ev.ToolCallID, ToolName: rd.toolName(ev)})
	case "TOOL_CALL_ARGS":
		if ev.ToolCallID == "" {
			return errors.New("toolCallId: missing")
		}
		return rd.yield(chat.Event{Type: chat.EventToolCallArgs, ToolCallID: ev.ToolCallID, Delta: ev.Delta})
	case "TOOL_CALL_END":
		if ev.ToolCallID == "" {
			return errors.New("toolCallId: missing")
		}
		if rd.old && ev.Result != nil {
			return rd.endWithResult(ev)
		}
		rd.ended[ev.ToolCallID] = true
		return rd.yield(chat.Event{Type: chat.EventToolCallEnd, ToolCallID: ev.ToolCallID, ToolName: rd.toolName(ev), Input: ev.Input})
	case "TOOL_CALL_RESULT":
		if ev.ToolCallID == "" {
			return errors.New("toolCallId: missing")
		}
		if ev.Error != nil || ev.State == "output-error" || ev.State == "error" {
			text := ""
			if ev.Error != nil {
				if err := json.Unmarshal(ev.Error, &text); err != nil {
					return errors.New("error: want a string")
				}
			} else if ev.Content != nil {
				var e struct {
					Error string `json:"error"`
				}
				if json.Unmarshal([]byte(*ev.Content), &e) == nil && e.Error != "" {
					text = e.Error
				} else {
					text = *ev.Content
				}
			}
			return rd.yield(chat.Event{Type: chat.EventToolError, ToolCallID: ev.ToolCallID, ErrorText: text})
		}
		out := json.RawMessage("null")
		if ev.Content != nil {
			if json.Valid([]byte(*ev.Content)) {
				out = json.RawMessage(*ev.Content)
			} else {
				out, _ = json.Marshal(*ev.Content)
			}
		}
		return rd.yield(chat.Event{Type: chat.EventToolResult, ToolCallID: ev.ToolCallID, Output: out})
	case "CUSTOM":
		field, payload := "value", ev.Value
		if rd.customData {
			field, payload = "data", ev.Data
		}
		switch ev.Name {
		case customApprovalRequested:
			var v customApproval
			if err := json.Unmarshal(payload, &v); err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
			if v.ToolCallID == "" {
				return fmt.Errorf("%s.toolCallId: missing", field)
			}
			if v.Approval.ID == "" {
				return fmt.Errorf("%s.approval.id: missing", field)
			}
			return rd.yield(chat.Event{Type: chat.EventApprovalRequested, ToolCallID: v.ToolCallID, ToolName: v.ToolName, Input: v.Input,
				Approval: &chat.Approval{ID: v.Approval.ID, Signature: v.Approval.Signature}})
		case customToolDenied:
			var v struct {
				ToolCallID string `json:"toolCallId"`
			}
			if err := json.Unmarshal(payload, &v); err != nil || v.ToolCallID == "" {
				return fmt.Errorf("%s.toolCallId: missing", field)
			}
			return rd.yield(chat.Event{Type: chat.EventToolDenied, ToolCallID: v.ToolCallID})
		}
		return nil
	case "MESSAGES_SNAPSHOT":
		return rd.snapshot(ev.Messages)
	case "RUN_FINISHED":
		reason := ev.FinishReason
		if reason == "" && ev.Metadata != nil {
			reason = ev.Metadata.TanStack.FinishReason
		}
		if ev.Outcome != nil && ev.Outcome.Type == "interrupt" {
			for k, in := range ev.Outcome.Interrupts {
				if in.Metadata.Kind != "approval" && in.Reason != "tool_call" {
					continue
				}
				if in.ID == "" {
					return fmt.Errorf("outcome.interrupts[%d].id: missing", k)
				}
				if in.ToolCallID == "" {
					return fmt.Errorf("outcome.interrupts[%d].toolCallId: missing", k)
				}
				approvalID := in.Metadata.ApprovalID
				if approvalID == "" {
					approvalID = in.ID
				}
				if err := rd.yield(chat.Event{Type: chat.EventApprovalRequested, ToolCallID: in.ToolCallID, ToolName: in.Metadata.ToolName, Input: in.Metadata.Input,
					Approval: &chat.Approval{ID: approvalID, InterruptID: in.ID, Signature: in.Metadata.Signature}}); err != nil {
					return err
				}
			}
		}
		return rd.yield(chat.Event{Type: chat.EventFinish, FinishReason: reason})
	case "RUN_ERROR":
		text := ev.Message
		if text == "" && len(ev.Error) > 0 {
			var e struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(ev.Error, &e) != nil {
				return errors.New("error: want {message}")
			}
			text = e.Message
		}
		return rd.yield(chat.Event{Type: chat.EventError, ErrorText: text})
	}
	return nil // steps, state, reasoning and raw events carry nothing for approvals
}

// toolName reads a tool call event's tool name where the dialect puts it.
func (rd *reader) toolName(ev event) string {
	if rd.old {
		return ev.ToolName
	}
	return ev.ToolCallName
}

// endWithResult reads a TOOL_CALL_END that carries a call's result, as
// TanStack AI 0.5 sends results: it ends the call's input if this stream
// started it, then delivers the result, an error or a denial.
func (rd *reader) endWithResult(ev event) error {
	if rd.started[ev.ToolCallID] && !rd.ended[ev.ToolCallID] {
		rd.ended[ev.ToolCallID] = true
		if err := rd.yield(chat.Event{Type: chat.EventToolCallEnd, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Input: ev.Input}); err != nil {
			return err
		}
	}
	result := *ev.Result
	var e map[string]json.RawMessage
	if json.Unmarshal([]byte(result), &e) == nil && len(e) == 1 {
		var text string
		if raw, ok := e["error"]; ok && json.Unmarshal(raw, &text) == nil {
			if result == deniedResult05 {
				return rd.yield(chat.Event{Type: chat.EventToolDenied, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName})
			}
			return rd.yield(chat.Event{Type: chat.EventToolError, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, ErrorText: text})
		}
	}
	out := json.RawMessage(result)
	if !json.Valid(out) {
		out, _ = json.Marshal(result)
	}
	return rd.yield(chat.Event{Type: chat.EventToolResult, ToolCallID: ev.ToolCallID, ToolName: ev.ToolName, Output: out})
}

// snapshot makes the calls of the snapshot's last message known, when it is
// the assistant's: the current protocol may announce calls only this way.
func (rd *reader) snapshot(msgs []wireMessage) error {
	if len(msgs) == 0 {
		return nil
	}
	last := msgs[len(msgs)-1]
	if last.Role != "assistant" {
		return nil
	}
	if err := rd.enter(last.ID); err != nil {
		return err
	}
	for j, tc := range last.ToolCalls {
		if tc.ID == "" || rd.started[tc.ID] {
			continue
		}
		rd.started[tc.ID] = true
		if err := rd.yield(chat.Event{Type: chat.EventToolCallStart, ToolCallID: tc.ID, ToolName: tc.Function.Name}); err != nil {
			return err
		}
		end := chat.Event{Type: chat.EventToolCallEnd, ToolCallID: tc.ID, ToolName: tc.Function.Name}
		if tc.Function.Arguments != "" {
			if !json.Valid([]byte(tc.Function.Arguments)) {
				return fmt.Errorf("messages[%d].toolCalls[%d].function.arguments: not valid JSON", len(msgs)-1, j)
			}
			end.Input = json.RawMessage(tc.Function.Arguments)
		}
		if err := rd.yield(end); err != nil {
			return err
		}
	}
	return nil
}
