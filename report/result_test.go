package report

import (
	"slices"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
)

// A MUST check warns where its failed assertions show no harm: at level
// must that warning fails nothing (the run passes with a warning, and the
// badge counts only the MUST checks that fail); at level should it fails
// the run, as a SHOULD check's warning does.
func TestAMustCheckThatWarnsFailsOnlyBelowLevelMust(t *testing.T) {
	mk := func(level checks.Level, pre02 Verdict) *Run {
		r := &Run{Target: "x", Scenarios: []Scenario{
			{ID: "a.feature: one", Checks: []string{"PRE-01"}, CheckVerdicts: map[string]Verdict{"PRE-01": Pass}, Verdict: Pass},
			{ID: "a.feature: two", Checks: []string{"PRE-02"}, CheckVerdicts: map[string]Verdict{"PRE-02": pre02}, Verdict: pre02},
		}}
		r.Aggregate(level)
		return r
	}
	warned := mk(checks.Must, Warn)
	if v, _ := warned.CheckVerdict("PRE-02"); v != Warn {
		t.Fatalf("PRE-02 is %s, want warn", v)
	}
	if res := warned.Result(); res != ResultPass || !warned.Certified() || len(warned.FailedMustChecks()) != 0 {
		t.Errorf("level must, a MUST check warns: result %s, certified %v, failed %v; want pass, true, none", res, warned.Certified(), warned.FailedMustChecks())
	}
	if b := BadgeOf(warned); b.Message != "pass, 1 warning" {
		t.Errorf("badge %q, want \"pass, 1 warning\"", b.Message)
	}
	should := mk(checks.Should, Warn)
	if res := should.Result(); res != ResultFail || !slices.Equal(should.FailedMustChecks(), []string{"PRE-02"}) {
		t.Errorf("level should, a MUST check warns: result %s, failed %v; want fail, [PRE-02]", res, should.FailedMustChecks())
	}
	failed := mk(checks.Must, Fail)
	if res := failed.Result(); res != ResultFail || BadgeOf(failed).Message != "fail: 1 MUST check" {
		t.Errorf("level must, a MUST check fails: result %s, badge %q", res, BadgeOf(failed).Message)
	}
	// A report written before the run recorded its level (Level "") is read
	// at level must.
	old := mk(checks.Must, Warn)
	old.Level = ""
	if old.Failed() {
		t.Error("a report without a level fails on a MUST check's warning")
	}
}
