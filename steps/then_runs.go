package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"encoding/json"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
)

// The assertions of what ran: the tool runs the harness counted, against the answers (PRE-01 to PRE-03, PRE-07, PRE-11, PRE-13, PART-02, SEC-01, SEC-02).

func (t *then) notRun(_ context.Context, what string) error {
	w := t.world()
	if runs := w.runsOf(what); len(runs) > 0 {
		return fmt.Errorf("%s ran %d time(s)%s, but must not run: %s", what, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	return nil
}

// answersOf says how the user answered the calls of some runs, so that a
// message about a run says why it should not have happened.
func (w *world) answersOf(runs []toolRun) string {
	seen := map[string]bool{}
	var out []string
	ix := model.IndexOf(w.history)
	for _, r := range runs {
		if seen[r.ToolCallID] {
			continue
		}
		seen[r.ToolCallID] = true
		req, ok := ix.RequestForCall(r.ToolCallID)
		if !ok {
			out = append(out, r.ToolCallID+" has no approval request in the conversation")
			continue
		}
		locs := ix.Responses[req.ApprovalID]
		if len(locs) == 0 {
			out = append(out, fmt.Sprintf("%s was never answered (approval %s)", r.ToolCallID, req.ApprovalID))
			continue
		}
		var answers []string
		for _, loc := range locs {
			p := ix.Part(loc)
			a := "denied"
			if p.Approved {
				a = "approved"
			}
			if p.Reason != "" {
				a += fmt.Sprintf(" (%q)", p.Reason)
			}
			answers = append(answers, a)
		}
		out = append(out, fmt.Sprintf("%s was %s (approval %s)", r.ToolCallID, strings.Join(answers, ", then "), req.ApprovalID))
	}
	return strings.Join(out, "; ")
}

func (t *then) ranTimes(_ context.Context, what string, n int) error {
	w := t.world()
	if runs := w.countedRunsOf(what); len(runs) != n {
		msg := fmt.Sprintf("%s ran %d time(s), want %d%s", what, len(runs), n, turnsOf(runs))
		if len(runs) > 0 {
			msg += ": " + w.answersOf(runs)
		}
		if unasked := w.unaskedNotRun(what); len(runs) < n && len(runs)+len(unasked) >= n {
			return blocked("%s: no approval was asked for %s (REQ-01's failure, charged there)", msg, strings.Join(unasked, ", "))
		}
		if len(runs) > n {
			return harmed(checks.RanAgainstAnswer, errors.New(msg))
		}
		return harmedByEnd(checks.Lost, neverRan(what, n), errors.New(msg))
	}
	return nil
}

func turnsOf(runs []toolRun) string {
	if len(runs) == 0 {
		return ""
	}
	var s []string
	for _, r := range runs {
		s = append(s, fmt.Sprintf("%s in turn %d", r.ToolCallID, r.Turn))
	}
	return " (" + strings.Join(s, ", ") + ")"
}

func (t *then) notRunWith(_ context.Context, what, input string) error {
	for _, r := range t.world().runsOf(what) {
		if model.JSONEqual(r.Input, json.RawMessage(input)) {
			return fmt.Errorf("%s ran with %s (call %s, turn %d)", what, input, r.ToolCallID, r.Turn)
		}
	}
	return nil
}

func (t *then) nothingRan(_ context.Context) error {
	if runs := t.world().harness.runsSnapshot(); len(runs) > 0 {
		return fmt.Errorf("%d tool run(s) happened, want none%s", len(runs), turnsOf(runs))
	}
	return nil
}

func (t *then) ranBefore(_ context.Context, what string, call int) error {
	w := t.world()
	runs := w.runsOf(what)
	if len(runs) == 0 {
		return harmedByEnd(checks.Lost, neverRan(what, 1), fmt.Errorf("%s never ran", what))
	}
	modelSeq := 0
	for _, e := range w.tl.snapshot() {
		if e.Kind == "model-call" && e.ModelCall == call {
			modelSeq = e.Seq
		}
	}
	if modelSeq == 0 {
		return fmt.Errorf("there was no model call %d", call)
	}
	for _, r := range runs {
		if r.Start > modelSeq {
			return fmt.Errorf("%s (%s) ran after model call %d", what, r.ToolCallID, call)
		}
	}
	return nil
}

func (t *then) atMostAtOnce(_ context.Context, n int) error {
	if got := t.world().harness.maxInFlight(); got > n {
		return fmt.Errorf("%d tools ran at once, want at most %d", got, n)
	}
	return nil
}

func (t *then) ranWith(_ context.Context, what, input string) error {
	runs := t.world().runsOf(what)
	if len(runs) == 0 {
		return fmt.Errorf("%s never ran", what)
	}
	for _, r := range runs {
		if !model.JSONEqual(r.Input, json.RawMessage(input)) {
			return fmt.Errorf("%s ran with %s (call %s, turn %d), want %s", what, r.Input, r.ToolCallID, r.Turn, input)
		}
	}
	return nil
}

// noLostSideEffects: a turn that failed ran no tool in it; a turn that
// succeeded holds a result for every call that ran in it.
func (t *then) noLostSideEffects(_ context.Context) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	var inTurn []toolRun
	for _, r := range w.harness.runsSnapshot() {
		if r.Turn == last.N {
			inTurn = append(inTurn, r)
		}
	}
	if e := last.Response.Error; e != nil {
		if len(inTurn) > 0 {
			return fmt.Errorf("the turn failed with %s after running %d tool(s)%s: their side effects happened, their results are lost", e.Code, len(inTurn), turnsOf(inTurn))
		}
		return nil
	}
	ix := model.IndexOf(last.Response.Messages)
	for _, r := range inTurn {
		if _, ok := ix.Result(r.ToolCallID); !ok {
			return fmt.Errorf("%s (%s) ran in the turn, but the turn's messages hold no result for it (messages: %s)", r.ToolCallID, r.Tool, summarize(last.Response.Messages))
		}
	}
	return nil
}

func (t *then) ranAtMostOnce(_ context.Context, what string) error {
	w := t.world()
	if runs := w.countedRunsOf(what); len(runs) > 1 {
		return fmt.Errorf("%s ran %d times%s, at most once is the rule: %s", what, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	return nil
}

// resolvedOnceOrRefused (PRE-11): duplicate or conflicting answers for a
// call lead to at most one run and exactly one result, in the turn's
// messages and in the prompt; or the turn refuses the message as invalid,
// with a message, and runs nothing.
func (t *then) resolvedOnceOrRefused(_ context.Context, callID string) error {
	w := t.world()
	last, err := w.last()
	if err != nil {
		return err
	}
	runs := w.runsOf(callID)
	if e := last.Response.Error; e != nil {
		if _, rejected := w.rejectedIn(last); rejected {
			return blocked("turn %d failed because the model refused its prompt", last.N)
		}
		if e.Code != "InvalidApproval" && e.Code != "InvalidMessages" {
			return fmt.Errorf("the turn failed with %s (%s), want %s resolved once or the message refused as invalid", e.Code, e.Message, callID)
		}
		if strings.TrimSpace(e.Message) == "" {
			return harmed(checks.Crashed, fmt.Errorf("the turn refused the message with %s but no message says why", e.Code))
		}
		if len(runs) > 0 {
			return harmed(checks.RanAgainstAnswer, fmt.Errorf("the turn refused the message, but %s ran %d time(s)%s", callID, len(runs), turnsOf(runs)))
		}
		return nil
	}
	if len(runs) > 1 {
		return fmt.Errorf("%s ran %d times%s: %s", callID, len(runs), turnsOf(runs), w.answersOf(runs))
	}
	if n := len(model.IndexOf(last.Response.Messages).Results[callID]); n != 1 {
		return fmt.Errorf("the turn added %d result(s) for %s, want exactly one (messages: %s)", n, callID, summarize(last.Response.Messages))
	}
	if last.FirstModelCall <= last.LastModelCall {
		call, ok := w.scenarioNumber(last.FirstModelCall)
		if !ok {
			return blocked("the first model call of turn %d was not scripted", last.N)
		}
		res, err := t.results(call, callID)
		if err != nil {
			return err
		}
		if len(res) != 1 {
			return fmt.Errorf("model call %d received %d result(s) for %s, want exactly one", call, len(res), callID)
		}
	}
	return nil
}

// hasRun: the call (or a call of the tool) ran, at least once; how often
// is another rule's (WIRE-03 within a turn, PRE-03 across turns).
func (t *then) hasRun(_ context.Context, what string) error {
	if runs := t.world().runsOf(what); len(runs) == 0 {
		return harmedByEnd(checks.Lost, neverRan(what, 1), fmt.Errorf("%s never ran", what))
	}
	return nil
}

// notRunAfterResult (PRE-03): once a call has a result in the
// conversation, it never runs again.
func (t *then) notRunAfterResult(_ context.Context, callID string) error {
	w := t.world()
	first := 0 // the turn after which the call had a result
	for _, rec := range w.turns {
		if _, ok := model.IndexOf(rec.sent).Result(callID); ok {
			first = rec.N - 1
			break
		}
		if rec.Response != nil {
			if _, ok := model.IndexOf(rec.Response.Messages).Result(callID); ok {
				first = rec.N
				break
			}
		}
	}
	if first == 0 {
		return blocked("the conversation never held a result for %s, so whether it ran again after one cannot be said", callID)
	}
	var again []toolRun
	for _, r := range w.runsOf(callID) {
		if r.Turn > first {
			again = append(again, r)
		}
	}
	if len(again) > 0 {
		return fmt.Errorf("%s had its result in turn %d and ran again%s", callID, first, turnsOf(again))
	}
	return nil
}
