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
	Text   string // "every MUST check passes", "3 MUST checks failed: ...", "2 SHOULD checks warned, which fails a run at level should: ..."
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
		case c.Verdict == Warn && !r.failsRun(c): // a warning that fails the run is named with the failures
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
		h.Text = failingText(r)
	case ResultIncomplete:
		h.Text = fmt.Sprintf("no %s failed, but %s errored or timed out", required(r.Level), plural(broken, "scenario", "scenarios"))
		if len(errored) > 0 {
			h.Text += fmt.Sprintf("; MUST checks left unproven: %s", strings.Join(errored, ", "))
		}
	default:
		switch {
		case len(r.Checks) == 0:
			h.Text = "no check was exercised"
		default:
			t := r.Totals()
			h.Text = fmt.Sprintf("every %s passes (%d of %d checks pass", required(r.Level), t[Pass], len(r.Checks))
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

// required names the checks a run at a level requires to pass: "MUST
// check", "MUST or SHOULD check" (at level should, where a warning fails
// the run too), "check".
func required(level checks.Level) string {
	switch level {
	case checks.Should:
		return "MUST or SHOULD check"
	case checks.May:
		return "check"
	}
	return "MUST check"
}

// failingText names the checks that fail a run as what they are: MUST
// checks that failed, and, at level should or may, the checks that warned
// (a SHOULD or MAY check's failure, a MUST check's whose harm did not
// show), by their level.
func failingText(r *Run) string {
	type group struct {
		verdict Verdict
		level   checks.Level
	}
	byGroup := map[group][]string{}
	for _, c := range r.Checks {
		if r.failsRun(c) {
			g := group{c.Verdict, c.Level}
			byGroup[g] = append(byGroup[g], c.ID)
		}
	}
	levels := []checks.Level{checks.Must, checks.Should, checks.May}
	var parts []string
	for _, l := range levels {
		if ids := byGroup[group{Fail, l}]; len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%s failed: %s", plural(len(ids), string(l)+" check", string(l)+" checks"), strings.Join(ids, ", ")))
		}
	}
	var warned []string
	n, lastLevel := 0, checks.Level("")
	for _, l := range levels {
		ids := byGroup[group{Warn, l}]
		if len(ids) == 0 {
			continue
		}
		n += len(ids)
		lastLevel = l
		list := string(l) + " " + strings.Join(ids, ", ")
		if l == checks.Must {
			list += " (failed assertions whose harm did not show)"
		}
		warned = append(warned, list)
	}
	switch {
	case n == 0:
	case len(warned) == 1:
		ids := byGroup[group{Warn, lastLevel}]
		text := fmt.Sprintf("%s warned, which fails a run at level %s: %s", plural(n, string(lastLevel)+" check", string(lastLevel)+" checks"), strings.ToLower(string(r.Level)), strings.Join(ids, ", "))
		if lastLevel == checks.Must {
			text += " (failed assertions whose harm did not show)"
		}
		parts = append(parts, text)
	default:
		parts = append(parts, fmt.Sprintf("%s warned, which fails a run at level %s: %s", plural(n, "check", "checks"), strings.ToLower(string(r.Level)), strings.Join(warned, "; ")))
	}
	if len(parts) == 0 {
		return "a required check did not pass"
	}
	return strings.Join(parts, "; ")
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

// checkTally says what became of a check's scenarios that did not pass,
// beside its "passed/applied" count, so that no view leaves the rest
// unexplained: "13 not evaluated, 3 n/a" ("" when every one passed).
func checkTally(c Check) string {
	var parts []string
	for _, x := range []struct {
		n    int
		name string
	}{{c.Failed, "fail"}, {c.Warned, "warn"}, {c.Errored, "error/timeout"}, {c.NotEvaluated, "not evaluated"}, {c.NotApplicable, "n/a"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.name))
		}
	}
	return strings.Join(parts, ", ")
}

// scenarioCount is a check's "passed/applied" count with its tally:
// "12/25 (13 not evaluated, 3 n/a)".
func scenarioCount(c Check) string {
	n := fmt.Sprintf("%d/%d", c.Passed, applicable(c))
	if t := checkTally(c); t != "" {
		n += " (" + t + ")"
	}
	return n
}

// tallyLegend says what a check's scenario count and tally mean.
const tallyLegend = "passed/applied: of the scenarios that exercise the check and applied to the target, how many passed; in brackets what became of the others (not evaluated: the scenario stopped before the check's assertions, charged to the check that stopped it; n/a: the scenario did not apply, and is not counted)"

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
