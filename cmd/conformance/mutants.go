package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/reference/mutants"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

func cmdMutants(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("mutants", stderr)
	verify := fs.Bool("run", false, "run the suite against every mutant and print the mutation score (exit 1 if one survives)")
	collateral := fs.Bool("collateral", false, "also list, for each mutant, the checks its bug breaks beyond its targets, and why")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if *verify {
		res, err := runner.RunMutants(ctx, mutants.All(), func(m mutants.Mutant) target.Target {
			return inprocess.New(m.New(), m.Name, inprocess.WithClientOptions(m.ClientOptions()...))
		}, runner.Options{})
		if err != nil {
			return 0, err
		}
		if err := runner.WriteMutation(stdout, res); err != nil {
			return 0, err
		}
		if caught, total := res.Score(); caught < total {
			return exitFail, nil
		}
		return exitOK, nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tCHECKS\tBUG")
	for _, m := range mutants.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, strings.Join(m.Checks, ","), m.Bug)
	}
	if err := tw.Flush(); err != nil || !*collateral {
		return exitOK, err
	}
	for _, m := range mutants.All() {
		if len(m.Collateral) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "\n%s also fails:\n", m.Name)
		ids := make([]string, 0, len(m.Collateral))
		for id := range m.Collateral {
			ids = append(ids, id)
		}
		checks.SortIDs(ids)
		for _, id := range ids {
			fmt.Fprintf(stdout, "  %-8s %s\n", id, m.Collateral[id])
		}
	}
	return exitOK, nil
}
