package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// The expectations of a turn, as Then steps charged to their checks, and
// their consistency with the turn.

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
