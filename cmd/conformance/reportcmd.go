package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/report"
)

// cmdReport is `conformance report merge DIR...`.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "merge" {
		return 0, usagef("report: want a subcommand: merge DIR...")
	}
	fs := newFlags("report merge", stderr)
	out := fs.String("out", "", "the directory to write the merged report to (default: reports/<target>/<timestamp>/)")
	formats := fs.String("format", "pretty,"+strings.Join(report.Formats(), ","), "comma-separated outputs, as for run")
	expected := fs.String("expected-failures", "", "a YAML baseline applied to the merged run (stale entries show only here, once every shard is in)")
	if err := parseArgs(fs, args[1:]); err != nil {
		return 0, err
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		return 0, usagef("report merge: give the report directories of the shards")
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
	dir := *out
	if dir == "" {
		dir = report.DefaultDir(defaultReportRoot, merged.Target, time.Now())
	}
	fmt.Fprintf(stdout, "Merged %d reports.\n\n", len(dirs))
	return deliver(stdout, merged, pretty, files, dir, base)
}
