package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteSummary writes the per-check summary of a run for a terminal: one
// line per check, the scenarios that did not pass with the step that failed
// and why, and the overall result.
func WriteSummary(w io.Writer, r *Run) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Approval Conformance Kit: %s\n", r.Target)
	st := r.ScenarioTotals()
	fmt.Fprintf(&b, "%s: %s (%s)", plural(len(r.Scenarios), "scenario", "scenarios"), countLine(st), r.Duration.Round(time.Millisecond))
	if r.Shard != nil {
		fmt.Fprintf(&b, ", shard %s", r.Shard)
	}
	b.WriteString("\n\n")

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tLEVEL\tVERDICT\tSCENARIOS\tRULE")
	tallied := false
	for _, c := range r.Checks {
		tallied = tallied || checkTally(c) != ""
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Level, c.Verdict, scenarioCount(c), ellipsis(c.Rule, 90))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if tallied {
		fmt.Fprintf(&b, "(SCENARIOS: %s.)\n", tallyLegend)
	}

	writeNotPassed(&b, r.Scenarios)
	writeNotApplicable(&b, r.Scenarios)

	fmt.Fprintf(&b, "\n%s: %s\n", plural(len(r.Checks), "check", "checks"), countLine(r.Totals()))
	h := headlineOf(r)
	fmt.Fprintf(&b, "Result: %s: %s.\n", h.Label, h.Text)
	_, err := io.WriteString(w, b.String())
	return err
}

// groupAtLeast is how many scenarios must share an error or timeout for
// the summary to show it once for all of them.
const groupAtLeast = 3

// listed is how many scenario ids a group names before counting the rest.
const listed = 5

// writeNotPassed lists the scenarios that did not pass with the step that
// failed and why. Errors and timeouts that share their message (a target
// that went away, say) are shown once, with the scenarios named.
func writeNotPassed(b *strings.Builder, scenarios []Scenario) {
	type key struct {
		verdict Verdict
		message string
	}
	groups := map[key][]Scenario{}
	for _, s := range scenarios {
		if s.Verdict == Error || s.Verdict == Timeout {
			k := key{s.Verdict, s.Message}
			groups[k] = append(groups[k], s)
		}
	}
	shown := map[key]bool{}
	header := false
	for _, s := range scenarios {
		if !notPassed(s) {
			continue
		}
		if !header {
			b.WriteString("\nScenarios that did not pass:\n")
			header = true
		}
		k := key{s.Verdict, s.Message}
		step := s.FailedStep
		if group := groups[k]; len(group) >= groupAtLeast {
			if shown[k] {
				continue
			}
			shown[k] = true
			ids := make([]string, len(group))
			for i, g := range group {
				ids[i] = g.ID
				if g.FailedStep != step {
					step = "" // the steps differ: the message says it all
				}
			}
			fmt.Fprintf(b, "  %s  %d scenarios, the same way: %s\n", strings.ToUpper(string(s.Verdict)), len(ids), idList(ids))
		} else {
			fmt.Fprintf(b, "  %s  %s  [%s]\n", strings.ToUpper(string(s.Verdict)), s.ID, strings.Join(s.Checks, " "))
		}
		if step != "" {
			fmt.Fprintf(b, "      step: %s\n", step)
		}
		if s.Message != "" {
			fmt.Fprintf(b, "      why:  %s\n", ellipsis(oneLine(s.Message), 400))
		}
	}
}

// writeNotApplicable names the scenarios that did not apply, by reason.
func writeNotApplicable(b *strings.Builder, scenarios []Scenario) {
	var reasons []string
	byReason := map[string][]string{}
	n := 0
	for _, s := range scenarios {
		if s.Verdict != NotApplicable {
			continue
		}
		n++
		why := oneLine(s.Message)
		if why == "" {
			why = "no reason given"
		}
		if _, ok := byReason[why]; !ok {
			reasons = append(reasons, why)
		}
		byReason[why] = append(byReason[why], s.ID)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "\nNot applicable (%s):\n", plural(n, "scenario", "scenarios"))
	for _, why := range reasons {
		fmt.Fprintf(b, "  %s: %s\n", ellipsis(why, 200), idList(byReason[why]))
	}
}

// idList names the first few ids and counts the rest.
func idList(ids []string) string {
	if len(ids) <= listed {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s (and %d more)", strings.Join(ids[:listed], ", "), len(ids)-listed)
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
