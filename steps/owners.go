package steps

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// Whose rule a missing result is (charged once, to the rule the answer
// makes it), and the calls a turn was to ask approval for and did not.

// orCheck is own, or fallback when own is empty.
func orCheck(own, fallback string) string {
	if own != "" {
		return own
	}
	return fallback
}

// turnResultRules are the checks whose own rules require the turn's
// messages to hold exactly one result for a resolved call.
var turnResultRules = map[string]bool{"PRE-01": true, "PRE-02": true, "PRE-11": true, "REQ-06": true, "PART-01": true, "ERR-02": true}

// resultContentRules are the checks whose rules are about what a result
// holds (its type, its reason, its form in later turns), not whether it is
// there: an assertion of theirs that finds no result is blocked, and the
// absence is charged to the rule that requires the result (resultRule).
var resultContentRules = map[string]bool{"DEN-01": true, "DEN-02": true, "DEN-03": true}

// resultRule is the check whose rule a missing result for callID in the
// messages of turn rec breaks: PRE-01 for a call the request approved
// (its first answer counts), PRE-02 for one it denied, REQ-06 for a call
// no answer was about.
func (w *world) resultRule(rec *turnRecord, callID string) string {
	approved, found := answerOf(rec.Request, callID)
	switch {
	case !found && w.autoDenied(callID):
		return "PRE-02" // denied by its policy: a denied call
	case !found:
		return "REQ-06"
	case approved:
		return "PRE-01"
	}
	return "PRE-02"
}

// autoDenied reports whether the call's tool has a policy that denies
// every call on its own.
func (w *world) autoDenied(callID string) bool {
	if w.harness == nil {
		return false
	}
	for _, r := range w.harness.policySnapshot() {
		if r.ToolCallID != callID {
			continue
		}
		if t := w.tool(r.Tool); t != nil && t.auto != nil && t.auto.Decision == target.DecisionDenied {
			return true
		}
	}
	return false
}

// answerOf finds the first answer to callID's approval in a conversation,
// read leniently: a message the strict decoder refuses (an unknown field,
// on purpose) still says what it answers.
func answerOf(raw json.RawMessage, callID string) (approved, found bool) {
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return false, false
	}
	type part struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		ApprovalID string `json:"approvalId"`
		Approved   bool   `json:"approved"`
	}
	var parts []part
	for _, m := range msgs {
		var ps []part
		if json.Unmarshal(m.Content, &ps) == nil {
			parts = append(parts, ps...)
		}
	}
	asks := map[string]bool{}
	for _, p := range parts {
		if p.Type == string(model.PartToolApprovalRequest) && p.ToolCallID == callID {
			asks[p.ApprovalID] = true
		}
	}
	for _, p := range parts {
		if p.Type == string(model.PartToolApprovalResponse) && asks[p.ApprovalID] {
			return p.Approved, true
		}
	}
	return false, false
}

// missingResult is what an assertion that needs the result of callID in
// the messages of turn rec gets when there is none. An assertion of a rule
// that requires that result fails; any other is blocked, and the absence
// is charged to the rule that requires it (resultRule).
func (w *world) missingResult(rec *turnRecord, callID, why string) error {
	if n, ok := w.unasked[callID]; ok {
		if _, answered := answerOf(rec.Request, callID); !answered {
			return blocked("%s: turn %d asked no approval for %s (REQ-01's failure, charged there), so no answer could resolve it", why, n, callID)
		}
	}
	if turnResultRules[w.check] {
		return harmedByEnd(checks.Lost, resultNeverSeen(rec.N, callID), errors.New(why))
	}
	owner := w.resultRule(rec, callID)
	return &chargedError{check: owner, why: why, own: blocked("%s: that is %s's rule, charged there", why, owner),
		spec: harmSpec{harm: checks.Lost, show: resultNeverSeen(rec.N, callID), byEnd: true}}
}

// markUnasked records calls turn n was to ask approval for and did not.
func (w *world) markUnasked(n int, callIDs []string) {
	if w.unasked == nil {
		w.unasked = map[string]int{}
	}
	for _, id := range callIDs {
		if _, seen := w.unasked[id]; !seen {
			w.unasked[id] = n
		}
	}
}

// askedLate lists the calls of w.unasked whose approval requests a turn's
// messages hold: the turn asks what an earlier turn should have.
func (w *world) askedLate(msgs []model.Message) []string {
	var out []string
	for id := range w.unasked {
		if hasRequest(msgs, w.callIDIn(msgs, id)) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// unaskedNotRun lists the calls of w.unasked that name a tool or call
// what and never ran: runs they would have made were taken away by
// REQ-01's failure.
func (w *world) unaskedNotRun(what string) []string {
	ix := model.IndexOf(w.history)
	var out []string
	for id := range w.unasked {
		call, _ := ix.Call(id)
		if id != what && call.ToolName != what {
			continue
		}
		if len(w.runsOf(id)) == 0 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// unaskedIn lists the calls turn n was to ask approval for and did not.
func (w *world) unaskedIn(n int) []string {
	var out []string
	for id, turn := range w.unasked {
		if turn == n {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
