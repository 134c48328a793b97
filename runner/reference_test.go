package runner

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

func TestReferencePassesEverything(t *testing.T) {
	for _, policy := range []reference.DenialPolicy{reference.Independent, reference.AbortRemaining} {
		t.Run(string(policy), func(t *testing.T) {
			tgt := inprocess.New(reference.New(reference.WithDenialPolicy(policy)), "reference")
			run, err := Run(context.Background(), Options{Target: tgt})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range run.Scenarios {
				if s.Verdict != report.Pass && s.Verdict != report.NotApplicable {
					t.Errorf("%s: %s\n  step: %s\n  %s", s.ID, s.Verdict, s.FailedStep, s.Message)
				}
			}
			t.Logf("%d scenarios: %v", len(run.Scenarios), run.ScenarioTotals())
		})
	}
}
