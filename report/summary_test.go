package report

import (
	"fmt"
	"strings"
	"testing"
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
