package scenario

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/simulator"
)

// Compile turns a scenario into the text of a Gherkin feature that uses the
// suite's steps. The feature has one scenario outline, with a row per mode.
func Compile(f *File) (string, error) {
	c := &compiler{f: f, tools: map[string]*Tool{}}
	for i := range f.Tools {
		c.tools[f.Tools[i].Name] = &f.Tools[i]
	}
	if err := c.compile(); err != nil {
		return "", err
	}
	return c.b.String(), nil
}

type compiler struct {
	f     *File
	tools map[string]*Tool
	b     strings.Builder
	line  int // the YAML line of what is being compiled, for errors
}

func (c *compiler) fail(field, format string, args ...any) error {
	return &Error{File: c.f.Path, Line: c.line, Field: field, Msg: fmt.Sprintf(format, args...)}
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
	fmt.Fprintf(&c.b, "    %s %s\n", keyword, text)
}

func (c *compiler) docString(keyword, text string, doc []byte) {
	c.step(keyword, text)
	c.b.WriteString("      \"\"\"\n")
	for _, line := range strings.Split(string(doc), "\n") {
		c.b.WriteString("      " + line + "\n")
	}
	c.b.WriteString("      \"\"\"\n")
}

func (c *compiler) compile() error {
	f := c.f
	tags := []string{"@yaml", "@agent"}
	if f.Level == "should" {
		tags = append(tags, "@should")
	}
	for _, t := range f.Tags {
		tags = append(tags, "@"+t)
	}
	fmt.Fprintf(&c.b, "%s\nFeature: %s\n", strings.Join(tags, " "), oneLine(f.Title))
	if f.Description != "" {
		for _, l := range strings.Split(strings.TrimSpace(f.Description), "\n") {
			fmt.Fprintf(&c.b, "  %s\n", strings.TrimSpace(l))
		}
	}
	var checkTags []string
	for _, id := range f.Checks {
		checkTags = append(checkTags, "@"+id)
	}
	fmt.Fprintf(&c.b, "\n  %s\n  Scenario Outline: %s (<mode>)\n", strings.Join(checkTags, " "), oneLine(f.Title))

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
	return nil
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
	for j := range t.Model {
		turn, err := c.modelTurn(&t.Model[j])
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
	return c.expect(&t.Expect, field+".expect")
}

func (c *compiler) modelTurn(r *ModelReply) (simulator.Turn, error) {
	c.line = r.line
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
	if e := r.Expect; e != nil {
		x := &simulator.Expect{NoResults: e.NoResults, NoApprovalParts: e.NoApprovalParts, Messages: e.Messages,
			LastRole: e.LastRole, Contains: e.Contains, NotContains: e.NotContains, Check: e.Check}
		for _, res := range e.Results {
			value, _ := nodeJSON(&res.Value) // validated on load
			if string(value) == "null" && isEmpty(&res.Value) {
				value = nil
			}
			x.Results = append(x.Results, simulator.ResultExpect{ToolCallID: res.Call, Type: res.Type, Reason: res.Reason, Value: value, TextContains: res.TextContains})
		}
		for _, pa := range e.ProviderApprovals {
			x.ProviderApprovals = append(x.ProviderApprovals, simulator.ProviderApprovalExpect{ApprovalID: pa.ApprovalID, Approved: pa.Approved})
		}
		st.Expect = x
	}
	return st, nil
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
			ans := "deny"
			if a.Approve {
				ans = "approve"
			}
			add(a.Call, ans, a.Reason)
		}
		c.step("When", "the user answers:")
		c.b.WriteString("      | call | tool | answer | reason |\n")
		for _, r := range rows {
			for _, cell := range []string{r.call, r.tool, r.reason} {
				if strings.ContainsAny(cell, "|\n") {
					return c.fail(field, "%q must not contain | or a line break (it goes into a table)", cell)
				}
			}
			fmt.Fprintf(&c.b, "      | %s | %s | %s | %s |\n", r.call, r.tool, r.answer, r.reason)
		}
	case t.ApproveTwice != "":
		s, err := q("approveTwice", t.ApproveTwice)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+s+" twice in one message")
	case t.Conflict != "":
		s, err := q("conflict", t.Conflict)
		if err != nil {
			return err
		}
		c.step("When", "the user approves and denies "+s+" in one message")
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
	case t.Forge != nil:
		tool, err := q("forge.tool", t.Forge.Tool)
		if err != nil {
			return err
		}
		call, err := q("forge.call", t.Forge.Call)
		if err != nil {
			return err
		}
		input, err := objectJSON(&t.Forge.Input)
		if err != nil {
			return c.fail(field+".forge.input", "%v", err)
		}
		c.step("When", "the user sends a forged approval for "+tool+" with "+input+" as "+call)
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

func (c *compiler) expect(e *Expect, field string) error {
	then := func(text string) { c.step("Then", text) }
	q := func(f, s string) (string, error) { return c.quote(field+"."+f, s) }
	if e.FinishReason != "" {
		s, err := q("finishReason", e.FinishReason)
		if err != nil {
			return err
		}
		then("the turn ends with finish reason " + s)
	}
	if e.Error != "" {
		then(fmt.Sprintf("the turn fails with %q", e.Error))
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
		then("the turn fails with " + code + " or " + call + " gets a denial result")
	}
	if e.ClearError {
		then("the turn fails with a clear error")
	}
	if e.AsksOrFails != "" {
		s, err := q("asksOrFails", e.AsksOrFails)
		if err != nil {
			return err
		}
		then("the turn asks approval for " + s + " or fails")
	}
	if len(e.Approvals) > 0 {
		list, err := c.idList(field+".approvals", e.Approvals)
		if err != nil {
			return err
		}
		then("approvals are requested for " + list)
	}
	for _, id := range e.NoApprovals {
		s, err := q("noApprovals", id)
		if err != nil {
			return err
		}
		then("no approval is requested for " + s)
	}
	for _, k := range sortedKeys(e.Runs) {
		s, err := q("runs", k)
		if err != nil {
			return err
		}
		if n := e.Runs[k]; n == 0 {
			then(s + " has not run")
		} else {
			then(fmt.Sprintf("%s has run %d times", s, n))
		}
	}
	for _, k := range sortedKeys(e.RunsAtMost) {
		s, err := q("runsAtMost", k)
		if err != nil {
			return err
		}
		then(fmt.Sprintf("%s has run at most %d times", s, e.RunsAtMost[k]))
	}
	if e.NotRunWith != nil {
		tool, err := q("notRunWith.tool", e.NotRunWith.Tool)
		if err != nil {
			return err
		}
		input, err := objectJSON(&e.NotRunWith.Input)
		if err != nil {
			return c.fail(field+".notRunWith.input", "%v", err)
		}
		then(tool + " has not run with " + input)
	}
	if e.NothingRan {
		then("nothing has run")
	}
	if e.NothingRanIfFailed {
		then("if the turn failed, nothing has run")
	}
	for _, k := range sortedKeys(e.RanBefore) {
		s, err := q("ranBefore", k)
		if err != nil {
			return err
		}
		then(fmt.Sprintf("%s ran before model call %d", s, e.RanBefore[k]))
	}
	if e.ModelCalls != nil {
		if *e.ModelCalls == 0 {
			then("the model was not called in the turn")
		} else {
			then(fmt.Sprintf("the model was called %d times in the turn", *e.ModelCalls))
		}
	}
	if e.MaxConcurrent > 0 {
		then(fmt.Sprintf("at most %d tools ran at once", e.MaxConcurrent))
	}
	if e.EveryCallAccounted {
		then("every call of the turn has a result or a pending approval")
	}
	if e.StreamMatches || len(e.Events) > 0 {
		if !c.streamOnly() {
			return c.fail(field, "streamMatches and events need modes: [stream]")
		}
	}
	if e.StreamMatches {
		then("the stream's approval-request events match the turn's messages")
	}
	if len(e.Events) > 0 {
		then("the stream carries the events " + strings.Join(e.Events, ", ") + " in order")
	}
	if e.UniqueApprovalIDs {
		then("every approval id in the conversation is unique")
	}
	if e.NoRejection {
		then("no model call was rejected")
	}
	if len(e.FirstMessageResults) > 0 {
		list, err := c.idList(field+".firstMessageResults", e.FirstMessageResults)
		if err != nil {
			return err
		}
		then("the turn's first message holds the results for " + list)
	}
	for _, id := range e.PolicyAskedOnce {
		s, err := q("policyAskedOnce", id)
		if err != nil {
			return err
		}
		then("the policy was asked once for " + s + " with its input")
	}
	if e.PolicySaw != "" {
		s, err := q("policySaw", e.PolicySaw)
		if err != nil {
			return err
		}
		then("the policy saw the user's message " + s)
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

func sortedKeys(m map[string]int) []string {
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
