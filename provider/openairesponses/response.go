package openairesponses

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
	"github.com/google/uuid"
)

// The response side of the Responses API: encoding and decoding a whole
// response, its output items and usage.

type response struct {
	ID                string  `json:"id"`
	Object            string  `json:"object"`
	CreatedAt         int64   `json:"created_at"`
	Status            string  `json:"status"`
	Model             string  `json:"model"`
	Output            []item  `json:"output"`
	IncompleteDetails *reason `json:"incomplete_details"`
	Usage             *usage  `json:"usage,omitempty"`
}

type reason struct {
	Reason string `json:"reason"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// outputItems lays a reply out as output items.
func outputItems(parts []model.Part) []item {
	out := []item{}
	calls := map[string]model.Part{}
	for _, p := range parts {
		switch {
		case p.Type == model.PartText:
			out = append(out, item{Type: "message", ID: "msg_" + uuid.NewString(), Role: "assistant", Status: "completed", Content: textContent("output_text", p.Text)})
		case p.Type == model.PartToolCall && p.ProviderExecuted:
			calls[p.ToolCallID] = p
		case p.Type == model.PartToolCall:
			out = append(out, item{Type: "function_call", ID: "fc_" + p.ToolCallID, CallID: p.ToolCallID, Name: p.ToolName, Arguments: strp(string(p.Input)), Status: "completed"})
		case p.Type == model.PartToolApprovalRequest:
			c := calls[p.ToolCallID]
			out = append(out, item{Type: "mcp_approval_request", ID: p.ApprovalID, Name: c.ToolName, Arguments: strp(string(c.Input)), ServerLabel: labelOf(c)})
			delete(calls, p.ToolCallID)
		case p.Type == model.PartToolResult && p.ProviderExecuted:
			args, label := "{}", labelOf(p)
			if c, ok := calls[p.ToolCallID]; ok {
				if len(c.Input) > 0 {
					args = string(c.Input)
				}
				if label == ServerLabel {
					label = labelOf(c)
				}
			}
			// As the API reports a finished MCP call: with its status and,
			// after an approval, the approval request it ran on.
			out = append(out, item{Type: "mcp_call", ID: p.ToolCallID, Name: p.ToolName, Arguments: strp(args), Output: rawString(provider.OutputText(p.Output)),
				ServerLabel: label, Status: "completed", ApprovalRequestID: p.ApprovalID})
		}
	}
	return out
}

func responseOf(id string, resp *llm.Response, status string) response {
	r := response{ID: id, Object: "response", CreatedAt: time.Now().Unix(), Status: status, Model: Model, Output: outputItems(resp.Content),
		Usage: &usage{resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.InputTokens + resp.Usage.OutputTokens}}
	if resp.FinishReason == llm.FinishLength {
		r.Status, r.IncompleteDetails = "incomplete", &reason{Reason: "max_output_tokens"}
	}
	return r
}

// EncodeResponse implements provider.Codec.
func (Codec) EncodeResponse(resp *llm.Response) ([]byte, error) {
	return json.Marshal(responseOf("resp_"+uuid.NewString(), resp, "completed"))
}

// contentOf reads output items back into parts, with the finish reason the
// AI SDK derives: tool-calls when a function is called, length when the
// response is incomplete, stop otherwise.
func contentOf(items []item, r *response) ([]model.Part, string, error) {
	var parts []model.Part
	finish := llm.FinishStop
	for j, it := range items {
		switch it.Type {
		case "message":
			text, err := itemText(it.Content)
			if err != nil {
				return nil, "", fmt.Errorf("output[%d].content: %w", j, err)
			}
			parts = append(parts, model.Text(text))
		case "function_call":
			args := ""
			if it.Arguments != nil {
				args = *it.Arguments
			}
			input, err := provider.ValidJSON(json.RawMessage(args), fmt.Sprintf("output[%d].arguments", j))
			if err != nil {
				return nil, "", err
			}
			parts = append(parts, model.ToolCall(it.CallID, it.Name, input))
			finish = llm.FinishToolCalls
		case "mcp_approval_request":
			args := "{}"
			if it.Arguments != nil && *it.Arguments != "" {
				args = *it.Arguments
			}
			input, err := provider.ValidJSON(json.RawMessage(args), fmt.Sprintf("output[%d].arguments", j))
			if err != nil {
				return nil, "", err
			}
			call := model.ToolCall(it.ID, it.Name, input)
			call.ProviderExecuted = true
			req := model.ApprovalRequest(it.ID, it.ID)
			req.ProviderExecuted = true
			parts = append(parts, call, req)
		case "mcp_call":
			out, _, err := outputText(it.Output)
			if err != nil {
				return nil, "", fmt.Errorf("output[%d].output: %w", j, err)
			}
			res := model.ToolResult(it.ID, it.Name, provider.OutputFromText(out, false))
			res.ProviderExecuted = true
			parts = append(parts, res)
		}
	}
	if r != nil && r.IncompleteDetails != nil {
		finish = llm.FinishLength
	}
	return parts, finish, nil
}

// DecodeResponse implements provider.Codec.
func (Codec) DecodeResponse(body []byte) (*llm.Response, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	if r.Object != "response" {
		return nil, fmt.Errorf("reply body: object: %q, want response", r.Object)
	}
	parts, finish, err := contentOf(r.Output, &r)
	if err != nil {
		return nil, fmt.Errorf("reply body: %w", err)
	}
	out := &llm.Response{Content: parts, FinishReason: finish}
	if r.Usage != nil {
		out.Usage = llm.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}
	}
	return out, nil
}

// ErrorBody implements provider.Codec.
func (Codec) ErrorBody(status int, typ, message string) []byte {
	if typ == "" {
		typ = "invalid_request_error"
	}
	return []byte(wire.OpenAIErrorBody(message, typ, nil, nil))
}
