package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
)

// Shared pieces of the human-readable reports (Markdown, HTML, JUnit, the
// badge).

// verdictOrder is the order verdict counts are listed in.
var verdictOrder = []Verdict{Pass, Fail, Warn, Error, Timeout, NotApplicable}

// headline is the one-line outcome of a run: its result and why.
type headline struct {
	Result Result
	Label  string // PASS, FAIL, INCOMPLETE
	Text   string // "every MUST check passes", "3 MUST checks failed: ..."
}

// headlineOf is the run's headline, with what its baseline did (when it
// had one) in its label and text.
func headlineOf(r *Run) headline {
	h := runHeadline(r)
	if r.Baseline != nil && h.Result != ResultInterrupted {
		h.Label = baselineLabel(h.Label, h.Result, r.Baseline)
		h.Text += "; " + baselineText(r.Baseline)
	}
	return h
}

func runHeadline(r *Run) headline {
	res := r.Result()
	h := headline{Result: res, Label: strings.ToUpper(string(res))}
	var warned, errored []string
	for _, c := range r.Checks {
		switch {
		case c.Verdict == Warn:
			warned = append(warned, c.ID)
		case c.Level == checks.Must && (c.Verdict == Error || c.Verdict == Timeout):
			errored = append(errored, c.ID)
		}
	}
	st := r.ScenarioTotals()
	broken := st[Error] + st[Timeout]
	switch res {
	case ResultInterrupted:
		h.Text = fmt.Sprintf("the run stopped before its end (%s): %s finished, %d not run; the results are partial", r.Interrupted, plural(len(r.Scenarios), "scenario", "scenarios"), r.NotRun)
		return h
	case ResultFail:
		failed := r.FailedMustChecks()
		h.Text = fmt.Sprintf("%s failed: %s", plural(len(failed), "MUST check", "MUST checks"), strings.Join(failed, ", "))
	case ResultIncomplete:
		h.Text = fmt.Sprintf("no MUST check failed, but %s errored or timed out", plural(broken, "scenario", "scenarios"))
		if len(errored) > 0 {
			h.Text += fmt.Sprintf("; MUST checks left unproven: %s", strings.Join(errored, ", "))
		}
	default:
		switch {
		case len(r.Checks) == 0:
			h.Text = "no check was exercised"
		default:
			t := r.Totals()
			h.Text = fmt.Sprintf("every MUST check passes (%d of %d checks pass", t[Pass], len(r.Checks))
			if t[NotApplicable] > 0 {
				h.Text += fmt.Sprintf(", %d not applicable", t[NotApplicable])
			}
			h.Text += ")"
		}
		if len(warned) > 0 {
			h.Text += fmt.Sprintf("; %s: %s", plural(len(warned), "warning", "warnings"), strings.Join(warned, ", "))
		}
		return h
	}
	if res == ResultFail && broken > 0 {
		h.Text += fmt.Sprintf("; %s errored or timed out", plural(broken, "scenario", "scenarios"))
	}
	if res == ResultFail && len(warned) > 0 {
		h.Text += fmt.Sprintf("; %s", plural(len(warned), "warning", "warnings"))
	}
	return h
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// applicable is the number of scenarios behind a check that applied to the
// target.
func applicable(c Check) int { return len(c.Scenarios) - c.NotApplicable }

// notPassed reports whether a scenario belongs among those that did not
// pass (not-applicable ones are not failures).
func notPassed(s Scenario) bool { return s.Verdict != Pass && s.Verdict != NotApplicable }

// notEvaluated is how the reports show a check of a scenario none of
// whose assertions could be evaluated (blocked by an earlier failure):
// neither a pass nor a failure.
const notEvaluated = "not-evaluated"

// checkVerdictList lists a scenario's checks with their verdicts, in the
// scenario's check order: a check the scenario could not evaluate is
// "not-evaluated", not the scenario's verdict.
func checkVerdictList(s Scenario) [][2]string {
	out := make([][2]string, 0, len(s.Checks))
	for _, id := range s.Checks {
		v, ok := s.CheckVerdicts[id]
		switch {
		case ok:
		case slices.Contains(s.NotEvaluated, id):
			out = append(out, [2]string{id, notEvaluated})
			continue
		default:
			v = s.Verdict
		}
		out = append(out, [2]string{id, string(v)})
	}
	return out
}

// failingChecks lists the checks a scenario did not pass (a check it
// could not evaluate is not among them).
func failingChecks(s Scenario) []string {
	var out []string
	for _, cv := range checkVerdictList(s) {
		if cv[1] != string(Pass) && cv[1] != string(NotApplicable) && cv[1] != notEvaluated {
			out = append(out, cv[0])
		}
	}
	return out
}
