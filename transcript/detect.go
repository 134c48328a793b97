package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// probe is every field that tells one message format from another.
type probe struct {
	Role    string          `json:"role"`
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
	Parts   json.RawMessage `json:"parts"`
	// OpenAI Chat Completions.
	ToolCallsSnake  json.RawMessage `json:"tool_calls"`
	ToolCallIDSnake json.RawMessage `json:"tool_call_id"`
	// AG-UI.
	ToolCallsCamel  json.RawMessage `json:"toolCalls"`
	ToolCallIDCamel json.RawMessage `json:"toolCallId"`
	// AI SDK 3 and 4 UI messages.
	ToolInvocations json.RawMessage `json:"toolInvocations"`
	ID              json.RawMessage `json:"id"`
	// LangChain.
	Data json.RawMessage `json:"data"`
	LC   json.RawMessage `json:"lc"`
}

// partProbe is every part field that tells the formats apart.
type partProbe struct {
	Type       string          `json:"type"`
	ToolCallID json.RawMessage `json:"toolCallId"`
	ID         json.RawMessage `json:"id"`
	Name       json.RawMessage `json:"name"`
	Text       json.RawMessage `json:"text"`
	Content    json.RawMessage `json:"content"`
	State      json.RawMessage `json:"state"`
	// The AI SDK's image part (Anthropic's has a source instead).
	Image json.RawMessage `json:"image"`
	// Gemini.
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
	InlineData       json.RawMessage `json:"inlineData"`
}

// Part types of each format's message content.
var (
	canonicalParts = map[string]bool{"tool-call": true, "tool-result": true, "tool-approval-request": true, "tool-approval-response": true, "reasoning": true, "file": true}
	anthropicParts = map[string]bool{"tool_use": true, "tool_result": true, "image": true, "document": true, "thinking": true, "redacted_thinking": true, "server_tool_use": true, "web_search_tool_result": true}
	responsesParts = map[string]bool{"input_text": true, "output_text": true, "input_image": true, "input_file": true, "refusal": true}
	chatParts      = map[string]bool{"image_url": true, "input_audio": true}
	responsesItems = map[string]bool{"message": true, "function_call": true, "function_call_output": true, "item_reference": true, "mcp_approval_request": true, "mcp_approval_response": true, "mcp_call": true, "mcp_list_tools": true, "reasoning": true, "web_search_call": true, "file_search_call": true, "computer_call": true, "computer_call_output": true}
	uiOnlyParts    = map[string]bool{"step-start": true, "dynamic-tool": true, "source-url": true, "source-document": true}
)

// classify returns the formats one message (or Responses input item) can be
// in. A message that only holds text fits several; the caller narrows the
// candidates message by message.
func classify(raw json.RawMessage) set {
	var p probe
	if json.Unmarshal(raw, &p) != nil {
		return bodies // not an object: the format's decoder will say what is wrong
	}
	if p.Type != "" && responsesItems[p.Type] {
		return one(OpenAIResponses)
	}
	if present(p.LC) || (langchainTypes[p.Type] && (present(p.Data) || p.Role == "")) {
		return one(LangChain)
	}
	if p.Role == "model" || (p.Role == "function" && present(p.Parts)) {
		return one(Gemini)
	}
	if present(p.Parts) {
		return classifyParts(p)
	}
	if present(p.ToolInvocations) {
		return one(UIMessages) // AI SDK 3 and 4: calls beside the content
	}
	if present(p.ToolCallsSnake) {
		// LangChain's tool calls carry name and args; OpenAI's a function.
		var calls []struct {
			Function json.RawMessage `json:"function"`
			Args     json.RawMessage `json:"args"`
		}
		if json.Unmarshal(p.ToolCallsSnake, &calls) == nil && len(calls) > 0 && present(calls[0].Args) && !present(calls[0].Function) {
			return one(LangChain)
		}
		return setOf(OpenAIChat, LangChain)
	}
	if present(p.ToolCallIDSnake) {
		return setOf(OpenAIChat, LangChain)
	}
	if present(p.ToolCallsCamel) || present(p.ToolCallIDCamel) {
		return one(AGUI)
	}
	all := setOf(Canonical, OpenAIChat, OpenAIResponses, AnthropicMessages, AGUI, LangChain)
	switch p.Role {
	case "tool":
		// Chat, LangChain and AG-UI tool messages have their call id,
		// caught above.
		all = one(Canonical)
	case "system":
		all &^= one(AnthropicMessages) // Anthropic's system prompt is a field of its own
	case "developer":
		all = setOf(OpenAIChat, OpenAIResponses, AGUI)
	}
	content := bytes.TrimSpace(p.Content)
	if len(content) == 0 || content[0] != '[' {
		if present(p.ID) && p.Role != "tool" && p.Role != "developer" {
			all |= one(UIMessages) // an AI SDK 3 message: its text in content
		}
		return all
	}
	var parts []partProbe
	if json.Unmarshal(content, &parts) != nil {
		return all
	}
	for _, q := range parts {
		switch {
		case canonicalParts[q.Type] || (q.Type == "image" && present(q.Image)):
			return all & one(Canonical)
		case anthropicParts[q.Type]:
			return all & one(AnthropicMessages)
		case responsesParts[q.Type]:
			return all & one(OpenAIResponses)
		case chatParts[q.Type]:
			return all & one(OpenAIChat)
		}
	}
	return all &^ one(OpenAIResponses) // text parts: Responses says input_text
}

// classifyParts tells a Vercel UI message from a TanStack (AG-UI) one.
func classifyParts(p probe) set {
	if gemini := geminiParts(p.Parts); gemini {
		return one(Gemini)
	}
	if bytes.Contains(p.Parts, []byte(`"tool-invocation"`)) || present(p.ToolInvocations) {
		return one(UIMessages) // AI SDK 4: content and parts side by side
	}
	var parts []partProbe
	if json.Unmarshal(p.Parts, &parts) != nil {
		return setOf(UIMessages, AGUI)
	}
	if present(p.Content) {
		// AI SDK 4 keeps the text in content and in parts, where a text
		// part says text; TanStack AI's text parts say content.
		for _, q := range parts {
			if q.Type == "text" && present(q.Text) && !present(q.Content) {
				return one(UIMessages)
			}
		}
		return one(AGUI)
	}
	for _, q := range parts {
		switch {
		case uiOnlyParts[q.Type] || strings.HasPrefix(q.Type, "data-"):
			return one(UIMessages)
		case strings.HasPrefix(q.Type, "tool-") && present(q.ToolCallID):
			return one(UIMessages)
		case q.Type == "tool-call" && (present(q.ID) || present(q.Name)):
			return one(AGUI)
		case q.Type == "text" && present(q.Text) && !present(q.Content):
			return one(UIMessages)
		case q.Type == "text" && present(q.Content):
			return one(AGUI)
		}
	}
	return setOf(UIMessages, AGUI)
}

func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// langchainTypes are the types of LangChain's messages.
var langchainTypes = map[string]bool{"human": true, "ai": true, "tool": true, "system": true, "function": true, "chat": true,
	"AIMessageChunk": true, "HumanMessageChunk": true, "ToolMessageChunk": true, "constructor": true}

// geminiParts reports whether parts are Gemini's: no type, and text,
// a function call or response, or inline data.
func geminiParts(raw json.RawMessage) bool {
	var parts []partProbe
	if json.Unmarshal(raw, &parts) != nil || len(parts) == 0 {
		return false
	}
	for _, q := range parts {
		if q.Type != "" {
			return false
		}
		if !present(q.Text) && !present(q.FunctionCall) && !present(q.FunctionResponse) && !present(q.InlineData) {
			return false
		}
	}
	return true
}

// Top-level keys that hint at a format.
var keyHints = map[string]set{
	"input":             one(OpenAIResponses),
	"instructions":      one(OpenAIResponses),
	"max_tokens":        one(AnthropicMessages),
	"system":            one(AnthropicMessages),
	"threadId":          one(AGUI),
	"runId":             one(AGUI),
	"parentRunId":       one(AGUI),
	"resume":            one(AGUI),
	"forwardedProps":    one(AGUI),
	"trigger":           one(UIMessages),
	"messageId":         one(UIMessages),
	"contents":          one(Gemini),
	"generationConfig":  one(Gemini),
	"systemInstruction": one(Gemini),
	"safetySettings":    one(Gemini),
	"toolConfig":        one(Gemini),
}
