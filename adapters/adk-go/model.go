package adkgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	adkmodel "google.golang.org/adk/v2/model"
	"google.golang.org/genai"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// kitModel is the turn's model as an ADK model.LLM: every call ADK makes
// goes to the kit's model (the simulator, in-process) in the canonical
// model, unchanged but for the shape, and the reply comes back as ADK's
// genai content. This is the canonical path: an application's own model.
type kitModel struct {
	m llm.Model
}

// Name implements model.LLM.
func (k kitModel) Name() string { return "ack-canonical" }

// GenerateContent implements model.LLM: one model call, whole or streamed.
func (k kitModel) GenerateContent(ctx context.Context, req *adkmodel.LLMRequest, stream bool) iter.Seq2[*adkmodel.LLMResponse, error] {
	return func(yield func(*adkmodel.LLMResponse, error) bool) {
		lreq, err := toKit(req)
		if err != nil {
			yield(nil, err)
			return
		}
		var resp *llm.Response
		if stream {
			resp, err = llm.Collect(ctx, k.m, lreq)
		} else {
			resp, err = k.m.Generate(ctx, lreq)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		out, err := fromKit(resp)
		if err != nil {
			yield(nil, err)
			return
		}
		yield(out, nil)
	}
}

// toKit is ADK's request in the canonical model: the system instruction,
// then each content (a user's text, a model's text and function calls, a
// user's function responses as a tool message), and the tools declared.
func toKit(req *adkmodel.LLMRequest) (*llm.Request, error) {
	out := &llm.Request{}
	if req.Config != nil && req.Config.SystemInstruction != nil {
		text := ""
		for _, p := range req.Config.SystemInstruction.Parts {
			text += p.Text
		}
		if text != "" {
			out.Messages = append(out.Messages, model.SystemText(text))
		}
	}
	for i, c := range req.Contents {
		if c == nil {
			continue
		}
		msgs, err := contentToKit(c)
		if err != nil {
			return nil, fmt.Errorf("contents[%d]: %w", i, err)
		}
		out.Messages = append(out.Messages, msgs...)
	}
	if req.Config != nil {
		for _, t := range req.Config.Tools {
			if t == nil {
				continue
			}
			for _, d := range t.FunctionDeclarations {
				def := llm.ToolDef{Name: d.Name, Description: d.Description}
				if d.ParametersJsonSchema != nil {
					raw, err := json.Marshal(d.ParametersJsonSchema)
					if err != nil {
						return nil, fmt.Errorf("tool %s: schema: %w", d.Name, err)
					}
					def.InputSchema = raw
				}
				out.Tools = append(out.Tools, def)
			}
		}
	}
	return out, nil
}

// contentToKit maps one genai content: a model's content is an assistant
// message; a user's is a user message for its text and a tool message for
// its function responses, in the order of the parts.
func contentToKit(c *genai.Content) ([]model.Message, error) {
	var out []model.Message
	add := func(role model.Role, p model.Part) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, p)
			return
		}
		out = append(out, model.Message{Role: role, Content: []model.Part{p}})
	}
	assistant := c.Role == genai.RoleModel
	for j, p := range c.Parts {
		if p == nil {
			continue
		}
		switch {
		case p.FunctionCall != nil:
			input, err := json.Marshal(orEmpty(p.FunctionCall.Args))
			if err != nil {
				return nil, fmt.Errorf("parts[%d]: function call args: %w", j, err)
			}
			add(model.RoleAssistant, model.ToolCall(p.FunctionCall.ID, p.FunctionCall.Name, input))
		case p.FunctionResponse != nil:
			out1, err := outputOf(p.FunctionResponse.Response)
			if err != nil {
				return nil, fmt.Errorf("parts[%d]: function response: %w", j, err)
			}
			add(model.RoleTool, model.ToolResult(p.FunctionResponse.ID, p.FunctionResponse.Name, out1))
		case p.Text != "" && p.Thought:
			add(model.RoleAssistant, model.Part{Type: model.PartReasoning, Text: p.Text})
		case p.Text != "":
			if assistant {
				add(model.RoleAssistant, model.Text(p.Text))
			} else {
				add(model.RoleUser, model.Text(p.Text))
			}
		}
	}
	return out, nil
}

// outputOf is a function response as a tool output: ADK's error responses
// ({"error": "..."}, the one key) are error-text; anything else is the
// response as JSON.
func outputOf(resp map[string]any) (*model.ToolOutput, error) {
	if len(resp) == 1 {
		if s, ok := resp["error"].(string); ok {
			return model.ErrorTextOutput(s), nil
		}
	}
	raw, err := json.Marshal(orEmpty(resp))
	if err != nil {
		return nil, err
	}
	return model.JSONOutput(raw), nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// fromKit is the kit model's reply as ADK's: text and function calls, with
// the model's call ids kept.
func fromKit(resp *llm.Response) (*adkmodel.LLMResponse, error) {
	c := &genai.Content{Role: genai.RoleModel}
	for i, p := range resp.Content {
		switch p.Type {
		case model.PartText:
			c.Parts = append(c.Parts, genai.NewPartFromText(p.Text))
		case model.PartReasoning:
			c.Parts = append(c.Parts, &genai.Part{Text: p.Text, Thought: true})
		case model.PartToolCall:
			var args map[string]any
			if len(p.Input) > 0 {
				if err := json.Unmarshal(p.Input, &args); err != nil {
					return nil, fmt.Errorf("content[%d]: tool call %s: input is not an object: %w", i, p.ToolCallID, err)
				}
			}
			c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: p.ToolCallID, Name: p.ToolName, Args: args}})
		default:
			return nil, fmt.Errorf("content[%d]: a %s part has no place in ADK's model content", i, p.Type)
		}
	}
	out := &adkmodel.LLMResponse{Content: c, TurnComplete: true, FinishReason: genai.FinishReasonStop}
	if resp.FinishReason == llm.FinishLength {
		out.FinishReason = genai.FinishReasonMaxTokens
	}
	return out, nil
}

// isModelError reports whether err is the model's (an API error).
func isModelError(err error) bool {
	var api *llm.APIError
	return errors.As(err, &api)
}
