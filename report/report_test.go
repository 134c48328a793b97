package report

import (
	"strings"
	"testing"
)

func TestAggregate(t *testing.T) {
	r := &Run{Target: "t", Scenarios: []Scenario{
		{ID: "a", Checks: []string{"PRE-01", "WIRE-01"}, Verdict: Fail, CheckVerdicts: map[string]Verdict{"PRE-01": Pass, "WIRE-01": Fail}},
		{ID: "b", Checks: []string{"PRE-01"}, Verdict: Pass},
		{ID: "c", Checks: []string{"PRE-12"}, Verdict: Fail},
		{ID: "d", Checks: []string{"PART-02"}, Verdict: NotApplicable},
		{ID: "e", Checks: []string{"REQ-01"}, Verdict: Timeout},
	}}
	r.Aggregate("MUST")
	want := map[string]Verdict{"REQ-01": Timeout, "PRE-01": Pass, "PRE-12": Warn, "PART-02": NotApplicable, "WIRE-01": Fail}
	if len(r.Checks) != len(want) {
		t.Fatalf("got %d checks: %+v", len(r.Checks), r.Checks)
	}
	for id, v := range want {
		if got, _ := r.CheckVerdict(id); got != v {
			t.Errorf("%s: %s, want %s", id, got, v)
		}
	}
	if r.Certified() {
		t.Error("a run with a failing MUST check is certified")
	}
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Result: FAIL: 1 MUST check failed: WIRE-01; 1 scenario errored or timed out", "FAIL  a", "TIMEOUT  e"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("summary lacks %q:\n%s", s, b.String())
		}
	}
	r.Aggregate("MUST")
	if _, ok := r.CheckVerdict("PRE-12"); !ok {
		t.Error("a SHOULD check is not reported at level MUST")
	}
}

func TestWorse(t *testing.T) {
	if Worse(Pass, Warn) != Warn || Worse(Fail, Error) != Fail || Worse(NotApplicable, Pass) != Pass {
		t.Error("verdict order is wrong")
	}
}
