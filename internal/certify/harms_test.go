package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// graded is a run of the grounded catalogue: PRE-01 fails with its harm
// shown in one scenario (out-of-contract input) and warns in another (its
// harm not shown); PRE-02 warns (no harm); WIRE-01 fails (refused).
func graded() *report.Run {
	r := &report.Run{Target: "fake sdk", Scenarios: []report.Scenario{
		{ID: "a.feature: lost", Checks: []string{"PRE-01", "WIRE-01"}, Verdict: report.Fail, Provenance: "out-of-contract",
			CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Fail, "WIRE-01": report.Fail},
			Findings: []report.Finding{
				{Check: "PRE-01", Outcome: report.OutcomeFail, Harm: "lost", HarmEvidence: "no prompt held it"},
				{Check: "PRE-01", Outcome: report.OutcomeFail, Harm: "lost", HarmEvidence: "again"},
				{Check: "WIRE-01", Outcome: report.OutcomeFail, Harm: "refused", HarmEvidence: "400"},
			}},
		{ID: "a.feature: shown later", Checks: []string{"PRE-01"}, Verdict: report.Warn, Provenance: "conforming",
			CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Warn},
			Findings:      []report.Finding{{Check: "PRE-01", Outcome: report.OutcomeFail, Graded: "its harm (lost) is not shown in this run"}}},
		{ID: "a.feature: denial", Checks: []string{"PRE-02", "REQ-03"}, Verdict: report.Warn,
			CheckVerdicts: map[string]report.Verdict{"PRE-02": report.Warn, "REQ-03": report.Pass},
			Findings:      []report.Finding{{Check: "PRE-02", Outcome: report.OutcomeFail, Graded: "no harm: this assertion's rule is SHOULD at most"}}},
		{ID: "b.feature: replay", Checks: []string{"WIRE-02"}, Verdict: report.Warn,
			CheckVerdicts: map[string]report.Verdict{"WIRE-02": report.Warn},
			Findings:      []report.Finding{{Check: "WIRE-02", Outcome: report.OutcomeFail, Harm: "refused", Graded: "out-of-contract input (a re-sent answer): only ran-against-answer, forged and crashed are MUST there"}}},
		{ID: "c.feature: declared", Checks: []string{"PRE-07"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"PRE-07": report.Pass}},
		{ID: "g.feature: ids", Checks: []string{"REQ-02"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"REQ-02": report.Pass}},
		{ID: "h.feature: ran before", Checks: []string{"DEN-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"DEN-01": report.Pass}},
		{ID: "h.feature: runs now", Checks: []string{"DEN-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"DEN-01": report.Pass}},
		{ID: "e.feature: renamed", Checks: []string{"REQ-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"REQ-01": report.Pass}},
		{ID: "f.feature: a pending approval ends the turn (stream)", Name: "a pending approval ends the turn (stream)", Source: "f.feature", Checks: []string{"REQ-03"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"REQ-03": report.Pass}},
	}}
	r.Aggregate(checks.Must)
	return r
}

// before is the same certification on the catalogue before it was
// grounded: every failed assertion a MUST failure, REQ-03 failing on the
// finish reason, PRE-07 not applicable, a scenario since removed.
func before() *report.Run {
	r := &report.Run{Target: "fake sdk", Scenarios: []report.Scenario{
		{ID: "a.feature: lost", Checks: []string{"PRE-01", "WIRE-01"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Fail, "WIRE-01": report.Fail}},
		{ID: "a.feature: shown later", Checks: []string{"PRE-01"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Fail}},
		{ID: "a.feature: denial", Checks: []string{"PRE-02", "REQ-03"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"PRE-02": report.Fail, "REQ-03": report.Fail}},
		{ID: "b.feature: replay", Checks: []string{"WIRE-02"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"WIRE-02": report.Fail}},
		{ID: "c.feature: declared", Checks: []string{"PRE-07"}, Verdict: report.NotApplicable, CheckVerdicts: map[string]report.Verdict{"PRE-07": report.NotApplicable}},
		{ID: "d.feature: gone", Checks: []string{"REQ-03"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"REQ-03": report.Fail}},
		{ID: "g.feature: ids", Checks: []string{"REQ-02"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"REQ-02": report.Pass}},
		{ID: "h.feature: ran before", Checks: []string{"DEN-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"DEN-01": report.Pass}},
		{ID: "h.feature: runs now", Checks: []string{"DEN-01"}, Verdict: report.NotApplicable, CheckVerdicts: map[string]report.Verdict{"DEN-01": report.NotApplicable}},
		{ID: "e.feature: before its rename", Checks: []string{"REQ-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"REQ-01": report.Pass}},
		{ID: "f.feature: a pending approval ends the turn with tool-calls (stream)", Name: "a pending approval ends the turn with tool-calls (stream)", Source: "f.feature", Checks: []string{"REQ-03"}, Verdict: report.Fail, CheckVerdicts: map[string]report.Verdict{"REQ-03": report.Fail}},
	}}
	r.Aggregate(checks.Must)
	for i := range r.Checks {
		if r.Checks[i].ID == "REQ-02" {
			r.Checks[i].Level = checks.Must // the old catalogue's level
		}
	}
	return r
}

func TestMustFailuresByHarm(t *testing.T) {
	byHarm, ooc := MustFailuresByHarm(graded())
	if got := byHarm[checks.Lost]; len(got) != 1 || got[0] != (HarmCount{Check: "PRE-01", Scenarios: 1}) {
		t.Errorf("lost: %+v, want PRE-01 in 1 scenario (a graded finding is no MUST failure; two findings of one scenario count once)", got)
	}
	if got := byHarm[checks.Refused]; len(got) != 1 || got[0] != (HarmCount{Check: "WIRE-01", Scenarios: 1}) {
		t.Errorf("refused: %+v, want WIRE-01 in 1 scenario (WIRE-02's refusal on out-of-contract input warns)", got)
	}
	if len(byHarm[checks.RanAgainstAnswer]) != 0 || ooc != 1 {
		t.Errorf("ran-against-answer %+v, out-of-contract %d; want none and 1", byHarm[checks.RanAgainstAnswer], ooc)
	}
	doc := RenderReadme("adapters/certify.yaml", []Published{{Certification: Certification{Adapter: "fake", Version: "1.0.0", Path: "wire"}, Run: graded()}})
	for _, want := range []string{
		"## MUST failures by harm",
		"| Certification | MUST checks failed | ran-against-answer | forged | crashed | lost | refused | out-of-contract |",
		"| fake@1.0.0-wire | 2 |  |  |  | PRE-01 (1) | WIRE-01 (1) | 1 |",
		"[grounded-changes.md](grounded-changes.md)",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("README lacks %q:\n%s", want, doc)
		}
	}
}

func TestVerdictChanges(t *testing.T) {
	got := map[string]Change{}
	for _, c := range VerdictChanges(before(), graded()) {
		got[c.Check] = c
	}
	reasons := func(c Change) string {
		var s []string
		for _, r := range c.Reasons {
			s = append(s, r.Text)
		}
		return strings.Join(s, "; ")
	}
	for id, want := range map[string]struct {
		old, new report.Verdict
		moved    int
		reason   string
	}{
		"PRE-01":  {report.Fail, report.Fail, 1, reasonNotShown},
		"PRE-02":  {report.Fail, report.Warn, 1, reasonNoHarm},
		"WIRE-02": {report.Fail, report.Warn, 1, reasonOutOfContract},
		"REQ-03":  {report.Fail, report.Pass, 3, "a decision of docs/checks.md: what REQ-03 no longer demands"},
		"PRE-07":  {report.NotApplicable, report.Pass, 1, reasonDeclarations},
	} {
		c, ok := got[id]
		if !ok {
			t.Errorf("%s: no change, want %s → %s", id, want.old, want.new)
			continue
		}
		if c.Old != want.old || c.New != want.new || c.Moved != want.moved || !strings.Contains(reasons(c), want.reason) {
			t.Errorf("%s: %s → %s in %d scenario(s) (%s); want %s → %s in %d (%s)", id, c.Old, c.New, c.Moved, reasons(c), want.old, want.new, want.moved, want.reason)
		}
	}
	// The renamed scenario (the only one of f.feature's stream rows on
	// each side) is compared under its old name: a decision, like the
	// scenario that kept its name; the removed one is named as removed.
	if c := got["REQ-03"]; len(c.Reasons) != 2 || c.Reasons[0] != (Reason{Text: "a decision of docs/checks.md: what REQ-03 no longer demands", Scenarios: 2}) || c.Reasons[1] != (Reason{Text: reasonScenarioGone, Scenarios: 1}) {
		t.Errorf("REQ-03 reasons: %+v", c.Reasons)
	}
	if _, moved := got["REQ-01"]; moved {
		t.Errorf("REQ-01 passes in both reports and only a scenario that ran in one of them moved: no change, got %+v", got["REQ-01"])
	}
	if _, moved := got["REQ-02"]; moved {
		t.Errorf("REQ-02's level changed, its verdict did not: no row, got %+v", got["REQ-02"])
	}
	if _, moved := got["DEN-01"]; moved {
		t.Errorf("DEN-01 passes in both reports and only a scenario the target could not run before moved: no row, got %+v", got["DEN-01"])
	}
	if _, moved := got["WIRE-01"]; moved {
		t.Errorf("WIRE-01 fails in both reports, in the same scenario: no change, got %+v", got["WIRE-01"])
	}

	// The table: one row per moved check, old → new or "stays".
	oldDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(oldDir, "fake@1.0.0-wire"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oldDir, "fake@1.0.0-wire", "report.json"), mustRender(t, before()), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := RenderChanges(oldDir, []Published{
		{Certification: Certification{Adapter: "fake", Version: "1.0.0", Path: "wire"}, Run: graded()},
		{Certification: Certification{Adapter: "fake", Version: "0.9.0"}, Run: graded()}, // no old report: no row
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Levels decided in docs/checks.md: REQ-02 MUST → SHOULD.",
		"| fake@1.0.0-wire | [PRE-02](../docs/checks.md#pre-02) | MUST | fail → warn | 1 | no harm: SHOULD at most (1) | [PRE-02 decided](../docs/checks.md#pre-02) |",
		"| fake@1.0.0-wire | [PRE-01](../docs/checks.md#pre-01) | MUST | fail (stays) | 1 | harm not shown in this run (1) | [PRE-01 decided](../docs/checks.md#pre-01) |",
		"| fake@1.0.0-wire | [PRE-07](../docs/checks.md#pre-07) | SHOULD | not-applicable → pass | 1 | the adapter changed what it declares or expresses (not applicable before or after) (1) |  |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the table lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "fake@0.9.0") {
		t.Errorf("a certification without an old report has a row:\n%s", doc)
	}
	if _, err := RenderChanges(oldDir, []Published{{Certification: Certification{Adapter: "fake", Version: "1.0.0", Path: "wire"}, Run: graded()}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oldDir, "fake@1.0.0-wire", "report.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RenderChanges(oldDir, []Published{{Certification: Certification{Adapter: "fake", Version: "1.0.0", Path: "wire"}, Run: graded()}}); err == nil || !strings.Contains(err.Error(), "fake@1.0.0-wire") {
		t.Errorf("a broken old report: %v, want an error naming the certification", err)
	}
}
