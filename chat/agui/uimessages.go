package agui

import (
	"encoding/json"
	"fmt"

	"github.com/approval-conformance-kit/ack/chat"
)

// uiRequest is the request body of TanStack AI 0.5's client: its UIMessages
// as they are, and the client's data.
type uiRequest struct {
	Messages []uiMessage    `json:"messages"`
	Data     map[string]any `json:"data"`
}

type uiMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"`
	Parts []uiPart `json:"parts"`
}

// uiPart is a UIMessage part of TanStack AI 0.5: text (content), a tool
// call (id, name, arguments, state, approval, output) or a tool result
// (toolCallId, content, state, error).
type uiPart struct {
	Type    string `json:"type"`
	Content string `json:"content,omitempty"`
	// Text is accepted on reading, for clients that name it so.
	Text string `json:"text,omitempty"`

	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments *string         `json:"arguments,omitempty"`
	State     string          `json:"state,omitempty"`
	Approval  *wireApproval   `json:"approval,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`

	ToolCallID string `json:"toolCallId,omitempty"`
	Error      string `json:"error,omitempty"`
}

// TanStack AI 0.5's tool-call states stop at approval-responded: an outcome
// is the part's output and a tool-result part.
func state05(p chat.Part) string {
	switch {
	case !p.State.Terminal():
		return string(p.State)
	case p.Approval != nil:
		return string(chat.ApprovalResponded)
	default:
		return string(chat.InputComplete)
	}
}

func encodeUIRequest(req *chat.Request) ([]byte, error) {
	out := uiRequest{Messages: []uiMessage{}, Data: map[string]any{}}
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSystem, chat.RoleAssistant:
		default:
			return nil, fmt.Errorf("agui: messages[%d].role: unknown role %q", i, m.Role)
		}
		um := uiMessage{ID: m.ID, Role: m.Role, Parts: []uiPart{}}
		var results []uiPart
		for _, p := range m.Parts {
			switch p.Type {
			case chat.PartText:
				um.Parts = append(um.Parts, uiPart{Type: "text", Content: p.Text})
			case chat.PartToolCall:
				args := argumentsOf(p)
				up := uiPart{Type: "tool-call", ID: p.ToolCallID, Name: p.ToolName, Arguments: &args, State: state05(p), Output: p.Output}
				if a := p.Approval; a != nil {
					up.Approval = &wireApproval{ID: a.ID, NeedsApproval: true, Approved: a.Approved, Signature: a.Signature}
				}
				um.Parts = append(um.Parts, up)
				switch p.State {
				case chat.OutputAvailable:
					content := "null"
					if len(p.Output) > 0 {
						content = string(p.Output)
					}
					results = append(results, uiPart{Type: "tool-result", ToolCallID: p.ToolCallID, Content: content, State: "complete"})
				case chat.OutputError:
					results = append(results, uiPart{Type: "tool-result", ToolCallID: p.ToolCallID, Content: p.ErrorText, State: "error", Error: p.ErrorText})
				}
			}
		}
		um.Parts = append(um.Parts, results...)
		out.Messages = append(out.Messages, um)
	}
	return json.Marshal(out)
}

func decodeUIRequest(body []byte) (*chat.Request, error) {
	var in uiRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("agui: request body: %w", err)
	}
	if in.Messages == nil {
		return nil, fmt.Errorf("agui: request body: messages: missing")
	}
	req := &chat.Request{Messages: []chat.Message{}}
	type result struct {
		i, j int
		part uiPart
	}
	var results []result
	for i, m := range in.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSystem, chat.RoleAssistant:
		default:
			return nil, fmt.Errorf("agui: messages[%d].role: unknown role %q", i, m.Role)
		}
		msg := chat.Message{ID: m.ID, Role: m.Role}
		for j, up := range m.Parts {
			switch up.Type {
			case "text":
				text := up.Content
				if text == "" {
					text = up.Text
				}
				msg.Parts = append(msg.Parts, chat.Part{Type: chat.PartText, Text: text})
			case "tool-call":
				p, err := callFromUIPart(i, j, up)
				if err != nil {
					return nil, err
				}
				msg.Parts = append(msg.Parts, p)
			case "tool-result":
				if up.ToolCallID == "" {
					return nil, fmt.Errorf("agui: messages[%d].parts[%d].toolCallId: missing", i, j)
				}
				results = append(results, result{i, j, up})
			default:
				// Thinking and other parts carry nothing about tool calls.
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	// A result part may sit in a later assistant message than its call (the
	// one a continuation streamed into).
	for _, r := range results {
		p := findCall(req.Messages, r.part.ToolCallID)
		if p == nil {
			return nil, fmt.Errorf("agui: messages[%d].parts[%d].toolCallId: no tool-call part %q in the request", r.i, r.j, r.part.ToolCallID)
		}
		applyResult(p, r.part)
	}
	return req, nil
}

func findCall(msgs []chat.Message, id string) *chat.Part {
	for i := range msgs {
		for j := range msgs[i].Parts {
			if p := &msgs[i].Parts[j]; p.Type == chat.PartToolCall && p.ToolCallID == id {
				return p
			}
		}
	}
	return nil
}

func callFromUIPart(i, j int, up uiPart) (chat.Part, error) {
	if up.ID == "" {
		return chat.Part{}, fmt.Errorf("agui: messages[%d].parts[%d].id: missing", i, j)
	}
	if up.Name == "" {
		return chat.Part{}, fmt.Errorf("agui: messages[%d].parts[%d].name: missing", i, j)
	}
	st, ok := stateFromWire(up.State)
	if !ok {
		return chat.Part{}, fmt.Errorf("agui: messages[%d].parts[%d].state: unknown state %q", i, j, up.State)
	}
	p := chat.Part{Type: chat.PartToolCall, ToolCallID: up.ID, ToolName: up.Name, State: st, Output: up.Output}
	if up.Arguments != nil {
		p.InputText = *up.Arguments
		if *up.Arguments != "" {
			if !json.Valid([]byte(*up.Arguments)) {
				return chat.Part{}, fmt.Errorf("agui: messages[%d].parts[%d].arguments: not valid JSON", i, j)
			}
			p.Input = json.RawMessage(*up.Arguments)
		}
	}
	if a := up.Approval; a != nil {
		if a.ID == "" {
			return chat.Part{}, fmt.Errorf("agui: messages[%d].parts[%d].approval.id: missing", i, j)
		}
		p.Approval = &chat.Approval{ID: a.ID, Approved: a.Approved, Signature: a.Signature}
	}
	if len(p.Output) > 0 && !st.Terminal() && st != chat.ApprovalResponded && st != chat.ApprovalRequested {
		// A client tool's output lives on its part.
		p.State = chat.OutputAvailable
	}
	return p, nil
}

// applyResult gives a call the outcome its tool-result part holds.
func applyResult(p *chat.Part, up uiPart) {
	if up.State == "error" || up.Error != "" {
		p.State = chat.OutputError
		p.ErrorText = up.Error
		if p.ErrorText == "" {
			p.ErrorText = up.Content
		}
		return
	}
	p.State = chat.OutputAvailable
	if len(p.Output) == 0 {
		if json.Valid([]byte(up.Content)) {
			p.Output = json.RawMessage(up.Content)
		} else {
			p.Output, _ = json.Marshal(up.Content)
		}
	}
}
