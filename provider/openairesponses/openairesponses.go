// Package openairesponses is the OpenAI Responses wire format: input items
// (messages, function_call, function_call_output, mcp_approval_request,
// mcp_approval_response), response objects with output items, and the
// event stream (response.created, response.output_item.added, text and
// argument deltas, response.output_item.done, response.completed).
package openairesponses

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

func init() { provider.Register(Codec{}) }

// Model is the model name the client sends.
const Model = "ack-simulated"

// ServerLabel is the MCP server label of provider-executed tools whose
// part names none (see LabelPart).
const ServerLabel = "ack"

// LabelPart returns the part with the MCP server label its provider-executed
// call belongs to, for the output items that name it; the label travels in
// the part's provider options ({"openai": {"serverLabel": ...}}).
func LabelPart(p model.Part, label string) model.Part {
	opts := map[string]map[string]any{}
	_ = json.Unmarshal(p.ProviderOptions, &opts) // absent or foreign options are replaced
	if opts["openai"] == nil {
		opts["openai"] = map[string]any{}
	}
	opts["openai"]["serverLabel"] = label
	p.ProviderOptions, _ = json.Marshal(opts) // plain maps always marshal
	return p
}

// labelOf is the MCP server label a part carries, or ServerLabel.
func labelOf(p model.Part) string {
	var opts struct {
		OpenAI struct {
			ServerLabel string `json:"serverLabel"`
		} `json:"openai"`
	}
	if json.Unmarshal(p.ProviderOptions, &opts) == nil && opts.OpenAI.ServerLabel != "" {
		return opts.OpenAI.ServerLabel
	}
	return ServerLabel
}

// Codec is the Responses format.
type Codec struct{}

// Profile implements provider.Codec.
func (Codec) Profile() wire.Profile { return wire.OpenAIResponses }

// Path implements provider.Codec.
func (Codec) Path() string { return "/responses" }

type request struct {
	Model string `json:"model"`
	// Instructions is a system prompt beside the input (a string).
	Instructions json.RawMessage `json:"instructions,omitempty"`
	Input        input           `json:"input"`
	Tools        []tool          `json:"tools,omitempty"`
	Stream       bool            `json:"stream,omitempty"`
	// Conversation names a conversation of the Conversations API, whose
	// items the provider would put before the input.
	Conversation json.RawMessage `json:"conversation,omitempty"`
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// ServerLabel names the server of an mcp tool.
	ServerLabel string `json:"server_label,omitempty"`
}

// item is an input or output item.
type item struct {
	Type      string          `json:"type,omitempty"`
	ID        string          `json:"id,omitempty"`
	Role      string          `json:"role,omitempty"`
	Status    string          `json:"status,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments *string         `json:"arguments,omitempty"`
	// Output is a function or custom tool call's output (a string, or a
	// list of input_text, input_image and input_file parts) or an
	// mcp_call's output (a string).
	Output json.RawMessage `json:"output,omitempty"`
	// Input is a custom tool call's free-form input.
	Input             *string `json:"input,omitempty"`
	ServerLabel       string  `json:"server_label,omitempty"`
	ApprovalRequestID string  `json:"approval_request_id,omitempty"`
	Approve           *bool   `json:"approve,omitempty"`
	Reason            string  `json:"reason,omitempty"`
}

type contentPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations *[]any `json:"annotations,omitempty"`
}

func strp(s string) *string { return &s }

// rawString is s as a JSON string.
func rawString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// outputText reads an output: a string, or the text of a list of content
// parts (images and files carry no text). ok is false when the output is
// missing or null.
func outputText(raw json.RawMessage) (text string, ok bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	text, err = itemText(raw)
	return text, true, err
}

// input is the request's input: a list of items, or a string (one user
// message).
type input []item

// UnmarshalJSON implements json.Unmarshaler.
func (in *input) UnmarshalJSON(b []byte) error {
	if s, ok := provider.UnmarshalString(b); ok {
		c, _ := json.Marshal(s) // a string always marshals
		*in = input{{Role: "user", Content: c}}
		return nil
	}
	var items []item
	if err := json.Unmarshal(b, &items); err != nil {
		return errors.New("want a string or an array of items")
	}
	*in = items
	return nil
}

func textContent(typ, s string) json.RawMessage {
	parts := []contentPart{{Type: typ, Text: s}}
	if typ == "output_text" {
		parts[0].Annotations = &[]any{}
	}
	b, _ := json.Marshal(parts) // plain strings always marshal
	return b
}

// EncodeRequest implements provider.Codec.
func (Codec) EncodeRequest(req *llm.Request, stream bool) ([]byte, error) {
	r := request{Model: Model, Input: input{}, Stream: stream}
	for _, t := range req.Tools {
		r.Tools = append(r.Tools, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			c, _ := json.Marshal(provider.Text(m)) // a string always marshals
			r.Input = append(r.Input, item{Role: string(m.Role), Content: c})
		case model.RoleAssistant:
			if t := provider.Text(m); t != "" {
				r.Input = append(r.Input, item{Type: "message", Role: "assistant", Content: textContent("output_text", t)})
			}
			calls := map[string]model.Part{}
			for j, p := range m.Content {
				switch {
				case p.Type == model.PartToolCall:
					input, err := provider.ValidJSON(p.Input, fmt.Sprintf("messages[%d].content[%d].input", i, j))
					if err != nil {
						return nil, err
					}
					if p.ProviderExecuted {
						calls[p.ToolCallID] = p
						continue
					}
					r.Input = append(r.Input, item{Type: "function_call", CallID: p.ToolCallID, Name: p.ToolName, Arguments: strp(string(input))})
				case p.Type == model.PartToolApprovalRequest:
					if c, ok := calls[p.ToolCallID]; ok {
						r.Input = append(r.Input, item{Type: "mcp_approval_request", ID: p.ApprovalID, Name: c.ToolName, Arguments: strp(string(c.Input)), ServerLabel: labelOf(c)})
					}
				}
			}
		case model.RoleTool:
			for _, p := range m.Content {
				switch {
				case p.Type == model.PartToolResult && !p.ProviderExecuted:
					r.Input = append(r.Input, item{Type: "function_call_output", CallID: p.ToolCallID, Output: rawString(provider.OutputText(p.Output))})
				case p.Type == model.PartToolApprovalResponse && p.ProviderExecuted:
					approve := p.Approved
					r.Input = append(r.Input, item{Type: "mcp_approval_response", ApprovalRequestID: p.ApprovalID, Approve: &approve, Reason: p.Reason})
				}
			}
		}
	}
	return json.Marshal(r)
}

func itemText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", nil
	}
	s, ok := provider.UnmarshalString(raw)
	if ok {
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	for _, p := range parts {
		s += p.Text
	}
	return s, nil
}

// arrayRequest is a request whose input is an array of items, the form
// the clients send: it decodes in one pass, where the input's own decoder
// (for the string form too) reads the input a second time.
type arrayRequest struct {
	Model        string          `json:"model"`
	Instructions json.RawMessage `json:"instructions,omitempty"`
	Input        []item          `json:"input"`
	Tools        []tool          `json:"tools,omitempty"`
	Stream       bool            `json:"stream,omitempty"`
	Conversation json.RawMessage `json:"conversation,omitempty"`
}

// decodeRequest decodes a request body: in one pass when the input is an
// array of items; anything else (a string input, no input, an error) as
// the request type reads it.
func decodeRequest(body []byte) (request, error) {
	var a arrayRequest
	if json.Unmarshal(body, &a) == nil && a.Input != nil {
		return request{Model: a.Model, Instructions: a.Instructions, Input: a.Input, Tools: a.Tools, Stream: a.Stream, Conversation: a.Conversation}, nil
	}
	var r request
	err := json.Unmarshal(body, &r)
	return r, err
}

// DecodeRequest implements provider.Codec: items in a row of one kind join
// one canonical message (assistant items into an assistant message, outputs
// and approval responses into a tool message); instructions come first, as
// a system message. Every input item type the API and its clients have is
// accepted (the openai client's ResponseInputItem union); items the
// provider keeps for itself (reasoning, hosted tool calls, compaction) have
// no canonical form and keep only their place in the view.
func (Codec) DecodeRequest(body []byte) (*provider.Decoded, error) {
	r, err := decodeRequest(body)
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	if len(r.Conversation) > 0 && string(r.Conversation) != "null" {
		return nil, errors.New("conversation: the simulator keeps no conversations of the Conversations API; send the input whole, or continue a response by previous_response_id")
	}
	if r.Input == nil {
		return nil, errors.New("input: missing")
	}
	d := &provider.Decoded{Request: &llm.Request{}, View: wire.View{Profile: wire.OpenAIResponses}, Stream: r.Stream, IncludeUsage: true}
	for i, t := range r.Tools {
		def, err := toolDef(t)
		if err != nil {
			return nil, fmt.Errorf("tools[%d].%w", i, err)
		}
		d.Request.Tools = append(d.Request.Tools, def)
	}
	msgs := &d.Request.Messages
	var names provider.CallNames // the results' tool names, in linear time
	if len(r.Instructions) > 0 && string(r.Instructions) != "null" {
		var text string
		if err := json.Unmarshal(r.Instructions, &text); err != nil {
			return nil, errors.New("instructions: want a string")
		}
		*msgs = append(*msgs, model.SystemText(text))
	}
	into := func(role model.Role) int {
		if n := len(*msgs); n > 0 && (*msgs)[n-1].Role == role && (role == model.RoleAssistant || role == model.RoleTool) {
			return n - 1
		}
		*msgs = append(*msgs, model.Message{Role: role})
		return len(*msgs) - 1
	}
	for i, it := range r.Input {
		field := fmt.Sprintf("input[%d]", i)
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		entry := wire.Entry{Role: typ, Canonical: -1}
		switch typ {
		case "message":
			text, err := itemText(it.Content)
			if err != nil {
				return nil, fmt.Errorf("%s.content: %w", field, err)
			}
			switch it.Role {
			case "user":
				*msgs = append(*msgs, model.UserText(text))
				entry.Canonical = len(*msgs) - 1
			case "system", "developer":
				*msgs = append(*msgs, model.SystemText(text))
				entry.Canonical = len(*msgs) - 1
			case "assistant":
				entry.Canonical = into(model.RoleAssistant)
				(*msgs)[entry.Canonical].Content = append((*msgs)[entry.Canonical].Content, model.Text(text))
			default:
				return nil, fmt.Errorf("%s.role: unknown role %q", field, it.Role)
			}
		case "function_call", "custom_tool_call":
			if it.CallID == "" || it.Name == "" {
				return nil, fmt.Errorf("%s: a %s needs call_id and name", field, typ)
			}
			var input json.RawMessage
			if typ == "custom_tool_call" {
				if it.Input == nil {
					return nil, fmt.Errorf("%s.input: missing", field)
				}
				input = rawString(*it.Input) // free-form text
			} else {
				args := ""
				if it.Arguments != nil {
					args = *it.Arguments
				}
				var err error
				if input, err = provider.ValidJSON(json.RawMessage(args), field+".arguments"); err != nil {
					return nil, err
				}
			}
			entry.Canonical = into(model.RoleAssistant)
			(*msgs)[entry.Canonical].Content = append((*msgs)[entry.Canonical].Content, model.ToolCall(it.CallID, it.Name, input))
			entry.Calls = []string{it.CallID}
		case "function_call_output", "custom_tool_call_output":
			if it.CallID == "" {
				return nil, fmt.Errorf("%s.call_id: missing", field)
			}
			out, ok, err := outputText(it.Output)
			if err != nil {
				return nil, fmt.Errorf("%s.output: %w", field, err)
			}
			if !ok {
				return nil, MissingParameter(field + ".output")
			}
			entry.Canonical = into(model.RoleTool)
			(*msgs)[entry.Canonical].Content = append((*msgs)[entry.Canonical].Content, model.ToolResult(it.CallID, names.Name(*msgs, it.CallID), provider.OutputFromText(out, false)))
			entry.Results = []wire.Result{{ID: it.CallID, Canonical: entry.Canonical}}
		case "mcp_approval_request":
			if it.ID == "" || it.Name == "" {
				return nil, fmt.Errorf("%s: an mcp_approval_request needs id and name", field)
			}
			args := "{}"
			if it.Arguments != nil && *it.Arguments != "" {
				args = *it.Arguments
			}
			input, err := provider.ValidJSON(json.RawMessage(args), field+".arguments")
			if err != nil {
				return nil, err
			}
			entry.Canonical = into(model.RoleAssistant)
			call := model.ToolCall(it.ID, it.Name, input)
			call.ProviderExecuted = true
			req := model.ApprovalRequest(it.ID, it.ID)
			req.ProviderExecuted = true
			(*msgs)[entry.Canonical].Content = append((*msgs)[entry.Canonical].Content, call, req)
		case "mcp_approval_response":
			if it.ApprovalRequestID == "" || it.Approve == nil {
				return nil, fmt.Errorf("%s: an mcp_approval_response needs approval_request_id and approve", field)
			}
			entry.Canonical = into(model.RoleTool)
			resp := model.ApprovalResponse(it.ApprovalRequestID, *it.Approve, it.Reason)
			resp.ProviderExecuted = true
			(*msgs)[entry.Canonical].Content = append((*msgs)[entry.Canonical].Content, resp)
		case "reasoning", "compaction", "compaction_trigger", "configuration_update", "additional_tools",
			"mcp_call", "mcp_list_tools", "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
			"tool_search_call", "tool_search_output", "program", "program_output",
			"computer_call", "computer_call_output", "local_shell_call", "local_shell_call_output",
			"shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output":
			// Items the provider keeps for itself, and the calls of its
			// built-in client tools, which approval scenarios never use:
			// accepted, with no canonical form.
		case "item_reference":
			return nil, fmt.Errorf("%s: an item_reference the store did not resolve (the simulator resolves them per conversation)", field)
		default:
			return nil, fmt.Errorf("%s.type: unknown item type %q", field, it.Type)
		}
		d.View.Entries = append(d.View.Entries, entry)
	}
	return d, nil
}

// toolDef reads a tool. A function or custom tool needs a name; an mcp
// tool its server label; the provider's built-in tools (web_search,
// file_search, code_interpreter, image_generation, computer use, shell,
// apply_patch, tool_search ...) are named by their type. Tools the
// provider runs are marked so.
func toolDef(t tool) (llm.ToolDef, error) {
	switch t.Type {
	case "function", "":
		if t.Name == "" {
			return llm.ToolDef{}, errors.New("name: missing")
		}
		return llm.ToolDef{Name: t.Name, Description: t.Description, InputSchema: t.Parameters}, nil
	case "custom":
		if t.Name == "" {
			return llm.ToolDef{}, errors.New("name: missing")
		}
		return llm.ToolDef{Name: t.Name, Description: t.Description}, nil
	case "mcp":
		if t.ServerLabel == "" {
			return llm.ToolDef{}, errors.New("server_label: missing")
		}
		return llm.ToolDef{Name: t.ServerLabel, ProviderExecuted: true, ServerLabel: t.ServerLabel}, nil
	}
	return llm.ToolDef{Name: t.Type, ProviderExecuted: true}, nil
}

// MissingParameter is the provider's answer to a request without a
// required field (the OpenAI envelope with param and code; seen for a
// function_call_output without its output).
func MissingParameter(param string) *llm.APIError {
	msg := fmt.Sprintf(wire.ResponsesMissingParameterText, param)
	code := "missing_required_parameter"
	return &llm.APIError{Status: 400, Type: "invalid_request_error", Message: msg, Body: []byte(wire.OpenAIErrorBody(msg, "invalid_request_error", &param, &code))}
}
