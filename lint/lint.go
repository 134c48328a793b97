// Package lint finds, in a recorded conversation, what a provider would
// reject and what breaks pre-resolution: dangling, orphan, duplicate and
// misplaced tool results (WIRE-01, WIRE-02, with the provider's exact HTTP
// 400 from package wire), approvals answered but never acted on (PRE-01,
// PRE-02), answers that match no request or answer a call twice (PRE-04,
// PRE-11), an approval placeholder sent to the model as a tool's result
// (PRE-01) and approval parts left in a prompt (PRE-12).
//
// What is checked depends on what the transcript is. A provider's request
// body or a journaled prompt reached a model: it is checked as it is. A
// canonical conversation, UI messages or a RunAgentInput is an agent's
// input: answers after its last assistant message are still to be acted
// on, so their calls are given the results pre-resolution would give them
// before the provider's rules are applied; answers earlier in the
// conversation whose calls have no result were never acted on.
//
// A UI history (AI SDK or TanStack AI UI messages) is converted as its chat
// server would convert it (the reference's conversion, or a certified SDK's
// with Options.Runtime), and each of its tool parts is said to become what
// it becomes there (PartVerdict).
//
// Reading streams (package transcript): memory is proportional to the
// largest message, plus a skeleton of a few bytes per message.
package lint

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// Kinds of findings beyond the provider rules' own (wire.Kind).
const (
	// KindUnresolved: an answered approval whose call never got a result
	// although the conversation went on (PRE-01 approved, PRE-02 denied).
	KindUnresolved = "unresolved-approval"
	// KindOrphanApproval: an answer that matches no approval request (PRE-04).
	KindOrphanApproval = "orphan-approval"
	// KindDuplicateApproval: a second answer for one call (PRE-11).
	KindDuplicateApproval = "duplicate-approval"
	// KindConflictingApproval: a call both approved and denied (PRE-11).
	KindConflictingApproval = "conflicting-approval"
	// KindPlaceholder: a client's approval placeholder sent to the model as
	// the tool's result (PRE-01).
	KindPlaceholder = "approval-placeholder"
	// KindApprovalParts: approval parts in a prompt (PRE-12).
	KindApprovalParts = "approval-parts"
	// KindRefused: the runtime (--runtime) refuses the history before it
	// calls the provider: an answer it does not read (PRE-10), or an
	// approval left pending under a new message (CHAIN-05), leaves a call
	// without a result.
	KindRefused = "sdk-refusal"
	// KindDuplicateCall: one call id used by two tool parts of a UI
	// history (WIRE-01).
	KindDuplicateCall = "duplicate-call"
)

// Finding is one rule a transcript breaks.
type Finding struct {
	// Check is the check the finding breaks; Also are other checks the same
	// problem breaks.
	Check string   `json:"check"`
	Also  []string `json:"also,omitempty"`
	Level string   `json:"level"`
	Kind  string   `json:"kind"`
	// Request is the request's number in the input (a journal's entry).
	Request int `json:"request"`
	// Journal identifies a journal entry's model call.
	Scenario     string `json:"scenario,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	Call         int    `json:"call,omitempty"`
	// ChatRequest says the entry is a chat client's request to its server
	// (Call is then the request's number), not a model call.
	ChatRequest bool `json:"chatRequest,omitempty"`
	// Format is the format the offending messages were read in.
	Format transcript.Format `json:"format"`
	// Message is the index of the offending message in the request's own
	// array, Path its name ("messages[3]"); -1 and "" when no single
	// message is at fault.
	Message int    `json:"message"`
	Path    string `json:"path,omitempty"`
	// ProviderIndex is the message's index in the provider's array, for a
	// rule of the provider (-1 otherwise).
	ProviderIndex int `json:"providerIndex"`
	// IDs are the tool call ids (and approval ids) involved.
	IDs []string `json:"ids"`
	// Parts name the UI tool parts of the calls involved
	// ("messages[1].parts[2]"), for a UI history.
	Parts []string `json:"parts,omitempty"`
	// Detail says what is wrong, in plain words.
	Detail string `json:"detail"`
	// Provider is what the provider answers the prompt with (nil when it
	// accepts it).
	Provider *ProviderError `json:"provider,omitempty"`
	// Offset, Line and Column are where the offending message starts.
	Offset int64 `json:"offset"`
	Line   int   `json:"line,omitempty"`
	Column int   `json:"column,omitempty"`

	// order is the finding's place among the provider's own findings
	// (1-based; 0 for none): the provider answers with the first.
	order int
}

// Answer is what the provider answers the first request of the result
// with, or nil when it accepts it.
func (r *Result) Answer() *ProviderError {
	var best *Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Request == 1 && f.order > 0 && f.Provider != nil && (best == nil || f.order < best.order) {
			best = f
		}
	}
	if best == nil {
		return nil
	}
	return best.Provider
}

// ProviderError is a provider's answer to a prompt it refuses.
type ProviderError struct {
	Profile wire.Profile `json:"profile"`
	Status  int          `json:"status"`
	Type    string       `json:"type"`
	Message string       `json:"message"`
	Body    string       `json:"body"`
	// Inferred: no string is on record for this case; the message is the
	// closest one the provider is known to send.
	Inferred bool `json:"inferred,omitempty"`
}

// Note is something read but not checked.
type Note struct {
	Request int    `json:"request"`
	Field   string `json:"field,omitempty"`
	Text    string `json:"text"`
	Offset  int64  `json:"offset"`
	Line    int    `json:"line,omitempty"`
}

// Options configure a lint.
type Options struct {
	// Format forces the input format; empty detects it.
	Format transcript.Format
	// Profile is the provider whose rules apply to conversations that have
	// none of their own (openai-chat if empty).
	Profile wire.Profile
	// Kind forces what the input is: a prompt that reached a model, or an
	// agent's input; empty goes by the format.
	Kind transcript.Kind
	// Runtime is the chat server whose conversion of UI messages applies
	// (the reference if zero).
	Runtime Runtime
}

// Result is what a lint of one input found.
type Result struct {
	// Format is the format of the input (of its first request).
	Format transcript.Format `json:"format"`
	// Profiles are the provider rules applied.
	Profiles []wire.Profile `json:"profiles"`
	Requests int            `json:"requests"`
	Messages int            `json:"messages"`
	Findings []Finding      `json:"findings"`
	Notes    []Note         `json:"notes,omitempty"`
	// Runtime is the conversion applied to UI histories, Parts what each of
	// their tool parts becomes there.
	Runtime string        `json:"runtime,omitempty"`
	Parts   []PartVerdict `json:"parts,omitempty"`
}

// sampleMessage, when set, is called for every message read (a benchmark
// samples the heap with it).
var sampleMessage func()

// Read lints every request of an input. The error is a *transcript.Error
// when the input cannot be read.
func Read(r io.Reader, opts Options) (*Result, error) {
	res := &Result{Findings: []Finding{}}
	if opts.Runtime.Name == "" {
		opts.Runtime = Reference
	}
	placeholders := map[*transcript.Request][]placeholder{}
	topts := transcript.Options{Format: opts.Format, Profile: opts.Profile, Kind: opts.Kind,
		OnMessage: func(req *transcript.Request, m *transcript.Message) {
			if sampleMessage != nil {
				sampleMessage()
			}
			if ph, ok := findPlaceholder(m); ok {
				placeholders[req] = append(placeholders[req], ph...)
			}
		}}
	profiles := map[wire.Profile]bool{}
	err := transcript.Read(r, topts, func(req *transcript.Request) error {
		if res.Requests == 0 {
			res.Format = req.Format
		}
		res.Requests++
		target := req
		if req.Journal != nil {
			target = req.Prompt
			if req.Wire != nil {
				target = req.Wire
			}
			if target == nil { // a chat client's request: a chat server's input
				target = req.Chat
			}
		}
		res.Messages += target.Count
		profiles[target.Profile] = true
		fs, parts := check(target, placeholders[target], opts.Runtime)
		if len(parts) > 0 {
			if res.Runtime == "" || parts[0].Runtime != Reference.Name {
				res.Runtime = parts[0].Runtime
			}
			if parts[0].Runtime != opts.Runtime.String() {
				res.Notes = append(res.Notes, Note{Request: req.N, Offset: target.Offset,
					Text: fmt.Sprintf("%s converts %s only: these %s are converted as the reference does", opts.Runtime, opts.Runtime.Reads, target.Format.Describe())})
			}
			res.Parts = append(res.Parts, parts...)
		}
		for i := range fs {
			fs[i].Request = req.N
			if j := req.Journal; j != nil {
				fs[i].Scenario, fs[i].Conversation, fs[i].Call = j.Scenario, j.Conversation, j.Call
				fs[i].ChatRequest = target == req.Chat
			}
		}
		res.Findings = append(res.Findings, fs...)
		for _, sub := range []*transcript.Request{req, req.Prompt, req.Wire, req.Chat} {
			if sub == nil {
				continue
			}
			for _, n := range sub.Notes {
				res.Notes = append(res.Notes, Note{Request: req.N, Field: n.Field, Text: n.Text, Offset: n.Offset})
			}
		}
		delete(placeholders, req.Prompt)
		delete(placeholders, req.Wire)
		delete(placeholders, req.Chat)
		delete(placeholders, req)
		return nil
	})
	for p := range profiles {
		res.Profiles = append(res.Profiles, p)
	}
	sort.Slice(res.Profiles, func(i, j int) bool { return res.Profiles[i] < res.Profiles[j] })
	return res, err
}

// check lints one request (a body, or a journal entry's prompt or wire body).
func check(req *transcript.Request, ph []placeholder, rt Runtime) ([]Finding, []PartVerdict) {
	var out []Finding
	var parts []PartVerdict
	for _, p := range ph {
		out = append(out, p.finding(req))
	}
	switch {
	case req.View != nil:
		for k, v := range wire.Check(*req.View, "") {
			if req.Stored && v.Kind == wire.Orphan {
				continue // its call may be in what the provider stored
			}
			f := wireFinding(req, *req.View, v, -1, req.Names)
			f.order = k + 1
			if i := v.ProviderIndex; i >= 0 && i < len(req.ViewSource) {
				f.Message, f.Path, f.Offset = req.ViewSource[i], req.Path(req.ViewSource[i]), req.ViewOffset[i]
			}
			out = append(out, f)
		}
	case req.Kind == transcript.Prompt:
		out = append(out, promptApprovals(req)...)
		msgs := make([]model.Message, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = m.Message
		}
		view := wire.ViewOf(req.Profile, msgs)
		for k, v := range wire.Check(view, "") {
			f := wireFinding(req, view, v, sourceOf(req, v.Message), req.Names)
			f.order = k + 1
			out = append(out, f)
		}
	default:
		var refused []Finding
		parts, refused = uiParts(req, rt)
		out = append(out, refused...)
		out = append(out, partFindings(req, history(req), parts)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return order(out[i]) < order(out[j]) })
	return out, parts
}

func order(f Finding) int {
	if f.Message < 0 {
		return 1 << 30
	}
	return f.Message
}

func sourceOf(req *transcript.Request, canonical int) int {
	if canonical < 0 || canonical >= len(req.Messages) {
		return -1
	}
	return req.Messages[canonical].Source
}

// names maps call ids to tool names, for readable findings.
func names(msgs []transcript.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type == model.PartToolCall {
				out[p.ToolCallID] = p.ToolName
			}
		}
	}
	return out
}

func level(check string) string {
	if c, ok := checks.Lookup(check); ok {
		return strings.ToLower(string(c.Level))
	}
	return "must"
}

func (r *Finding) at(req *transcript.Request, src int) {
	r.Message, r.Format = src, req.Format
	if src >= 0 {
		r.Path = req.Path(src)
		r.Offset = offsetOf(req, src)
	} else {
		r.Offset = req.Offset
	}
}

func offsetOf(req *transcript.Request, src int) int64 {
	for _, m := range req.Messages {
		for _, s := range m.Sources {
			if s == src {
				return m.Offset
			}
		}
	}
	return req.Offset
}

// where says where a provider wants a call's results.
func wants(p wire.Profile) string {
	switch p {
	case wire.AnthropicMessages:
		return "as tool_result blocks in the very next user message"
	case wire.OpenAIResponses:
		return "as a function_call_output after its function_call"
	}
	return "as tool messages right after the assistant message that made the call"
}

func labelled(ids []string, names map[string]string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if n := names[id]; n != "" {
			out[i] = fmt.Sprintf("%s (%s)", id, n)
		}
	}
	return strings.Join(out, ", ")
}

// wireFinding turns a broken provider rule into a finding.
func wireFinding(req *transcript.Request, view wire.View, v wire.Violation, src int, names map[string]string) Finding {
	f := Finding{Check: v.Check, Level: level(v.Check), Kind: string(v.Kind), ProviderIndex: v.ProviderIndex, IDs: v.IDs,
		Provider: &ProviderError{Profile: req.Profile, Status: v.Status, Type: v.ErrorType, Message: v.Text, Body: v.Body, Inferred: v.Inferred}}
	f.at(req, src)
	ids := labelled(v.IDs, names)
	calls, has, it := "tool call", "has", "it"
	if len(v.IDs) > 1 {
		calls, has, it = "tool calls", "have", "them"
	}
	switch v.Kind {
	case wire.Dangling:
		f.Detail = fmt.Sprintf("%s %s %s no result: nothing answers %s, so the provider refuses the prompt", calls, ids, has, it)
	case wire.Orphan:
		f.Detail = fmt.Sprintf("tool result for %s answers no tool call made before it", ids)
	case wire.Duplicate:
		f.Detail = fmt.Sprintf("second tool result for %s: the call already has one", ids)
	case wire.Misplaced:
		if makesCall(view, v) {
			f.Detail = fmt.Sprintf("%s %s %s no result where the provider looks: the result comes later in the conversation, not %s", calls, ids, has, wants(req.Profile))
		} else {
			f.Detail = fmt.Sprintf("tool result for %s is out of place: its call comes earlier, but the provider wants it %s", ids, wants(req.Profile))
		}
	}
	return f
}

// makesCall reports whether a violation is about the calls of its entry
// (the unanswered side) rather than about results.
func makesCall(view wire.View, v wire.Violation) bool {
	if v.ProviderIndex < 0 || v.ProviderIndex >= len(view.Entries) || len(v.IDs) == 0 {
		return false
	}
	for _, c := range view.Entries[v.ProviderIndex].Calls {
		if c == v.IDs[0] {
			return true
		}
	}
	return false
}

// placeholder is a client's approval placeholder sent as a tool's result.
type placeholder struct {
	id     string
	name   string
	source int
	offset int64
}

// findPlaceholder finds results that are a chat client's placeholder for
// an approved call (transcript.IsApprovalPlaceholder): the call had not run.
func findPlaceholder(m *transcript.Message) ([]placeholder, bool) {
	var out []placeholder
	for _, p := range m.Content {
		if p.Type == model.PartToolResult && transcript.IsApprovalPlaceholder(p.Output) {
			out = append(out, placeholder{id: p.ToolCallID, name: p.ToolName, source: m.Source, offset: m.Offset})
		}
	}
	return out, len(out) > 0
}

func (p placeholder) finding(req *transcript.Request) Finding {
	f := Finding{Check: "PRE-01", Level: level("PRE-01"), Kind: KindPlaceholder, ProviderIndex: -1, IDs: []string{p.id},
		Detail: fmt.Sprintf("the result of %s is the client's approval placeholder, not the tool's output: the approved call had not run when the model was called (the provider accepts it; the model reads the placeholder as the result)", labelled([]string{p.id}, map[string]string{p.id: p.name}))}
	f.at(req, p.source)
	f.Offset = p.offset
	return f
}

// promptApprovals finds approval parts in a canonical prompt: responses
// that match no request (PRE-04) and any other approval part (PRE-12),
// except the responses of provider-executed calls, which are forwarded.
func promptApprovals(req *transcript.Request) []Finding {
	requests := map[string]bool{}
	var out []Finding
	var parts []string
	partSrc := -1
	for _, m := range req.Messages {
		for _, p := range m.Content {
			switch p.Type {
			case model.PartToolApprovalRequest:
				requests[p.ApprovalID] = true
				if !p.ProviderExecuted {
					parts = append(parts, p.ApprovalID)
					if partSrc < 0 {
						partSrc = m.Source
					}
				}
			case model.PartToolApprovalResponse:
				if p.ProviderExecuted {
					continue
				}
				if !requests[p.ApprovalID] {
					f := Finding{Check: "PRE-04", Level: level("PRE-04"), Kind: KindOrphanApproval, ProviderIndex: -1, IDs: []string{p.ApprovalID},
						Detail: fmt.Sprintf("approval response %s matches no approval request, and it was sent on to the model", p.ApprovalID)}
					f.at(req, m.Source)
					out = append(out, f)
					continue
				}
				parts = append(parts, p.ApprovalID)
				if partSrc < 0 {
					partSrc = m.Source
				}
			}
		}
	}
	if len(parts) > 0 {
		f := Finding{Check: "PRE-12", Level: level("PRE-12"), Kind: KindApprovalParts, ProviderIndex: -1, IDs: dedupe(parts),
			Detail: fmt.Sprintf("the prompt carries approval requests or responses (%s); they are the SDK's business and should be stripped before the model is called", strings.Join(dedupe(parts), ", "))}
		f.at(req, partSrc)
		out = append(out, f)
	}
	return out
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
