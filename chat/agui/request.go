// Package agui is the AG-UI protocol over server-sent events, as TanStack AI
// speaks it: RunAgentInput requests and a stream of AG-UI events, with tool
// approvals either as CUSTOM "approval-requested" events (the legacy form,
// TanStack AI up to 0.42) or as interrupts in the RUN_FINISHED outcome (the
// current form), answered by resume entries.
package agui

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/approval-conformance-kit/ack/chat"
)

// runInput is the request body (AG-UI RunAgentInput, with TanStack's
// extensions: resume, and UIMessage parts on messages).
type runInput struct {
	ThreadID       string            `json:"threadId"`
	RunID          string            `json:"runId"`
	ParentRunID    string            `json:"parentRunId,omitempty"`
	State          json.RawMessage   `json:"state,omitempty"`
	Messages       []wireMessage     `json:"messages"`
	Tools          []json.RawMessage `json:"tools"`
	Context        []json.RawMessage `json:"context"`
	ForwardedProps json.RawMessage   `json:"forwardedProps,omitempty"`
	Resume         []wireResume      `json:"resume,omitempty"`
}

type wireMessage struct {
	ID         string          `json:"id,omitempty"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []wireToolCall  `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Parts      []wirePart      `json:"parts,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// wirePart is a TanStack UIMessage part: text, or a tool call.
type wirePart struct {
	Type string `json:"type"`
	// Content is a text part's text (TanStack); Text is accepted too.
	Content string `json:"content,omitempty"`
	Text    string `json:"text,omitempty"`

	ID               string          `json:"id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        string          `json:"arguments,omitempty"`
	Input            json.RawMessage `json:"input,omitempty"`
	State            string          `json:"state,omitempty"`
	Approval         *wireApproval   `json:"approval,omitempty"`
	Output           json.RawMessage `json:"output,omitempty"`
	ErrorText        string          `json:"errorText,omitempty"`
	ProviderExecuted bool            `json:"providerExecuted,omitempty"`
}

type wireApproval struct {
	ID            string `json:"id"`
	NeedsApproval bool   `json:"needsApproval"`
	Approved      *bool  `json:"approved,omitempty"`
	Reason        string `json:"reason,omitempty"`
	Signature     string `json:"signature,omitempty"`
	InterruptID   string `json:"interruptId,omitempty"`
}

type wireResume struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload,omitempty"`
}

type resumePayload struct {
	Approved *bool  `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

// TanStack's names for the states it has; the others keep ours.
var stateToWire = map[chat.ToolState]string{
	chat.OutputAvailable: "complete",
	chat.OutputError:     "error",
}

func stateFromWire(s string) (chat.ToolState, bool) {
	switch s {
	case "complete":
		return chat.OutputAvailable, true
	case "error":
		return chat.OutputError, true
	}
	st := chat.ToolState(s)
	return st, st.Known()
}

func encodeRequest(req *chat.Request) ([]byte, error) {
	in := runInput{ThreadID: req.ThreadID, RunID: req.RunID, ParentRunID: req.ParentRunID,
		State: json.RawMessage("{}"), ForwardedProps: json.RawMessage("{}"),
		Messages: []wireMessage{}, Tools: []json.RawMessage{}, Context: []json.RawMessage{}}
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSystem:
			content, _ := json.Marshal(textOf(m))
			in.Messages = append(in.Messages, wireMessage{ID: m.ID, Role: m.Role, Content: content, Parts: encodeParts(m.Parts)})
		case chat.RoleAssistant:
			wm := wireMessage{ID: m.ID, Role: m.Role, Parts: encodeParts(m.Parts)}
			if t := textOf(m); t != "" {
				wm.Content, _ = json.Marshal(t)
			}
			var tools []wireMessage
			for _, p := range m.Parts {
				if p.Type != chat.PartToolCall {
					continue
				}
				tc := wireToolCall{ID: p.ToolCallID, Type: "function"}
				tc.Function.Name = p.ToolName
				tc.Function.Arguments = argumentsOf(p)
				wm.ToolCalls = append(wm.ToolCalls, tc)
				if content, ok := toolContent(p); ok {
					tools = append(tools, wireMessage{ID: "tool-" + p.ToolCallID, Role: "tool", ToolCallID: p.ToolCallID, Content: content})
				}
			}
			in.Messages = append(in.Messages, wm)
			in.Messages = append(in.Messages, tools...)
		default:
			return nil, fmt.Errorf("agui: messages[%d].role: unknown role %q", i, m.Role)
		}
	}
	for _, r := range req.Resume {
		payload, _ := json.Marshal(resumePayload{Approved: &r.Approved, Reason: r.Reason})
		in.Resume = append(in.Resume, wireResume{InterruptID: r.InterruptID, Status: "resolved", Payload: payload})
	}
	return json.Marshal(in)
}

func textOf(m chat.Message) string {
	var s string
	for _, p := range m.Parts {
		if p.Type == chat.PartText {
			s += p.Text
		}
	}
	return s
}

func argumentsOf(p chat.Part) string {
	if len(p.Input) > 0 {
		return string(p.Input)
	}
	return p.InputText
}

// toolContent is the tool message TanStack's wire serializer adds for a call
// the client holds an outcome of.
func toolContent(p chat.Part) (json.RawMessage, bool) {
	var v any
	switch p.State {
	case chat.OutputAvailable:
		if len(p.Output) == 0 {
			v = nil
		} else {
			v = p.Output
		}
	case chat.OutputError:
		v = map[string]string{"error": p.ErrorText}
	case chat.OutputDenied, chat.ApprovalResponded:
		if p.Approval == nil || p.Approval.Approved == nil {
			return nil, false
		}
		if *p.Approval.Approved {
			v = map[string]any{"approved": true, "pendingExecution": true, "message": "User approved this action"}
		} else {
			v = map[string]any{"approved": false, "message": "User denied this action"}
		}
	default:
		return nil, false
	}
	b, _ := json.Marshal(v)
	s, _ := json.Marshal(string(b))
	return s, true
}

func encodeParts(parts []chat.Part) []wirePart {
	out := make([]wirePart, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case chat.PartText:
			out = append(out, wirePart{Type: "text", Content: p.Text})
		case chat.PartToolCall:
			wp := wirePart{Type: "tool-call", ID: p.ToolCallID, Name: p.ToolName, Arguments: argumentsOf(p),
				Input: p.Input, State: string(p.State), Output: p.Output, ErrorText: p.ErrorText, ProviderExecuted: p.ProviderExecuted}
			if s, ok := stateToWire[p.State]; ok {
				wp.State = s
			}
			if a := p.Approval; a != nil {
				wp.Approval = &wireApproval{ID: a.ID, NeedsApproval: true, Approved: a.Approved, Reason: a.Reason, Signature: a.Signature, InterruptID: a.InterruptID}
			}
			out = append(out, wp)
		}
	}
	return out
}

func decodeRequest(body []byte) (*chat.Request, error) {
	var in runInput
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("agui: request body: %w", err)
	}
	req := &chat.Request{ThreadID: in.ThreadID, RunID: in.RunID, ParentRunID: in.ParentRunID, Messages: []chat.Message{}}
	if in.Messages == nil {
		return nil, fmt.Errorf("agui: request body: messages: missing")
	}
	// Tool messages give outcomes to calls of messages without parts.
	outcomes := map[string]json.RawMessage{}
	for _, m := range in.Messages {
		if m.Role == "tool" && m.ToolCallID != "" {
			outcomes[m.ToolCallID] = m.Content
		}
	}
	for i, m := range in.Messages {
		switch m.Role {
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("agui: messages[%d].toolCallId: missing on a tool message", i)
			}
			continue
		case "user", "system", "developer":
			role := m.Role
			if role == "developer" {
				role = chat.RoleSystem
			}
			msg := chat.Message{ID: m.ID, Role: role}
			text, err := contentText(m.Content)
			if err != nil {
				return nil, fmt.Errorf("agui: messages[%d].content: %w", i, err)
			}
			if text == "" {
				// A UIMessage without AG-UI content ({messages, data} bodies
				// of clients before 0.11) keeps its text in its parts.
				for _, p := range m.Parts {
					if p.Type == "text" {
						text += p.Content + p.Text
					}
				}
			}
			if text != "" {
				msg.Parts = []chat.Part{{Type: chat.PartText, Text: text}}
			}
			req.Messages = append(req.Messages, msg)
		case "assistant":
			msg := chat.Message{ID: m.ID, Role: chat.RoleAssistant}
			if len(m.Parts) > 0 {
				parts, err := decodeParts(i, m.Parts)
				if err != nil {
					return nil, err
				}
				msg.Parts = parts
			} else {
				text, err := contentText(m.Content)
				if err != nil {
					return nil, fmt.Errorf("agui: messages[%d].content: %w", i, err)
				}
				if text != "" {
					msg.Parts = append(msg.Parts, chat.Part{Type: chat.PartText, Text: text})
				}
				for j, tc := range m.ToolCalls {
					p, err := callFromToolCall(tc, outcomes[tc.ID])
					if err != nil {
						return nil, fmt.Errorf("agui: messages[%d].toolCalls[%d]%w", i, j, err)
					}
					msg.Parts = append(msg.Parts, p)
				}
			}
			req.Messages = append(req.Messages, msg)
		default:
			return nil, fmt.Errorf("agui: messages[%d].role: unknown role %q", i, m.Role)
		}
	}
	for i, r := range in.Resume {
		if r.InterruptID == "" {
			return nil, fmt.Errorf("agui: resume[%d].interruptId: missing", i)
		}
		switch r.Status {
		case "resolved":
			var p resumePayload
			if len(r.Payload) == 0 {
				return nil, fmt.Errorf("agui: resume[%d].payload: missing", i)
			}
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				return nil, fmt.Errorf("agui: resume[%d].payload: %w", i, err)
			}
			if p.Approved == nil {
				return nil, fmt.Errorf("agui: resume[%d].payload.approved: missing", i)
			}
			req.Resume = append(req.Resume, chat.Resume{InterruptID: r.InterruptID, Approved: *p.Approved, Reason: p.Reason})
		case "cancelled":
			req.Resume = append(req.Resume, chat.Resume{InterruptID: r.InterruptID, Approved: false, Reason: "Tool execution cancelled"})
		default:
			return nil, fmt.Errorf("agui: resume[%d].status: unknown status %q (want resolved or cancelled)", i, r.Status)
		}
	}
	return req, nil
}

// contentText reads a message's content: a string, or an array of text
// parts.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or an array of text parts")
	}
	for _, p := range parts {
		s += p.Text
	}
	return s, nil
}

func callFromToolCall(tc wireToolCall, outcome json.RawMessage) (chat.Part, error) {
	if tc.ID == "" {
		return chat.Part{}, fmt.Errorf(".id: missing")
	}
	if tc.Function.Name == "" {
		return chat.Part{}, fmt.Errorf(".function.name: missing")
	}
	p := chat.Part{Type: chat.PartToolCall, ToolCallID: tc.ID, ToolName: tc.Function.Name, State: chat.InputComplete, InputText: tc.Function.Arguments}
	if tc.Function.Arguments != "" {
		if !json.Valid([]byte(tc.Function.Arguments)) {
			return chat.Part{}, fmt.Errorf(".function.arguments: not valid JSON")
		}
		p.Input = json.RawMessage(tc.Function.Arguments)
	}
	if len(outcome) == 0 {
		return p, nil
	}
	text, err := contentText(outcome)
	if err != nil {
		return chat.Part{}, fmt.Errorf(": its tool message's content: %w", err)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) == nil {
		if a, ok := obj["approved"]; ok {
			approved := string(a) == "true"
			if _, pending := obj["pendingExecution"]; pending || !approved {
				p.Approval = &chat.Approval{ID: "approval_" + tc.ID, Approved: &approved}
				p.State = chat.ApprovalResponded
				return p, nil
			}
		}
		if e, ok := obj["error"]; ok && len(obj) == 1 {
			_ = json.Unmarshal(e, &p.ErrorText)
			p.State = chat.OutputError
			return p, nil
		}
	}
	if json.Valid([]byte(text)) {
		p.Output = json.RawMessage(text)
	} else {
		p.Output, _ = json.Marshal(text)
	}
	p.State = chat.OutputAvailable
	return p, nil
}

func decodeParts(i int, parts []wirePart) ([]chat.Part, error) {
	var out []chat.Part
	for j, wp := range parts {
		switch wp.Type {
		case "text":
			text := wp.Content
			if text == "" {
				text = wp.Text
			}
			out = append(out, chat.Part{Type: chat.PartText, Text: text})
		case "tool-call":
			if wp.ID == "" {
				return nil, fmt.Errorf("agui: messages[%d].parts[%d].id: missing", i, j)
			}
			if wp.Name == "" {
				return nil, fmt.Errorf("agui: messages[%d].parts[%d].name: missing", i, j)
			}
			st, ok := stateFromWire(wp.State)
			if !ok {
				return nil, fmt.Errorf("agui: messages[%d].parts[%d].state: unknown state %q", i, j, wp.State)
			}
			p := chat.Part{Type: chat.PartToolCall, ToolCallID: wp.ID, ToolName: wp.Name, InputText: wp.Arguments, Input: wp.Input,
				State: st, Output: wp.Output, ErrorText: wp.ErrorText, ProviderExecuted: wp.ProviderExecuted}
			if len(p.Input) == 0 && wp.Arguments != "" && json.Valid([]byte(wp.Arguments)) {
				p.Input = json.RawMessage(wp.Arguments)
			}
			if len(p.Input) > 0 && !json.Valid(p.Input) {
				return nil, fmt.Errorf("agui: messages[%d].parts[%d].input: not valid JSON", i, j)
			}
			if a := wp.Approval; a != nil {
				if a.ID == "" {
					return nil, fmt.Errorf("agui: messages[%d].parts[%d].approval.id: missing", i, j)
				}
				p.Approval = &chat.Approval{ID: a.ID, Approved: a.Approved, Reason: a.Reason, Signature: a.Signature, InterruptID: a.InterruptID}
			}
			out = append(out, p)
		default:
			// Other UIMessage parts (thinking, images) carry nothing about
			// tool calls.
		}
	}
	return out, nil
}
