package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// The survey: the calls of the scenario (the history's, the model's, the
// forged ones) and the answers of each turn, checked before anything is
// written.

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
