package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/mutants"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run", stderr)
	ref := fs.Bool("reference", false, "run against the in-process reference runtime")
	mutant := fs.String("mutant", "", "run against a mutant of the reference (see: conformance mutants)")
	denial := fs.String("denial-policy", "independent", "the reference's denial policy: independent or abort-remaining")
	tags := fs.String("tags", "", `run the scenarios matching a tag expression, e.g. "@PRE-01", "~@should", "@REQ-01,@REQ-02"`)
	level := fs.String("level", "may", "the lowest check level that counts: must, should or may")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit of each turn")
	seed := fs.Int64("seed", 0, "shuffle the scenarios with this seed (0: file order)")
	concurrency := fs.Int("concurrency", 1, "scenarios to run at once")
	godogFormat := fs.String("godog", "", "also print godog's own output in this format (pretty, progress, cucumber, junit)")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	lvl, err := checks.ParseLevel(*level)
	if err != nil {
		return 0, describeFlagErr("level", err)
	}
	if *concurrency < 1 {
		return 0, usagef("--concurrency: must be at least 1")
	}
	if *timeout <= 0 {
		return 0, usagef("--timeout: must be positive")
	}
	policy := reference.DenialPolicy(*denial)
	if policy != reference.Independent && policy != reference.AbortRemaining {
		return 0, usagef("--denial-policy: unknown policy %q (want independent or abort-remaining)", *denial)
	}

	var tgt target.Target
	switch {
	case *mutant != "":
		m, err := mutants.Lookup(*mutant)
		if err != nil {
			return 0, describeFlagErr("mutant", err)
		}
		tgt = inprocess.New(m.New(reference.WithDenialPolicy(policy)), "mutant "+m.Name, inprocess.WithClientOptions(m.ClientOptions()...))
	case *ref:
		tgt = inprocess.New(reference.New(reference.WithDenialPolicy(policy)), "reference")
	default:
		return 0, usagef("run: say which target: --reference or --mutant NAME")
	}
	defer tgt.Close()

	opts := runner.Options{
		Target:      tgt,
		Tags:        *tags,
		Level:       lvl,
		Timeout:     *timeout,
		Seed:        *seed,
		Concurrency: *concurrency,
	}
	if *godogFormat != "" {
		opts.Format, opts.Output = *godogFormat, stdout
	}
	res, err := runner.Run(ctx, opts)
	if err != nil {
		return 0, err
	}
	if err := report.WriteSummary(stdout, res); err != nil {
		return 0, fmt.Errorf("write summary: %w", err)
	}
	return exitCode(res), nil
}

// exitCode is 1 when a MUST check failed, else 2 when a scenario could not
// be run, else 0.
func exitCode(r *report.Run) int {
	for _, c := range r.Checks {
		if c.Level == checks.Must && c.Verdict == report.Fail {
			return exitFail
		}
	}
	if !r.Certified() {
		return exitHarness
	}
	return exitOK
}
