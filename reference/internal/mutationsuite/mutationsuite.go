// Package mutationsuite is the test of `make mutation`: the whole
// conformance suite, in-process, against the reference as it is compiled
// into the test binary. Under the mutation tool that reference carries one
// machine-made mutation, so the suite, not the reference's own unit tests,
// judges it. Only the test files built with the "mutation" tag use it.
package mutationsuite

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// Policies are the denial policies the suite runs under, each as the
// reference's default: a scenario that does not choose a policy takes the
// target's, so each default is a path of its own.
var Policies = []reference.DenialPolicy{reference.Independent, reference.AbortRemaining}

// Problems runs every feature and YAML scenario against the in-process
// reference with the given default denial policy and returns what did not
// pass: a check that failed or warned (MUST, SHOULD or MAY), a scenario
// whose verdict is not pass (an error, a timeout, not applicable: the
// reference declares every feature, so a scenario it cannot run is a bug),
// an interrupted run. An error means the suite could not run at all.
func Problems(ctx context.Context, policy reference.DenialPolicy) ([]string, error) {
	tgt := inprocess.New(reference.New(reference.WithDenialPolicy(policy)), "reference")
	defer tgt.Close()
	return problems(ctx, runner.Options{Target: tgt}, false)
}

// DialectProblems runs the client scenarios against the in-process
// reference whose chat client speaks a protocol in one of its dialects
// other than the default (the defaults run in Problems), and returns what
// did not pass. A scenario for a protocol the dialect leaves out may be
// not applicable.
func DialectProblems(ctx context.Context, protocol, dialect string) ([]string, error) {
	tgt := inprocess.New(reference.New(), "reference", inprocess.WithClientDialects(map[string]string{protocol: dialect}))
	defer tgt.Close()
	return problems(ctx, runner.Options{Target: tgt, Tags: "@client"}, true)
}

func problems(ctx context.Context, opts runner.Options, notApplicableAllowed bool) ([]string, error) {
	run, err := runner.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	var problems []string
	if run.Interrupted != "" {
		problems = append(problems, "the run was interrupted: "+run.Interrupted)
	}
	if len(run.Scenarios) == 0 {
		problems = append(problems, "no scenario ran")
	}
	for _, s := range run.Scenarios {
		var bad []string
		for id, v := range s.CheckVerdicts {
			if v == report.Fail || v == report.Warn {
				bad = append(bad, fmt.Sprintf("%s %s", id, v))
			}
		}
		slices.Sort(bad)
		if len(bad) == 0 && (s.Verdict == report.Pass || notApplicableAllowed && s.Verdict == report.NotApplicable) {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s: %s %v\n  step: %s\n  %s", s.ID, s.Verdict, bad, s.FailedStep, s.Message))
	}
	return problems, nil
}

// Run is the mutation test: the suite under each default denial policy,
// and the client scenarios in every other dialect of every protocol; any
// problem fails t (the mutant is killed).
func Run(t *testing.T) {
	t.Helper()
	for _, policy := range Policies {
		problems, err := Problems(context.Background(), policy)
		if err != nil {
			t.Fatalf("denial policy %s: the suite could not run: %v", policy, err)
		}
		for _, p := range problems {
			t.Errorf("denial policy %s: %s", policy, p)
		}
	}
	for _, protocol := range slices.Sorted(maps.Keys(chat.Dialects)) {
		for _, d := range chat.Dialects[protocol][1:] {
			problems, err := DialectProblems(context.Background(), protocol, d)
			if err != nil {
				t.Fatalf("%s in %s: the client scenarios could not run: %v", protocol, d, err)
			}
			for _, p := range problems {
				t.Errorf("%s in %s: %s", protocol, d, p)
			}
		}
	}
}
