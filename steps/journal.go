package steps

import (
	"errors"
	"fmt"

	"github.com/approval-conformance-kit/ack/simulator"
)

// What the run observed, as the assertions read it: the model calls by the
// script's numbering, the tool runs, the calls each turn made.

// modelCall returns the journal entry of the n-th model call.
func (w *world) modelCall(n int) (simulator.Entry, error) {
	if w.sim == nil {
		return simulator.Entry{}, errors.New("the model was never called")
	}
	// A scenario numbers model calls by its script: model call n is the one
	// that got the n-th scripted reply. They coincide unless a call the
	// script has no reply for (one made too early, or one refused for a
	// broken provider rule) came first or in its place; that call is
	// charged to the rule it breaks, and does not shift what later
	// assertions read. An unscripted call is read by its own number when no
	// scripted call has that number.
	journal := w.sim.Journal()
	var byCall, byTurn *simulator.Entry
	shifted := false
	for i, e := range journal {
		if e.Call < n && e.Turn < 0 {
			shifted = true
		}
		if e.Call == n {
			byCall = &journal[i]
		}
		if e.Turn == n-1 {
			byTurn = &journal[i]
		}
	}
	switch {
	case byTurn != nil && (shifted || byCall == nil || byCall.Turn < 0):
		return *byTurn, nil
	case shifted:
		return simulator.Entry{}, blocked("the model never got scripted reply %d: an unscripted model call came before it", n)
	case byCall != nil:
		return *byCall, nil
	}
	if last, err := w.last(); err == nil && w.server != nil && last.Response != nil && last.Response.Error != nil && n >= last.FirstModelCall {
		// A chat endpoint refused what its client sent: no turn assertion
		// judges a chat request, and the refusal is what kept the prompt
		// from the model.
		return simulator.Entry{}, fmt.Errorf("there was no model call %d: the chat endpoint failed request %d with %q", n, last.N, last.Response.Error.Message)
	}
	if last, err := w.last(); err == nil && last.Response != nil && last.Response.Error != nil && last.Response.Error.Code != "Model" && n >= last.FirstModelCall {
		// The turn was refused before it got that far: nothing reached the
		// model, so what a prompt holds is not at stake. Whether refusing
		// was right is the turn assertions' to judge.
		return simulator.Entry{}, &naError{why: fmt.Sprintf("there was no model call %d: turn %d was refused with %s", n, last.N, last.Response.Error.Code)}
	}
	return simulator.Entry{}, fmt.Errorf("there was no model call %d (the model was called %d time(s))", n, w.sim.Calls())
}

// scenarioNumber is the number a scenario gives (see modelCall) to the
// model call the journal numbers n; false when the scenario cannot name
// it (an unscripted call whose number a scripted call has taken).
func (w *world) scenarioNumber(n int) (int, bool) {
	if w.sim == nil {
		return n, true
	}
	m := n
	for _, e := range w.sim.Journal() {
		if e.Call == n && e.Turn >= 0 {
			m = e.Turn + 1
		}
	}
	if e, err := w.modelCall(m); err != nil || e.Call != n {
		return 0, false
	}
	return m, true
}

// everyRunCounts are the checks whose rules are about duplicate runs
// within one request (approved calls run exactly once; duplicate answers
// lead to at most one run; a call runs at most once per request): their
// count assertions count every run. The others count a call once per turn
// it ran in, so that a call run twice within a turn is charged to those
// rules alone, not to every assertion that counts it.
var everyRunCounts = map[string]bool{"PART-02": true, "PRE-11": true, "WIRE-03": true}

// countedRunsOf returns the runs a count assertion of the current check
// counts (see everyRunCounts).
func (w *world) countedRunsOf(nameOrCall string) []toolRun {
	runs := w.runsOf(nameOrCall)
	if everyRunCounts[w.check] {
		return runs
	}
	type key struct {
		call string
		turn int
	}
	seen := map[key]bool{}
	var out []toolRun
	for _, r := range runs {
		k := key{r.ToolCallID, r.Turn}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// runsOf returns the tool runs for a tool name or a call id.
func (w *world) runsOf(nameOrCall string) []toolRun {
	byTool := w.tool(nameOrCall) != nil
	var out []toolRun
	for _, r := range w.harness.runsSnapshot() {
		if (byTool && r.Tool == nameOrCall) || (!byTool && r.ToolCallID == nameOrCall) {
			out = append(out, r)
		}
	}
	return out
}

// callsMadeIn returns the local tool calls the model made during a turn,
// as the simulator's replies made them.
func (w *world) callsMadeIn(t *turnRecord) []simulator.ToolCall {
	if w.sim == nil {
		return nil
	}
	var out []simulator.ToolCall
	for _, e := range w.sim.Journal() {
		if e.Call < t.FirstModelCall || e.Call > t.LastModelCall || e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if !c.ProviderExecuted {
				out = append(out, c)
			}
		}
	}
	return out
}

// modelCallThatMade returns the model call (journal numbering) of the turn
// whose reply made the call, or 0 when no model call of the turn made it.
func (w *world) modelCallThatMade(t *turnRecord, callID string) int {
	if w.sim == nil {
		return 0
	}
	for _, e := range w.sim.Journal() {
		if e.Call < t.FirstModelCall || e.Call > t.LastModelCall || e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if c.ID == callID {
				return e.Call
			}
		}
	}
	return 0
}

// turnOf returns the turn in which the journal's model call n was made.
func (w *world) turnOf(n int) (*turnRecord, bool) {
	for _, rec := range w.turns {
		if n >= rec.FirstModelCall && n <= rec.LastModelCall {
			return rec, true
		}
	}
	return nil, false
}
