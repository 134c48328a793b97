package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/approval-conformance-kit/ack/reference/mutants"
)

func cmdMutants(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("mutants", stderr)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tCHECKS\tBUG")
	for _, m := range mutants.All() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, strings.Join(m.Checks, ","), m.Bug)
	}
	return exitOK, tw.Flush()
}
