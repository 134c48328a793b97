package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/report/dashboard"
)

// cmdReport is `conformance report merge DIR...` and `conformance report
// dashboard DIR`.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("want a subcommand: merge DIR... or dashboard DIR")
	}
	if args[0] == "dashboard" {
		return cmdDashboard(args[1:], stdout, stderr)
	}
	if args[0] != "merge" {
		return 0, usagef("unknown subcommand %q (want merge or dashboard)", args[0])
	}
	fs := newFlags("report merge", stderr)
	out := fs.String("out", "", "the folder to write the merged report to, which must not exist or be empty (default: a new folder reports/<target>/<timestamp>/)")
	formats := fs.String("format", "pretty,"+strings.Join(report.Formats(), ","), "comma-separated outputs, as for run")
	expected := fs.String("expected-failures", "", "a YAML baseline applied to the merged run (stale entries show only here, once every shard is in)")
	if err := parseArgs(fs, args[1:]); err != nil {
		return 0, err
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		return 0, usagef("merge: give the report folders of every shard of the run")
	}
	pretty, files, err := parseFormats(*formats)
	if err != nil {
		return 0, err
	}
	var base *baseline.File
	if *expected != "" {
		if base, err = baseline.Load(*expected); err != nil {
			return exitHarness, fmt.Errorf("--expected-failures: %w", err)
		}
	}
	merged, err := report.MergeDirs(dirs...)
	if err != nil {
		return exitHarness, err
	}
	dest := destination{root: defaultReportRoot, dir: *out}
	fmt.Fprintf(stdout, "Merged %s into one run of %s.\n\n", describeShards(len(dirs)), plural(len(merged.Scenarios), "scenario", "scenarios"))
	return deliver(stdout, merged, pretty, files, dest, base, nil)
}

func describeShards(n int) string {
	if n == 1 {
		return "1 report"
	}
	return fmt.Sprintf("the %d shards", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// cmdDashboard is `conformance report dashboard [--out FILE] DIR`: the
// certified folders of DIR (each <sdk>@<version>[-<path>]/ with its
// report.json) on one self-contained page.
func cmdDashboard(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("report dashboard", stderr)
	out := fs.String("out", "dashboard.html", "the page to write (its links to the folders are relative to it)")
	if err := parseArgs(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, usagef("dashboard: give the folder of the certified folders (reports/certified)")
	}
	if err := dashboard.WriteFile(*out, fs.Arg(0)); err != nil {
		return exitHarness, err
	}
	fmt.Fprintf(stdout, "Wrote %s\n", *out)
	return exitOK, nil
}
