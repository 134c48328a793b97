package main

import (
	"testing"

	"github.com/approval-conformance-kit/ack/report"
)

// A scenario renamed when its rule was decided is paired with its new name
// even when its source gained other scenarios since: among the new ones,
// the one that names the same checks.
func TestRenamesAmongAddedScenarios(t *testing.T) {
	sc := func(name string, checks ...string) report.Scenario {
		return report.Scenario{ID: "requests.feature: " + name, Name: name, Source: "requests.feature", Checks: checks}
	}
	old := map[string]report.Scenario{}
	for _, s := range []report.Scenario{sc("the turn ends with tool-calls (generate)", "REQ-03", "REQ-01")} {
		old[s.ID] = s
	}
	now := map[string]report.Scenario{}
	for _, s := range []report.Scenario{
		sc("a pending approval ends the turn (generate)", "REQ-01", "REQ-03"),
		sc("a tool without an input schema is asked as any other (generate)", "REQ-01"),
	} {
		now[s.ID] = s
	}
	got := renames(old, now)
	if to := got["requests.feature: the turn ends with tool-calls (generate)"]; to != "requests.feature: a pending approval ends the turn (generate)" {
		t.Errorf("renamed to %q, want the scenario with the same checks (%v)", to, got)
	}
	now["requests.feature: another pending approval (generate)"] = sc("another pending approval (generate)", "REQ-03", "REQ-01")
	if got := renames(old, now); len(got) != 0 {
		t.Errorf("two candidates with the same checks: %v, want no pairing", got)
	}
}
