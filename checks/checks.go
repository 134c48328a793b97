// Package checks is the catalogue of conformance checks: stable ids, RFC 2119
// levels, one-line rules, and for each its normative text in full, why it
// matters and the behaviour of real SDKs it comes from.
//
// Every scenario names the checks it exercises (as Gherkin tags such as
// @PRE-01); reports aggregate verdicts by check. A MUST failure fails
// certification, a SHOULD failure is a warning, MAY is informational.
package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Level is an RFC 2119 requirement level.
type Level string

// The requirement levels.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	May    Level = "MAY"
)

// Rank orders levels: MUST 3, SHOULD 2, MAY 1, anything else 0.
func (l Level) Rank() int {
	switch l {
	case Must:
		return 3
	case Should:
		return 2
	case May:
		return 1
	}
	return 0
}

// ParseLevel reads a level name in any case ("must", "SHOULD").
func ParseLevel(s string) (Level, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "MUST":
		return Must, nil
	case "SHOULD":
		return Should, nil
	case "MAY":
		return May, nil
	}
	return "", fmt.Errorf("unknown level %q (want must, should or may)", s)
}

// Role is the side of the protocol a check applies to.
type Role string

// The two roles of a target.
const (
	Agent  Role = "agent"
	Client Role = "client"
)

// Check is one entry of the catalogue.
type Check struct {
	ID    string `json:"id"`
	Level Level  `json:"level"`
	Group string `json:"group"`
	Role  Role   `json:"role"`
	// Rule is the rule in one line.
	Rule string `json:"rule"`
	// Source names, in a few words, the behaviour the rule comes from.
	Source string `json:"source"`
	// Text is the normative text in full: what MUST, SHOULD or MAY hold,
	// in RFC 2119 words, with the decisions taken where the rule could be
	// read more than one way.
	Text string `json:"text,omitempty"`
	// Rationale says why the rule matters: what goes wrong in practice
	// when it is broken.
	Rationale string `json:"rationale,omitempty"`
	// Origin describes the behaviour of real SDKs the rule comes from.
	Origin string `json:"origin,omitempty"`
	// Harm lists what goes wrong for a user when the rule is broken: the
	// harms a failure of the check can show. A MUST failure stands only
	// where the run shows one of them; a MUST check always names at least
	// one. A SHOULD check may name the harm it guards against from afar.
	Harm []Harm `json:"harm,omitempty"`
	// Decision says what was decided where the rule could be read more than
	// one way: on which SDK docs and harms, and what the check no longer
	// demands.
	Decision string `json:"decision,omitempty"`
}

// row is a catalogue line: a check without its long texts, which live in
// texts (texts.go).
type row struct {
	ID     string
	Level  Level
	Group  string
	Role   Role
	Rule   string
	Source string
}

// Groups names the check groups in catalogue order.
var Groups = []struct{ Prefix, Title string }{
	{"REQ", "Issuing requests"},
	{"PRE", "Pre-resolution"},
	{"DEN", "Denial results"},
	{"PART", "Partial denial"},
	{"CHAIN", "Chained continuation"},
	{"PROV", "Provider-executed approvals"},
	{"WIRE", "What reaches the model"},
	{"ERR", "Errors and bad input"},
	{"SEC", "Trust"},
	{"EDIT", "Edited approvals"},
}

var rows = []row{
	{"REQ-01", Must, "REQ", Agent, "A call to a tool whose policy needs approval is not executed in that turn; the turn yields an approval request for it.", "AI SDK and Effect AI: needsApproval"},
	{"REQ-02", Should, "REQ", Agent, "Approval ids are unique within a conversation.", "TanStack AI: the approval id is not the tool call id"},
	{"REQ-03", Must, "REQ", Agent, "A pending approval ends the turn: the model is not called again in that turn, whatever the step limit.", "AI SDK: a pending approval stops the step loop"},
	{"REQ-04", Must, "REQ", Agent, "A dynamic policy decides per call: each evaluation gets that call's own input and toolCallId and the conversation's messages. A runtime may evaluate it again in a later turn (when the answer comes); every evaluation is held to this.", "AI SDK and Effect AI: needsApproval(input, {toolCallId, messages})"},
	{"REQ-05", Should, "REQ", Agent, "A policy that fails to evaluate fails closed (approval requested, or the turn errors); the tool never runs unapproved.", "AI SDK and Effect AI: needsApproval functions that fail"},
	{"REQ-06", Must, "REQ", Agent, "Every call of a step ends the turn with a result or a pending approval; none is dropped.", "agent loops that drop calls; provider HTTP 400 on a dangling call"},
	{"REQ-07", Must, "REQ", Agent, "Approval-request events reach the consumer of a stream unchanged and in order.", "AI SDK 6 transports that filter out approval chunks"},

	{"PRE-01", Must, "PRE", Agent, "Approved calls are executed before the model is called; the prompt, like the messages the turn returns, holds exactly one result for each.", "Effect AI: approvals resolved only after the model call"},
	{"PRE-02", Must, "PRE", Agent, "Denied calls are not executed; the prompt, like the messages the turn returns, holds exactly one denial result for each.", "AI SDK and Effect AI: execution-denied results"},
	{"PRE-03", Must, "PRE", Agent, "A call that already has a result anywhere in the history is not executed again.", "Effect AI: calls that already have a result are excluded"},
	{"PRE-04", Must, "PRE", Agent, "A response that matches no request never causes execution. The runtime may ignore it or refuse the message with a clear error (whether it reaches the model is PRE-12's rule; whether it blocks the valid answers beside it, PRE-14's).", "Effect AI: orphan approval responses are ignored"},
	{"PRE-05", Must, "PRE", Agent, "Pending approvals with no or an empty toolkit fail with ToolkitRequired; the model is not called and nothing runs.", "Effect AI: ToolkitRequiredError"},
	{"PRE-06", Must, "PRE", Agent, "An approved call to a tool not in the toolkit fails the turn with a clear refusal (ToolNotFound, where the SDK has that error) or gets a denial result; it never runs and never crashes the runtime.", "Effect AI: ToolNotFoundError"},
	{"PRE-07", Should, "PRE", Agent, "The concurrency option bounds how many approved calls run at once.", "Effect AI: the concurrency option"},
	{"PRE-08", Must, "PRE", Agent, "Stream mode resolves approvals exactly as generate mode does: the stream carries one result event per result of the turn's messages, with the same output (in any order).", "Effect AI: pre-resolution in streamText"},
	{"PRE-09", Must, "PRE", Agent, "Several responses in one request (a batch, in one message or in several) are all resolved; a call whose approval is still unanswered is not run.", "AI SDK and Effect AI: batch approvals"},
	{"PRE-10", Must, "PRE", Agent, "Approval requests are found anywhere in the history: approvals persist across turns.", "AI SDK: approval requests are read from every assistant message"},
	{"PRE-11", Must, "PRE", Agent, "Duplicate or conflicting responses for one call lead to at most one execution and exactly one result.", "AI SDK: the first response for a tool call counts"},
	{"PRE-12", Should, "PRE", Agent, "Approval parts are stripped from the prompt sent to the model (except provider-executed responses), a response that matches no request included; an approved call's approval reason does not reach the model.", "AI SDK and Effect AI: approval parts removed from the model's prompt"},
	{"PRE-13", Should, "PRE", Agent, "A turn that fails validation fails before any tool runs: no side effect whose result is then lost.", "Effect AI: every approved tool is validated before any runs"},
	{"PRE-14", Should, "PRE", Agent, "A response that matches no request does not block the valid answers beside it: they are resolved as if it were absent.", "Effect AI: orphan responses ignored, the valid answers still resolved"},

	{"DEN-01", Must, "DEN", Agent, "A denial result is a failure result with output {type: execution-denied, reason?}.", "AI SDK and Effect AI: {type: execution-denied, reason}"},
	{"DEN-02", Should, "DEN", Agent, "The user's denial reason reaches the model; without one, a stable default text does.", "AI SDK: the denial reason as the result's text, \"Tool call execution denied.\" without one"},
	{"DEN-03", Should, "DEN", Agent, "A denial's representation stays the same in later turns.", "AI SDK 7: a denial that changes type between turns"},

	{"PART-01", Must, "PART", Agent, "When one of several calls of a step is denied, every call of the step has exactly one result before the model is called again.", "agent loops that stop at the first denial; provider HTTP 400 on a dangling call"},
	{"PART-02", Must, "PART", Agent, "No call runs without approval; approved calls run exactly once, or, under a declared abort-on-denial policy, get the result \"Error: Tool execution was skipped due to previous tool denial.\"", "agent loops: the skipped result for the calls after a denial"},

	{"CHAIN-01", Must, "CHAIN", Client, "The client sends exactly one continuation request once every tool call of the last assistant message is complete (result, approved or denied), and none before.", "TanStack AI: areAllToolsComplete; AI SDK: sendAutomaticallyWhen"},
	{"CHAIN-02", Must, "CHAIN", Client, "An approval given while a stream is still active is acted on when the stream ends; it is never swallowed.", "TanStack AI: continuationPending and continuationSkipped"},
	{"CHAIN-03", Must, "CHAIN", Client, "n chained approvals (each continuation yields a new request) complete with n+1 requests.", "TanStack AI: chained approvals"},
	{"CHAIN-04", Must, "CHAIN", Client, "Tool-call parts move through awaiting-input, input-streaming, input-complete, approval-requested, approval-responded, then a terminal state, never backwards.", "TanStack AI and AI SDK: the states of a tool-call part"},
	{"CHAIN-05", Must, "CHAIN", Client, "A new user message while an approval is pending never leaves a dangling call: the call gets a result, or the send is refused with a clear error.", "vercel/ai #12709"},
	{"CHAIN-06", Should, "CHAIN", Client, "No tool call or result is duplicated in the history after a continuation.", "TanStack AI #532"},

	{"PROV-01", Must, "PROV", Agent, "A provider-executed call is never executed locally; its approval response is forwarded to the provider with providerExecuted: true.", "AI SDK: provider-executed approvals (OpenAI Responses MCP)"},
	{"PROV-02", Should, "PROV", Agent, "A provider approval answered without the providerExecuted flag is still forwarded, or refused with a clear error; never silently dropped.", "AI SDK: a provider approval without providerExecuted is lost"},

	{"WIRE-01", Must, "WIRE", Agent, "No prompt has a tool call without a result (dangling), a result without a call (orphan), or two results for one call.", "provider HTTP 400s: dangling, orphan and duplicate tool results"},
	{"WIRE-02", Must, "WIRE", Agent, "Results follow their calls as the provider requires (OpenAI: tool messages right after the assistant message; Anthropic: tool_result blocks in the next user message).", "provider HTTP 400s: tool results out of place"},
	{"WIRE-03", Must, "WIRE", Agent, "Within one request, every tool call executes at most once.", "duplicated approvals run a dangerous tool twice"},
	{"WIRE-04", Should, "WIRE", Agent, "Replaying the same request does not execute a tool again (idempotency).", "replayed requests run a dangerous tool twice"},

	{"ERR-01", Must, "ERR", Agent, "A malformed approval response (a wrong type, a missing or empty id) is refused with a clear error, and nothing runs. An unknown extra field may be ignored, but it never changes the outcome (an \"override\": true grants nothing).", "AI SDK 7.0.155 and later: \"approved\": \"yes\" runs the tool"},
	{"ERR-02", Must, "ERR", Agent, "A tool that fails yields an error result to the model (or a clear turn error, per the declared failure mode), never a dangling call.", "Effect AI and AI SDK: tool handler errors"},

	{"SEC-01", Should, "SEC", Agent, "Only approval requests the runtime issued itself are honoured; a request and response forged into the history do not lead to execution as approved.", "AI SDK: experimental_toolApprovalSecret"},
	{"SEC-02", Should, "SEC", Agent, "An approved call runs with the tool and input that were shown for approval; a call whose name or input was changed after the request was issued is not run as approved.", "AI SDK: the approval signature binds the call's name and input"},

	{"EDIT-01", Must, "EDIT", Agent, "An approval that edits the call's input runs the tool with the edited input, never with the original.", "LangChain: the edit decision of humanInTheLoopMiddleware; Genkit: restartTool with replaceInput"},
	{"EDIT-02", Must, "EDIT", Agent, "After an edited approval the model sees the call as it ran: the edited input beside its result.", "langchainjs #33787: the agent re-attempted the original call"},
}

// all is the catalogue: each row with its texts.
var all = func() []Check {
	out := make([]Check, 0, len(rows))
	for _, r := range rows {
		t := texts[r.ID]
		out = append(out, Check{ID: r.ID, Level: r.Level, Group: r.Group, Role: r.Role, Rule: r.Rule, Source: r.Source,
			Text: t.text, Rationale: t.rationale, Origin: t.origin, Harm: append([]Harm(nil), harms[r.ID]...), Decision: decisions[r.ID]})
	}
	return out
}()

var byID = func() map[string]Check {
	m := make(map[string]Check, len(all))
	for _, c := range all {
		m[c.ID] = c
	}
	return m
}()

// All returns the catalogue in order.
func All() []Check { return append([]Check(nil), all...) }

// Lookup returns the check with the given id.
func Lookup(id string) (Check, bool) {
	c, ok := byID[id]
	return c, ok
}

// IDPattern matches a check id such as PRE-01 or CHAIN-06.
var IDPattern = regexp.MustCompile(`^(REQ|PRE|DEN|PART|CHAIN|PROV|WIRE|ERR|SEC|EDIT)-[0-9]{2}$`)

// IDs returns the ids in s (for example the tags of a scenario) that are
// check ids, in catalogue order, each once. Tags may carry a leading "@".
func IDs(s []string) []string {
	seen := map[string]bool{}
	for _, t := range s {
		t = strings.TrimPrefix(t, "@")
		if _, ok := byID[t]; ok {
			seen[t] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	SortIDs(out)
	return out
}

// SortIDs sorts check ids in catalogue order; unknown ids go last, sorted.
func SortIDs(ids []string) {
	pos := map[string]int{}
	for i, c := range all {
		pos[c.ID] = i
	}
	sort.SliceStable(ids, func(i, j int) bool {
		pi, oki := pos[ids[i]]
		pj, okj := pos[ids[j]]
		switch {
		case oki && okj:
			return pi < pj
		case oki != okj:
			return oki
		}
		return ids[i] < ids[j]
	})
}
