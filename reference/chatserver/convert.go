package chatserver

import (
	"encoding/json"
	"fmt"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/model"
)

// ToModelMessages turns a chat request into the canonical conversation: user
// text, assistant text and tool calls with their approval requests (and
// signatures), then a tool message per assistant message with what the
// client knows of each call: its result, its denial, or the user's answer.
// AG-UI resume entries answer the approval whose interrupt id (or approval
// id) they name.
func ToModelMessages(req *chat.Request) ([]model.Message, error) {
	msgs, _, err := Convert(req)
	return msgs, err
}

// Outcome is what the conversion made of one tool-call part: the message
// and part it was (indexes into the request's messages and their parts),
// the call, and the tool-message part it became (a result, a denial's
// result, the user's answer), or none: a call that goes on without one.
type Outcome struct {
	Message, Part int
	ToolCallID    string
	ToolName      string
	State         chat.ToolState
	// Became is the tool-message part the client's knowledge of the call
	// became; nil when it became none.
	Became *model.Part
}

// Convert is ToModelMessages that also says, per tool-call part, what it
// became (lint reports it part by part).
func Convert(req *chat.Request) ([]model.Message, []Outcome, error) {
	var outcomes []Outcome
	resume := map[string]chat.Resume{}
	for _, r := range req.Resume {
		resume[r.InterruptID] = r
	}
	var out []model.Message
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleUser, chat.RoleSystem:
			text := ""
			for _, p := range m.Parts {
				if p.Type == chat.PartText {
					text += p.Text
				}
			}
			msg := model.UserText(text)
			if m.Role == chat.RoleSystem {
				msg = model.SystemText(text)
			}
			out = append(out, msg)
		case chat.RoleAssistant:
			assistant := model.Message{Role: model.RoleAssistant}
			tool := model.Message{Role: model.RoleTool}
			for j, p := range m.Parts {
				switch p.Type {
				case chat.PartText:
					if p.Text != "" {
						assistant.Content = append(assistant.Content, model.Text(p.Text))
					}
				case chat.PartToolCall:
					if p.ToolCallID == "" || p.ToolName == "" {
						return nil, nil, fmt.Errorf("messages[%d].parts[%d]: a tool call needs an id and a name", i, j)
					}
					input := p.Input
					if len(input) == 0 {
						input = json.RawMessage("{}")
					}
					if !json.Valid(input) {
						return nil, nil, fmt.Errorf("messages[%d].parts[%d].input: not valid JSON", i, j)
					}
					call := model.ToolCall(p.ToolCallID, p.ToolName, input)
					call.ProviderExecuted = p.ProviderExecuted
					assistant.Content = append(assistant.Content, call)
					if a := p.Approval; a != nil && a.ID != "" {
						req := model.ApprovalRequest(a.ID, p.ToolCallID)
						req.Signature = a.Signature
						assistant.Content = append(assistant.Content, req)
					}
					o := Outcome{Message: i, Part: j, ToolCallID: p.ToolCallID, ToolName: p.ToolName, State: p.State}
					if part, ok := toolPart(p, resume); ok {
						tool.Content = append(tool.Content, part)
						o.Became = &part
					}
					outcomes = append(outcomes, o)
				default:
					return nil, nil, fmt.Errorf("messages[%d].parts[%d].type: unknown part type %q", i, j, p.Type)
				}
			}
			if len(assistant.Content) > 0 {
				out = append(out, assistant)
			}
			if len(tool.Content) > 0 {
				out = append(out, tool)
			}
		default:
			return nil, nil, fmt.Errorf("messages[%d].role: unknown role %q", i, m.Role)
		}
	}
	return out, outcomes, nil
}

// toolPart is what the client knows of a call's outcome, as a tool-message
// part: a result, or the user's answer to its approval.
func toolPart(p chat.Part, resume map[string]chat.Resume) (model.Part, bool) {
	switch p.State {
	case chat.OutputAvailable:
		out := p.Output
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		// A string output is a text result, as the server streamed it
		// (and as the AI SDK's convertToModelMessages reads one): a text
		// result keeps its representation in every later prompt.
		var text string
		if json.Unmarshal(out, &text) == nil {
			return model.ToolResult(p.ToolCallID, p.ToolName, model.TextOutput(text)), true
		}
		return model.ToolResult(p.ToolCallID, p.ToolName, model.JSONOutput(out)), true
	case chat.OutputError:
		return model.ToolResult(p.ToolCallID, p.ToolName, model.ErrorTextOutput(p.ErrorText)), true
	case chat.OutputDenied:
		reason := ""
		if p.Approval != nil {
			reason = p.Approval.Reason
		}
		return model.ToolResult(p.ToolCallID, p.ToolName, model.DeniedOutput(reason)), true
	}
	a := p.Approval
	if a == nil {
		return model.Part{}, false
	}
	if a.Approved != nil {
		resp := model.ApprovalResponse(a.ID, *a.Approved, a.Reason)
		resp.ProviderExecuted = p.ProviderExecuted
		return resp, true
	}
	for _, key := range []string{a.InterruptID, a.ID} {
		if r, ok := resume[key]; ok && key != "" {
			resp := model.ApprovalResponse(a.ID, r.Approved, r.Reason)
			resp.ProviderExecuted = p.ProviderExecuted
			return resp, true
		}
	}
	return model.Part{}, false
}
