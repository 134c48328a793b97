package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
)

// heldBaseline is a baseline that expects both failures of synthRun.
func heldBaseline() *BaselineResult {
	return &BaselineResult{File: "baseline.yaml", Held: true, Expected: []BaselineHit{
		{Scenario: "a.feature: fails", Check: "PRE-02", Verdict: Fail, Reason: "a known bug, traced"},
		{Scenario: "a.feature: fails", Check: "WIRE-01", Verdict: Fail},
	}}
}

// A run whose failures are all expected says so wherever it is read: the
// summary's result line, report.md, report.html, the badge and
// report.json; none of them shows a bare FAIL.
func TestBaselineHeldIsSaidInEveryReport(t *testing.T) {
	r := synthRun()
	r.Baseline = heldBaseline()
	var sum bytes.Buffer
	if err := WriteSummary(&sum, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "Result: FAIL (EXPECTED): ") || !strings.Contains(sum.String(), "every failure is expected by the baseline baseline.yaml (2 expected failures held, none stale)") {
		t.Errorf("summary:\n%s", sum.String())
	}
	md := render(t, r, FormatMarkdown)
	for _, want := range []string{"FAIL (EXPECTED)", "## Baseline", "EXPECTED FAIL a.feature: fails \\[PRE-02\\]: a known bug, traced"} {
		if !contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	html := render(t, r, FormatHTML)
	for _, want := range []string{`<span class="big">FAIL (EXPECTED)</span>`, `<section id="baseline">`, "EXPECTED FAIL a.feature: fails [PRE-02]"} {
		if !contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	badge := render(t, r, FormatBadge)
	if !contains(badge, `"message": "fail: 2 MUST checks, all expected"`) || !contains(badge, `"color": "orange"`) {
		t.Errorf("badge: %s", badge)
	}
	js := render(t, r, FormatJSON)
	if !contains(js, `"held": true`) || !contains(js, `"stale": []`) {
		t.Errorf("report.json baseline: %s", js[bytes.Index(js, []byte(`"baseline"`)):])
	}
	// report.json keeps it through a read and a write, schema-checked.
	back, err := decodeJSON("report.json", js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Baseline == nil || !back.Baseline.Held || len(back.Baseline.Expected) != 2 || back.Baseline.Expected[0].Reason != "a known bug, traced" {
		t.Errorf("read back: %+v", back.Baseline)
	}
}

// A baseline that does not hold says so, even on a run that passes.
func TestBaselineNotHeldIsSaid(t *testing.T) {
	r := passingRun(false)
	r.Baseline = &BaselineResult{File: "b.yaml", Stale: []BaselineEntry{{Entry: "a.feature: one", Line: 3}}}
	var sum bytes.Buffer
	if err := WriteSummary(&sum, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sum.String(), "Result: PASS (BASELINE NOT HELD): ") || !strings.Contains(sum.String(), "the baseline b.yaml does not hold: 1 stale entry (0 failures expected)") {
		t.Errorf("summary:\n%s", sum.String())
	}
	if md := render(t, r, FormatMarkdown); !contains(md, "STALE b.yaml:3 a.feature: one") {
		t.Errorf("report.md:\n%s", md)
	}
	badge := BadgeOf(r)
	if badge.Message != "2/2 checks, baseline not held: 1 stale entry" || badge.Color != "red" {
		t.Errorf("badge %+v", badge)
	}
}

// A check a scenario could not evaluate (blocked by an earlier failure,
// listed under notEvaluated) is shown as not evaluated, never as a
// failure of that check.
func TestNotEvaluatedCheckIsNotShownAsFail(t *testing.T) {
	r := &Run{Target: "t", Scenarios: []Scenario{{
		ID: "a.feature: blocked", Feature: "a", Name: "blocked", Source: "a.feature",
		Checks: []string{"PRE-01", "PRE-02"}, CheckVerdicts: map[string]Verdict{"PRE-01": Fail},
		NotEvaluated: []string{"PRE-02"}, Verdict: Fail, Message: "PRE-01 failed",
	}}}
	r.Aggregate(checks.Must)
	md := render(t, r, FormatMarkdown)
	if !contains(md, "PRE-01 (fail), PRE-02 (not-evaluated)") {
		t.Errorf("report.md:\n%s", md)
	}
	html := render(t, r, FormatHTML)
	if !contains(html, `<span class="badge v-not-evaluated">PRE-02 not-evaluated</span>`) || contains(html, "PRE-02 fail") {
		t.Errorf("report.html does not show PRE-02 as not evaluated")
	}
	if got := failingChecks(r.Scenarios[0]); len(got) != 1 || got[0] != "PRE-01" {
		t.Errorf("failing checks %v, want [PRE-01]", got)
	}
	ju := parseJUnit(t, render(t, r, FormatJUnit))
	for _, p := range ju.Suites[0].Cases[0].Properties {
		if p.Name == "check:PRE-02" && p.Value != "not-evaluated" {
			t.Errorf("junit check:PRE-02 = %s", p.Value)
		}
	}
}

// junit.xml of an interrupted run is not a complete pass: every suite
// says it was interrupted, and the scenarios that did not run are listed
// as skipped with the reason.
func TestJUnitOfInterruptedRunListsNotRun(t *testing.T) {
	r := passingRun(false)
	r.Interrupted = "the run's deadline passed (--deadline 1s)"
	r.NotRun = 2
	r.NotRunScenarios = []string{"b.feature: three", "c.feature: four"}
	doc := render(t, r, FormatJUnit)
	ju := parseJUnit(t, doc)
	if ju.Tests != 4 || ju.Skipped != 2 || ju.Failures != 0 {
		t.Errorf("tests %d, skipped %d, failures %d; want 4, 2, 0", ju.Tests, ju.Skipped, ju.Failures)
	}
	if !contains(doc, `<testsuites name="approval-conformance: reference (interrupted)"`) {
		t.Errorf("the testsuites are not marked interrupted")
	}
	for _, s := range ju.Suites {
		found := false
		for _, p := range s.Properties {
			found = found || p.Name == "interrupted" && p.Value == r.Interrupted
		}
		if !found {
			t.Errorf("suite %s has no interrupted property", s.Name)
		}
	}
	last := ju.Suites[len(ju.Suites)-1]
	if len(last.Cases) != 2 || last.Cases[0].Name != "b.feature: three" || last.Cases[0].Skipped == nil ||
		last.Cases[0].Skipped.Message != "not run: the run was interrupted (the run's deadline passed (--deadline 1s))" {
		t.Errorf("not-run suite: %+v", last)
	}
}
