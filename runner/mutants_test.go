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

// TestMutantsAreCaught runs the whole suite against every mutant of the
// reference and requires each to fail (or, for a SHOULD check, warn) on at
// least one of the checks that target its bug. It logs the mutation score.
func TestMutantsAreCaught(t *testing.T) {
	res, err := RunMutants(context.Background(), mutants.All(), func(m mutants.Mutant) target.Target {
		return inprocess.New(m.New(), m.Name, inprocess.WithClientOptions(m.ClientOptions()...))
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if len(r.Caught) == 0 {
			t.Errorf("mutant %s (%s) survived: none of %v failed", r.Mutant.Name, r.Mutant.Bug, r.Mutant.Checks)
		}
	}
	var b strings.Builder
	if err := WriteMutation(&b, res); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if caught, total := res.Score(); caught != total || total < 42 {
		t.Errorf("mutation score %d/%d", caught, total)
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
