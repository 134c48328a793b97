package runner

import (
	"context"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/report"
)

// TestMutantCollateral runs the whole suite against every mutant and pins
// the checks each fails beyond its targets: each must be one the mutant
// declares with why its bug truly breaks that check's rule (the collateral
// of its header in mutants/NAME.patch), and each declared one must fail. A
// check that starts or stops failing as collateral is a change of the
// suite's attribution to look at, not noise.
func TestMutantCollateral(t *testing.T) {
	if os.Getenv("ACK_MUTANT_SWEEP") == "" && testing.Short() {
		t.Skip("NOTICE: the whole-suite sweep of every mutant is skipped in -short mode")
	}
	b := mutantBuilder(t)
	res, err := RunMutants(context.Background(), allMutants(t), func(ctx context.Context, m mutants.Mutant) (*report.Run, error) {
		return b.Run(ctx, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		m := r.Mutant
		if len(r.Caught) == 0 {
			t.Errorf("%s survived the whole suite: none of %v failed", m.Name, m.Checks)
		}
		for _, c := range r.Also {
			if _, ok := m.Collateral[c]; !ok {
				t.Errorf("%s also fails %s, which it does not declare: say why its bug breaks %s's rule (collateral in %s), or find the scenario that charges %s wrongly", m.Name, c, c, m.File, c)
			}
		}
		var declared []string
		for c := range m.Collateral {
			declared = append(declared, c)
		}
		sort.Strings(declared)
		for _, c := range declared {
			if !slices.Contains(r.Also, c) {
				t.Errorf("%s declares that it also fails %s, but it does not any more", m.Name, c)
			}
		}
	}
}
