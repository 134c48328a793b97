package wire

// The view builders and rules as they were before they were made linear,
// kept as the oracle of the differential tests.

import (
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

func legacyViewOf(profile Profile, msgs []model.Message) View {
	switch profile {
	case OpenAIResponses:
		return legacyResponsesView(msgs)
	case AnthropicMessages:
		return legacyAnthropicView(msgs)
	default:
		return legacyOpenAIChatView(msgs)
	}
}

func legacyLocalCalls(m model.Message) []string {
	var ids []string
	for _, p := range m.Content {
		if p.Type == model.PartToolCall && !p.ProviderExecuted {
			ids = append(ids, p.ToolCallID)
		}
	}
	return ids
}

func legacyOpenAIChatView(msgs []model.Message) View {
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
				v.Entries = append(v.Entries, Entry{Role: "assistant", Calls: legacyLocalCalls(m), Canonical: i})
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

func legacyResponsesView(msgs []model.Message) View {
	v := View{Profile: OpenAIResponses}
	providerRan := map[string]bool{} // results for calls the provider ran are left out
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
			for _, id := range legacyLocalCalls(m) {
				v.Entries = append(v.Entries, Entry{Role: "function_call", Calls: []string{id}, Canonical: i})
			}
		case model.RoleTool:
			for _, p := range m.Content {
				switch {
				case p.Type == model.PartToolResult && !p.ProviderExecuted && !providerRan[p.ToolCallID]:
					v.Entries = append(v.Entries, Entry{Role: "function_call_output", Results: []Result{{ID: p.ToolCallID, Canonical: i}}, Canonical: i})
				case p.Type == model.PartToolApprovalResponse && p.ProviderExecuted:
					v.Entries = append(v.Entries, Entry{Role: "mcp_approval_response", Canonical: i})
				}
			}
		}
	}
	return v
}

func legacyAnthropicView(msgs []model.Message) View {
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
		block := legacyBlocksIn(msgs, e.Canonical, i)
		for _, p := range m.Content {
			switch {
			case p.Type == model.PartToolCall && !p.ProviderExecuted:
				e.Calls = append(e.Calls, p.ToolCallID)
			case p.Type == model.PartToolResult && !p.ProviderExecuted && m.Role == model.RoleTool:
				e.Results = append(e.Results, Result{ID: p.ToolCallID, Block: block, Canonical: i})
			}
			if legacyAnthropicBlock(m.Role, p) {
				block++
			}
		}
	}
	return v
}

// legacyBlocksIn counts the content blocks that canonical messages from..to-1
// contribute to one merged Anthropic message.
func legacyBlocksIn(msgs []model.Message, from, to int) int {
	n := 0
	for k := from; k < to; k++ {
		if msgs[k].Role == model.RoleSystem {
			continue
		}
		for _, p := range msgs[k].Content {
			if legacyAnthropicBlock(msgs[k].Role, p) {
				n++
			}
		}
	}
	return n
}

// legacyAnthropicBlock reports whether a part becomes a content block on the
// Anthropic wire.
func legacyAnthropicBlock(role model.Role, p model.Part) bool {
	switch p.Type {
	case model.PartToolApprovalRequest, model.PartToolApprovalResponse:
		return false
	case model.PartToolResult:
		return role == model.RoleTool || p.ProviderExecuted
	}
	return true
}
func legacyCheckOpenAIChat(v View) []Violation {
	p := legacyPair(v)
	var out []Violation
	answered := map[string]bool{}
	stray := func(at int, r Result) {
		kind := p.strayKind(r.ID, at, answered[r.ID])
		out = append(out, Violation{
			Check: kind.Check(), Kind: kind, Message: r.Canonical, ProviderIndex: at,
			IDs: []string{r.ID}, Status: 400, ErrorType: invalidRequest, Text: openAIOrphanText,
			Body:     OpenAIErrorBody(openAIOrphanText, invalidRequest, nil, strp(invalidRequest)),
			Inferred: kind == Duplicate,
		})
	}
	for i := 0; i < len(v.Entries); {
		e := v.Entries[i]
		if e.Role == "tool" {
			for _, r := range e.Results {
				stray(i, r)
				answered[r.ID] = true
			}
			i++
			continue
		}
		if e.Role != "assistant" || len(e.Calls) == 0 {
			i++
			continue
		}
		open := map[string]bool{}
		for _, c := range e.Calls {
			open[c] = true
		}
		j := i + 1
		for ; j < len(v.Entries) && v.Entries[j].Role == "tool"; j++ {
			for _, r := range v.Entries[j].Results {
				if open[r.ID] && !answered[r.ID] {
					answered[r.ID] = true
					continue
				}
				stray(j, r)
				answered[r.ID] = true
			}
		}
		var missing []string
		for _, c := range e.Calls {
			if !answered[c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			param := "messages"
			if j < len(v.Entries) {
				param = fmt.Sprintf("messages.[%d].role", j)
			}
			text := fmt.Sprintf(openAIDanglingText, strings.Join(missing, ", "))
			body := OpenAIErrorBody(text, invalidRequest, strp(param), nil)
			for _, group := range legacyGroupByKind(missing, func(id string) Kind { return p.unansweredKind(id, i) }) {
				out = append(out, Violation{
					Check: group.kind.Check(), Kind: group.kind, Message: e.Canonical, ProviderIndex: i,
					IDs: group.ids, Status: 400, ErrorType: invalidRequest, Text: text, Body: body,
				})
			}
		}
		i = j
	}
	return out
}

// legacyCheckResponses applies the Responses API's rules: every function_call in
// the input has a function_call_output after it, and every output answers a
// function_call before it.
func legacyCheckResponses(v View) []Violation {
	p := legacyPair(v)
	var out []Violation
	called := map[string]int{}
	answered := map[string]bool{}
	for i, e := range v.Entries {
		for _, c := range e.Calls {
			if _, ok := called[c]; !ok {
				called[c] = i
			}
		}
		for _, r := range e.Results {
			_, ok := called[r.ID]
			if ok && !answered[r.ID] {
				answered[r.ID] = true
				continue
			}
			kind := p.strayKind(r.ID, i, answered[r.ID])
			text := fmt.Sprintf(responsesOrphan, r.ID)
			out = append(out, Violation{
				Check: kind.Check(), Kind: kind, Message: r.Canonical, ProviderIndex: i,
				IDs: []string{r.ID}, Status: 400, ErrorType: invalidRequest, Text: text,
				Body:     OpenAIErrorBody(text, invalidRequest, strp("input"), nil),
				Inferred: kind == Duplicate || isCustom(e),
			})
			answered[r.ID] = true
		}
	}
	for i, e := range v.Entries {
		for _, c := range e.Calls {
			if answered[c] || called[c] != i {
				continue
			}
			text := fmt.Sprintf(responsesMissing, c)
			out = append(out, Violation{
				Check: "WIRE-01", Kind: Dangling, Message: e.Canonical, ProviderIndex: i,
				IDs: []string{c}, Status: 400, ErrorType: invalidRequest, Text: text,
				Body:     OpenAIErrorBody(text, invalidRequest, strp("input"), nil),
				Inferred: isCustom(e),
			})
		}
	}
	return out
}

// legacyCheckAnthropic applies the Messages API's rules: the message after an
// assistant message with tool_use blocks is a user message holding a
// tool_result for each, and every tool_result answers a tool_use of the
// message right before it.
func legacyCheckAnthropic(v View, requestID string) []Violation {
	neighbour := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(v.Entries); j += step {
			if v.Entries[j].Role != "system" {
				return j
			}
		}
		return -1
	}
	p := legacyPair(v)
	var out []Violation
	answered := map[string]bool{}
	for i, e := range v.Entries {
		if e.Role != "user" || len(e.Results) == 0 {
			continue
		}
		prev := map[string]bool{}
		if k := neighbour(i, -1); k >= 0 && v.Entries[k].Role == "assistant" {
			for _, c := range v.Entries[k].Calls {
				prev[c] = true
			}
		}
		for _, r := range e.Results {
			if prev[r.ID] && !answered[r.ID] {
				answered[r.ID] = true
				continue
			}
			kind := p.strayKind(r.ID, i, answered[r.ID])
			text := fmt.Sprintf(anthropicUnexpected, i, r.Block, r.ID)
			out = append(out, Violation{
				Check: kind.Check(), Kind: kind, Message: r.Canonical, ProviderIndex: i,
				IDs: []string{r.ID}, Status: 400, ErrorType: invalidRequest, Text: text,
				Body: AnthropicErrorBody(text, invalidRequest, requestID), Inferred: kind == Duplicate,
			})
			answered[r.ID] = true
		}
	}
	var dangling []Violation
	for i, e := range v.Entries {
		if e.Role != "assistant" || len(e.Calls) == 0 {
			continue
		}
		next := map[string]bool{}
		if k := neighbour(i, 1); k >= 0 && v.Entries[k].Role == "user" {
			for _, r := range v.Entries[k].Results {
				next[r.ID] = true
			}
		}
		var missing []string
		for _, c := range e.Calls {
			if !next[c] {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			continue
		}
		text := fmt.Sprintf(anthropicDangling, i, strings.Join(missing, ", "))
		body := AnthropicErrorBody(text, invalidRequest, requestID)
		for _, group := range legacyGroupByKind(missing, func(id string) Kind { return p.unansweredKind(id, i) }) {
			dangling = append(dangling, Violation{
				Check: group.kind.Check(), Kind: group.kind, Message: e.Canonical, ProviderIndex: i,
				IDs: group.ids, Status: 400, ErrorType: invalidRequest, Text: text, Body: body,
			})
		}
	}
	return legacyMergeByIndex(dangling, out)
}

type legacyKindGroup struct {
	kind Kind
	ids  []string
}

// legacyGroupByKind splits ids by kind, keeping order, dangling before misplaced.
func legacyGroupByKind(ids []string, kindOf func(string) Kind) []legacyKindGroup {
	var groups []legacyKindGroup
	for _, k := range []Kind{Dangling, Misplaced} {
		var g []string
		for _, id := range ids {
			if kindOf(id) == k {
				g = append(g, id)
			}
		}
		if len(g) > 0 {
			groups = append(groups, legacyKindGroup{k, g})
		}
	}
	return groups
}

// legacyMergeByIndex merges two lists, each in provider order, into one.
func legacyMergeByIndex(a, b []Violation) []Violation {
	out := make([]Violation, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].ProviderIndex <= b[0].ProviderIndex {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

type legacyPairing struct {
	callAt   map[string]int   // first entry making the call
	resultAt map[string][]int // entries answering the call
}

func legacyPair(v View) legacyPairing {
	p := legacyPairing{callAt: map[string]int{}, resultAt: map[string][]int{}}
	for i, e := range v.Entries {
		for _, c := range e.Calls {
			if _, ok := p.callAt[c]; !ok {
				p.callAt[c] = i
			}
		}
		for _, r := range e.Results {
			p.resultAt[r.ID] = append(p.resultAt[r.ID], i)
		}
	}
	return p
}

// unanswered classifies calls left without an adjacent result.
func (p legacyPairing) unansweredKind(id string, after int) Kind {
	for _, at := range p.resultAt[id] {
		if at > after {
			return Misplaced
		}
	}
	return Dangling
}

// legacyStrayKind classifies a result that answers no adjacent call.
func (p legacyPairing) strayKind(id string, at int, alreadyAnswered bool) Kind {
	if alreadyAnswered {
		return Duplicate
	}
	if c, ok := p.callAt[id]; ok && c < at {
		return Misplaced
	}
	return Orphan
}

// legacyCheck is Check as it was.
func legacyCheck(v View, requestID string) []Violation {
	switch v.Profile {
	case OpenAIResponses:
		return legacyCheckResponses(v)
	case AnthropicMessages:
		return legacyCheckAnthropic(v, requestID)
	default:
		return legacyCheckOpenAIChat(v)
	}
}
