package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
)

// WriteSummary writes the per-check summary of a run for a terminal: one
// line per check, the scenarios that did not pass with the step that failed
// and why, and the overall result.
func WriteSummary(w io.Writer, r *Run) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Approval Conformance Kit: %s\n", r.Target)
	st := r.ScenarioTotals()
	fmt.Fprintf(&b, "%d scenarios: %s (%s)\n\n", len(r.Scenarios), countLine(st), r.Duration.Round(time.Millisecond))

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tLEVEL\tVERDICT\tSCENARIOS\tRULE")
	for _, c := range r.Checks {
		applicable := len(c.Scenarios) - c.NotApplicable
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\n", c.ID, c.Level, c.Verdict, c.Passed, applicable, ellipsis(c.Rule, 90))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	var bad []Scenario
	for _, s := range r.Scenarios {
		if s.Verdict != Pass && s.Verdict != NotApplicable {
			bad = append(bad, s)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(&b, "\nScenarios that did not pass:\n")
		for _, s := range bad {
			fmt.Fprintf(&b, "  %s  %s  [%s]\n", strings.ToUpper(string(s.Verdict)), s.ID, strings.Join(s.Checks, " "))
			if s.FailedStep != "" {
				fmt.Fprintf(&b, "      step: %s\n", s.FailedStep)
			}
			if s.Message != "" {
				fmt.Fprintf(&b, "      why:  %s\n", ellipsis(oneLine(s.Message), 400))
			}
		}
	}

	ct := r.Totals()
	fmt.Fprintf(&b, "\n%d checks: %s\n", len(r.Checks), countLine(ct))
	switch {
	case r.Certified():
		b.WriteString("Result: PASS, every MUST check passes.\n")
	default:
		var failed []string
		for _, c := range r.Checks {
			if c.Level == checks.Must && c.Verdict != Pass && c.Verdict != NotApplicable {
				failed = append(failed, c.ID)
			}
		}
		if len(failed) > 0 {
			fmt.Fprintf(&b, "Result: FAIL, MUST checks not passed: %s\n", strings.Join(failed, ", "))
		} else {
			b.WriteString("Result: INCOMPLETE, some scenarios could not be run (error or timeout).\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func countLine(t map[Verdict]int) string {
	var parts []string
	for _, v := range []Verdict{Pass, Fail, Warn, Error, Timeout, NotApplicable} {
		if n := t[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func ellipsis(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
