package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// lcMessage is a LangChain message as JSON: flat (model_dump, or a role and
// tool_calls), wrapped in data (messages_to_dict), or a JS serializer's
// constructor with its kwargs.
type lcMessage struct {
	Type       string          `json:"type"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []lcToolCall    `json:"tool_calls"`
	ToolCallID *string         `json:"tool_call_id"`
	Name       string          `json:"name"`
	Status     string          `json:"status"`
	Kwargs     struct {
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"additional_kwargs"`
	Data   json.RawMessage `json:"data"`
	LC     json.RawMessage `json:"lc"`
	ID     json.RawMessage `json:"id"`
	KWArgs json.RawMessage `json:"kwargs"`
}

type lcToolCall struct {
	ID   *string         `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// langchainRoles maps LangChain's message types (and roles) to the model's.
var langchainRoles = map[string]model.Role{
	"human": model.RoleUser, "user": model.RoleUser, "HumanMessage": model.RoleUser, "HumanMessageChunk": model.RoleUser,
	"ai": model.RoleAssistant, "assistant": model.RoleAssistant, "AIMessage": model.RoleAssistant, "AIMessageChunk": model.RoleAssistant,
	"tool": model.RoleTool, "ToolMessage": model.RoleTool, "ToolMessageChunk": model.RoleTool,
	"system": model.RoleSystem, "developer": model.RoleSystem, "SystemMessage": model.RoleSystem,
}

// langchainMessage reads one LangChain message: an AIMessage's tool_calls
// (or, from older versions, additional_kwargs.tool_calls) are calls, a
// ToolMessage is the result of the call its tool_call_id names (an error
// when its status says so).
func (rd *reader) langchainMessage(req *Request, e element) error {
	var m lcMessage
	if err := json.Unmarshal(e.raw, &m); err != nil {
		return err
	}
	kind := m.Type
	switch {
	case present(m.LC) && present(m.KWArgs):
		var path []string
		_ = json.Unmarshal(m.ID, &path)
		if len(path) > 0 {
			kind = path[len(path)-1]
		}
		var inner lcMessage
		if err := json.Unmarshal(m.KWArgs, &inner); err != nil {
			return fmt.Errorf(".kwargs: %w", err)
		}
		m = inner
	case present(m.Data):
		var inner lcMessage
		if err := json.Unmarshal(m.Data, &inner); err != nil {
			return fmt.Errorf(".data: %w", err)
		}
		m = inner
	}
	if kind == "" || kind == "constructor" {
		kind = m.Role
	}
	role, ok := langchainRoles[kind]
	if !ok {
		if kind == "function" {
			rd.note(req, e, "lc-function", e.path(), "a FunctionMessage names no call id: not paired")
			return nil
		}
		return fmt.Errorf(".type: unknown LangChain message type %q (want human, ai, tool or system)", kind)
	}
	text := lcText(m.Content)
	msg := model.Message{Role: role}
	switch role {
	case model.RoleUser, model.RoleSystem:
		msg.Content = []model.Part{model.Text(text)}
	case model.RoleAssistant:
		if text != "" {
			msg.Content = append(msg.Content, model.Text(text))
		}
		for k, c := range m.ToolCalls {
			if c.ID == nil || *c.ID == "" {
				return fmt.Errorf(".tool_calls[%d].id: missing", k)
			}
			input := c.Args
			if !present(input) {
				input = json.RawMessage("{}")
			}
			msg.Content = append(msg.Content, model.ToolCall(*c.ID, c.Name, input))
		}
		if len(m.ToolCalls) == 0 {
			for k, c := range m.Kwargs.ToolCalls {
				if c.ID == "" {
					return fmt.Errorf(".additional_kwargs.tool_calls[%d].id: missing", k)
				}
				input := json.RawMessage(c.Function.Arguments)
				if !json.Valid(input) {
					input = json.RawMessage("{}")
				}
				msg.Content = append(msg.Content, model.ToolCall(c.ID, c.Function.Name, input))
			}
		}
	case model.RoleTool:
		if m.ToolCallID == nil || *m.ToolCallID == "" {
			return errors.New(".tool_call_id: missing on a ToolMessage")
		}
		out := model.TextOutput(text)
		if m.Status == "error" {
			out = model.ErrorTextOutput(text)
		}
		msg.Content = []model.Part{model.ToolResult(*m.ToolCallID, m.Name, out)}
	}
	rd.add(req, e, []model.Message{msg}, true)
	return nil
}

// lcText is a LangChain content's text: a string, or the text of its
// content blocks.
func lcText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}
