package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// AGUIEvents is a log of AG-UI events: a JSON array of events, or one event
// per line, as a client or a proxy records a run's stream.
const AGUIEvents Format = "ag-ui-events"

// aguiEventHead matches the first AG-UI event of a log.
var aguiEventHead = regexp.MustCompile(`"type"\s*:\s*"(RUN_STARTED|RUN_FINISHED|RUN_ERROR|STEP_STARTED|STEP_FINISHED|TEXT_MESSAGE_START|TEXT_MESSAGE_CONTENT|TEXT_MESSAGE_END|TEXT_MESSAGE_CHUNK|TOOL_CALL_START|TOOL_CALL_ARGS|TOOL_CALL_END|TOOL_CALL_CHUNK|TOOL_CALL_RESULT|STATE_SNAPSHOT|STATE_DELTA|MESSAGES_SNAPSHOT|RAW|CUSTOM)"`)

// isEventLog reports whether the input starts with an AG-UI event (its
// first object's type is one), and whether the events are in an array.
func isEventLog(br *bufio.Reader) (log, array bool) {
	head, _ := br.Peek(4 << 10)
	head = bytes.TrimLeft(head, " \t\r\n")
	array = len(head) > 0 && head[0] == '['
	head = bytes.TrimLeft(head, " \t\r\n[")
	if len(head) == 0 || head[0] != '{' {
		return false, array
	}
	loc := aguiEventHead.FindIndex(head)
	if loc == nil {
		return false, array
	}
	// The type must be the first object's own, not a nested one's.
	return bytes.Count(head[:loc[0]], []byte("{")) == 1, array
}

// aguiEvent is what lint reads of an AG-UI event.
type aguiEvent struct {
	Type            string  `json:"type"`
	MessageID       string  `json:"messageId"`
	Role            string  `json:"role"`
	Delta           string  `json:"delta"`
	ToolCallID      string  `json:"toolCallId"`
	ToolCallName    string  `json:"toolCallName"`
	ToolName        string  `json:"toolName"`
	ParentMessageID string  `json:"parentMessageId"`
	Content         *string `json:"content"`
	Result          *string `json:"result"`
	State           string  `json:"state"`
	Error           json.RawMessage
	Name            string          `json:"name"`
	Value           json.RawMessage `json:"value"`
	Data            json.RawMessage `json:"data"`
	Outcome         *struct {
		Type       string `json:"type"`
		Interrupts []struct {
			ID         string `json:"id"`
			Reason     string `json:"reason"`
			ToolCallID string `json:"toolCallId"`
			Metadata   struct {
				Kind       string `json:"kind"`
				ToolName   string `json:"toolName"`
				ApprovalID string `json:"approvalId"`
			} `json:"metadata"`
		} `json:"interrupts"`
	} `json:"outcome"`
}

// eventLog turns a run's events into the conversation they make: an
// assistant message per message id with its text and calls, a tool message
// per batch of results, approval requests where a CUSTOM approval-requested
// event or a RUN_FINISHED interrupt asks for one. Calls of the last run left
// without a result and without an approval request wait for the client (a
// frontend tool's call).
type eventLog struct {
	rd        *reader
	req       *Request
	assistant *model.Message
	msgID     string
	aEl       element
	tool      *model.Message
	tEl       element
	runCalls  []string
	resulted  map[string]bool
	requested map[string]bool
	started   map[string]bool
	// via says which event gave a call's last result: TanStack AI 0.42
	// tells one result twice, on TOOL_CALL_END and on TOOL_CALL_RESULT.
	via map[string]string
}

// readEvents reads an event log: a JSON array of events, or one per line.
func (rd *reader) readEvents(array bool, fn func(*Request) error) error {
	req := &Request{N: 1, Format: AGUIEvents, Kind: History, Prefix: "events"}
	rd.names, rd.partCalls, rd.pending, rd.noted = map[string]string{}, map[string]bool{}, nil, nil
	lg := &eventLog{rd: rd, req: req, resulted: map[string]bool{}, requested: map[string]bool{}, started: map[string]bool{}, via: map[string]string{}}
	if array {
		if err := rd.expect('[', ""); err != nil {
			return err
		}
	}
	for i := 0; ; i++ {
		at := rd.dec.InputOffset()
		if array && !rd.dec.More() {
			if _, err := rd.dec.Token(); err != nil {
				return rd.syntax(err, rd.dec.InputOffset())
			}
			break
		}
		var raw json.RawMessage
		if err := rd.dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return rd.syntax(err, at)
		}
		e := element{prefix: "events", index: i, offset: at, raw: raw}
		if err := lg.event(e); err != nil {
			return &Error{Offset: e.offset, Field: e.path(), Msg: e.path() + err.Error()}
		}
	}
	lg.flush()
	req.Waiting = map[string]bool{}
	for _, id := range lg.runCalls {
		if !lg.resulted[id] && !lg.requested[id] {
			req.Waiting[id] = true
		}
	}
	if len(req.Waiting) > 0 {
		req.Notes = append(req.Notes, Note{Offset: req.Offset, Field: "events",
			Text: fmt.Sprintf("the log ends with %d call(s) of its last run open and no approval asked (a frontend tool's calls wait for the client): sent on without their results, the provider refuses them", len(req.Waiting))})
	}
	if err := rd.finish(req, one(AGUIEvents)); err != nil {
		return err
	}
	return fn(req)
}

func (lg *eventLog) event(e element) error {
	fail := func(s string) error { return errors.New(s) }
	var ev aguiEvent
	if err := json.Unmarshal(e.raw, &ev); err != nil {
		return fail(": " + err.Error())
	}
	switch ev.Type {
	case "":
		return fail(".type: missing: not an AG-UI event")
	case "RUN_STARTED":
		lg.flush()
		lg.runCalls = nil
	case "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CHUNK":
		if ev.Role == "user" {
			lg.flush()
			if ev.Type == "TEXT_MESSAGE_START" {
				lg.rd.add(lg.req, e, []model.Message{model.UserText("")}, false)
			}
			return nil
		}
		lg.enter(ev.MessageID, e)
		if ev.Delta != "" && len(lg.assistant.Content) == 0 {
			lg.assistant.Content = append(lg.assistant.Content, model.Text(ev.Delta))
		}
	case "TOOL_CALL_START", "TOOL_CALL_CHUNK":
		if ev.ToolCallID == "" {
			if ev.Type == "TOOL_CALL_CHUNK" {
				return nil // a later chunk of a call already started
			}
			return fail(".toolCallId: missing")
		}
		name := ev.ToolCallName
		if name == "" {
			name = ev.ToolName
		}
		if lg.started[ev.ToolCallID] {
			if ev.Type == "TOOL_CALL_START" {
				// TanStack AI's continuations send an approved call again.
				lg.rd.note(lg.req, e, "restarted", e.path(), "a call started again (a continuation sending it once more) is read as the same call")
			}
			return nil
		}
		lg.started[ev.ToolCallID] = true
		lg.enter(ev.ParentMessageID, e)
		lg.assistant.Content = append(lg.assistant.Content, model.ToolCall(ev.ToolCallID, name, json.RawMessage("{}")))
		lg.runCalls = append(lg.runCalls, ev.ToolCallID)
	case "TOOL_CALL_END":
		if ev.Result != nil && ev.ToolCallID != "" { // TanStack AI 0.5: the result on the end event
			if lg.via[ev.ToolCallID] == "TOOL_CALL_RESULT" {
				delete(lg.via, ev.ToolCallID) // the same result, told twice (TanStack AI 0.42)
				return nil
			}
			lg.result(e, ev.ToolCallID, *ev.Result, false)
			lg.via[ev.ToolCallID] = ev.Type
		}
	case "TOOL_CALL_RESULT":
		if ev.ToolCallID == "" {
			return fail(".toolCallId: missing")
		}
		if lg.via[ev.ToolCallID] == "TOOL_CALL_END" {
			delete(lg.via, ev.ToolCallID) // the same result, told twice (TanStack AI 0.42)
			return nil
		}
		content := "null"
		if ev.Content != nil {
			content = *ev.Content
		}
		lg.result(e, ev.ToolCallID, content, len(ev.Error) > 0 || ev.State == "output-error" || ev.State == "error")
		lg.via[ev.ToolCallID] = ev.Type
	case "CUSTOM":
		if ev.Name != "approval-requested" {
			return nil
		}
		payload := ev.Value
		if !present(payload) {
			payload = ev.Data
		}
		var v struct {
			ToolCallID string `json:"toolCallId"`
			Approval   struct {
				ID string `json:"id"`
			} `json:"approval"`
		}
		if err := json.Unmarshal(payload, &v); err != nil || v.ToolCallID == "" {
			return fail(".value.toolCallId: missing on an approval-requested event")
		}
		lg.request(v.ToolCallID, v.Approval.ID)
	case "RUN_FINISHED":
		if o := ev.Outcome; o != nil && o.Type == "interrupt" {
			for _, in := range o.Interrupts {
				call := in.ToolCallID
				if call == "" {
					call = strings.TrimPrefix(in.ID, "approval_")
				}
				id := in.Metadata.ApprovalID
				if id == "" {
					id = in.ID
				}
				lg.request(call, id)
			}
		}
		lg.flush()
	case "MESSAGES_SNAPSHOT":
		lg.rd.note(lg.req, e, "snapshot", e.path(), "MESSAGES_SNAPSHOT events are not read: the conversation is rebuilt from the other events")
	}
	return nil
}

func hasCall(m *model.Message, id string) bool {
	for _, p := range m.Content {
		if p.Type == model.PartToolCall && p.ToolCallID == id {
			return true
		}
	}
	return false
}

// enter makes the assistant message of id the current one.
func (lg *eventLog) enter(id string, e element) {
	if lg.assistant != nil && (lg.tool == nil) && (id == "" || id == lg.msgID) {
		return
	}
	lg.flush()
	lg.assistant, lg.msgID, lg.aEl = &model.Message{Role: model.RoleAssistant}, id, e
}

func (lg *eventLog) result(e element, id, content string, isErr bool) {
	if lg.assistant != nil {
		lg.rd.add(lg.req, lg.aEl, []model.Message{*lg.assistant}, false)
		lg.assistant = nil
	}
	if lg.tool == nil {
		lg.tool, lg.tEl = &model.Message{Role: model.RoleTool}, e
	}
	out := model.TextOutput(content)
	if json.Valid([]byte(content)) {
		out = model.JSONOutput(json.RawMessage(content))
	}
	if isErr {
		out = model.ErrorTextOutput(content)
	}
	lg.tool.Content = append(lg.tool.Content, model.ToolResult(id, "", out))
	lg.resulted[id] = true
}

// request adds an approval request for a call, to its message.
func (lg *eventLog) request(call, approvalID string) {
	if lg.requested[call] {
		return
	}
	lg.requested[call] = true
	if approvalID == "" {
		approvalID = "approval_" + call
	}
	part := model.ApprovalRequest(approvalID, call)
	if lg.assistant != nil && hasCall(lg.assistant, call) {
		lg.assistant.Content = append(lg.assistant.Content, part)
		return
	}
	for i := len(lg.req.Messages) - 1; i >= 0; i-- {
		if m := &lg.req.Messages[i]; m.Role == model.RoleAssistant && hasCall(&m.Message, call) {
			m.Content = append(m.Content, part)
			return
		}
	}
}

// flush adds the messages being built.
func (lg *eventLog) flush() {
	if lg.assistant != nil {
		lg.rd.add(lg.req, lg.aEl, []model.Message{*lg.assistant}, false)
		lg.assistant = nil
	}
	if lg.tool != nil {
		lg.rd.add(lg.req, lg.tEl, []model.Message{*lg.tool}, false)
		lg.tool = nil
	}
}
