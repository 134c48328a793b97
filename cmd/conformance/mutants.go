package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
)

func cmdMutants(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("mutants", stderr)
	verify := fs.Bool("run", false, "build every mutant (needs the Go toolchain and the kit's source), run the suite against each and print the mutation score (exit 1 if one survives)")
	collateral := fs.Bool("collateral", false, "also list, for each mutant, the checks its bug breaks beyond its targets, and why")
	format := fs.String("format", "text", "text, or md (the catalogue of mutants as docs/mutants.md has it)")
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	all, err := mutants.All()
	if err != nil {
		return exitHarness, err
	}
	if *verify {
		b, err := mutants.NewBuilder()
		if err != nil {
			return exitHarness, err
		}
		defer b.Close()
		res, err := runner.RunMutants(ctx, all, func(ctx context.Context, m mutants.Mutant) (*report.Run, error) {
			return b.Run(ctx, m)
		})
		if err != nil {
			return exitHarness, err
		}
		if err := runner.WriteMutation(stdout, res); err != nil {
			return 0, err
		}
		if caught, total := res.Score(); caught < total {
			return exitFail, nil
		}
		return exitOK, nil
	}
	switch *format {
	case "text":
	case "md":
		return exitOK, writeMutantsMarkdown(stdout, all)
	default:
		return 0, usagef("--format: %q is not text or md", *format)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tCHECKS\tBUG")
	for _, m := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.Name, strings.Join(m.Checks, ","), m.Bug)
	}
	if err := tw.Flush(); err != nil || !*collateral {
		return exitOK, err
	}
	for _, m := range all {
		if len(m.Collateral) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "\n%s also fails:\n", m.Name)
		for _, id := range collateralIDs(m) {
			fmt.Fprintf(stdout, "  %-8s %s\n", id, m.Collateral[id])
		}
	}
	return exitOK, nil
}

func collateralIDs(m mutants.Mutant) []string {
	ids := make([]string, 0, len(m.Collateral))
	for id := range m.Collateral {
		ids = append(ids, id)
	}
	checks.SortIDs(ids)
	return ids
}

// runMutant runs a command line (run, serve or replay) in the mutant's own
// program: the kit built with the mutant's change laid over the reference
// (package mutants), which runs it against its reference, now carrying the
// bug. Its output is this command's, its exit code this command's.
func runMutant(ctx context.Context, name, command string, args []string, fs *flag.FlagSet, stdout, stderr io.Writer) (int, error) {
	m, err := mutants.Lookup(name)
	if err != nil {
		return 0, describeFlagErr("mutant", err)
	}
	child := append([]string{command}, withoutFlag(args, "mutant")...)
	if command != "serve" {
		child = append(child, "--reference")
	}
	if command != "replay" && m.DenialPolicy != "" && !flagSet(fs, "denial-policy") {
		child = append(child, "--denial-policy", m.DenialPolicy)
	}
	b, err := mutants.NewBuilder()
	if err != nil {
		return exitHarness, fmt.Errorf("--mutant %s: %w", name, err)
	}
	defer b.Close()
	cmd, err := b.Command(ctx, m, child...)
	if err != nil {
		return exitHarness, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	if st := cmd.ProcessState; st != nil && st.Exited() {
		// The program ran, and stopped by itself (or on the interrupt a
		// canceled ctx sends it): its exit code is the command's.
		return st.ExitCode(), nil
	}
	return exitHarness, fmt.Errorf("mutant %s: %w", name, err)
}

// withoutFlag returns args without the flag name and its value
// (--name V, --name=V, -name V, -name=V).
func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		bare := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		switch {
		case a != bare && bare == name:
			i++ // and its value
		case a != bare && strings.HasPrefix(bare, name+"="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// writeMutantsMarkdown writes the catalogue of mutants: each bug, the
// checks that must catch it, and the checks it also breaks, with why.
func writeMutantsMarkdown(w io.Writer, all []mutants.Mutant) error {
	var b strings.Builder
	b.WriteString("# Mutants\n\n")
	b.WriteString("Each mutant is the reference with one bug, kept outside it: `mutants/NAME.patch`\n")
	b.WriteString("holds what the bug is (a YAML header) and the change (a unified diff against\n")
	b.WriteString("`reference/`). `conformance run --mutant NAME` applies the change in memory and\n")
	b.WriteString("builds the kit with `go build -overlay` (so running a mutant needs the Go\n")
	b.WriteString("toolchain and the kit's source tree; nothing else does). The suite must catch\n")
	b.WriteString("every mutant by a check that targets its bug (`make test` runs each mutant\n")
	b.WriteString("against the scenarios of those checks). Run against the whole suite, a mutant\n")
	b.WriteString("may also fail other checks: each is listed below with why the bug truly breaks\n")
	b.WriteString("that check's own rule, and a test (`TestMutantCollateral`) fails when a mutant\n")
	b.WriteString("fails a check it does not list here, or stops failing one it lists. Generated by\n")
	b.WriteString("`conformance mutants --format md` (`make docs`).\n\n")
	b.WriteString("| mutant | the bug | caught by |\n|---|---|---|\n")
	for _, m := range all {
		fmt.Fprintf(&b, "| [`%s`](../%s) | %s | %s |\n", m.Name, m.File, mdEscape(m.Bug), strings.Join(m.Checks, ", "))
	}
	b.WriteString("\n## What each mutant also breaks\n")
	for _, m := range all {
		if len(m.Collateral) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n", m.Name)
		for _, id := range collateralIDs(m) {
			fmt.Fprintf(&b, "- **%s**: %s.\n", id, mdEscape(m.Collateral[id]))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
