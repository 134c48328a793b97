package wire

import "github.com/approval-conformance-kit/ack/model"

// ViewOf lays out a canonical prompt as the profile's provider sees it. Parts
// that never reach the provider's wire are left out: approval requests, and
// approval responses except provider-executed ones on OpenAI Responses.
// Calls and results of provider-executed tools are the provider's own
// business and are not paired.
func ViewOf(profile Profile, msgs []model.Message) View {
	switch profile {
	case OpenAIResponses:
		return responsesView(msgs)
	case AnthropicMessages:
		return anthropicView(msgs)
	default:
		return openAIChatView(msgs)
	}
}

// CheckMessages lays out msgs for the profile and checks them.
func CheckMessages(profile Profile, msgs []model.Message, requestID string) []Violation {
	return Check(ViewOf(profile, msgs), requestID)
}

func localCalls(m model.Message) []string {
	var ids []string
	for _, p := range m.Content {
		if p.Type == model.PartToolCall && !p.ProviderExecuted {
			ids = append(ids, p.ToolCallID)
		}
	}
	return ids
}

func openAIChatView(msgs []model.Message) View {
	v := View{Profile: OpenAIChat}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			v.Entries = append(v.Entries, Entry{Role: string(m.Role), Canonical: i})
		case model.RoleAssistant:
			visible := false
			for _, p := range m.Content {
				if p.Type != model.PartToolApprovalRequest && !p.ProviderExecuted {
					visible = true
				}
			}
			if visible {
				v.Entries = append(v.Entries, Entry{Role: "assistant", Calls: localCalls(m), Canonical: i})
			}
		case model.RoleTool:
			for _, p := range m.Content {
				if p.Type == model.PartToolResult && !p.ProviderExecuted {
					v.Entries = append(v.Entries, Entry{Role: "tool", Results: []Result{{ID: p.ToolCallID, Canonical: i}}, Canonical: i})
				}
			}
		}
	}
	return v
}

func responsesView(msgs []model.Message) View {
	v := View{Profile: OpenAIResponses}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			v.Entries = append(v.Entries, Entry{Role: "message", Canonical: i})
		case model.RoleAssistant:
			hasText := false
			for _, p := range m.Content {
				if p.Type == model.PartText {
					hasText = true
				}
			}
			if hasText {
				v.Entries = append(v.Entries, Entry{Role: "message", Canonical: i})
			}
			for _, id := range localCalls(m) {
				v.Entries = append(v.Entries, Entry{Role: "function_call", Calls: []string{id}, Canonical: i})
			}
		case model.RoleTool:
			for _, p := range m.Content {
				switch {
				case p.Type == model.PartToolResult && !p.ProviderExecuted:
					v.Entries = append(v.Entries, Entry{Role: "function_call_output", Results: []Result{{ID: p.ToolCallID, Canonical: i}}, Canonical: i})
				case p.Type == model.PartToolApprovalResponse && p.ProviderExecuted:
					v.Entries = append(v.Entries, Entry{Role: "mcp_approval_response", Canonical: i})
				}
			}
		}
	}
	return v
}

func anthropicView(msgs []model.Message) View {
	v := View{Profile: AnthropicMessages}
	for i, m := range msgs {
		role := ""
		switch m.Role {
		case model.RoleSystem:
			continue
		case model.RoleUser, model.RoleTool:
			role = "user"
		case model.RoleAssistant:
			role = "assistant"
		}
		if len(v.Entries) == 0 || v.Entries[len(v.Entries)-1].Role != role {
			v.Entries = append(v.Entries, Entry{Role: role, Canonical: i})
		}
		e := &v.Entries[len(v.Entries)-1]
		block := blocksIn(msgs, e.Canonical, i)
		for _, p := range m.Content {
			switch {
			case p.Type == model.PartToolCall && !p.ProviderExecuted:
				e.Calls = append(e.Calls, p.ToolCallID)
			case p.Type == model.PartToolResult && !p.ProviderExecuted && m.Role == model.RoleTool:
				e.Results = append(e.Results, Result{ID: p.ToolCallID, Block: block, Canonical: i})
			}
			if anthropicBlock(m.Role, p) {
				block++
			}
		}
	}
	return v
}

// blocksIn counts the content blocks that canonical messages from..to-1
// contribute to one merged Anthropic message.
func blocksIn(msgs []model.Message, from, to int) int {
	n := 0
	for k := from; k < to; k++ {
		if msgs[k].Role == model.RoleSystem {
			continue
		}
		for _, p := range msgs[k].Content {
			if anthropicBlock(msgs[k].Role, p) {
				n++
			}
		}
	}
	return n
}

// anthropicBlock reports whether a part becomes a content block on the
// Anthropic wire.
func anthropicBlock(role model.Role, p model.Part) bool {
	switch p.Type {
	case model.PartToolApprovalRequest, model.PartToolApprovalResponse:
		return false
	case model.PartToolResult:
		return role == model.RoleTool || p.ProviderExecuted
	}
	return true
}
