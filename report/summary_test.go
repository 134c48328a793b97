package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
)

// A run where every scenario errored the same way says so once, and is
// incomplete, not a conformance failure.
func TestSummaryGroupsIdenticalErrors(t *testing.T) {
	r := &Run{Target: "t"}
	for i := range 40 {
		r.Scenarios = append(r.Scenarios, Scenario{
			ID: fmt.Sprintf("s%02d", i), Checks: []string{"PRE-01"}, Verdict: Error,
			FailedStep: "the user says hello", Message: "http target: POST /v1/agent/turn: connection refused",
		})
	}
	r.Scenarios = append(r.Scenarios, Scenario{ID: "t1", Checks: []string{"REQ-01"}, Verdict: Timeout, Message: "the turn took longer than 10s"})
	r.Aggregate("MAY")
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "connection refused"); n != 1 {
		t.Errorf("the same error is printed %d times:\n%s", n, out)
	}
	for _, want := range []string{"ERROR  40 scenarios", "s00, s01, s02", "and 35 more", "TIMEOUT  t1", "Result: INCOMPLETE"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Result: FAIL") {
		t.Errorf("no check failed, yet:\n%s", out)
	}
}

func TestSummaryNamesNotApplicableScenariosAndCountsRight(t *testing.T) {
	r := &Run{Target: "t", Scenarios: []Scenario{
		{ID: "a", Checks: []string{"PRE-01"}, Verdict: Pass},
		{ID: "b", Checks: []string{"PART-02"}, Verdict: NotApplicable, Message: "the target does not declare the denial policy abort-remaining"},
		{ID: "c", Checks: []string{"PART-02"}, Verdict: NotApplicable, Message: "the target does not declare the denial policy abort-remaining"},
	}}
	r.Aggregate("MUST")
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Not applicable (2 scenarios):", "the target does not declare the denial policy abort-remaining: b, c", "2 checks:", "Result: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	r.Scenarios = r.Scenarios[:1]
	r.Aggregate("MUST")
	b.Reset()
	_ = WriteSummary(&b, r)
	if !strings.Contains(b.String(), "\n1 check: 1 pass") {
		t.Errorf("one check:\n%s", b.String())
	}
}

func TestSummaryOfAnInterruptedRun(t *testing.T) {
	r := passingRun(false)
	r.Interrupted, r.NotRun = "interrupted by SIGINT", 12
	var b strings.Builder
	_ = WriteSummary(&b, r)
	if !strings.Contains(b.String(), "Result: INTERRUPTED: the run stopped before its end (interrupted by SIGINT)") || !strings.Contains(b.String(), "12 not run") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// levelRun has a MUST check that failed (PRE-01), one that warned (REQ-04:
// its harm did not show) and two SHOULD checks that warned (DEN-02,
// DEN-03), aggregated at a level.
func levelRun(level checks.Level, mustFails bool) *Run {
	pre01 := Pass
	if mustFails {
		pre01 = Fail
	}
	r := &Run{Target: "t", Scenarios: []Scenario{
		{ID: "a.feature: one", Feature: "a", Name: "one", Source: "a.feature", Checks: []string{"PRE-01", "REQ-04", "DEN-02", "DEN-03"},
			CheckVerdicts: map[string]Verdict{"PRE-01": pre01, "REQ-04": Warn, "DEN-02": Fail, "DEN-03": Fail}, Verdict: Fail},
	}}
	r.Aggregate(level)
	return r
}

// The summary names the checks that fail a run by what they are: a
// SHOULD check's warning is not a MUST check's failure, at any level, in
// the terminal, report.md and the badge.
func TestSummaryNamesLevelsTruly(t *testing.T) {
	for _, c := range []struct {
		name  string
		run   *Run
		want  string
		badge string
	}{
		{"must: a MUST failure, warnings beside it", levelRun(checks.Must, true),
			"Result: FAIL: 1 MUST check failed: PRE-01; 3 warnings", "fail: 1 MUST check"},
		{"should: warnings only", levelRun(checks.Should, false),
			"Result: FAIL: 3 checks warned, which fails a run at level should: MUST REQ-04 (failed assertions whose harm did not show); SHOULD DEN-02, DEN-03.", "fail: 3 checks"},
		{"should: a MUST failure and warnings", levelRun(checks.Should, true),
			"Result: FAIL: 1 MUST check failed: PRE-01; 3 checks warned, which fails a run at level should: MUST REQ-04", "fail: 4 checks"},
		{"must: warnings only", levelRun(checks.Must, false),
			"Result: PASS: every MUST check passes (1 of 4 checks pass); 3 warnings: REQ-04, DEN-02, DEN-03.", "pass, 3 warnings"},
	} {
		var b strings.Builder
		if err := WriteSummary(&b, c.run); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: the summary says\n%s\nwant %q", c.name, b.String()[strings.Index(b.String(), "Result:"):], c.want)
		}
		if strings.Contains(b.String(), "MUST checks failed") {
			t.Errorf("%s: the summary counts MUST failures it does not have", c.name)
		}
		md := string(render(t, c.run, FormatMarkdown))
		if want := strings.TrimSuffix(strings.TrimPrefix(c.want, "Result: "+strings.ToUpper(string(c.run.Result()))+": "), "."); !strings.Contains(md, want) {
			t.Errorf("%s: report.md does not say %q", c.name, want)
		}
		if b := BadgeOf(c.run); b.Message != c.badge {
			t.Errorf("%s: badge %q, want %q", c.name, b.Message, c.badge)
		}
	}
	one := levelRun(checks.Should, false)
	one.Scenarios[0].CheckVerdicts["REQ-04"] = Pass
	one.Aggregate(checks.Should)
	var b strings.Builder
	_ = WriteSummary(&b, one)
	if want := "Result: FAIL: 2 SHOULD checks warned, which fails a run at level should: DEN-02, DEN-03."; !strings.Contains(b.String(), want) {
		t.Errorf("two SHOULD warnings at level should: want %q in\n%s", want, b.String())
	}
}

// A check whose scenarios did not all pass says what became of the
// others in every view (terminal, report.md, report.html): "1/2" alone
// reads as a hidden failure where the rest were not evaluated or did not
// apply.
func TestEveryViewExplainsTheScenarioCount(t *testing.T) {
	r := &Run{Target: "t", Scenarios: []Scenario{
		{ID: "a.feature: one", Feature: "a", Name: "one", Source: "a.feature", Checks: []string{"PRE-01"}, CheckVerdicts: map[string]Verdict{"PRE-01": Pass}, Verdict: Pass},
		{ID: "a.feature: two", Feature: "a", Name: "two", Source: "a.feature", Checks: []string{"PRE-01", "PRE-02"}, CheckVerdicts: map[string]Verdict{"PRE-02": Fail}, Verdict: Fail},
		{ID: "a.feature: three", Feature: "a", Name: "three", Source: "a.feature", Checks: []string{"PRE-01"}, Verdict: NotApplicable, Message: "no stream mode"},
	}}
	r.Aggregate(checks.Must)
	const want = "1/2 (1 not evaluated, 1 n/a)"
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "not evaluated: the scenario stopped before") {
		t.Errorf("the terminal does not say %q with its legend:\n%s", want, b.String())
	}
	if md := string(render(t, r, FormatMarkdown)); !strings.Contains(md, "| "+want+" |") || !strings.Contains(md, "not evaluated: the scenario stopped before") {
		t.Errorf("report.md does not say %q with its legend", want)
	}
	if html := string(render(t, r, FormatHTML)); !strings.Contains(html, "1 not evaluated, 1 n/a") {
		t.Errorf("report.html does not say what became of the others")
	}
}
