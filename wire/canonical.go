package wire

import (
	"sync"

	"github.com/approval-conformance-kit/ack/model"
)

// ViewOf lays out a canonical prompt as the profile's provider sees it. Parts
// that never reach the provider's wire are left out: approval requests, and
// approval responses except provider-executed ones on OpenAI Responses.
// Calls and results of provider-executed tools are the provider's own
// business and are not paired.
func ViewOf(profile Profile, msgs []model.Message) View {
	b := &builder{}
	b.layout(profile, msgs)
	return b.view()
}

// CheckMessages lays out msgs for the profile and checks them.
func CheckMessages(profile Profile, msgs []model.Message, requestID string) []Violation {
	// The view does not outlive the check (violations hold none of it), so
	// its arrays are reused from call to call: a prompt is checked without
	// allocating its layout again.
	b, _ := builders.Get().(*builder)
	if b == nil {
		b = &builder{}
	}
	b.layout(profile, msgs)
	vs := Check(b.v, requestID)
	builders.Put(b)
	return vs
}

// builders are the layouts CheckMessages reuses.
var builders sync.Pool

// builder lays out a view: each entry's calls and results are cut from
// arrays shared by the whole view, so that a long conversation costs per
// message what a short one does.
type builder struct {
	v       View
	calls   []string
	results []Result
}

// layout lays out msgs for the profile, in the builder's arrays when they
// are large enough.
func (b *builder) layout(profile Profile, msgs []model.Message) {
	// Sized for a conversation of exchanges (a user message, a call, its
	// result): a long conversation is then laid out without copies, and
	// without a pass to count it first.
	n := len(msgs)
	b.v = View{Profile: profile, Entries: reuse(b.v.Entries, n+n/8+4)}
	b.calls, b.results = reuse(b.calls, n/2+1), reuse(b.results, n/2+1)
	switch profile {
	case OpenAIResponses:
		b.responses(msgs)
	case AnthropicMessages:
		b.anthropic(msgs)
	default:
		b.openAIChat(msgs)
	}
}

// reuse returns s emptied if it holds n, or a new slice that does.
func reuse[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:0]
	}
	return make([]T, 0, n)
}

// view returns the view laid out (no entries: nil).
func (b *builder) view() View {
	if len(b.v.Entries) == 0 {
		b.v.Entries = nil
	}
	return b.v
}

// add appends an entry.
func (b *builder) add(role string, canonical int) {
	b.v.Entries = append(b.v.Entries, Entry{Role: role, Canonical: canonical})
}

// last is the entry added last.
func (b *builder) last() *Entry { return &b.v.Entries[len(b.v.Entries)-1] }

// call adds a call to the last entry, whose calls are the last ones added.
func (b *builder) call(id string) {
	e := b.last()
	b.calls = append(b.calls, id)
	n := len(b.calls)
	e.Calls = b.calls[n-len(e.Calls)-1 : n : n]
}

// result adds a result to the last entry, whose results are the last ones
// added.
func (b *builder) result(r Result) {
	e := b.last()
	b.results = append(b.results, r)
	n := len(b.results)
	e.Results = b.results[n-len(e.Results)-1 : n : n]
}

func (b *builder) openAIChat(msgs []model.Message) {
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			b.add(string(m.Role), i)
		case model.RoleAssistant:
			visible := false
			for _, p := range m.Content {
				if p.Type != model.PartToolApprovalRequest && !p.ProviderExecuted {
					visible = true
				}
			}
			if visible {
				b.add("assistant", i)
				for _, p := range m.Content {
					if p.Type == model.PartToolCall && !p.ProviderExecuted {
						b.call(p.ToolCallID)
					}
				}
			}
		case model.RoleTool:
			for _, p := range m.Content {
				if p.Type == model.PartToolResult && !p.ProviderExecuted {
					b.add("tool", i)
					b.result(Result{ID: p.ToolCallID, Canonical: i})
				}
			}
		}
	}
}

func (b *builder) responses(msgs []model.Message) {
	// A result for a call the provider ran is not laid out as a
	// function_call_output: the provider holds that call's outcome, and the
	// OpenAI Responses clients leave such a result out of the request
	// (@ai-sdk/openai skips a tool result whose call was
	// provider-executed).
	providerRan := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == model.PartToolCall && p.ProviderExecuted {
				providerRan[p.ToolCallID] = true
			}
		}
	}
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem, model.RoleUser:
			b.add("message", i)
		case model.RoleAssistant:
			hasText := false
			for _, p := range m.Content {
				if p.Type == model.PartText {
					hasText = true
				}
			}
			if hasText {
				b.add("message", i)
			}
			for _, p := range m.Content {
				if p.Type == model.PartToolCall && !p.ProviderExecuted {
					b.add("function_call", i)
					b.call(p.ToolCallID)
				}
			}
		case model.RoleTool:
			for _, p := range m.Content {
				switch {
				case p.Type == model.PartToolResult && !p.ProviderExecuted && !providerRan[p.ToolCallID]:
					b.add("function_call_output", i)
					b.result(Result{ID: p.ToolCallID, Canonical: i})
				case p.Type == model.PartToolApprovalResponse && p.ProviderExecuted:
					b.add("mcp_approval_response", i)
				}
			}
		}
	}
}

func (b *builder) anthropic(msgs []model.Message) {
	block := 0 // content blocks of the last entry so far
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
		if len(b.v.Entries) == 0 || b.last().Role != role {
			b.add(role, i)
			block = 0
		}
		for _, p := range m.Content {
			switch {
			case p.Type == model.PartToolCall && !p.ProviderExecuted:
				b.call(p.ToolCallID)
			case p.Type == model.PartToolResult && !p.ProviderExecuted && m.Role == model.RoleTool:
				b.result(Result{ID: p.ToolCallID, Block: block, Canonical: i})
			}
			if anthropicBlock(m.Role, p) {
				block++
			}
		}
	}
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
