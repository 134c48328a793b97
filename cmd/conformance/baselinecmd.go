package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
)

// cmdBaseline is `conformance baseline init REPORT` (a first baseline of
// expected failures from a run's report) and `conformance baseline check
// FILE` (a baseline loaded, and its entries matched to the suite's
// scenarios, without a run).
func cmdBaseline(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("want a subcommand: init REPORT or check FILE")
	}
	switch args[0] {
	case "init":
		return baselineInit(args[1:], stdout, stderr)
	case "check":
		return baselineCheck(args[1:], stdout, stderr)
	}
	return 0, usagef("unknown subcommand %q (want init or check)%s", args[0], hintOf(args[0], []string{"init", "check"}))
}

func baselineInit(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("baseline init", stderr)
	out := fs.String("out", "", "write the baseline to this file, which must not exist yet (default: stdout)")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) != 1 {
		return 0, usagef("init: give one report: a report.json, or the folder that holds it")
	}
	path := files[0]
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "report.json")
	}
	run, err := report.ReadJSON(path)
	if err != nil {
		return exitHarness, err
	}
	if run.Interrupted != "" {
		return exitHarness, fmt.Errorf("%s is the report of an interrupted run (%s): a baseline is written from a whole run", path, run.Interrupted)
	}
	data := baseline.FromRun(run)
	if *out == "" {
		_, err := stdout.Write(data)
		return exitOK, err
	}
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, iofs.ErrExist) {
		return exitHarness, fmt.Errorf("--out %s: the file exists (a baseline is written once, then edited)", *out)
	}
	if err != nil {
		return exitHarness, fmt.Errorf("--out: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return exitHarness, fmt.Errorf("--out: %w", err)
	}
	if err := f.Close(); err != nil {
		return exitHarness, fmt.Errorf("--out: %w", err)
	}
	n := strings.Count(string(data), "- scenario:")
	fmt.Fprintf(stdout, "%s: %s written; write each reason (the file does not load until every reason is written)\n", *out, plural(n, "entry", "entries"))
	return exitOK, nil
}

func baselineCheck(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("baseline check", stderr)
	scenDirs := fs.String("scenarios", "", "comma-separated directories of more YAML scenarios, as for run (their scenarios are in the suite)")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) != 1 {
		return 0, usagef("check: give one baseline file")
	}
	base, err := baseline.Load(files[0])
	if err != nil {
		return exitHarness, err
	}
	opts := runner.Options{}
	if err := addScenarioDirs(&opts, *scenDirs); err != nil {
		return exitHarness, err
	}
	ids, err := suiteIDs(opts)
	if err != nil {
		return exitHarness, err
	}
	if err := base.CheckSuite(ids); err != nil {
		return exitHarness, err
	}
	fmt.Fprintf(stdout, "%s: ok (%s, each naming scenarios of the suite)\n", base.Path, plural(len(base.Entries), "entry", "entries"))
	return exitOK, nil
}

// suiteIDs lists every scenario id of the suite the options name.
func suiteIDs(opts runner.Options) ([]string, error) {
	listed, err := runner.List(opts)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(listed))
	for i, l := range listed {
		ids[i] = l.ID
	}
	return ids, nil
}
