package wire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The providers' exact texts (research/anchors.md §5). OpenAI Chat's orphan
// text is the 2025+ wording; ids are joined with ", ".
const (
	openAIDanglingText  = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s"
	openAIOrphanText    = "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
	responsesMissing    = "No tool output found for function call %s."
	responsesOrphan     = "No tool call found for function call output with call_id %s."
	anthropicDangling   = "messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	anthropicUnexpected = "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	invalidRequest      = "invalid_request_error"
)

type openAIError struct {
	Error openAIErrorBody `json:"error"`
}

type openAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// OpenAIErrorBody returns the OpenAI error envelope. A nil param or code is
// encoded as null.
func OpenAIErrorBody(message, typ string, param, code *string) string {
	b, _ := json.Marshal(openAIError{openAIErrorBody{Message: message, Type: typ, Param: param, Code: code}}) // plain strings always marshal
	return string(b)
}

type anthropicError struct {
	Type      string             `json:"type"`
	Error     anthropicErrorBody `json:"error"`
	RequestID string             `json:"request_id,omitempty"`
}

type anthropicErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// AnthropicErrorBody returns the Anthropic error envelope.
func AnthropicErrorBody(message, typ, requestID string) string {
	b, _ := json.Marshal(anthropicError{Type: "error", Error: anthropicErrorBody{Type: typ, Message: message}, RequestID: requestID}) // plain strings always marshal
	return string(b)
}

func strp(s string) *string { return &s }

// checkOpenAIChat applies Chat Completions' rules: an assistant message with
// tool_calls must be followed, immediately, by one tool message per call;
// a tool message must answer a call of that preceding assistant message.
func checkOpenAIChat(v View) []Violation {
	p := &pairing{v: &v}
	var out []Violation
	_, nResults := v.counts()
	answered := make(map[string]bool, nResults)
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
		open := callSet(e.Calls)
		j := i + 1
		for ; j < len(v.Entries) && v.Entries[j].Role == "tool"; j++ {
			for _, r := range v.Entries[j].Results {
				if open.has(r.ID) && !answered[r.ID] {
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
			for _, group := range groupByKind(missing, func(id string) Kind { return p.unansweredKind(id, i) }) {
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

// checkResponses applies the Responses API's rules: every function_call in
// the input has a function_call_output after it, and every output answers a
// function_call before it. A custom tool call (custom_tool_call and its
// custom_tool_call_output) pairs the same way; no provider text is on
// record for it, so its violations carry the function call's text, marked
// inferred.
func checkResponses(v View) []Violation {
	p := &pairing{v: &v}
	var out []Violation
	// One small map for both what is called and what is answered: a long
	// input then costs one lookup per item, in a table that stays small.
	nCalls, _ := v.counts()
	ids := make(map[string]idState, nCalls)
	for i, e := range v.Entries {
		for _, c := range e.Calls {
			if s := ids[c]; s.call() < 0 {
				ids[c] = s.calledAt(i)
			}
		}
		for _, r := range e.Results {
			s := ids[r.ID]
			if s.call() >= 0 && !s.answered() {
				ids[r.ID] = s.answer()
				continue
			}
			kind := p.strayKind(r.ID, i, s.answered())
			text := fmt.Sprintf(responsesOrphan, r.ID)
			out = append(out, Violation{
				Check: kind.Check(), Kind: kind, Message: r.Canonical, ProviderIndex: i,
				IDs: []string{r.ID}, Status: 400, ErrorType: invalidRequest, Text: text,
				Body:     OpenAIErrorBody(text, invalidRequest, strp("input"), nil),
				Inferred: kind == Duplicate || isCustom(e),
			})
			ids[r.ID] = s.answer()
		}
	}
	for i, e := range v.Entries {
		for _, c := range e.Calls {
			if s := ids[c]; s.answered() || s.call() != i {
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

// idState is what checkResponses knows of an id: the first entry that
// calls it (if any) and whether a result answered it.
type idState uint32

func (s idState) call() int              { return int(s>>1) - 1 }
func (s idState) answered() bool         { return s&1 != 0 }
func (s idState) answer() idState        { return s | 1 }
func (s idState) calledAt(i int) idState { return idState(i+1)<<1 | s&1 }

// checkAnthropic applies the Messages API's rules: the message after an
// assistant message with tool_use blocks is a user message holding a
// tool_result for each, and every tool_result answers a tool_use of the
// message right before it. A system message within the conversation keeps
// its index but is passed over, as a top-level system prompt is.
func checkAnthropic(v View, requestID string) []Violation {
	// neighbour is the index of the nearest entry before (step -1) or after
	// (step 1) i that is not a system message, or -1.
	neighbour := func(i, step int) int {
		for j := i + step; j >= 0 && j < len(v.Entries); j += step {
			if v.Entries[j].Role != "system" {
				return j
			}
		}
		return -1
	}
	p := &pairing{v: &v}
	var out []Violation
	_, nResults := v.counts()
	answered := make(map[string]bool, nResults)
	for i, e := range v.Entries {
		if e.Role != "user" || len(e.Results) == 0 {
			continue
		}
		var prev idSet
		if k := neighbour(i, -1); k >= 0 && v.Entries[k].Role == "assistant" {
			prev = callSet(v.Entries[k].Calls)
		}
		for _, r := range e.Results {
			if prev.has(r.ID) && !answered[r.ID] {
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
		var next idSet
		if k := neighbour(i, 1); k >= 0 && v.Entries[k].Role == "user" {
			next = resultSet(v.Entries[k].Results)
		}
		var missing []string
		for _, c := range e.Calls {
			if !next.has(c) {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			continue
		}
		text := fmt.Sprintf(anthropicDangling, i, strings.Join(missing, ", "))
		body := AnthropicErrorBody(text, invalidRequest, requestID)
		for _, group := range groupByKind(missing, func(id string) Kind { return p.unansweredKind(id, i) }) {
			dangling = append(dangling, Violation{
				Check: group.kind.Check(), Kind: group.kind, Message: e.Canonical, ProviderIndex: i,
				IDs: group.ids, Status: 400, ErrorType: invalidRequest, Text: text, Body: body,
			})
		}
	}
	return mergeByIndex(dangling, out)
}

type kindGroup struct {
	kind Kind
	ids  []string
}

// groupByKind splits ids by kind, keeping order, dangling before misplaced.
func groupByKind(ids []string, kindOf func(string) Kind) []kindGroup {
	var groups []kindGroup
	for _, k := range []Kind{Dangling, Misplaced} {
		var g []string
		for _, id := range ids {
			if kindOf(id) == k {
				g = append(g, id)
			}
		}
		if len(g) > 0 {
			groups = append(groups, kindGroup{k, g})
		}
	}
	return groups
}

// mergeByIndex merges two lists, each in provider order, into one.
func mergeByIndex(a, b []Violation) []Violation {
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

// isCustom reports whether a Responses entry is a custom tool call or its
// output.
func isCustom(e Entry) bool { return strings.HasPrefix(e.Role, "custom_tool_call") }
