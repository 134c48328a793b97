package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"gopkg.in/yaml.v3"
)

// The arrangement and the actions: tools, each turn's model replies and the
// user's action, as Given and When steps.

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

func (c *compiler) action(t *Turn, field string) error {
	q := func(f, s string) (string, error) { return c.quote(field+"."+f, s) }
	switch {
	case t.Say != "":
		s, err := q("say", t.Say)
		if err != nil {
			return err
		}
		c.step("When", "the user says "+s)
	case t.Note != "":
		call, err := q("approve", t.Approve[0])
		if err != nil {
			return err
		}
		note, err := q("note", t.Note)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+call+" after an assistant note "+note)
	case t.Then != "" && len(t.Approve) == 1 && len(t.Deny)+len(t.Answers) == 0 && t.Reason == "":
		call, err := q("approve", t.Approve[0])
		if err != nil {
			return err
		}
		then, err := q("then", t.Then)
		if err != nil {
			return err
		}
		c.step("When", "the user approves "+call+" and adds "+then)
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
		if t.Then != "" {
			then, err := q("then", t.Then)
			if err != nil {
				return err
			}
			c.step("When", "the user answers and adds "+then+":")
		} else {
			c.step("When", "the user answers:")
		}
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
