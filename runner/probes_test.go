package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/probes"
	"github.com/approval-conformance-kit/ack/report"
)

// TestFalsePositiveProbes: implementations that differ from the reference
// only in ways the norms allow, and say so, get no failure and no warning.
func TestFalsePositiveProbes(t *testing.T) {
	for _, p := range probes.All() {
		if p.Kind != probes.FalsePositive {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			tgt := p.New()
			defer tgt.Close()
			run, err := Run(context.Background(), Options{Target: tgt})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range run.Scenarios {
				for id, v := range s.CheckVerdicts {
					if v == report.Warn && slices.Contains(p.Warns, id) {
						continue
					}
					if v != report.Pass && v != report.NotApplicable {
						t.Errorf("%s: %s %s\n  step: %s\n  %s", s.ID, id, v, s.FailedStep, s.Message)
					}
				}
				if s.Verdict == report.Error || s.Verdict == report.Timeout {
					t.Errorf("%s: %s\n  %s", s.ID, s.Verdict, s.Message)
				}
			}
			t.Logf("%s: %v", p.What, run.ScenarioTotals())
		})
	}
}

// TestVacuityProbes: a target that does nothing useful fails every scenario
// of its role (none passes whatever the target does); a scenario is only
// not applicable where the probe declares it lacks what it needs.
func TestVacuityProbes(t *testing.T) {
	for _, p := range probes.All() {
		if p.Kind != probes.Vacuity {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			tgt := p.New()
			defer tgt.Close()
			run, err := Run(context.Background(), Options{Target: tgt, Tags: "@" + p.Role})
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
		scenarios:
			for _, s := range run.Scenarios {
				switch s.Verdict {
				case report.Fail, report.Warn: // a warning is how a SHOULD-only scenario fails
					failed++
				case report.NotApplicable:
				default:
					for prefix := range p.MayPass {
						if s.Verdict == report.Pass && strings.HasPrefix(s.Name, prefix) {
							continue scenarios
						}
					}
					t.Errorf("%s: %s on a probe that %s\n  %s", s.ID, s.Verdict, p.What, s.Message)
				}
			}
			if failed == 0 {
				t.Errorf("no scenario failed")
			}
			// Graded by harm, a vacuous target is still never certified:
			// some MUST check fails with the harm the run shows.
			if r := run.Result(); r != report.ResultFail {
				t.Errorf("the run's result is %s; a probe that %s must fail certification (MUST checks failed: %v)", r, p.What, run.FailedMustChecks())
			}
			t.Logf("%v", run.ScenarioTotals())
		})
	}
}
