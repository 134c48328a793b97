// Package regression turns a recorded conversation that went wrong into a
// YAML regression scenario (docs/scenarios.md): the conversation is
// reproduced turn by turn (the recorded model replies become the model's
// script, the user's recorded actions the turns' actions, the tools return
// what they returned), and what went wrong, as lint found it, becomes the
// scenario's expectations and checks. The scenario passes on an
// implementation that gets it right and fails on one that repeats the bug.
//
// The scenario format is written in one place: the plan types below and
// their emission (yaml.go). What each finding asserts is decided in one
// function, expectations.
package regression

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/transcript"
)

// ErrNothingWrong is returned for a conversation in which lint finds
// nothing: there is nothing for a regression scenario to assert.
var ErrNothingWrong = errors.New("lint finds nothing wrong in this conversation: there is nothing for a regression scenario to assert")

// Source is a transcript and what lint found in it.
type Source struct {
	// File names the transcript (its base name names the scenario).
	File string
	// Conversation is the conversation to reproduce.
	Conversation *transcript.Conversation
	// Findings are lint's findings in the file; those of other
	// conversations of a journal are left out.
	Findings []lint.Finding
	// Single says the file holds this conversation alone.
	Single bool
}

// Options configure a scenario.
type Options struct {
	// ID is the scenario's id; by default the transcript's file name.
	ID string
	// OutOfContract, when set, says why the recorded input is one no
	// conforming client sends (a hand-built history, a replayed answer):
	// the scenario is tagged out-of-contract, and on it only the safety
	// harms (ran-against-answer, forged, crashed) are MUST failures.
	OutOfContract string
}

// Scenario writes the YAML regression scenario of a conversation.
func Scenario(src Source, opts Options) ([]byte, error) {
	p, err := build(src, opts)
	if err != nil {
		return nil, err
	}
	return p.yaml()
}

// plan is a scenario as the format has it (docs/scenarios.md).
type plan struct {
	header      []string // comment lines at the top
	tags        []string
	id, title   string
	description string
	checks      []string
	level       string
	modes       []string
	provider    string
	tools       []tool
	history     []model.Message
	turns       []turn
	// fromHist: the conversation is reproduced as a history (fromHistory).
	fromHist bool
}

type tool struct {
	name        string
	inputSchema json.RawMessage
	returns     json.RawMessage
	fails       string
	provider    bool
}

type turn struct {
	comments []string
	// The action: one of these.
	say          string
	approve      []string
	deny         []string
	answers      []transcript.Answer
	reason, then string
	approveTwice string
	conflict     string
	orphan       *orphan
	// The model's replies, and what must hold after the turn.
	model  []reply
	expect []kv
}

type orphan struct{ call, approvalID string }

type reply struct {
	comment   string
	text      string
	toolCalls []call
	errStatus int
	errMsg    string
	optional  bool
	expect    []kv
}

type call struct {
	id, tool   string
	input      json.RawMessage
	approvalID string
}

// kv is one expectation: its key and value, in the order written.
type kv struct {
	key   string
	value any
}

var (
	idUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	slug     = regexp.MustCompile(`[^a-z0-9]+`)
)

// scenarioID derives an id from a file name (and the conversation, when the
// file holds several).
func scenarioID(src Source) string {
	base := strings.TrimSuffix(filepath.Base(src.File), filepath.Ext(src.File))
	id := strings.Trim(idUnsafe.ReplaceAllString(base, "-"), "-._")
	if !src.Single {
		conv := strings.ToLower(src.Conversation.ID)
		for _, ext := range []string{".yaml:", ".feature:"} {
			conv = strings.Replace(conv, ext, "", 1)
		}
		conv = strings.Trim(slug.ReplaceAllString(conv, "-"), "-")
		if len(conv) > 48 {
			conv = strings.Trim(conv[:48], "-")
		}
		id += "-" + conv
	}
	if id == "" {
		id = "transcript"
	}
	return "regression-" + id
}

// build plans the scenario.
func build(src Source, opts Options) (*plan, error) {
	conv := src.Conversation
	if len(src.Findings) == 0 {
		return nil, ErrNothingWrong
	}
	if len(conv.Turns) == 0 {
		return nil, errors.New("the conversation has no turn to reproduce")
	}
	p := &plan{id: opts.ID, provider: string(conv.Profile), history: conv.History, tags: []string{"regression"}}
	if why := strings.TrimSpace(opts.OutOfContract); why != "" {
		p.tags = append(p.tags, strings.TrimPrefix(checks.OutOfContractTag, "@"))
	}
	if p.id == "" {
		p.id = scenarioID(src)
	}
	p.header = append(p.header, fmt.Sprintf("Regression scenario written by conformance scenario from-transcript from %s", filepath.Base(src.File)))
	if !src.Single {
		p.header = append(p.header, fmt.Sprintf("(conversation %q).", conv.ID))
	}
	p.header = append(p.header, "What went wrong there (conformance lint):")
	for _, f := range src.Findings {
		line := fmt.Sprintf("  %s %s %s: %s", f.Check, f.Path, f.Kind, f.Detail)
		if f.Call > 0 {
			line = fmt.Sprintf("  model call %d, %s", f.Call, strings.TrimSpace(line))
		}
		p.header = append(p.header, line)
		if f.Provider != nil {
			p.header = append(p.header, fmt.Sprintf("    %s answered HTTP %d: %s", f.Provider.Profile, f.Provider.Status, f.Provider.Message))
		}
	}
	for _, n := range conv.Notes {
		p.header = append(p.header, "Assumed: "+n)
	}
	if ClientRequest(conv) {
		p.header = append(p.header, strings.Split(ClientNotice, "\n")...)
	}
	if why := strings.TrimSpace(opts.OutOfContract); why != "" {
		p.header = append(p.header, "Out of contract: "+why+" (only ran-against-answer, forged and crashed are MUST on such input).")
	}
	p.title = fmt.Sprintf("Regression from %s: %s", filepath.Base(src.File), headline(src.Findings[0]))
	p.description = "Reproduces a recorded conversation turn by turn; fails where the recording went wrong."
	p.modes = modes(conv)
	p.tools = tools(conv)

	// Which turn and which reply each finding belongs to.
	callTurn := map[int]int{} // index in conv.Calls -> turn
	for ti, t := range conv.Turns {
		for _, k := range t.Calls {
			callTurn[k] = ti
		}
	}
	midway := startsMidway(conv)
	if midway {
		p.header = append(p.header, "Assumed: the conversation starts mid-way (a retried or edited request, which a recording proxy records as a conversation of its own): the prompt that went wrong is the scenario's history, as the client sent it")
	}
	if historyShaped(src.Findings) || midway {
		if err := p.fromHistory(conv, src.Findings); err != nil {
			return nil, err
		}
	} else {
		used := map[string]bool{}
		for ti, t := range conv.Turns {
			p.turns = append(p.turns, action(conv, t))
			tt := &p.turns[ti]
			for _, k := range t.Calls {
				tt.model = append(tt.model, replyOf(conv.Calls[k], used))
			}
			if len(tt.model) == 0 {
				tt.model = append(tt.model, reply{text: "Done.", optional: true, comment: "The transcript ends before the model answers this turn."})
			}
			if len(t.Abandoned) > 0 {
				// The user moved on while calls waited for an answer: a
				// target must answer them (a denial) or refuse the turn.
				tt.comments = append(tt.comments, fmt.Sprintf("The user moved on while %s waited for an answer.", strings.Join(t.Abandoned, ", ")))
				addTurnChecked(tt, "errorOrDenial", map[string]string{"code": "MissingToolResults", "call": t.Abandoned[0]}, "PRE-09")
				for i := range tt.model {
					tt.model[i].optional = true
				}
			}
		}
	}
	level := checks.Should
	seen := map[string]bool{}
	for _, f := range src.Findings {
		if p.fromHist { // the history's one turn
			expectations(p, conv, f, 0, 0)
		} else {
			k := findingCall(conv, f)
			ti, ok := callTurn[k]
			if !ok {
				ti = len(p.turns) - 1
			}
			expectations(p, conv, f, ti, indexOf(conv.Turns[ti].Calls, k))
		}
		for _, c := range append([]string{f.Check}, f.Also...) {
			if !seen[c] {
				seen[c] = true
				p.checks = append(p.checks, c)
			}
			if ch, ok := checks.Lookup(c); ok && ch.Level == checks.Must {
				level = checks.Must
			}
		}
	}
	p.judgeEveryTurn()
	_ = level // a check's own level decides whether its failure warns
	return p, nil
}

func indexOf(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// findingCall is the index, in the conversation's calls, of the model call
// whose prompt a finding is about.
func findingCall(conv *transcript.Conversation, f lint.Finding) int {
	if f.Call > 0 && f.Call <= len(conv.Calls) {
		return f.Call - 1
	}
	return len(conv.Calls) - 1 // a request body or an agent's input: its next call
}

// headline says a finding in a few words, for the title.
func headline(f lint.Finding) string {
	id := ""
	if len(f.IDs) > 0 {
		id = f.IDs[0]
	}
	switch f.Kind {
	case "dangling":
		return id + " reached the model without a result"
	case "unresolved-approval":
		return "the answered call " + id + " reached the model without a result"
	case "misplaced":
		return "the result of " + id + " is not where the provider wants it"
	case "orphan":
		return "a result for " + id + " answers no call"
	case "duplicate":
		return id + " has two results"
	case lint.KindPlaceholder:
		return "an approval placeholder reached the model as " + id + "'s result"
	case lint.KindApprovalParts:
		return "approval parts reached the model"
	case lint.KindOrphanApproval:
		return "an answer matching no approval request"
	case lint.KindDuplicateApproval, lint.KindConflictingApproval:
		return id + " answered twice"
	}
	return f.Kind
}

func modes(conv *transcript.Conversation) []string {
	set := map[string]bool{}
	for _, c := range conv.Calls {
		if c.Mode != "" {
			set[c.Mode] = true
		}
	}
	if len(set) == 1 {
		for m := range set {
			return []string{m}
		}
	}
	return nil // both
}

// tools declares every tool the conversation used, needing approval, and
// returning its first recorded output (or failing with its first error).
func tools(conv *transcript.Conversation) []tool {
	provider := map[string]bool{}
	for _, c := range conv.Calls {
		if c.Reply == nil {
			continue
		}
		for _, tc := range c.Reply.ToolCalls {
			if tc.ProviderExecuted {
				provider[tc.Name] = true
			}
		}
	}
	names := map[string]string{} // call id -> tool
	for _, c := range conv.Calls {
		if c.Reply != nil {
			for _, tc := range c.Reply.ToolCalls {
				names[tc.ID] = tc.Name
			}
		}
	}
	ids := make([]string, 0, len(conv.Outputs))
	for id := range conv.Outputs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []tool
	for _, d := range conv.Tools {
		t := tool{name: d.Name, inputSchema: d.InputSchema, provider: provider[d.Name]}
		for _, id := range ids {
			o := conv.Outputs[id]
			if names[id] != d.Name || o == nil || t.returns != nil || t.fails != "" {
				continue
			}
			switch o.Type {
			case model.OutputJSON:
				t.returns = o.Value
			case model.OutputText:
				t.returns, _ = json.Marshal(o.TextValue()) // a string always marshals
			}
		}
		out = append(out, t)
	}
	return out
}

// historyShaped reports whether every finding is about where results sit
// in the history (a result misplaced, of no call, or a second one), which
// the scenario reproduces by giving that history to the target.
func historyShaped(fs []lint.Finding) bool {
	for _, f := range fs {
		switch f.Kind {
		case "misplaced", "orphan", "duplicate":
		default:
			return false
		}
	}
	return true
}

// ClientNotice says what a scenario written from a chat client's request
// can and cannot show.
const ClientNotice = `A chat client's request (UI messages or AG-UI): this scenario sends its
history to an agent, the server side, and checks what the agent does with
it. It cannot capture a bug of the client that sent it (a placeholder
result, a part left behind): the transcript holds the request the client
sent, not the server's stream and the user's actions that made the client
send it, from which a client-role scenario is scripted. A client with that
bug passes this scenario; to test the client, write a client-role
scenario (docs/scenarios.md) or run the suite against it.`

// ClientRequest reports whether a conversation was read from a chat
// client's request (UI messages, AG-UI) rather than a model request.
func ClientRequest(conv *transcript.Conversation) bool {
	return conv.Format == transcript.UIMessages || conv.Format == transcript.AGUI
}

// startsMidway reports whether a conversation was recorded from the
// middle: its first model call's prompt already holds the model's earlier
// answers (a branch: a retried or edited request). Its turns cannot be
// told apart from that prompt, so it is reproduced from the prompt as a
// history (fromHistory), never turn by turn.
func startsMidway(conv *transcript.Conversation) bool {
	if len(conv.Turns) == 0 || len(conv.Turns[0].Calls) == 0 {
		return false
	}
	for _, m := range conv.Calls[conv.Turns[0].Calls[0]].Prompt {
		if m.Role == model.RoleAssistant {
			return true
		}
	}
	return false
}

// fromHistory reproduces a conversation whose history is at fault: the
// prompt that went wrong becomes the scenario's history (approval parts
// left out: a history holds finished exchanges), and one turn asks the
// target to go on from it. A target may refuse such a history or repair
// it; it must not send it on as it is.
func (p *plan) fromHistory(conv *transcript.Conversation, fs []lint.Finding) error {
	msgs := conv.Messages
	if k := findingCall(conv, fs[0]); conv.Calls[k].Prompt != nil {
		msgs = conv.Calls[k].Prompt
	}
	var history []model.Message
	for _, m := range msgs {
		var parts []model.Part
		for _, part := range m.Content {
			if part.Type != model.PartToolApprovalRequest && part.Type != model.PartToolApprovalResponse {
				parts = append(parts, part)
			}
		}
		for i := range parts {
			if parts[i].Type == model.PartToolResult && parts[i].ToolName == "" {
				parts[i].ToolName = "unknown" // a result of no call names no tool
			}
		}
		if len(parts) > 0 || m.Role == model.RoleSystem {
			m.Content = parts
			history = append(history, m)
		}
	}
	say := "continue"
	if n := len(history); n > 0 && history[n-1].Role == model.RoleUser {
		say = quotable(provider.Text(history[n-1]))
		history = history[:n-1]
	}
	p.history, p.fromHist = history, true
	t := turn{say: say, comments: []string{"The history is the prompt that went wrong; the target goes on from it."}}
	t.model = []reply{{text: "Done.", optional: true, comment: "A target may refuse this history rather than repair it; it must not send it on."}}
	if k := findingCall(conv, fs[0]); conv.Calls[k].Reply != nil && conv.Calls[k].Reply.Text != "" && len(conv.Calls[k].Reply.ToolCalls) == 0 {
		t.model[0].text = conv.Calls[k].Reply.Text
	}
	p.turns = []turn{t}
	return nil
}

// replyOf is a recorded model call's answer as a scripted reply. A call id
// the conversation used before is left out: a scenario's model makes each
// call once.
func replyOf(c transcript.Call, used map[string]bool) reply {
	switch {
	case c.Reply != nil:
		r := reply{text: c.Reply.Text}
		for _, tc := range c.Reply.ToolCalls {
			if used[tc.ID] {
				r.comment = fmt.Sprintf("The recording's model made the call %s again here; a scenario's model makes it once.", tc.ID)
				continue
			}
			used[tc.ID] = true
			r.toolCalls = append(r.toolCalls, call{id: tc.ID, tool: tc.Name, input: tc.Input, approvalID: tc.ApprovalID})
		}
		if r.text == "" && len(r.toolCalls) == 0 {
			r.text = "(an empty reply)"
		}
		return r
	case c.Refused:
		return reply{text: "Done.", comment: fmt.Sprintf("The provider refused this call in the recording (HTTP %d): the reply a correct prompt gets.", c.Status)}
	case c.Status >= 400:
		return reply{errStatus: c.Status, errMsg: errorMessage(c.ErrorBody)}
	}
	return reply{text: "Done.", comment: "The transcript ends before this reply: a stand-in."}
}

// errorMessage reads the message of a provider's error body.
func errorMessage(body string) string {
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &env) == nil && env.Error.Message != "" {
		return env.Error.Message
	}
	return strings.TrimSpace(body)
}

// expectations turns one finding into what the scenario asserts: on the
// reply of the model call whose prompt went wrong (ri, -1 when the turn
// has none of the recording's) and on its turn (ti). This is the one
// place that knows which expectation says what a finding says.
func expectations(p *plan, conv *transcript.Conversation, f lint.Finding, ti, ri int) {
	t := &p.turns[ti]
	var r *reply
	if ri >= 0 && ri < len(t.model) {
		r = &t.model[ri]
	} else {
		r = &t.model[len(t.model)-1]
	}
	answer := answerOf(conv, f)
	switch f.Kind {
	case "dangling", lint.KindUnresolved:
		if p.fromHist {
			// Given the history with the call unanswered, a target may
			// refuse it or repair it (a result for the call, at the next
			// model call); it must not send it on.
			addTurnChecked(t, "finishesOrRefuses", true, f.Check)
		}
		if !p.fromHist && abandoned(conv.Turns[ti], f.IDs[0]) {
			break // the turn expects a denial or a refusal (build)
		}
		for _, id := range callIDs(f) {
			res := map[string]any{"call": id}
			// How many runs follows from the answer, when the transcript
			// shows it (an assumed one is the user's to change).
			if a, ok := answer[id]; ok && a.Known && !a.Approve {
				res["type"] = string(model.OutputExecutionDenied) // DEN-01's rule
				p.use("DEN-01")
				addTurnChecked(t, "runs", map[string]int{id: 0}, "PRE-02")
			} else if ok && a.Known {
				addTurnChecked(t, "ran", id, "PRE-01")
			}
			addReply(r, "results", res)
		}
		setCheck(r, f.Check)
	case "misplaced", "orphan":
		// The provider rules are checked on every model call (WIRE-01,
		// WIRE-02); the turn ends, or refuses the history it was given.
		addTurnChecked(t, "finishesOrRefuses", true, f.Check)
	case "duplicate":
		addTurnChecked(t, "finishesOrRefuses", true, f.Check)
		if a, ok := answer[f.IDs[0]]; ok && a.Approve && !p.fromHist {
			addTurnChecked(t, "runs", map[string]int{f.IDs[0]: 1}, "PRE-03")
		}
	case lint.KindPlaceholder:
		addReply(r, "results", map[string]any{"call": f.IDs[0]})
		addReply(r, "notContains", "pendingExecution")
		setCheck(r, f.Check)
	case lint.KindApprovalParts:
		addReply(r, "noApprovalParts", true)
		setCheck(r, f.Check)
	case lint.KindOrphanApproval:
		if len(t.approve) == 1 {
			t.orphan, t.approve = &orphan{call: t.approve[0], approvalID: f.IDs[0]}, nil
			dropThen(t, "orphan")
			addTurnChecked(t, "atMostOnce", t.orphan.call, "PRE-04") // the stray answer makes nothing else run
			addTurnChecked(t, "ran", t.orphan.call, "PRE-14")
		} else {
			t.comments = append(t.comments, fmt.Sprintf("The recording also sent the answer %s, which matches no request; the scenario sends it with a single approval only.", f.IDs[0]))
		}
	case lint.KindDuplicateApproval:
		if len(t.approve) == 1 && t.approve[0] == f.IDs[0] {
			t.approveTwice, t.approve = f.IDs[0], nil
			dropThen(t, "approveTwice")
			addTurnChecked(t, "resolvedOnce", f.IDs[0], "PRE-11")
		}
	case lint.KindConflictingApproval:
		id := f.IDs[0]
		if (len(t.approve) == 1 && t.approve[0] == id) || (len(t.deny) == 1 && t.deny[0] == id) {
			dropThen(t, "conflict")
			t.conflict, t.approve, t.deny, t.reason = id, nil, nil, ""
			addTurnChecked(t, "resolvedOnce", id, "PRE-11")
		}
	}
}

// callIDs are a finding's tool call ids (an unresolved answer's ids end
// with the approval id).
func callIDs(f lint.Finding) []string {
	if f.Kind == lint.KindUnresolved {
		return f.IDs[:1]
	}
	return f.IDs
}

func abandoned(t transcript.Turn, id string) bool {
	for _, a := range t.Abandoned {
		if a == id {
			return true
		}
	}
	return false
}

// answerOf maps the conversation's answered calls to their answers.
func answerOf(conv *transcript.Conversation, _ lint.Finding) map[string]transcript.Answer {
	out := map[string]transcript.Answer{}
	for _, t := range conv.Turns {
		for _, a := range t.Answers {
			out[a.Call] = a
		}
	}
	return out
}

// addTurn adds a turn expectation, merging maps and lists under one key.
func addTurn(t *turn, key string, value any) { t.expect = merge(t.expect, key, value) }

// addTurnChecked adds a turn expectation charged to a check (the turn's
// checks map: which rule the expectation tests).
func addTurnChecked(t *turn, key string, value any, check string) {
	t.expect = merge(t.expect, key, value)
	for i, e := range t.expect {
		if e.key == "checks" {
			t.expect[i].value.(map[string]string)[key] = check
			return
		}
	}
	t.expect = append(t.expect, kv{"checks", map[string]string{key: check}})
}

// judgeEveryTurn gives a turn that asserts nothing of its own an
// assertion (every turn of a scenario is judged): the approved calls ran,
// the denied ones did not; else it finishes, charged to the scenario's
// first check.
func (p *plan) judgeEveryTurn() {
	for i := range p.turns {
		t := &p.turns[i]
		asserts := false
		for _, e := range t.expect {
			asserts = asserts || (e.key != "checks" && e.key != "check")
		}
		if asserts {
			continue
		}
		switch {
		case len(t.approve) > 0:
			for _, id := range t.approve {
				addTurnChecked(t, "ran", id, "PRE-01")
			}
		case len(t.deny) > 0:
			for _, id := range t.deny {
				addTurnChecked(t, "runs", map[string]int{id: 0}, "PRE-02")
			}
		case len(t.answers) > 0:
			for _, a := range t.answers {
				if a.Approve {
					addTurnChecked(t, "ran", a.Call, "PRE-01")
				} else {
					addTurnChecked(t, "runs", map[string]int{a.Call: 0}, "PRE-02")
				}
			}
		case len(p.localCalls(t)) > 0:
			// Its calls need approval (every tool of a regression does).
			for _, id := range p.localCalls(t) {
				t.expect = merge(t.expect, "approvals", id)
			}
			p.use("REQ-01")
		default:
			check := "WIRE-01"
			if len(p.checks) > 0 {
				check = p.checks[0]
			}
			addTurnChecked(t, "finishReason", "stop", check)
		}
	}
	for _, t := range p.turns {
		for _, e := range t.expect {
			if e.key != "checks" {
				continue
			}
			for _, c := range e.value.(map[string]string) {
				p.use(c)
			}
		}
	}
	checks.SortIDs(p.checks)
}

// localCalls are the calls a turn's replies make to tools run locally.
func (p *plan) localCalls(t *turn) []string {
	var ids []string
	for _, r := range t.model {
		for _, c := range r.toolCalls {
			provider := false
			for _, tool := range p.tools {
				provider = provider || (tool.name == c.tool && tool.provider)
			}
			if !provider {
				ids = append(ids, c.id)
			}
		}
	}
	return ids
}

// use lists a check among the scenario's checks.
func (p *plan) use(c string) {
	for _, x := range p.checks {
		if x == c {
			return
		}
	}
	p.checks = append(p.checks, c)
}

func addReply(r *reply, key string, value any) { r.expect = merge(r.expect, key, value) }

func setCheck(r *reply, check string) {
	for _, e := range r.expect {
		if e.key == "check" {
			return // one check per reply's expectations in the current format
		}
	}
	r.expect = append(r.expect, kv{"check", check})
}

func merge(list []kv, key string, value any) []kv {
	for i, e := range list {
		if e.key != key {
			continue
		}
		switch old := e.value.(type) {
		case map[string]int:
			for k, v := range value.(map[string]int) {
				old[k] = v
			}
		case []any:
			for _, o := range old {
				if fmt.Sprint(o) == fmt.Sprint(value) {
					return list
				}
			}
			list[i].value = append(old, value)
		}
		return list
	}
	switch v := value.(type) {
	case map[string]any, string:
		if key == "results" || key == "notContains" || key == "ran" || key == "approvals" || key == "atMostOnce" {
			return append(list, kv{key, []any{v}})
		}
	}
	return append(list, kv{key, value})
}
