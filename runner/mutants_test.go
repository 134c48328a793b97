package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/reference/mutants"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// TestMutantsAreCaught runs, against every mutant of the reference, the
// scenarios of the checks that target its bug, and requires each mutant to
// fail (or, for a SHOULD check, warn) on at least one of them. Mutants run
// in parallel. The whole suite against every mutant, with the checks each
// fails beyond its targets, is TestMutantCollateral (make mutants).
func TestMutantsAreCaught(t *testing.T) {
	all := mutants.All()
	if len(all) < 42 {
		t.Fatalf("%d mutants, want at least 42", len(all))
	}
	for _, m := range all {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			res, err := RunMutants(context.Background(), []mutants.Mutant{m}, func(m mutants.Mutant) target.Target {
				return inprocess.New(m.New(), m.Name, inprocess.WithClientOptions(m.ClientOptions()...))
			}, Options{Tags: "@" + strings.Join(m.Checks, ",@")})
			if err != nil {
				t.Fatal(err)
			}
			if r := res.Results[0]; len(r.Caught) == 0 {
				t.Errorf("mutant %s (%s) survived: none of %v failed", m.Name, m.Bug, m.Checks)
			}
		})
	}
}

// TestEveryCheckHasAMutant: each check is shown to catch a bug.
func TestEveryCheckHasAMutant(t *testing.T) {
	targeted := map[string]bool{}
	for _, m := range mutants.All() {
		for _, c := range m.Checks {
			targeted[c] = true
		}
	}
	for _, c := range checks.All() {
		c := c.ID
		if !targeted[c] {
			t.Errorf("no mutant targets %s", c)
		}
	}
}
