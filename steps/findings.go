package steps

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/simulator"
)

// finding is the outcome of one assertion: the check it belongs to, the
// step (or the always-on rule) that made it, and what was seen.
type finding struct {
	check   string
	step    string
	outcome report.Outcome
	message string
	// spec is the harm a failure causes and how the run shows it.
	spec harmSpec
	// harm, evidence and graded are filled in when the scenario ends
	// (grade): the harm the run showed and its evidence, or why a failure
	// of a MUST check only warns.
	harm     checks.Harm
	evidence string
	graded   string
}

// blockedError is an assertion that cannot be evaluated because an earlier
// failure took away what it reads (a turn that failed because the
// simulator refused its prompt has no messages to judge). It is charged to
// no check; the earlier failure is.
type blockedError struct{ why string }

func (e *blockedError) Error() string { return e.why }

func blocked(format string, args ...any) error {
	return &blockedError{why: fmt.Sprintf(format, args...)}
}

// chargedError is an assertion that found a fault another check's rule
// owns: the turn's messages hold no result for a call it needs to read
// (PRE-01's rule for an approved call, PRE-02's for a denied one), not the
// rule the assertion is about. The fault is charged to that check, once;
// the assertion's own check gets own: blocked, or its own judgement.
type chargedError struct {
	check string
	why   string
	own   error
	// spec is the harm of the fault charged to check.
	spec harmSpec
}

func (e *chargedError) Error() string { return e.why }

// naError is an assertion that does not apply to the target (it declares
// it has no denial reasons, or untyped results): it is neither passed nor
// failed.
type naError struct{ why string }

func (e *naError) Error() string { return e.why }

// isStop reports whether an assertion's error stops the scenario rather
// than judging the target.
func isStop(err error) bool {
	var herr *harnessError
	var aerr *authoringError
	return errors.As(err, &herr) || errors.As(err, &aerr) || errors.Is(err, godog.ErrSkip)
}

// authoringError is a mistake of the scenario itself: an assertion with no
// check, an expectation that cannot apply. The scenario errors; no check is
// charged.
type authoringError struct{ err error }

func (e *authoringError) Error() string { return "the scenario is wrong: " + e.err.Error() }
func (e *authoringError) Unwrap() error { return e.err }

// judge records the outcome of an assertion of check. It returns an error
// only when the scenario must stop: the target could not be driven, or the
// scenario is wrong.
func (w *world) judge(check string, err error) error {
	spec := w.stepHarm
	var herrH *harmError
	if errors.As(err, &herrH) {
		spec = herrH.spec
	}
	var (
		herr *harnessError
		aerr *authoringError
		berr *blockedError
		nerr *naError
	)
	var cerr *chargedError
	if errors.As(err, &cerr) {
		if cerr.check == check {
			err = errors.New(cerr.why)
		} else {
			if key := "charged " + cerr.check + " " + cerr.why; !w.reported[key] {
				w.reported[key] = true
				w.recordHarm(cerr.check, report.OutcomeFail, cerr.why, cerr.spec)
			}
			err = cerr.own
		}
	}
	if err != nil && w.readTurn && len(w.turns) > 0 {
		if last := w.turns[len(w.turns)-1]; last.Response != nil && last.Response.Error != nil {
			var b *blockedError
			var n *naError
			if !errors.As(err, &b) && !errors.As(err, &n) && !isStop(err) {
				if w.failedTurns[last.N] {
					err = blocked("turn %d failed (%s), which an earlier assertion was charged for: %v", last.N, last.Response.Error.Code, err)
				} else {
					if w.failedTurns == nil {
						w.failedTurns = map[int]bool{}
					}
					w.failedTurns[last.N] = true
				}
			}
		}
	}
	switch {
	case err == nil:
		w.record(check, report.OutcomePass, "")
	case errors.As(err, &herr), errors.As(err, &aerr), errors.Is(err, godog.ErrSkip):
		return err
	case errors.As(err, &berr):
		w.record(check, report.OutcomeBlocked, berr.why)
	case errors.As(err, &nerr):
		w.record(check, report.OutcomeNotApplicable, nerr.why)
	default:
		w.recordHarm(check, report.OutcomeFail, err.Error(), spec)
	}
	return nil
}

// record records a finding whose failure, if it is one, shows no harm.
func (w *world) record(check string, o report.Outcome, msg string) {
	w.recordHarm(check, o, msg, harmSpec{})
}

// recordHarm records a finding with the harm its failure causes.
func (w *world) recordHarm(check string, o report.Outcome, msg string, spec harmSpec) {
	w.findings = append(w.findings, finding{check: check, step: w.step, outcome: o, message: msg, spec: spec})
}

// failed reports whether some check failed so far.
func (w *world) failed() bool {
	for _, f := range w.findings {
		if f.outcome == report.OutcomeFail {
			return true
		}
	}
	return false
}

// drain turns what the always-on rules saw since the last drain into
// findings, charged to the step that caused it: the simulator's problems
// (a prompt the provider would reject: WIRE-01, WIRE-02; a prompt that did
// not meet the script's expectations, each with its check), the script
// expectations met, a call run twice within one turn (WIRE-03), and the
// client-role rules (CHAIN-05, CHAIN-06).
func (w *world) drain() { w.drainAt(false) }

// drainAt drains; final is the end of the scenario, when what is left
// unused of a script becomes a note.
func (w *world) drainAt(final bool) {
	if w.sim != nil {
		problems := w.sim.Recorded()
		for _, p := range problems[min(w.seenProblems, len(problems)):] {
			if p.Check == "" {
				w.notes = append(w.notes, p.String())
				continue
			}
			if why, ok := w.neverInConversation(p); ok {
				w.record(p.Check, report.OutcomeBlocked, why)
				continue
			}
			w.recordHarm(p.Check, report.OutcomeFail, p.String(), w.violationHarm(p))
		}
		w.seenProblems = len(problems)
		journal := w.sim.Journal()
		for _, e := range journal[min(w.seenCalls, len(journal)):] {
			w.metExpectations(e)
		}
		w.seenCalls = len(journal)
	}
	type key struct {
		turn int
		call string
	}
	count := map[key]int{}
	for _, r := range w.harness.runsSnapshot() {
		count[key{r.Turn, r.ToolCallID}]++
	}
	var keys []key
	for k, n := range count {
		if n > 1 && !w.reported["WIRE-03 "+k.call+fmt.Sprint(k.turn)] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].turn != keys[j].turn {
			return keys[i].turn < keys[j].turn
		}
		return keys[i].call < keys[j].call
	})
	for _, k := range keys {
		w.reported["WIRE-03 "+k.call+fmt.Sprint(k.turn)] = true
		w.recordHarm("WIRE-03", report.OutcomeFail, fmt.Sprintf("tool call %s ran %d times within turn %d", k.call, count[k], k.turn), harmSpec{harm: checks.RanAgainstAnswer})
	}
	for _, p := range w.client.problems() {
		if w.reported[p.check+" "+p.detail] || (p.check == "" && !final) {
			continue
		}
		w.reported[p.check+" "+p.detail] = true
		if p.check == "" {
			w.notes = append(w.notes, p.detail)
			continue
		}
		w.recordHarm(p.check, report.OutcomeFail, p.detail, p.spec)
	}
}

// metExpectations records a pass for every check whose expectations a
// model call's prompt met (a failure was recorded from the problems).
func (w *world) metExpectations(e simulator.Entry) {
	turn, ok := w.sim.TurnAt(e.Turn)
	if !ok || turn.Expect == nil {
		return
	}
	failed := map[string]bool{}
	for _, f := range e.Failures {
		failed[f.Check] = true
	}
	blockedBy := map[string]string{}
	for _, b := range e.Blocked {
		if _, seen := blockedBy[b.Check]; !seen {
			blockedBy[b.Check] = b.String()
		}
	}
	for _, check := range turn.Expect.Checks() {
		switch why, isBlocked := blockedBy[check]; {
		case failed[check]:
		case isBlocked:
			w.record(check, report.OutcomeBlocked, why)
		default:
			w.record(check, report.OutcomePass, fmt.Sprintf("model call %d met the script's expectations", e.Call))
		}
	}
}

// verdict fills in the result of a scenario from its findings: each check's
// verdict is the worst outcome of its own assertions (a SHOULD or MAY
// check's failure is a warning); a check none of whose assertions could be
// evaluated has no verdict in the scenario.
func (w *world) verdict(res *report.Scenario) {
	res.CheckVerdicts = map[string]report.Verdict{}
	res.Provenance = string(checks.Conforming)
	ooc := w.outOfContract(withAt(res.Tags))
	if ooc != "" {
		res.Provenance, res.ProvenanceWhy = string(checks.OutOfContract), ooc
	}
	worst := map[string]int{}
	for i := range w.findings {
		f := &w.findings[i]
		w.grade(f, ooc)
		res.Findings = append(res.Findings, report.Finding{Check: f.check, Step: f.step, Outcome: f.outcome, Message: f.message,
			Harm: string(f.harm), HarmEvidence: f.evidence, Graded: f.graded})
		if r := f.rank(); r > worst[f.check] {
			worst[f.check] = r
		}
	}
	for check, r := range worst {
		if !contains(res.Checks, check) {
			res.Checks = append(res.Checks, check)
		}
		switch r {
		case rankFail:
			res.CheckVerdicts[check] = report.Fail
		case rankWarn:
			res.CheckVerdicts[check] = report.Warn
		case rankPass:
			res.CheckVerdicts[check] = report.Pass
		case rankNotApplicable:
			res.CheckVerdicts[check] = report.NotApplicable
		}
	}
	checks.SortIDs(res.Checks)
	for _, id := range res.Checks {
		if _, ok := res.CheckVerdicts[id]; !ok {
			res.NotEvaluated = append(res.NotEvaluated, id)
		}
	}
	res.Notes = append(res.Notes, w.notes...)
}

// The ranks of graded findings: a check's verdict in a scenario is its
// worst one. A blocked assertion ranks lowest: it says nothing of its
// check.
const (
	rankNone = iota
	rankBlocked
	rankNotApplicable
	rankPass
	rankWarn
	rankFail
)

// rank is the graded finding's rank: a failure is a MUST failure only for a
// MUST check whose harm the run showed (grade); otherwise it warns.
func (f finding) rank() int {
	switch f.outcome {
	case report.OutcomeFail:
		if c, ok := checks.Lookup(f.check); ok && c.Level == checks.Must && f.graded == "" {
			return rankFail
		}
		return rankWarn
	case report.OutcomePass:
		return rankPass
	case report.OutcomeNotApplicable:
		return rankNotApplicable
	case report.OutcomeBlocked:
		return rankBlocked
	}
	return rankNone
}

// withAt gives tags their leading "@".
func withAt(tags []string) []string {
	out := make([]string, len(tags))
	for i, t := range tags {
		out[i] = "@" + strings.TrimPrefix(t, "@")
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// firstFailure is the earliest failed assertion: the cause, before the
// symptoms that follow it.
func (w *world) firstFailure() (finding, bool) {
	for _, f := range w.findings {
		if f.outcome == report.OutcomeFail {
			if c, ok := checks.Lookup(f.check); ok && c.Level == checks.Must {
				return f, true
			}
		}
	}
	for _, f := range w.findings {
		if f.outcome == report.OutcomeFail {
			return f, true
		}
	}
	return finding{}, false
}

// describe renders a finding for a message.
func (f finding) describe() string {
	return f.check + ": " + strings.TrimPrefix(f.message, f.check+": ")
}

// neverInConversation reports whether a result the script expected in a
// prompt is for a call the conversation never held: not in the history the
// harness sent with the turn, and not made by a model reply earlier in that
// turn. The expectation presupposes the call; when an earlier turn that
// was to return it failed or left it out (charged to that turn's rules),
// the expectation is blocked, not failed.
func (w *world) neverInConversation(p simulator.Problem) (string, bool) {
	if p.ToolCallID == "" || p.Call == 0 {
		return "", false
	}
	rec, ok := w.turnOf(p.Call)
	if !ok || rec.sent == nil {
		return "", false
	}
	if _, ok := model.IndexOf(rec.sent).Calls[p.ToolCallID]; ok {
		return "", false
	}
	for _, e := range w.sim.Journal() {
		if e.Call < rec.FirstModelCall || e.Call >= p.Call || e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if c.ID == p.ToolCallID {
				return "", false
			}
		}
	}
	return fmt.Sprintf("model call %d: the script expects a result for %s, but the conversation sent in turn %d never held that call (an earlier turn that was to return it failed or left it out, which that turn's rules judge)", p.Call, p.ToolCallID, rec.N), true
}
