package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/reference/mutants"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// TestMutantsAreCaught runs the whole suite against every mutant of the
// reference and requires each to fail (or, for a SHOULD check, warn) on at
// least one of the checks that target its bug. It logs the mutation score.
func TestMutantsAreCaught(t *testing.T) {
	all := mutants.All()
	caught := 0
	var lines []string
	for _, m := range all {
		run, err := Run(context.Background(), Options{Target: inprocess.New(m.New(), m.Name)})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		var hits []string
		for _, id := range m.Checks {
			v, ok := run.CheckVerdict(id)
			if ok && (v == report.Fail || v == report.Warn) {
				hits = append(hits, id+"="+string(v))
			}
		}
		var others []string
		for _, c := range run.Checks {
			if (c.Verdict == report.Fail || c.Verdict == report.Warn) && !slices.Contains(m.Checks, c.ID) {
				others = append(others, c.ID)
			}
		}
		if len(hits) == 0 {
			t.Errorf("mutant %s (%s) was not caught by %v; verdicts %v", m.Name, m.Bug, m.Checks, run.Totals())
			lines = append(lines, fmt.Sprintf("  %-36s survived", m.Name))
			continue
		}
		caught++
		lines = append(lines, fmt.Sprintf("  %-36s caught by %s (also: %s)", m.Name, strings.Join(hits, ", "), strings.Join(others, " ")))
	}
	t.Logf("mutation score: %d/%d mutants caught\n%s", caught, len(all), strings.Join(lines, "\n"))
}
