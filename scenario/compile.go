package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
)

// Compile turns a scenario into the text of a Gherkin feature that uses the
// suite's steps. The feature has one scenario outline, with a row per mode.
//
// Every assertion of the output names the one check it is charged to
// ("Then [PRE-01] ..."), except the steps whose rule is a single check's
// (their check is fixed by the step). How a check is found for each
// expectation is described on Expect; the compiler refuses a scenario in
// which an expectation has no check, a check the scenario does not list, or
// a listed check that nothing asserts. An answer to a call needs an
// assertion that its approval was requested: when the turn that made the
// call does not list it in approvals (or asksOrFails), the compiler asserts
// it there, charged to REQ-01 (PROV-01 for a provider's call), which then
// joins the scenario's checks.
func Compile(f *File) (string, error) {
	c := &compiler{f: f, tools: map[string]*Tool{}, calls: map[string]*callInfo{}, listed: map[string]bool{}, asserted: map[string]bool{}, auto: map[string]bool{}}
	for i := range f.Tools {
		c.tools[f.Tools[i].Name] = &f.Tools[i]
	}
	for _, id := range f.Checks {
		c.listed[id] = true
	}
	if err := c.compile(); err != nil {
		return "", err
	}
	return c.out.String(), nil
}

// callInfo is a tool call the scenario makes or starts with.
type callInfo struct {
	id, tool string
	// turn is the turn whose model replies make it, or whose action forges
	// it; -1 for the starting history.
	turn int
	// reply is the model call (1-based, over the scenario) that makes it.
	reply      int
	provider   bool
	approvalID string
	input      json.RawMessage
	forged     bool
}

type compiler struct {
	f        *File
	tools    map[string]*Tool
	calls    map[string]*callInfo
	listed   map[string]bool // the checks the file lists
	asserted map[string]bool // the checks some assertion is charged to
	auto     map[string]bool // the checks the compiler added
	// requested maps a turn to the calls whose approval requests it asserts
	// for the answers of later turns.
	requested map[int][]string
	// replies counts the model's replies up to the end of each turn.
	replies []int
	out     strings.Builder
	b       strings.Builder // the scenario's steps
	// lastKeyword is the keyword of the last step written: assertions
	// after the first read "And".
	lastKeyword string
	line        int // the YAML line of what is being compiled, for errors
}

func (c *compiler) fail(field, format string, args ...any) error {
	return &Error{File: c.f.Path, Line: c.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (c *compiler) failAt(line int, field, format string, args ...any) error {
	if line == 0 {
		line = c.line
	}
	return &Error{File: c.f.Path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// quote puts s in a step's double quotes; the steps' patterns allow no
// double quote inside.
func (c *compiler) quote(field, s string) (string, error) {
	if strings.ContainsAny(s, "\"\n") {
		return "", c.fail(field, "must not contain a double quote or a line break (it goes into a step's quotes)")
	}
	return `"` + s + `"`, nil
}

func (c *compiler) step(keyword, text string) {
	shown := keyword
	if keyword == "Then" && c.lastKeyword == "Then" {
		shown = "And"
	}
	c.lastKeyword = keyword
	fmt.Fprintf(&c.b, "    %s %s\n", shown, text)
}

// assert writes an assertion charged to check: labelled, unless its step
// is fixed to its check (its definition says so, and a label would be
// refused).
func (c *compiler) assert(check, text string, fixed bool) {
	if fixed {
		c.step("Then", text)
		return
	}
	c.step("Then", "["+check+"] "+text)
}

func (c *compiler) docString(keyword, text string, doc []byte) {
	c.step(keyword, text)
	c.b.WriteString("      \"\"\"\n")
	for _, line := range strings.Split(string(doc), "\n") {
		c.b.WriteString("      " + line + "\n")
	}
	c.b.WriteString("      \"\"\"\n")
}

// naturalChecks are the checks whose rule an expectation field tests,
// whatever the block's check says. Those marked fixed are assertions of
// that check alone (their step says so): checks cannot charge them to
// another.
var naturalChecks = map[string]struct {
	check string
	fixed bool
}{
	"approvals":                   {"REQ-01", false},
	"uniqueApprovalIds":           {"REQ-02", true},
	"everyCallAccounted":          {"REQ-06", true},
	"everyCallAccountedOrRefused": {"REQ-06", true},
	"streamMatches":               {"REQ-07", true},
	"events":                      {"REQ-07", false},
	"streamResults":               {"PRE-08", true},
	"maxConcurrent":               {"PRE-07", true},
	"policyAsked":                 {"REQ-04", true},
	"policySaw":                   {"REQ-04", true},
	"policySawCallId":             {"REQ-04", true},
	"resolvedOnce":                {"PRE-11", false},
	"notRunAgain":                 {"PRE-03", false},
	"failedAsDeclared":            {"ERR-02", false},
	"noLostSideEffects":           {"PRE-13", false},
	// A model reply's expectations.
	"noApprovalParts":   {"PRE-12", false},
	"providerApprovals": {"PROV-01", false},
}

// scope is a block of expectations: a turn's expect, or a model reply's.
type scope struct {
	path     string
	check    string
	checks   map[string]string
	lines    map[string]int
	line     int
	consumed map[string]bool
}

func (s *scope) lineOf(field string) int {
	if l := s.lines[field]; l > 0 {
		return l
	}
	return s.line
}

// resolve finds the check of an expectation: own (an item's explicit
// check), checks["field.item"], checks[field], the field's natural check,
// the block's check, the scenario's only check.
func (c *compiler) resolve(s *scope, field, item, own, natural string) (string, error) {
	nat, hasNat := naturalChecks[field]
	if natural == "" && hasNat {
		natural = nat.check
	}
	var id, from string
	switch {
	case own != "":
		id, from = own, field+" (the item's check)"
	case item != "" && s.checks[field+"."+item] != "":
		id, from = s.checks[field+"."+item], "checks."+field+"."+item
		s.consumed[field+"."+item] = true
	case s.checks[field] != "":
		id, from = s.checks[field], "checks."+field
		s.consumed[field] = true
	case natural != "":
		id = natural
	case s.check != "":
		id, from = s.check, "check"
	case len(c.f.Checks) == 1:
		id = c.f.Checks[0]
	default:
		return "", c.failAt(s.lineOf(field), s.path+"."+field,
			"which check does this assert? name it in checks: {%s: ID}, give the block a check, or list a single check in the scenario's checks", field)
	}
	if hasNat && nat.fixed && id != nat.check {
		return "", c.failAt(s.lineOf(field), s.path+"."+field, "%s is always an assertion of %s; %s cannot charge it to %s", field, nat.check, from, id)
	}
	if err := c.known(s.lineOf(field), s.path+"."+field, id); err != nil {
		return "", err
	}
	if !c.listed[id] {
		return "", c.failAt(s.lineOf(field), s.path+"."+field, "this asserts %s, which the scenario's checks do not list: list it", id)
	}
	c.asserted[id] = true
	return id, nil
}

// known refuses a check id that is not an agent check of the catalogue.
func (c *compiler) known(line int, field, id string) error {
	ch, ok := checks.Lookup(id)
	if !ok {
		return c.failAt(line, field, "unknown check %q (see conformance checks)", id)
	}
	if ch.Role != checks.Agent {
		return c.failAt(line, field, "%s is a %s check; YAML scenarios drive the agent role", id, ch.Role)
	}
	return nil
}

// newScope makes the scope of a block and checks its check names.
func (c *compiler) newScope(path string, line int, lines map[string]int, check string, byField map[string]string) (*scope, error) {
	s := &scope{path: path, check: check, checks: byField, lines: lines, line: line, consumed: map[string]bool{}}
	if check != "" {
		if err := c.known(s.lineOf("check"), path+".check", check); err != nil {
			return nil, err
		}
	}
	for k, v := range byField {
		if err := c.known(s.lineOf("checks"), path+".checks."+k, v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// unconsumed refuses a checks entry that names no expectation of the block.
func (c *compiler) unconsumed(s *scope) error {
	keys := make([]string, 0, len(s.checks))
	for k := range s.checks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !s.consumed[k] {
			return c.failAt(s.lineOf("checks"), s.path+".checks."+k, "no expectation of this block is %q (write a field name, or field.item for one id of a list or map)", k)
		}
	}
	return nil
}

func (c *compiler) compile() error {
	f := c.f
	if err := c.survey(); err != nil {
		return err
	}
	c.line = f.line
	if f.Provider != "" {
		c.step("Given", fmt.Sprintf("the model speaks %q", f.Provider))
	}
	c.step("Given", "the agent runs in <mode> mode")
	if f.DenialPolicy != "" {
		c.step("And", fmt.Sprintf("the target's denial policy is %q", f.DenialPolicy))
	}
	for i := range f.Tools {
		if err := c.tool(i); err != nil {
			return err
		}
	}
	if f.Options.Concurrency > 0 {
		c.step("And", fmt.Sprintf("the concurrency option is %d", f.Options.Concurrency))
	}
	if f.Options.MaxSteps > 0 {
		c.step("And", fmt.Sprintf("the step limit is %d", f.Options.MaxSteps))
	}
	if f.Exchanges != nil {
		c.step("And", fmt.Sprintf("the conversation starts with %d finished exchanges of %q", f.Exchanges.Count, f.Exchanges.Tool))
	}
	if !isEmpty(&f.History) {
		raw, err := nodeJSON(&f.History)
		if err != nil {
			return c.fail("history", "%v", err)
		}
		c.docString("And", "the conversation continues with:", indentJSON(raw))
	}
	for i := range f.Turns {
		if err := c.turn(i); err != nil {
			return err
		}
	}
	modes := f.Modes
	if len(modes) == 0 {
		modes = []string{"generate", "stream"}
	}
	c.b.WriteString("\n    Examples:\n      | mode |\n")
	for _, m := range modes {
		fmt.Fprintf(&c.b, "      | %s |\n", m)
	}

	// Every listed check is asserted, or is one the suite asserts on every
	// model call (WIRE-01, WIRE-02) or turn (WIRE-03).
	scripted := c.replies[len(c.replies)-1] > 0
	for _, id := range f.Checks {
		switch {
		case c.asserted[id]:
		case (id == "WIRE-01" || id == "WIRE-02") && scripted:
		case id == "WIRE-03":
		default:
			return c.failAt(f.lines["checks"], "checks", "%s is listed, but no expectation of the scenario asserts it", id)
		}
	}
	all := append([]string(nil), f.Checks...)
	for id := range c.auto {
		if !slices.Contains(all, id) {
			all = append(all, id)
		}
	}
	checks.SortIDs(all)
	tags := []string{"@yaml", "@agent"}
	should := true
	for _, id := range all {
		if ch, _ := checks.Lookup(id); ch.Level == checks.Must {
			should = false
		}
	}
	if should {
		tags = append(tags, "@should")
	}
	for _, t := range f.Tags {
		tags = append(tags, "@"+t)
	}
	fmt.Fprintf(&c.out, "%s\nFeature: %s\n", strings.Join(tags, " "), oneLine(f.Title))
	if f.Description != "" {
		for _, l := range strings.Split(strings.TrimSpace(f.Description), "\n") {
			fmt.Fprintf(&c.out, "  %s\n", strings.TrimSpace(l))
		}
	}
	var checkTags []string
	for _, id := range all {
		checkTags = append(checkTags, "@"+id)
	}
	fmt.Fprintf(&c.out, "\n  %s\n  Scenario Outline: %s (<mode>)\n", strings.Join(checkTags, " "), oneLine(f.Title))
	c.out.WriteString(c.b.String())
	return nil
}

// survey collects the calls of the scenario (the history's, the model's,
// the forged ones) and the answers of each turn, and checks that every
// answer names a call an earlier turn made.
func (c *compiler) survey() error {
	f := c.f
	if f.Exchanges != nil {
		for i := 1; i <= f.Exchanges.Count; i++ {
			id := fmt.Sprintf("hist_%d", i)
			c.calls[id] = &callInfo{id: id, tool: f.Exchanges.Tool, turn: -1}
		}
	}
	if !isEmpty(&f.History) {
		raw, _ := nodeJSON(&f.History) // validated on load
		msgs, _ := model.DecodeMessagesAt(raw, "history")
		for _, m := range msgs {
			for _, p := range m.Content {
				if p.Type == model.PartToolCall {
					c.calls[p.ToolCallID] = &callInfo{id: p.ToolCallID, tool: p.ToolName, turn: -1, input: p.Input}
				}
			}
		}
	}
	n := 0
	c.requested = map[int][]string{}
	for i := range f.Turns {
		t := &f.Turns[i]
		c.line = t.line
		field := fmt.Sprintf("turns[%d]", i)
		// The answers of this turn name calls of earlier turns.
		answered, err := c.answeredCalls(t, field, i)
		if err != nil {
			return err
		}
		for _, id := range answered {
			call := c.calls[id]
			if call.turn < 0 {
				continue
			}
			maker := &f.Turns[call.turn].Expect
			if slices.Contains(maker.Approvals, id) || maker.AsksOrFails == id || slices.Contains(c.requested[call.turn], id) || call.forged {
				continue
			}
			if maker.Error != "" || maker.ClearError {
				return c.failAt(t.line, field, "%s is answered, but turns[%d], which made the call, is expected to fail: no approval was requested", id, call.turn)
			}
			c.requested[call.turn] = append(c.requested[call.turn], id)
		}
		for _, fg := range []*Forge{t.Forge, t.ForgeUnsigned} {
			if fg == nil {
				continue
			}
			if c.calls[fg.Call] != nil || c.tools[fg.Call] != nil {
				return c.failAt(t.line, field+".forge.call", "%q is already a call id or a tool name: a forged call needs an id of its own", fg.Call)
			}
			input, _ := nodeJSON(&fg.Input)
			c.calls[fg.Call] = &callInfo{id: fg.Call, tool: fg.Tool, turn: i, forged: true, input: input}
		}
		for j := range t.Model {
			r := &t.Model[j]
			n++
			for _, tc := range r.ToolCalls {
				if c.calls[tc.ID] != nil {
					return c.failAt(r.line, fmt.Sprintf("%s.model[%d].toolCalls", field, j), "the call id %q is used twice", tc.ID)
				}
				input, _ := nodeJSON(&tc.Input)
				tool := c.tools[tc.Tool]
				c.calls[tc.ID] = &callInfo{id: tc.ID, tool: tc.Tool, turn: i, reply: n, provider: tool != nil && tool.Provider, approvalID: tc.ApprovalID, input: input}
			}
		}
		c.replies = append(c.replies, n)
	}
	return nil
}

// answeredCalls lists the calls a turn's action answers, refusing ids that
// no earlier turn made (a tool name stands for its calls in approve, deny
// and answers).
func (c *compiler) answeredCalls(t *Turn, field string, turn int) ([]string, error) {
	var out []string
	earlier := func(f, id string, toolsAllowed bool) error {
		if toolsAllowed && c.tools[id] != nil {
			out = append(out, c.pendingCallsTo(id, turn)...)
			return nil
		}
		call := c.calls[id]
		if call == nil || (call.turn >= turn) {
			what := "no model reply of an earlier turn makes a call"
			if toolsAllowed {
				what += ", and no tool is named"
			}
			return c.failAt(turnFieldLine(t.lines, f, t.line), field+"."+f, "%s %q", what, id)
		}
		out = append(out, id)
		return nil
	}
	for _, id := range t.Approve {
		if err := earlier("approve", id, true); err != nil {
			return nil, err
		}
	}
	for _, id := range t.Deny {
		if err := earlier("deny", id, true); err != nil {
			return nil, err
		}
	}
	for k, a := range t.Answers {
		if err := earlier(fmt.Sprintf("answers[%d].call", k), a.Call, true); err != nil {
			return nil, err
		}
	}
	for m, msg := range t.AnswersInTwoMessages {
		for k, a := range msg {
			if err := earlier(fmt.Sprintf("answersInTwoMessages[%d][%d].call", m, k), a.Call, false); err != nil {
				return nil, err
			}
		}
	}
	single := map[string]string{"approveTwice": t.ApproveTwice, "approveTwiceAcross": t.ApproveTwiceAcross, "conflict": t.Conflict, "conflictAcross": t.ConflictAcross, "resend": t.Resend}
	if t.Orphan != nil {
		single["orphan.call"] = t.Orphan.Call
	}
	if t.Malformed != nil {
		single["malformed.call"] = t.Malformed.Call
	}
	if t.Tamper != nil {
		single["tamper.call"] = t.Tamper.Call
	}
	if t.Rename != nil {
		single["rename.call"] = t.Rename.Call
	}
	if t.ApproveWithResult != nil {
		single["approveWithResult.call"] = t.ApproveWithResult.Call
	}
	keys := make([]string, 0, len(single))
	for k := range single {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if id := single[k]; id != "" {
			if err := earlier(k, id, false); err != nil {
				return nil, err
			}
		}
	}
	if t.Rename != nil {
		if call := c.calls[t.Rename.Call]; call != nil && call.tool == t.Rename.Tool {
			return nil, c.failAt(turnFieldLine(t.lines, "rename", t.line), field+".rename.tool", "%q is already the tool of %s: rename it to another", t.Rename.Tool, t.Rename.Call)
		}
	}
	if pa := t.ProviderAnswer; pa != nil {
		found := false
		for _, call := range c.calls {
			if call.provider && call.approvalID == pa.ApprovalID && call.turn >= 0 && call.turn < turn {
				found = true
				out = append(out, call.id)
			}
		}
		if !found {
			return nil, c.failAt(turnFieldLine(t.lines, "providerAnswer", t.line), field+".providerAnswer.approvalId", "no provider call of an earlier turn asks approval %q", pa.ApprovalID)
		}
	}
	return out, nil
}

// pendingCallsTo lists the calls to a tool, made before turn, that need
// approval (the tool's policy is always, or its rule matches the call's
// input).
func (c *compiler) pendingCallsTo(tool string, turn int) []string {
	t := c.tools[tool]
	a, _ := t.approval()
	var ids []string
	for id, call := range c.calls {
		if call.tool != tool || call.turn < 0 || call.turn >= turn || call.forged {
			continue
		}
		switch a.kind {
		case "always":
		case "rule":
			var in map[string]any
			if json.Unmarshal(call.input, &in) != nil {
				continue
			}
			if s, ok := in[a.field].(string); !ok || !strings.HasPrefix(s, a.prefix) {
				continue
			}
		default:
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// turnFieldLine is the line of a turn's field ("answers[2].call" is on the
// line of answers), or fallback.
func turnFieldLine(lines map[string]int, field string, fallback int) int {
	if i := strings.IndexAny(field, ".["); i >= 0 {
		field = field[:i]
	}
	if l := lines[field]; l > 0 {
		return l
	}
	return fallback
}

func (c *compiler) tool(i int) error {
	t := &c.f.Tools[i]
	c.line = t.line
	field := fmt.Sprintf("tools[%d]", i)
	name, err := c.quote(field+".name", t.Name)
	if err != nil {
		return err
	}
	a, _ := t.approval() // validated on load
	switch {
	case t.Provider:
		c.step("And", "a tool "+name+" that the provider runs")
	case t.Slow:
		if a.kind != "always" {
			return c.fail(field+".slow", "a slow tool must need approval (always): slowness is observed on approved runs")
		}
		c.step("And", "a tool "+name+" that needs approval and is slow")
	case a.kind == "always":
		c.step("And", "a tool "+name+" that needs approval")
	case a.kind == "never":
		c.step("And", "a tool "+name+" that needs no approval")
	case a.kind == "fails":
		c.step("And", "a tool "+name+" whose approval policy fails")
	case a.kind == "panics":
		c.step("And", "a tool "+name+" whose approval policy panics")
	case a.kind == "rule":
		field, err := c.quote(field+".approval.field", a.field)
		if err != nil {
			return err
		}
		prefix, err := c.quote(field+".approval.startsWith", a.prefix)
		if err != nil {
			return err
		}
		c.step("And", "a tool "+name+" that needs approval when "+field+" starts with "+prefix)
	}
	if !isEmpty(&t.InputSchema) {
		raw, _ := nodeJSON(&t.InputSchema) // validated on load
		c.docString("And", "the tool "+name+" takes input matching:", indentJSON(raw))
	}
	if !isEmpty(&t.Returns) {
		raw, _ := nodeJSON(&t.Returns) // validated on load
		c.step("And", "the tool "+name+" returns "+string(raw))
	}
	if t.Fails != "" {
		msg, err := c.quote(field+".fails", t.Fails)
		if err != nil {
			return err
		}
		c.step("And", "the tool "+name+" fails with "+msg)
	}
	return nil
}

func (c *compiler) turn(i int) error {
	t := &c.f.Turns[i]
	c.line = t.line
	field := fmt.Sprintf("turns[%d]", i)
	c.b.WriteString("\n")
	switch t.Toolkit {
	case "absent":
		c.step("Given", "no toolkit is given")
	case "empty":
		c.step("Given", "an empty toolkit is given")
	case "provided":
		c.step("Given", "the whole toolkit is given")
	}
	for _, o := range t.Omit {
		c.step("Given", fmt.Sprintf("the toolkit leaves out %q", o))
	}
	first := 1
	if i > 0 {
		first = c.replies[i-1] + 1
	}
	for j := range t.Model {
		turn, err := c.modelTurn(i, j, first+j)
		if err != nil {
			return err
		}
		doc, _ := json.MarshalIndent(turn, "", "  ") // plain data always marshals
		if turn.Optional {
			c.docString("Given", "the model may answer with:", doc)
		} else {
			c.docString("Given", "the model answers with:", doc)
		}
	}
	if err := c.action(t, field); err != nil {
		return err
	}
	before := c.b.Len()
	if err := c.expect(i, field+".expect"); err != nil {
		return err
	}
	if c.b.Len() == before {
		return c.failAt(t.line, field+".expect", "the turn asserts nothing: say what must hold after it (every turn is judged)")
	}
	return nil
}

// skippedText is the result of a call skipped under the abort-remaining
// denial policy, word for word.
const skippedText = "Error: Tool execution was skipped due to previous tool denial."

func (c *compiler) modelTurn(turn, j, callN int) (simulator.Turn, error) {
	r := &c.f.Turns[turn].Model[j]
	c.line = r.line
	path := fmt.Sprintf("turns[%d].model[%d]", turn, j)
	st := simulator.Turn{Optional: r.Optional, Reply: simulator.Reply{Text: r.Text, ChunkSize: 7}}
	if r.Error != nil {
		st.Reply = simulator.Reply{Error: &simulator.ErrorReply{Status: r.Error.Status, Type: r.Error.Type, Message: r.Error.Message}}
	}
	for _, call := range r.ToolCalls {
		input, _ := nodeJSON(&call.Input) // validated on load
		if string(input) == "null" {
			input = json.RawMessage("{}")
		}
		tc := simulator.ToolCall{ID: call.ID, Name: call.Tool, Input: input, ApprovalID: call.ApprovalID}
		if t := c.tools[call.Tool]; t != nil && t.Provider {
			tc.ProviderExecuted = true
		}
		st.Reply.ToolCalls = append(st.Reply.ToolCalls, tc)
	}
	e := r.Expect
	if e == nil {
		return st, nil
	}
	s, err := c.newScope(path+".expect", e.line, e.lines, e.Check, e.Checks)
	if err != nil {
		return st, err
	}
	x := &simulator.Expect{NoResults: e.NoResults, NoApprovalParts: e.NoApprovalParts, Messages: e.Messages,
		LastRole: e.LastRole, Contains: e.Contains, NotContains: e.NotContains, Tools: e.Tools, FieldChecks: map[string]string{}}
	// A result in this prompt is for a call an earlier model reply made,
	// or one the history or a forged message holds.
	seen := func(id string) bool {
		call := c.calls[id]
		return call != nil && (call.turn < turn || (call.turn == turn && (call.forged || call.reply < callN)))
	}
	for k, res := range e.Results {
		rf := fmt.Sprintf("%s.expect.results[%d]", path, k)
		line := res.line
		if !seen(res.Call) {
			return st, c.failAt(line, rf+".call", "no earlier model reply (nor the history) makes a call %q: the prompt cannot hold its result", res.Call)
		}
		if res.Skipped && (res.Type != "" || res.Text != nil || res.TextContains != "" || !isEmpty(&res.Value) || res.Reason != nil) {
			return st, c.failAt(line, rf+".skipped", "a skipped result is the skipped text, exactly: leave out type, text, textContains, value and reason")
		}
		if res.Reason != nil && res.Type != "" && res.Type != string(model.OutputExecutionDenied) {
			return st, c.failAt(line, rf+".reason", "a reason goes with a denial (type execution-denied)")
		}
		if res.Type != "" && !slices.Contains(outputTypes, res.Type) {
			return st, c.failAt(line, rf+".type", "%q is not one of %v", res.Type, outputTypes)
		}
		natural := ""
		if res.Skipped {
			natural = "PART-02"
		}
		present, err := c.resolve(s, "results", res.Call, res.Check, natural)
		if err != nil {
			return st, err
		}
		value, _ := nodeJSON(&res.Value) // validated on load
		if string(value) == "null" && isEmpty(&res.Value) {
			value = nil
		}
		want := simulator.ResultExpect{ToolCallID: res.Call, Type: res.Type, Reason: res.Reason, Value: value, TextContains: res.TextContains, Text: res.Text, Check: present}
		if res.Skipped {
			text := skippedText
			want.Type, want.Text = string(model.OutputErrorText), &text
		}
		if want.Type != "" {
			own := res.TypeCheck
			if own == "" && want.Type == string(model.OutputExecutionDenied) {
				own = "DEN-01"
			}
			if own == "" {
				own = present
			}
			if want.TypeCheck, err = c.resolve(s, "results", res.Call, own, ""); err != nil {
				return st, err
			}
		} else if res.TypeCheck != "" {
			return st, c.failAt(line, rf+".typeCheck", "there is no type to charge: give the result a type")
		}
		if res.Reason != nil {
			own := res.ReasonCheck
			if own == "" {
				own = "DEN-02"
			}
			if want.ReasonCheck, err = c.resolve(s, "results", res.Call, own, ""); err != nil {
				return st, err
			}
		} else if res.ReasonCheck != "" {
			return st, c.failAt(line, rf+".reasonCheck", "there is no reason to charge: give the result a reason")
		}
		x.Results = append(x.Results, want)
	}
	for _, id := range e.NoResults {
		if c.calls[id] == nil {
			return st, c.failAt(s.lineOf("noResults"), path+".expect.noResults", "no call %q is made anywhere in the scenario", id)
		}
	}
	for k, pa := range e.ProviderApprovals {
		if !c.providerApproval(pa.ApprovalID, turn) {
			return st, c.failAt(s.lineOf("providerApprovals"), fmt.Sprintf("%s.expect.providerApprovals[%d].approvalId", path, k), "no provider call of an earlier turn asks approval %q", pa.ApprovalID)
		}
		check, err := c.resolve(s, "providerApprovals", pa.ApprovalID, pa.Check, "")
		if err != nil {
			return st, err
		}
		x.ProviderApprovals = append(x.ProviderApprovals, simulator.ProviderApprovalExpect{ApprovalID: pa.ApprovalID, Approved: pa.Approved, Check: check})
	}
	set := map[string]bool{
		"noResults": len(e.NoResults) > 0, "noApprovalParts": e.NoApprovalParts, "messages": e.Messages != nil,
		"lastRole": e.LastRole != "", "contains": len(e.Contains) > 0, "notContains": len(e.NotContains) > 0, "tools": e.Tools != nil,
	}
	for _, field := range sortedKeys(set) {
		if !set[field] {
			continue
		}
		check, err := c.resolve(s, field, "", "", "")
		if err != nil {
			return st, err
		}
		x.FieldChecks[field] = check
	}
	if err := c.unconsumed(s); err != nil {
		return st, err
	}
	if len(x.FieldChecks) == 0 {
		x.FieldChecks = nil
	}
	st.Expect = x
	return st, nil
}

var outputTypes = []string{"json", "text", "error-text", "error-json", "execution-denied"}

// providerApproval reports whether a provider call made before turn asks
// the approval id.
func (c *compiler) providerApproval(approvalID string, turn int) bool {
	for _, call := range c.calls {
		if call.provider && call.approvalID == approvalID && call.turn >= 0 && call.turn < turn {
			return true
		}
	}
	return false
}

func (c *compiler) action(t *Turn, field string) error {
	q := func(f, s string) (string, error) { return c.quote(field+"."+f, s) }
	switch {
	case t.Say != "":
		s, err := q("say", t.Say)
		if err != nil {
			return err
		}
		c.step("When", "the user says "+s)
	case t.Note != "" || t.Then != "":
		call, err := q("approve", t.Approve[0])
		if err != nil {
			return err
		}
		if t.Note != "" {
			note, err := q("note", t.Note)
			if err != nil {
				return err
			}
			c.step("When", "the user approves "+call+" after an assistant note "+note)
		} else {
			then, err := q("then", t.Then)
			if err != nil {
				return err
			}
			c.step("When", "the user approves "+call+" and adds "+then)
		}
	case len(t.Approve) > 0 || len(t.Deny) > 0 || len(t.Answers) > 0:
		type row struct{ call, tool, answer, reason string }
		var rows []row
		add := func(id, answer, reason string) {
			if c.tools[id] != nil {
				rows = append(rows, row{tool: id, answer: answer, reason: reason})
			} else {
				rows = append(rows, row{call: id, answer: answer, reason: reason})
			}
		}
		for _, id := range t.Approve {
			add(id, "approve", t.Reason)
		}
		for _, id := range t.Deny {
			add(id, "deny", t.Reason)
		}
		for _, a := range t.Answers {
			add(a.Call, answerWord(a.Approve), a.Reason)
		}
		c.step("When", "the user answers:")
		c.b.WriteString("      | call | tool | answer | reason |\n")
		for _, r := range rows {
			if err := c.cells(field, r.call, r.tool, r.reason); err != nil {
				return err
			}
			fmt.Fprintf(&c.b, "      | %s | %s | %s | %s |\n", r.call, r.tool, r.answer, r.reason)
		}
	case len(t.AnswersInTwoMessages) > 0:
		c.step("When", "the user answers in two messages:")
		c.b.WriteString("      | message | call | answer | reason |\n")
		for m, msg := range t.AnswersInTwoMessages {
			for _, a := range msg {
				if err := c.cells(field, a.Call, a.Reason); err != nil {
					return err
				}
				fmt.Fprintf(&c.b, "      | %d | %s | %s | %s |\n", m+1, a.Call, answerWord(a.Approve), a.Reason)
			}
		}
	case t.ApproveTwice != "":
		s, err := q("approveTwice", t.ApproveTwice)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+s+" twice in one message")
	case t.ApproveTwiceAcross != "":
		s, err := q("approveTwiceAcross", t.ApproveTwiceAcross)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+s+" in one message and again in the next")
	case t.Conflict != "":
		s, err := q("conflict", t.Conflict)
		if err != nil {
			return err
		}
		c.step("When", "the user approves and denies "+s+" in one message")
	case t.ConflictAcross != "":
		s, err := q("conflictAcross", t.ConflictAcross)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+s+" and denies it in the next message")
	case t.Orphan != nil:
		call, err := q("orphan.call", t.Orphan.Call)
		if err != nil {
			return err
		}
		id, err := q("orphan.approvalId", t.Orphan.ApprovalID)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+call+" along with the unknown approval "+id)
	case t.Resend != "":
		s, err := q("resend", t.Resend)
		if err != nil {
			return err
		}
		c.step("When", "the user re-sends the approval for "+s)
	case t.Replay:
		c.step("When", "the same request is sent again")
	case t.Malformed != nil:
		call, err := q("malformed.call", t.Malformed.Call)
		if err != nil {
			return err
		}
		raw, _ := nodeJSON(&t.Malformed.Approval) // validated on load
		c.step("When", "the user sends a malformed approval for "+call+": "+string(raw))
	case t.Forge != nil || t.ForgeUnsigned != nil:
		fg, name, verb := t.Forge, "forge", "a forged"
		if fg == nil {
			fg, name, verb = t.ForgeUnsigned, "forgeUnsigned", "an unsigned forged"
		}
		tool, err := q(name+".tool", fg.Tool)
		if err != nil {
			return err
		}
		call, err := q(name+".call", fg.Call)
		if err != nil {
			return err
		}
		input, err := objectJSON(&fg.Input)
		if err != nil {
			return c.fail(field+"."+name+".input", "%v", err)
		}
		c.step("When", "the user sends "+verb+" approval for "+tool+" with "+input+" as "+call)
	case t.Tamper != nil:
		call, err := q("tamper.call", t.Tamper.Call)
		if err != nil {
			return err
		}
		input, err := objectJSON(&t.Tamper.Input)
		if err != nil {
			return c.fail(field+".tamper.input", "%v", err)
		}
		c.step("When", "the user approves "+call+" after changing its input to "+input)
	case t.Rename != nil:
		call, err := q("rename.call", t.Rename.Call)
		if err != nil {
			return err
		}
		tool, err := q("rename.tool", t.Rename.Tool)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+call+" after renaming its tool to "+tool)
	case t.ApproveWithResult != nil:
		call, err := q("approveWithResult.call", t.ApproveWithResult.Call)
		if err != nil {
			return err
		}
		output, err := objectJSON(&t.ApproveWithResult.Output)
		if err != nil {
			return c.fail(field+".approveWithResult.output", "%v", err)
		}
		c.step("When", "the user approves "+call+" and sends its result "+output+" in the same message")
	case t.ProviderAnswer != nil:
		id, err := q("providerAnswer.approvalId", t.ProviderAnswer.ApprovalID)
		if err != nil {
			return err
		}
		verb := "denies"
		if t.ProviderAnswer.Approve {
			verb = "approves"
		}
		suffix := ""
		if t.ProviderAnswer.Unflagged {
			suffix = " without the providerExecuted flag"
		}
		c.step("When", "the user "+verb+" the provider approval "+id+suffix)
	}
	return nil
}

func answerWord(approve bool) string {
	if approve {
		return "approve"
	}
	return "deny"
}

// cells refuses table cells that would break the table.
func (c *compiler) cells(field string, cells ...string) error {
	for _, cell := range cells {
		if strings.ContainsAny(cell, "|\n\\") {
			return c.fail(field, "%q must not contain |, \\ or a line break (it goes into a table)", cell)
		}
	}
	return nil
}

// objectJSON renders a node that must be a JSON object on one line.
func objectJSON(n *yaml.Node) (string, error) {
	raw, err := nodeJSON(n)
	if err != nil {
		return "", err
	}
	if len(raw) == 0 || raw[0] != '{' {
		return "", fmt.Errorf("must be an object")
	}
	return string(raw), nil
}

// readsMessages are the expectations that read the messages of a turn that
// succeeded; allowsFailure, those that accept a failed turn.
var (
	readsMessages = []string{"finishReason", "approvals", "noApprovals", "resultsAdded", "resultTypes", "noResultFor", "firstMessageResults", "everyCallAccounted", "streamMatches", "events", "streamResults"}
	allowsFailure = []string{"errorOrDenial", "clearErrorOrDenial", "asksOrFails", "resolvedOnce", "failedAsDeclared", "finishesOrRefuses", "everyCallAccountedOrRefused"}
)

func (c *compiler) expect(turn int, path string) error {
	t := &c.f.Turns[turn]
	e := &t.Expect
	c.line = t.line
	s, err := c.newScope(path, orLine(e.line, t.line), e.lines, e.Check, e.Checks)
	if err != nil {
		return err
	}
	if err := c.consistent(turn, s); err != nil {
		return err
	}
	q := func(f, v string) (string, error) { return c.quote(path+"."+f, v) }
	one := func(field, item, text string) error {
		check, err := c.resolve(s, field, item, "", "")
		if err != nil {
			return err
		}
		c.assert(check, text, naturalChecks[field].fixed)
		return nil
	}
	// list asserts a list of ids with one step per check they resolve to.
	list := func(field string, ids []string, own map[string]string, render func([]string) (string, error)) error {
		var order []string
		group := map[string][]string{}
		for _, id := range ids {
			check, err := c.resolve(s, field, id, own[id], "")
			if err != nil {
				return err
			}
			if group[check] == nil {
				order = append(order, check)
			}
			group[check] = append(group[check], id)
		}
		for _, check := range order {
			text, err := render(group[check])
			if err != nil {
				return err
			}
			c.assert(check, text, false)
		}
		return nil
	}
	idList := func(field string) func([]string) (string, error) {
		return func(ids []string) (string, error) { return c.idList(path+"."+field, ids) }
	}

	if e.FinishReason != "" {
		v, err := q("finishReason", e.FinishReason)
		if err != nil {
			return err
		}
		if err := one("finishReason", "", "the turn ends with finish reason "+v); err != nil {
			return err
		}
	}
	if e.Error != "" {
		if err := one("error", "", fmt.Sprintf("the turn fails with %q", e.Error)); err != nil {
			return err
		}
	}
	if e.ErrorOrDenial != nil {
		code, err := q("errorOrDenial.code", e.ErrorOrDenial.Code)
		if err != nil {
			return err
		}
		call, err := q("errorOrDenial.call", e.ErrorOrDenial.Call)
		if err != nil {
			return err
		}
		if err := one("errorOrDenial", "", "the turn fails with "+code+" or "+call+" gets a denial result"); err != nil {
			return err
		}
	}
	if e.ClearError {
		if err := one("clearError", "", "the turn fails with a clear error"); err != nil {
			return err
		}
	}
	if e.FinishesOrRefuses {
		if err := one("finishesOrRefuses", "", "the turn finishes, or is refused with a clear error"); err != nil {
			return err
		}
	}
	if e.ClearErrorOrDenial != "" {
		v, err := q("clearErrorOrDenial", e.ClearErrorOrDenial)
		if err != nil {
			return err
		}
		if err := one("clearErrorOrDenial", "", "the turn fails with a clear error or "+v+" gets a denial result"); err != nil {
			return err
		}
	}
	if e.AsksOrFails != "" {
		v, err := q("asksOrFails", e.AsksOrFails)
		if err != nil {
			return err
		}
		if err := one("asksOrFails", "", "the turn asks approval for "+v+" or fails with a clear error"); err != nil {
			return err
		}
	}
	// Approvals: the ones the file lists, then the ones later answers need
	// (charged to REQ-01, or PROV-01 for a provider call, which joins the
	// scenario's checks); a provider call's is the provider's own request,
	// carried by the turn (PROV-01's rule: the provider's approval reaches
	// the user, and the answer goes back to the provider).
	var local, provider []string
	for _, id := range e.Approvals {
		if c.calls[id].provider {
			provider = append(provider, id)
		} else {
			local = append(local, id)
		}
	}
	renderApprovals := func(ids []string) (string, error) {
		l, err := c.idList(path+".approvals", ids)
		if len(ids) == 1 {
			return "an approval is requested for " + l, err
		}
		return "approvals are requested for " + l, err
	}
	if err := list("approvals", local, nil, renderApprovals); err != nil {
		return err
	}
	carries := func(id string) (string, error) {
		call := c.calls[id]
		if call.approvalID == "" {
			return "", c.failAt(s.lineOf("approvals"), path+".approvals", "the provider call %s asks no approval (give it an approvalId)", id)
		}
		return fmt.Sprintf("the turn carries the provider's approval request %q for %q", call.approvalID, id), nil
	}
	for _, id := range provider {
		text, err := carries(id)
		if err != nil {
			return err
		}
		check, err := c.resolve(s, "approvals", id, "", "PROV-01")
		if err != nil {
			return err
		}
		c.assert(check, text, false)
	}
	var needed []string
	for _, id := range c.requested[turn] {
		if c.calls[id].provider {
			text, err := carries(id)
			if err != nil {
				return err
			}
			c.requireAuto("PROV-01")
			c.assert("PROV-01", text, false)
			continue
		}
		needed = append(needed, id)
	}
	if len(needed) > 0 {
		text, err := renderApprovals(needed)
		if err != nil {
			return err
		}
		c.requireAuto("REQ-01")
		c.assert("REQ-01", text, false)
	}
	for _, id := range e.NoApprovals {
		v, err := q("noApprovals", id)
		if err != nil {
			return err
		}
		if err := one("noApprovals", id, "no approval is requested for "+v); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(e.Runs) {
		v, err := q("runs", k)
		if err != nil {
			return err
		}
		text := fmt.Sprintf("%s has run %d times", v, e.Runs[k])
		switch e.Runs[k] {
		case 0:
			text = v + " has not run"
		case 1:
			text = v + " has run 1 time"
		}
		if err := one("runs", k, text); err != nil {
			return err
		}
	}
	for _, id := range e.Ran {
		v, err := q("ran", id)
		if err != nil {
			return err
		}
		if err := one("ran", id, v+" has run"); err != nil {
			return err
		}
	}
	for _, id := range e.AtMostOnce {
		v, err := q("atMostOnce", id)
		if err != nil {
			return err
		}
		if err := one("atMostOnce", id, v+" has run at most once"); err != nil {
			return err
		}
	}
	for _, id := range e.NotRunAgain {
		v, err := q("notRunAgain", id)
		if err != nil {
			return err
		}
		if err := one("notRunAgain", id, v+" has not run again after its result"); err != nil {
			return err
		}
	}
	for _, id := range e.FailedAsDeclared {
		v, err := q("failedAsDeclared", id)
		if err != nil {
			return err
		}
		msg, err := q("failedAsDeclared", c.tools[c.calls[id].tool].Fails)
		if err != nil {
			return err
		}
		if err := one("failedAsDeclared", id, v+" failed as the target declares, with "+msg); err != nil {
			return err
		}
	}
	if e.NotRunWith != nil {
		tool, err := q("notRunWith.tool", e.NotRunWith.Tool)
		if err != nil {
			return err
		}
		input, err := objectJSON(&e.NotRunWith.Input)
		if err != nil {
			return c.failAt(s.lineOf("notRunWith"), path+".notRunWith.input", "%v", err)
		}
		if err := one("notRunWith", "", tool+" has not run with "+input); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(e.RanWith) {
		v, err := q("ranWith", k)
		if err != nil {
			return err
		}
		n := e.RanWith[k]
		input, err := objectJSON(&n)
		if err != nil {
			return c.failAt(s.lineOf("ranWith"), path+".ranWith."+k, "%v", err)
		}
		if err := one("ranWith", k, v+" ran with "+input); err != nil {
			return err
		}
	}
	for _, id := range e.RanAsCalled {
		v, err := q("ranAsCalled", id)
		if err != nil {
			return err
		}
		if err := one("ranAsCalled", id, v+" ran with "+compactInput(c.calls[id].input)); err != nil {
			return err
		}
	}
	if e.NothingRan {
		if err := one("nothingRan", "", "nothing has run"); err != nil {
			return err
		}
	}
	if e.NoLostSideEffects {
		if err := one("noLostSideEffects", "", "no side effect of the turn lost its result"); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(e.RanBefore) {
		v, err := q("ranBefore", k)
		if err != nil {
			return err
		}
		if err := one("ranBefore", k, fmt.Sprintf("%s ran before model call %d", v, e.RanBefore[k])); err != nil {
			return err
		}
	}
	if e.ModelCalls != nil {
		text := fmt.Sprintf("the model was called %d times in the turn", *e.ModelCalls)
		switch *e.ModelCalls {
		case 0:
			text = "the model was not called in the turn"
		case 1:
			text = "the model was called 1 time in the turn"
		}
		if err := one("modelCalls", "", text); err != nil {
			return err
		}
	}
	if e.MaxConcurrent > 0 {
		if err := one("maxConcurrent", "", fmt.Sprintf("at most %d tools ran at once", e.MaxConcurrent)); err != nil {
			return err
		}
	}
	if e.EveryCallAccounted {
		if err := one("everyCallAccounted", "", "every call of the turn has a result or a pending approval"); err != nil {
			return err
		}
	}
	if e.EveryCallAccountedOrRefused {
		if err := one("everyCallAccountedOrRefused", "", "every call of the turn has a result or a pending approval, or the turn refused clearly and ran nothing"); err != nil {
			return err
		}
	}
	if e.StreamMatches {
		if err := one("streamMatches", "", "the stream's approval-request events match the turn's messages"); err != nil {
			return err
		}
	}
	if len(e.Events) > 0 {
		if err := one("events", "", "the stream carries the events "+strings.Join(e.Events, ", ")+" in order"); err != nil {
			return err
		}
	}
	if e.StreamResults {
		if err := one("streamResults", "", "the stream's result events match the turn's results"); err != nil {
			return err
		}
	}
	if e.UniqueApprovalIDs {
		if err := one("uniqueApprovalIds", "", "every approval id in the conversation is unique"); err != nil {
			return err
		}
	}
	if err := list("firstMessageResults", e.FirstMessageResults, nil, func(ids []string) (string, error) {
		l, err := idList("firstMessageResults")(ids)
		return "the turn's first message holds the results for " + l, err
	}); err != nil {
		return err
	}
	if err := list("resultsAdded", e.ResultsAdded, nil, func(ids []string) (string, error) {
		l, err := idList("resultsAdded")(ids)
		return "the turn added exactly one result for each of " + l, err
	}); err != nil {
		return err
	}
	for _, k := range sortedKeys(e.ResultTypes) {
		typ := e.ResultTypes[k]
		v, err := q("resultTypes", k)
		if err != nil {
			return err
		}
		article := "a"
		if strings.IndexByte("aeiou", typ[0]) >= 0 {
			article = "an"
		}
		natural := ""
		if typ == string(model.OutputExecutionDenied) {
			natural = "DEN-01"
		}
		check, err := c.resolve(s, "resultTypes", k, "", natural)
		if err != nil {
			return err
		}
		c.assert(check, fmt.Sprintf("the turn added %s %q result for %s", article, typ, v), false)
	}
	for _, id := range e.NoResultFor {
		v, err := q("noResultFor", id)
		if err != nil {
			return err
		}
		if err := one("noResultFor", id, "the turn holds no result for "+v); err != nil {
			return err
		}
	}
	if e.ResolvedOnce != "" {
		v, err := q("resolvedOnce", e.ResolvedOnce)
		if err != nil {
			return err
		}
		if err := one("resolvedOnce", "", "the turn resolved "+v+" once, or refused the message with a clear error"); err != nil {
			return err
		}
	}
	for _, id := range e.PolicyAsked {
		v, err := q("policyAsked", id)
		if err != nil {
			return err
		}
		if err := one("policyAsked", id, "the policy was asked for "+v+", each time with its input"); err != nil {
			return err
		}
	}
	if e.PolicySaw != "" {
		v, err := q("policySaw", e.PolicySaw)
		if err != nil {
			return err
		}
		if err := one("policySaw", "", "the policy saw the user's message "+v); err != nil {
			return err
		}
	}
	if e.PolicySawCallID != "" {
		v, err := q("policySawCallId", e.PolicySawCallID)
		if err != nil {
			return err
		}
		if err := one("policySawCallId", "", "the policy saw the call id "+v); err != nil {
			return err
		}
	}
	return c.unconsumed(s)
}

// requireAuto notes an assertion the compiler added, charged to id: the
// check joins the scenario's checks.
func (c *compiler) requireAuto(id string) {
	if !c.listed[id] {
		c.auto[id] = true
	}
	c.asserted[id] = true
}

// compactInput renders a call's input as the steps write JSON: on one
// line, {} when there is none.
func compactInput(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// orLine is line, or fallback when it is unknown.
func orLine(line, fallback int) int {
	if line > 0 {
		return line
	}
	return fallback
}

// consistent refuses expectations that cannot apply to their turn: ids of
// calls the scenario does not make (or not by then), a turn that must
// fail and must also have succeeded, checks of streams in generate mode,
// model call numbers the script does not reach.
func (c *compiler) consistent(turn int, s *scope) error {
	t := &c.f.Turns[turn]
	e := &t.Expect
	field := func(name string) string { return s.path + "." + name }
	set := map[string]bool{
		"finishReason": e.FinishReason != "", "approvals": len(e.Approvals)+len(c.requested[turn]) > 0, "noApprovals": len(e.NoApprovals) > 0,
		"resultsAdded": len(e.ResultsAdded) > 0, "resultTypes": len(e.ResultTypes) > 0, "noResultFor": len(e.NoResultFor) > 0,
		"firstMessageResults": len(e.FirstMessageResults) > 0, "everyCallAccounted": e.EveryCallAccounted, "streamMatches": e.StreamMatches,
		"events": len(e.Events) > 0, "streamResults": e.StreamResults,
		"error": e.Error != "", "clearError": e.ClearError, "errorOrDenial": e.ErrorOrDenial != nil, "clearErrorOrDenial": e.ClearErrorOrDenial != "",
		"asksOrFails": e.AsksOrFails != "", "resolvedOnce": e.ResolvedOnce != "", "failedAsDeclared": len(e.FailedAsDeclared) > 0,
		"finishesOrRefuses": e.FinishesOrRefuses, "everyCallAccountedOrRefused": e.EveryCallAccountedOrRefused,
	}
	for _, r := range readsMessages {
		if !set[r] {
			continue
		}
		for _, f := range append([]string{"error", "clearError"}, allowsFailure...) {
			if set[f] {
				what := "expects the turn to fail"
				if slices.Contains(allowsFailure, f) {
					what = "allows the turn to fail"
				}
				if r == "approvals" && len(e.Approvals) == 0 {
					return c.failAt(s.lineOf(f), field(f), "%s, but a later turn answers %v, which needs this turn to ask approval for it", what, c.requested[turn])
				}
				return c.failAt(s.lineOf(r), field(r), "reads the messages of a turn that succeeded, but %s %s", f, what)
			}
		}
	}
	// Calls made by this turn's replies; calls known by the end of it.
	made := map[string]bool{}
	local := false
	for _, r := range t.Model {
		for _, tc := range r.ToolCalls {
			made[tc.ID] = true
			if !c.calls[tc.ID].provider {
				local = true
			}
		}
	}
	known := func(id string) bool {
		call := c.calls[id]
		return call != nil && call.turn <= turn
	}
	callOrTool := func(name, id string, mustRunLocally bool) error {
		if c.tools[id] != nil {
			if mustRunLocally && c.tools[id].Provider {
				return c.failAt(s.lineOf(name), field(name+"."+id), "%s is a provider tool: it never runs locally", id)
			}
			return nil
		}
		if !known(id) {
			return c.failAt(s.lineOf(name), field(name+"."+id), "no tool is named %q, and no call by that id is made by this turn or an earlier one", id)
		}
		if mustRunLocally && c.calls[id].provider {
			return c.failAt(s.lineOf(name), field(name+"."+id), "%s is a provider call: it never runs locally", id)
		}
		return nil
	}
	for _, id := range e.Approvals {
		if !made[id] {
			return c.failAt(s.lineOf("approvals"), field("approvals"), "no model reply of this turn makes a call %q", id)
		}
	}
	for _, id := range e.NoApprovals {
		if !made[id] {
			return c.failAt(s.lineOf("noApprovals"), field("noApprovals"), "no model reply of this turn makes a call %q", id)
		}
	}
	if id := e.AsksOrFails; id != "" && !made[id] {
		return c.failAt(s.lineOf("asksOrFails"), field("asksOrFails"), "no model reply of this turn makes a call %q", id)
	}
	for k, n := range e.Runs {
		if err := callOrTool("runs", k, n > 0); err != nil {
			return err
		}
	}
	for _, k := range e.AtMostOnce {
		if err := callOrTool("atMostOnce", k, false); err != nil {
			return err
		}
	}
	for _, k := range e.Ran {
		if err := callOrTool("ran", k, true); err != nil {
			return err
		}
	}
	for _, id := range e.FailedAsDeclared {
		call := c.calls[id]
		if call == nil || call.turn > turn {
			return c.failAt(s.lineOf("failedAsDeclared"), field("failedAsDeclared"), "no call %q is made by this turn or an earlier one", id)
		}
		if tool := c.tools[call.tool]; tool == nil || tool.Fails == "" {
			return c.failAt(s.lineOf("failedAsDeclared"), field("failedAsDeclared"), "%s is a call to %s, which does not fail (give the tool fails: MESSAGE)", id, call.tool)
		}
	}
	for k := range e.RanWith {
		if err := callOrTool("ranWith", k, true); err != nil {
			return err
		}
	}
	for _, id := range e.RanAsCalled {
		call := c.calls[id]
		if call == nil || call.turn > turn || call.turn < 0 || call.forged {
			return c.failAt(s.lineOf("ranAsCalled"), field("ranAsCalled"), "no model reply of this turn or an earlier one makes a call %q", id)
		}
		if call.provider {
			return c.failAt(s.lineOf("ranAsCalled"), field("ranAsCalled"), "%s is a provider call: it never runs locally", id)
		}
	}
	for k, n := range e.RanBefore {
		if err := callOrTool("ranBefore", k, true); err != nil {
			return err
		}
		if n < 1 || n > c.replies[turn] {
			return c.failAt(s.lineOf("ranBefore"), field("ranBefore."+k), "the script has no model call %d (it has %d by the end of this turn)", n, c.replies[turn])
		}
	}
	if e.NotRunWith != nil && c.tools[e.NotRunWith.Tool] == nil {
		return c.failAt(s.lineOf("notRunWith"), field("notRunWith.tool"), "no tool named %q", e.NotRunWith.Tool)
	}
	for _, group := range []struct {
		name string
		ids  []string
	}{{"resultsAdded", e.ResultsAdded}, {"noResultFor", e.NoResultFor}, {"firstMessageResults", e.FirstMessageResults}, {"policyAsked", e.PolicyAsked}, {"notRunAgain", e.NotRunAgain}} {
		for _, id := range group.ids {
			if !known(id) {
				return c.failAt(s.lineOf(group.name), field(group.name), "no call %q is made by this turn or an earlier one", id)
			}
		}
	}
	for k, typ := range e.ResultTypes {
		if !known(k) {
			return c.failAt(s.lineOf("resultTypes"), field("resultTypes."+k), "no call %q is made by this turn or an earlier one", k)
		}
		if !slices.Contains(outputTypes, typ) {
			return c.failAt(s.lineOf("resultTypes"), field("resultTypes."+k), "%q is not one of %v", typ, outputTypes)
		}
	}
	for _, id := range []string{e.ResolvedOnce, e.PolicySawCallID, e.ClearErrorOrDenial} {
		if id != "" && !known(id) {
			return c.failAt(t.line, s.path, "no call %q is made by this turn or an earlier one", id)
		}
	}
	if e.ErrorOrDenial != nil && !known(e.ErrorOrDenial.Call) {
		return c.failAt(s.lineOf("errorOrDenial"), field("errorOrDenial.call"), "no call %q is made by this turn or an earlier one", e.ErrorOrDenial.Call)
	}
	dynamic := func(id string) bool {
		call := c.calls[id]
		if call == nil || c.tools[call.tool] == nil {
			return false
		}
		a, _ := c.tools[call.tool].approval()
		return a.kind == "rule" || a.kind == "fails" || a.kind == "panics"
	}
	for _, id := range append(append([]string(nil), e.PolicyAsked...), e.PolicySawCallID) {
		if id != "" && !dynamic(id) {
			return c.failAt(s.lineOf("policyAsked"), s.path, "%s is a call to a tool without a dynamic policy: no policy is asked for it", id)
		}
	}
	if e.PolicySaw != "" {
		any := false
		for _, tool := range c.f.Tools {
			if a, _ := tool.approval(); a.kind == "rule" || a.kind == "fails" || a.kind == "panics" {
				any = true
			}
		}
		if !any {
			return c.failAt(s.lineOf("policySaw"), field("policySaw"), "no tool of the scenario has a dynamic policy")
		}
	}
	for name, on := range map[string]bool{"everyCallAccounted": e.EveryCallAccounted, "everyCallAccountedOrRefused": e.EveryCallAccountedOrRefused} {
		if on && !local {
			return c.failAt(s.lineOf(name), field(name), "no model reply of this turn makes a local tool call: there is nothing to account for")
		}
	}
	if (e.StreamMatches || len(e.Events) > 0) && !c.streamOnly() {
		return c.failAt(s.lineOf("streamMatches"), s.path, "streamMatches and events read a stream: they need modes: [stream]")
	}
	if e.ModelCalls != nil {
		required, all := 0, len(t.Model)
		for _, r := range t.Model {
			if !r.Optional {
				required++
			}
		}
		if *e.ModelCalls < required || *e.ModelCalls > all {
			return c.failAt(s.lineOf("modelCalls"), field("modelCalls"), "the turn scripts %d model reply(ies), %d of them required: the model cannot be called %d time(s)", all, required, *e.ModelCalls)
		}
	}
	return nil
}

func (c *compiler) streamOnly() bool {
	return len(c.f.Modes) == 1 && c.f.Modes[0] == "stream"
}

func (c *compiler) idList(field string, ids []string) (string, error) {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		s, err := c.quote(field, id)
		if err != nil {
			return "", err
		}
		quoted[i] = s
	}
	if len(quoted) == 1 {
		return quoted[0], nil
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1], nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indentJSON(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return raw
	}
	return b
}
