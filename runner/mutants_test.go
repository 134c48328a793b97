package runner

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/report"
)

// The test process builds each mutant's program once (mutants.Builder),
// and every mutation test of it runs that program.
var (
	builderOnce sync.Once
	builder     *mutants.Builder
	builderErr  error
)

// mutantBuilder returns the test process's builder of mutant programs.
func mutantBuilder(t *testing.T) *mutants.Builder {
	t.Helper()
	builderOnce.Do(func() { builder, builderErr = mutants.NewBuilder() })
	if builderErr != nil {
		t.Fatal(builderErr)
	}
	return builder
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builder != nil {
		_ = builder.Close()
	}
	os.Exit(code)
}

func allMutants(t *testing.T) []mutants.Mutant {
	t.Helper()
	all, err := mutants.All()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// targetTags is the tag expression of the scenarios of the checks that
// target the mutant's bug.
func targetTags(m mutants.Mutant) string { return "@" + strings.Join(m.Checks, ",@") }

// TestMutantsAreCaught runs, against every mutant of the reference, the
// scenarios of the checks that target its bug, and requires each mutant to
// fail (or, for a SHOULD check, warn) on at least one of them. Each mutant
// is its own program (the kit built with its change); they run in
// parallel. The whole suite against every mutant, with the checks each
// fails beyond its targets, is TestMutantCollateral (make mutants).
func TestMutantsAreCaught(t *testing.T) {
	all := allMutants(t)
	if len(all) < 42 {
		t.Fatalf("%d mutants, want at least 42", len(all))
	}
	b := mutantBuilder(t)
	for _, m := range all {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			res, err := RunMutants(context.Background(), []mutants.Mutant{m}, func(ctx context.Context, m mutants.Mutant) (*report.Run, error) {
				return b.Run(ctx, m, "--tags", targetTags(m))
			})
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
	for _, m := range allMutants(t) {
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

// TestMutantsNameKnownChecks: a mutant's targets and collateral are checks
// of the catalogue.
func TestMutantsNameKnownChecks(t *testing.T) {
	known := map[string]bool{}
	for _, c := range checks.All() {
		known[c.ID] = true
	}
	for _, m := range allMutants(t) {
		for _, c := range m.Checks {
			if !known[c] {
				t.Errorf("%s: checks: %s is not a check", m.File, c)
			}
		}
		for c := range m.Collateral {
			if !known[c] {
				t.Errorf("%s: collateral: %s is not a check", m.File, c)
			}
		}
	}
}
