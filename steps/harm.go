package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
)

// A failed assertion of a MUST check stands as a failure only when the run
// shows the harm it causes (checks.Harm). An assertion names its harm in
// one of two ways: its failure shows the harm itself (a tool that ran after
// a denial: the run is the evidence), or the harm is looked for in the
// whole run when the scenario ends (a result missing from a turn's messages
// is lost only if no prompt and no later turn ever held it). A failure that
// shows no harm, or whose harm the run does not show, is a warning: the
// rule it breaks is SHOULD at most.

// harmSpec is the harm an assertion's failure causes, and how the run
// shows it.
type harmSpec struct {
	harm checks.Harm
	// show looks for the harm's evidence in the whole run, at the end of
	// the scenario; nil when the failure is its own evidence.
	show func(w *world) (evidence string, ok bool)
	// pick, when set, looks for one of several harms in the whole run and
	// says which it found (in place of harm and show).
	pick func(w *world) (h checks.Harm, evidence string, ok bool)
	// byEnd says show judges by the end of the scenario (a result no later
	// prompt or turn held, a call that never ran): a scenario that stopped
	// before its end cannot show such a harm.
	byEnd bool
}

// harmError is a failed assertion that names its harm.
type harmError struct {
	spec harmSpec
	err  error
}

func (e *harmError) Error() string { return e.err.Error() }
func (e *harmError) Unwrap() error { return e.err }

// harmed says the failure err shows harm h by itself: what it describes
// is the evidence.
func harmed(h checks.Harm, err error) error {
	if err == nil {
		return nil
	}
	return &harmError{spec: harmSpec{harm: h}, err: err}
}

// harmedIf says the failure err causes harm h where show finds it in the
// run when the scenario ends.
func harmedIf(h checks.Harm, show func(*world) (string, bool), err error) error {
	if err == nil {
		return nil
	}
	return &harmError{spec: harmSpec{harm: h}.withShow(show), err: err}
}

func (s harmSpec) withShow(show func(*world) (string, bool)) harmSpec {
	s.show = show
	return s
}

// harmedByEnd says the failure err causes harm h where show finds it by
// the end of the scenario; a scenario that stopped before its end shows no
// such harm.
func harmedByEnd(h checks.Harm, show func(*world) (string, bool), err error) error {
	if err == nil {
		return nil
	}
	return &harmError{spec: harmSpec{harm: h, show: show, byEnd: true}, err: err}
}

// harmedAny says the failure err causes the harm pick finds in the run
// when the scenario ends (one of several).
func harmedAny(def checks.Harm, pick func(*world) (checks.Harm, string, bool), err error) error {
	if err == nil {
		return nil
	}
	return &harmError{spec: harmSpec{harm: def, pick: pick}, err: err}
}

// harmless says the failure err shows no harm: its rule is SHOULD at most.
func harmless(err error) error {
	if err == nil {
		return nil
	}
	return &harmError{err: err}
}

// refusalFor looks for a prompt the simulator refused as the provider
// does, naming one of ids (any refusal, when ids is empty), from model call
// from on.
func refusalFor(from int, ids ...string) func(*world) (string, bool) {
	return func(w *world) (string, bool) {
		if w.sim == nil {
			return "", false
		}
		for _, e := range w.sim.Journal() {
			if e.Call < from || e.Verdict != simulator.VerdictViolation {
				continue
			}
			for _, v := range e.Violations {
				if len(ids) == 0 || slices.ContainsFunc(v.IDs, func(id string) bool { return slices.Contains(ids, id) }) {
					return fmt.Sprintf("model call %d was refused with HTTP %d: %s", e.Call, e.Status, oneLine(e.ErrorBody)), true
				}
			}
		}
		return "", false
	}
}

// resultNeverSeen shows that the result of callID, which turn n's messages
// lack, was lost: a prompt naming it was refused (refused), or no prompt
// from turn n's first model call on and no later turn's messages ever held
// a result for it (lost). A result that reached the model, or that a later
// turn returned, lost nothing the run can show.
func resultNeverSeen(n int, callIDs ...string) func(*world) (string, bool) {
	return func(w *world) (string, bool) {
		var lost []string
		for _, id := range callIDs {
			if !w.resultSeenAfter(n, id) {
				lost = append(lost, id)
			}
		}
		if len(lost) == 0 {
			return "", false
		}
		from := 1
		if rec := w.turnN(n); rec != nil {
			from = rec.FirstModelCall
		}
		if ev, ok := refusalFor(from, lost...)(w); ok {
			return ev, true
		}
		if !w.wentOnWithout(n, lost) {
			// A runtime may hold a result back to the next request (REQ-06's
			// deferral); a scenario that ends at turn n cannot show it lost.
			return "", false
		}
		return fmt.Sprintf("no prompt from model call %d on and no turn after turn %d held a result for %s: the conversation ends (turn %d) without it", from, n, strings.Join(lost, ", "), len(w.turns)), true
	}
}

// wentOnWithout reports whether the conversation went on after the calls
// ids of turn n were made, so that their results were due: a later turn
// was sent, or a model call after the one that made them (in turn n or
// later) was answered. A scenario whose conversation ends when turn n
// ends shows no loss of a result held back for the next request.
func (w *world) wentOnWithout(n int, ids []string) bool {
	for _, rec := range w.turns {
		if rec.N > n {
			return true
		}
	}
	rec := w.turnN(n)
	if rec == nil || w.sim == nil {
		return true
	}
	made := 0
	for _, id := range ids {
		if c := w.modelCallThatMade(rec, id); c > 0 && (made == 0 || c < made) {
			made = c
		}
	}
	if made == 0 {
		return true
	}
	for _, e := range w.sim.Journal() {
		if e.Call > made {
			return true
		}
	}
	return false
}

// wentOnAfterCall reports whether the conversation went on after the
// model made its last call named what (a call id or a tool's name): a later
// turn was sent, or a later model call answered. True when no model call
// made it (nothing to wait for).
func (w *world) wentOnAfterCall(what string) bool {
	if w.sim == nil {
		return true
	}
	made := 0
	for _, e := range w.sim.Journal() {
		if e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if c.ID == what || c.Name == what {
				made = e.Call
			}
		}
	}
	if made == 0 {
		return true
	}
	for _, e := range w.sim.Journal() {
		if e.Call > made {
			return true
		}
	}
	rec, ok := w.turnOf(made)
	if !ok {
		return true
	}
	for _, r := range w.turns {
		if r.N > rec.N {
			return true
		}
	}
	return false
}

// neverRan shows that callID (or every call of the tool named what) did
// not run at least want times by the end of the scenario.
func neverRan(what string, want int) func(*world) (string, bool) {
	return func(w *world) (string, bool) {
		if runs := w.runsOf(what); len(runs) < want {
			if !w.wentOnAfterCall(what) {
				// A runtime may run a call with the next request (Mastra runs
				// the free calls after a suspended one at the resume); a
				// scenario whose conversation ends there cannot show it lost.
				return "", false
			}
			return fmt.Sprintf("by the end of the scenario (turn %d) %s ran %d time(s), want %d", len(w.turns), what, len(runs), want), true
		}
		return "", false
	}
}

// turnN returns turn n's record.
func (w *world) turnN(n int) *turnRecord {
	for _, rec := range w.turns {
		if rec.N == n {
			return rec
		}
	}
	return nil
}

// resultSeenAfter reports whether a prompt from turn n's first model call
// on, or the messages of a turn after n, held a result for callID.
func (w *world) resultSeenAfter(n int, callID string) bool {
	from := 0
	if rec := w.turnN(n); rec != nil {
		from = rec.FirstModelCall
	}
	if w.sim != nil {
		for _, e := range w.sim.Journal() {
			if e.Call >= from && len(resultsFor(e.Prompt, callID)) > 0 {
				return true
			}
		}
	}
	for _, rec := range w.turns {
		if rec.N > n && rec.Response != nil && len(resultsFor(rec.Response.Messages, callID)) > 0 {
			return true
		}
	}
	return false
}

// violationHarm is the harm of a problem the simulator recorded: a prompt
// it refused as the provider does, or an expectation of the script the
// prompt did not meet (a result the model never saw).
func (w *world) violationHarm(p simulator.Problem) harmSpec {
	if w.sim != nil && p.Call > 0 {
		for _, e := range w.sim.Journal() {
			if e.Call == p.Call && e.Verdict == simulator.VerdictViolation {
				body := oneLine(e.ErrorBody)
				return harmSpec{harm: checks.Refused, show: func(*world) (string, bool) {
					return fmt.Sprintf("model call %d was refused with HTTP %d: %s", e.Call, e.Status, body), true
				}}
			}
		}
	}
	return harmSpec{harm: checks.Lost}
}

// markInput notes a tag of the scenario's input that a user action gave
// it (a step that sends what no conforming client sends, or input with a
// trait).
func (w *world) markInput(tag string) {
	if !slices.Contains(w.inputTags, tag) {
		w.inputTags = append(w.inputTags, tag)
		if w.inputWhy == nil {
			w.inputWhy = map[string]string{}
		}
		w.inputWhy[tag] = w.step
	}
}

// outOfContract says why the scenario's input is out-of-contract for the
// target: the scenario's tags or its user actions say so, or its input has
// a trait the target's declared delivery contract excludes. "" when it is
// conforming.
func (w *world) outOfContract(tags []string) string {
	if slices.Contains(tags, checks.OutOfContractTag) {
		return "the scenario says its input comes from no conforming client (" + checks.OutOfContractTag + ")"
	}
	if step, ok := w.inputWhy[checks.OutOfContractTag]; ok {
		return fmt.Sprintf("no conforming client sends what the step %q sends", step)
	}
	tags = append(slices.Clip(tags), w.inputTags...)
	for _, tr := range checks.Traits {
		if slices.Contains(tags, tr.Tag) && w.info != nil && w.info.Features.Contract.Declares(tr.Contract) {
			return fmt.Sprintf("%s, which the target's declared delivery contract (%s) excludes", tr.What, tr.Contract)
		}
	}
	return ""
}

// grade decides what a failed finding of check counts as: a MUST failure
// where the run shows its harm (on out-of-contract input, a safety harm),
// a warning otherwise. It fills in the finding's harm, its evidence, and
// why a failure only warns.
func (w *world) grade(f *finding, oocWhy string) {
	if f.outcome != report.OutcomeFail {
		return
	}
	c, ok := checks.Lookup(f.check)
	if !ok || c.Level != checks.Must {
		return
	}
	if f.spec.harm == "" {
		f.graded = "no harm: this assertion's rule is SHOULD at most"
		return
	}
	if f.spec.pick != nil {
		h, ev, shown := f.spec.pick(w)
		if !shown && f.spec.harm == checks.Lost && oocWhy == "" {
			h = checks.Lost
			ev, shown = w.refusedConforming()
		}
		if !shown {
			f.graded = fmt.Sprintf("its harm (%s) is not shown in this run", f.spec.harm)
			return
		}
		f.spec.harm, f.evidence = h, ev
	} else if f.spec.show != nil {
		ev, shown := "", false
		if !f.spec.byEnd || w.stoppedAt == "" {
			ev, shown = f.spec.show(w)
		}
		if !shown && f.spec.harm == checks.Lost && oocWhy == "" {
			ev, shown = w.refusedConforming()
		}
		if !shown {
			f.graded = fmt.Sprintf("its harm (%s) is not shown in this run", f.spec.harm)
			if f.spec.byEnd && w.stoppedAt != "" {
				f.graded = fmt.Sprintf("its harm (%s) is judged by the end of the scenario, which stopped early (at %q)", f.spec.harm, w.stoppedAt)
			}
			return
		}
		f.evidence = ev
	} else {
		f.evidence = f.message
	}
	f.harm = f.spec.harm
	if oocWhy != "" && !f.spec.harm.Safety() {
		f.graded = fmt.Sprintf("out-of-contract input (%s): only ran-against-answer, forged and crashed are MUST there", oocWhy)
	}
}

// refusalCodes are the turn errors with which a runtime refuses the
// conversation it was sent, in words: not a model error, a failing tool, a
// runtime fault (Other), an adapter that cannot express the input, nor a
// refusal that names the application's toolkit (ToolkitRequired,
// ToolNotFound: the rules let a runtime refuse a turn whose toolkit lacks
// a tool the history needs, PRE-05 and PRE-06, so the application, not the
// conversation, is what it refuses; refusedConforming ignores any refusal
// in a scenario whose toolkit lacks a tool, for the same reason).
var refusalCodes = []string{"InvalidMessages", "InvalidApproval", "MissingToolResults"}

// acceptRefusal notes that an assertion accepted the last turn's clear
// refusal as the scenario's outcome.
func (w *world) acceptRefusal() {
	if n := len(w.turns); n > 0 && w.turns[n-1].Response != nil && w.turns[n-1].Response.Error != nil {
		w.acceptedRefusals = append(w.acceptedRefusals, w.turns[n-1].N)
	}
}

// refusedConforming shows the loss a clear refusal of conforming input
// causes: a runtime that refuses, in words, a conversation a conforming
// client sends (and no assertion of the scenario accepted the refusal)
// loses the user's message and the answers in it: none reaches the model
// and no tool runs for them. The grading asks it only of conforming input
// and only for a failure whose harm is lost.
func (w *world) refusedConforming() (string, bool) {
	if len(w.omitted) > 0 || w.toolkit == target.ToolkitAbsent || w.toolkit == target.ToolkitEmpty {
		// The application's toolkit lacks what the history needs: a
		// runtime may refuse the turn for it (PRE-05, PRE-06), whatever
		// code its refusal bears.
		return "", false
	}
	for _, rec := range w.turns {
		if rec.Response == nil || rec.Response.Error == nil || slices.Contains(w.acceptedRefusals, rec.N) {
			continue
		}
		if e := rec.Response.Error; slices.Contains(refusalCodes, e.Code) {
			return fmt.Sprintf("turn %d refused its conforming input with %s (%s): the user's message and the answers in it reached no model and ran no tool", rec.N, e.Code, oneLine(e.Message)), true
		}
	}
	return "", false
}

// oneLine squeezes a body into one line of at most 400 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// danglingHarm is the harm of a client request that leaves a call without
// an answer before a new user message: the conversation it sends is one a
// provider refuses, unless the target declares that its own chat server
// resolves it (serverSupersedesPending).
var danglingHarm = harmSpec{harm: checks.Refused, show: func(w *world) (string, bool) {
	if w.info != nil && w.info.Features.Contract.ServerSupersedesPending {
		return "", false
	}
	return "the request's history holds a tool call without a result before a new user message: converted for the model, it is the prompt every provider refuses (OpenAI: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\"), and the target declares no chat server of its own that resolves it", true
}}

// Static harms of the assertion steps (stepDef.harm).
var (
	// ranAgainst: the failure is a tool run the answers did not allow.
	ranAgainst = harmSpec{harm: checks.RanAgainstAnswer}
	// lostShown: the failure is a result or answer missing where the
	// assertion looked (a prompt, the stream, the client).
	lostShown = harmSpec{harm: checks.Lost}
	// refusedInRun: the failure causes a prompt the provider refuses;
	// shown by any refusal of the run.
	refusedInRun = harmSpec{harm: checks.Refused, show: refusalFor(0)}
)

// calledWhileWaiting shows the harm of a model called again in turn n
// while a call of the conversation still waited for its answer: a prompt
// that holds the waiting call without a result is refused by the provider
// (refused); one that hides the call lets the model answer without it
// (lost).
func calledWhileWaiting(n int) func(*world) (checks.Harm, string, bool) {
	return func(w *world) (checks.Harm, string, bool) {
		rec := w.turnN(n)
		if rec == nil || w.sim == nil {
			return "", "", false
		}
		for _, e := range w.sim.Journal() {
			if e.Call >= rec.FirstModelCall && e.Call <= rec.LastModelCall && e.Verdict == simulator.VerdictViolation {
				return checks.Refused, fmt.Sprintf("model call %d was refused with HTTP %d: %s", e.Call, e.Status, oneLine(e.ErrorBody)), true
			}
		}
		waiting := waitingCalls(rec.sent)
		for _, e := range w.sim.Journal() {
			if e.Call < rec.FirstModelCall || e.Call > rec.LastModelCall {
				continue
			}
			ix := model.IndexOf(e.Prompt)
			for _, id := range waiting {
				if _, in := ix.Calls[id]; !in {
					return checks.Lost, fmt.Sprintf("model call %d was made while %s waited for its answer, and its prompt does not hold the call: the model answered without it", e.Call, id), true
				}
			}
		}
		return "", "", false
	}
}

// waitingCalls are the calls of msgs whose approval request has no answer
// and that have no result.
func waitingCalls(msgs []model.Message) []string {
	ix := model.IndexOf(msgs)
	var out []string
	for _, aid := range ix.RequestOrder {
		if len(ix.Responses[aid]) > 0 {
			continue
		}
		req := ix.Part(ix.Requests[aid])
		if len(ix.Results[req.ToolCallID]) == 0 {
			out = append(out, req.ToolCallID)
		}
	}
	return out
}

// lostWithTurn shows that tools ran in turn n, which failed: their side
// effects happened and their results are lost with the turn.
func lostWithTurn(n int) func(*world) (string, bool) {
	return func(w *world) (string, bool) {
		var ran []string
		for _, r := range w.harness.runsSnapshot() {
			if r.Turn == n {
				ran = append(ran, r.ToolCallID+" ("+r.Tool+")")
			}
		}
		if len(ran) == 0 {
			return "", false
		}
		return fmt.Sprintf("%s ran in turn %d, which failed: the side effects happened and the turn returned none of their results", strings.Join(ran, ", "), n), true
	}
}
