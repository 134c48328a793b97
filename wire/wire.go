// Package wire checks what reaches a model against the rules of real
// providers: every tool call answered by exactly one result, in the position
// the provider requires (checks WIRE-01 and WIRE-02).
//
// A conversation is first laid out as the provider would see it (a View:
// OpenAI Chat messages, OpenAI Responses input items, or Anthropic messages),
// then checked with the provider's rules. Each Violation carries the
// message index (canonical and provider), the ids involved, and the exact
// HTTP 400 body the provider answers with (research/anchors.md §5).
package wire

import (
	"fmt"
	"strings"
)

// Profile names a provider whose rules are in force.
type Profile string

// The provider profiles.
const (
	OpenAIChat        Profile = "openai-chat"
	OpenAIResponses   Profile = "openai-responses"
	AnthropicMessages Profile = "anthropic-messages"
)

// Profiles lists every profile.
var Profiles = []Profile{OpenAIChat, OpenAIResponses, AnthropicMessages}

// ParseProfile reads a profile name; "" means the default, openai-chat.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case "":
		return OpenAIChat, nil
	case OpenAIChat, OpenAIResponses, AnthropicMessages:
		return Profile(s), nil
	}
	return "", fmt.Errorf("unknown provider profile %q (want openai-chat, openai-responses or anthropic-messages)", s)
}

// Kind classifies a violation.
type Kind string

// The violation kinds.
const (
	// Dangling: a tool call with no result anywhere after it (WIRE-01).
	Dangling Kind = "dangling"
	// Orphan: a result with no call anywhere before it (WIRE-01).
	Orphan Kind = "orphan"
	// Duplicate: a second result for one call (WIRE-01).
	Duplicate Kind = "duplicate"
	// Misplaced: a call whose result exists but not where the provider
	// requires it, or a result whose call is not where the provider looks for
	// it (WIRE-02).
	Misplaced Kind = "misplaced"
)

// Check returns the conformance check a kind of violation breaks.
func (k Kind) Check() string {
	if k == Misplaced {
		return "WIRE-02"
	}
	return "WIRE-01"
}

// Violation is one rule broken by a prompt.
type Violation struct {
	Check string `json:"check"`
	Kind  Kind   `json:"kind"`
	// Message is the index of the offending message in the canonical
	// conversation, or -1 when the prompt has no canonical form.
	Message int `json:"message"`
	// ProviderIndex is the index of the offending message or item in the
	// provider's own array (messages or input).
	ProviderIndex int `json:"providerIndex"`
	// IDs are the tool call ids involved.
	IDs []string `json:"ids"`
	// Status is the HTTP status the provider answers with.
	Status int `json:"status"`
	// ErrorType is the provider's error type.
	ErrorType string `json:"errorType"`
	// Text is the provider's exact error message.
	Text string `json:"text"`
	// Body is the provider's exact HTTP body.
	Body string `json:"body"`
	// Inferred marks a violation for which no provider string is on record;
	// the text is then the closest one the provider is known to send.
	Inferred bool `json:"inferred,omitempty"`
}

func (v Violation) Error() string { return v.Check + " " + v.Describe() }

// Describe says what is wrong, where, and what the provider answers,
// without the check id.
func (v Violation) Describe() string {
	where := fmt.Sprintf("provider index %d", v.ProviderIndex)
	if v.Message >= 0 {
		where = fmt.Sprintf("message %d (%s)", v.Message, where)
	}
	noun := "tool call"
	if v.Kind == Orphan || v.Kind == Duplicate {
		noun = "tool result for"
	}
	return fmt.Sprintf("%s %s %s at %s: HTTP %d %s", v.Kind, noun, strings.Join(v.IDs, ", "), where, v.Status, v.Text)
}

// Entry is one message (or input item) of a View.
type Entry struct {
	// Role is the provider's role or item kind: "system", "user",
	// "assistant", "tool" (OpenAI Chat), "message", "function_call",
	// "function_call_output", "custom_tool_call", "custom_tool_call_output",
	// "mcp_approval_response" and the other input item types (Responses).
	Role string
	// Calls are the ids of the tool calls the entry makes.
	Calls []string
	// Results are the ids answered by the entry's results, in order, each
	// with the index of its block in the entry's content.
	Results []Result
	// Canonical is the index of the canonical message the entry comes from,
	// or -1.
	Canonical int
}

// Result is one tool result inside an Entry.
type Result struct {
	ID    string
	Block int
	// Canonical is the index of the canonical message holding the result,
	// or -1.
	Canonical int
}

// View is a conversation laid out as one provider sees it.
type View struct {
	Profile Profile
	Entries []Entry
}

// Check applies the profile's rules to the view and returns every violation,
// in the order the provider would find them; the first is the one it answers.
// requestID is used in the Anthropic envelope.
func Check(v View, requestID string) []Violation {
	switch v.Profile {
	case OpenAIResponses:
		return checkResponses(v)
	case AnthropicMessages:
		return checkAnthropic(v, requestID)
	default:
		return checkOpenAIChat(v)
	}
}

// pairing records, for the whole view, where each call and result is, so a
// failed adjacency can be classified as dangling/orphan (nothing anywhere)
// or misplaced (present, but elsewhere). It is built on first use: a prompt
// without violations never needs it.
type pairing struct {
	v        *View
	callAt   map[string]int   // first entry making the call
	resultAt map[string][]int // entries answering the call
}

func (p *pairing) build() {
	if p.callAt != nil {
		return
	}
	p.callAt, p.resultAt = map[string]int{}, map[string][]int{}
	for i, e := range p.v.Entries {
		for _, c := range e.Calls {
			if _, ok := p.callAt[c]; !ok {
				p.callAt[c] = i
			}
		}
		for _, r := range e.Results {
			p.resultAt[r.ID] = append(p.resultAt[r.ID], i)
		}
	}
}

// unansweredKind classifies calls left without an adjacent result.
func (p *pairing) unansweredKind(id string, after int) Kind {
	p.build()
	for _, at := range p.resultAt[id] {
		if at > after {
			return Misplaced
		}
	}
	return Dangling
}

// strayKind classifies a result that answers no adjacent call.
func (p *pairing) strayKind(id string, at int, alreadyAnswered bool) Kind {
	if alreadyAnswered {
		return Duplicate
	}
	p.build()
	if c, ok := p.callAt[id]; ok && c < at {
		return Misplaced
	}
	return Orphan
}

// idSet is a set of the few ids of one entry: a scan of the slice, or a
// map when there are many.
type idSet struct {
	ids []string
	rs  []Result
	m   map[string]bool
}

// manyIDs is where a map starts to beat a scan.
const manyIDs = 16

func callSet(ids []string) idSet {
	if len(ids) <= manyIDs {
		return idSet{ids: ids}
	}
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return idSet{m: m}
}

func resultSet(rs []Result) idSet {
	if len(rs) <= manyIDs {
		return idSet{rs: rs}
	}
	m := make(map[string]bool, len(rs))
	for _, r := range rs {
		m[r.ID] = true
	}
	return idSet{m: m}
}

func (s idSet) has(id string) bool {
	if s.m != nil {
		return s.m[id]
	}
	for _, x := range s.ids {
		if x == id {
			return true
		}
	}
	for _, r := range s.rs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// counts returns how many calls and results the view holds, to size maps.
func (v *View) counts() (calls, results int) {
	for _, e := range v.Entries {
		calls += len(e.Calls)
		results += len(e.Results)
	}
	return calls, results
}
