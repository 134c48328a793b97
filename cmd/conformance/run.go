package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/chatsim"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/tagexpr"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
)

// formatPretty is the terminal summary, printed to stdout.
const formatPretty = "pretty"

// defaultReportRoot is where report files go when a file format is asked
// for without --report.
const defaultReportRoot = "reports"

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run", stderr)
	ref := fs.Bool("reference", false, "run against the in-process reference runtime")
	url := fs.String("target", "", "run against an implementation over HTTP (driver protocol v1) at this URL")
	mutant := fs.String("mutant", "", "run against a mutant of the reference (see: conformance mutants; needs the Go toolchain and the kit's source)")
	denial := fs.String("denial-policy", "independent", "the reference's denial policy: independent or abort-remaining")
	tags := fs.String("tags", "", `run the scenarios matching a tag expression: "@PRE-01", "not @should", "@REQ-01 or @REQ-02", "@agent and not @should" (godog's "~@should", "@REQ-01,@REQ-02", "&&" too)`)
	level := fs.String("level", "must", "the lowest check level required to pass: must (default), should (a SHOULD warning fails the run) or may")
	formats := fs.String("format", formatPretty, "comma-separated outputs: pretty (the summary on stdout), "+strings.Join(report.Formats(), ", ")+", or all")
	reportRoot := fs.String("report", "", "write the report files to DIR/<target>/<timestamp>/ (every file format unless --format says)")
	expected := fs.String("expected-failures", "", "a YAML baseline of expected failures; unexpected failures and stale entries fail the run")
	shardFlag := fs.String("shard", "", "run the I-th of N disjoint parts of the suite, e.g. 2/4 (merge the reports with: conformance report merge)")
	scenDirs := fs.String("scenarios", "", "comma-separated directories of more YAML scenarios to run with the built-in ones")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit of each step that waits on the target")
	deadline := fs.Duration("deadline", 0, "time limit of the whole run (0: none); a run past it stops, is reported as interrupted and exits 2")
	maxBroken := fs.Int("max-errors", 10, "stop the run, marked interrupted, after this many scenarios in a row could not be run (error or timeout; sooner when the target's info cannot be read either); 0: never")
	seed := fs.Int64("seed", 0, "shuffle the scenarios with this seed (0: file order)")
	concurrency := fs.Int("concurrency", 1, "scenarios to run at once")
	progress := fs.String("progress", "auto", "a progress line on stderr: auto (when stderr is a terminal), always or never")
	overHTTP := fs.Bool("over-http", false, "with --reference or --mutant: serve it behind driver protocol v1 and run over HTTP, as an external target")
	listen := fs.String("listen", "127.0.0.1", "with --target: the host the harness's callback and simulator servers listen on (the adapter must reach it)")
	godogFormat := fs.String("godog", "", "also print godog's own output in this format (pretty, progress, cucumber, junit)")
	dryRun := fs.Bool("dry-run", false, "check the flags, the scenarios, the tags and the baseline against the suite, run nothing and exit (0: all sound, 2: not); needs no target")
	var lim limits.Limits
	lim.Register(fs, limits.HeaderTimeout, limits.RequestBytes, limits.ReplyBytes, limits.JournalBytes, limits.Calls, limits.BodyTimeout, limits.InFlight)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if err := lim.Check(); err != nil {
		return 0, usagef("%v", err)
	}
	lvl, err := checks.ParseLevel(*level)
	if err != nil {
		return 0, usagef("--level: %v%s", err, hintOf(strings.ToLower(*level), []string{"must", "should", "may"}))
	}
	if *concurrency < 1 {
		return 0, usagef("--concurrency: must be at least 1")
	}
	if *timeout <= 0 {
		return 0, usagef("--timeout: must be positive")
	}
	if *maxBroken < 0 {
		return 0, usagef("--max-errors: must not be negative")
	}
	if *deadline < 0 {
		return 0, usagef("--deadline: must not be negative")
	}
	formatSet := flagSet(fs, "format")
	pretty, files, err := parseFormats(*formats)
	if err != nil {
		return 0, err
	}
	root := *reportRoot
	switch {
	case root != "" && !formatSet:
		files = report.Formats()
	case root == "" && len(files) > 0:
		root = defaultReportRoot
	}
	var shard runner.Shard
	if *shardFlag != "" {
		if shard, err = runner.ParseShard(*shardFlag); err != nil {
			return 0, describeFlagErr("shard", err)
		}
	}
	showProgress, tty, err := progressWanted(*progress, stderr)
	if err != nil {
		return 0, err
	}
	var base *baseline.File
	if *expected != "" {
		if base, err = baseline.Load(*expected); err != nil {
			return exitHarness, fmt.Errorf("--expected-failures: %w", err)
		}
	}
	if len(files) > 0 {
		// Found now, not after the whole run.
		if err := report.CheckRoot(root); err != nil {
			return exitHarness, fmt.Errorf("--report: %w", err)
		}
	}

	opts := runner.Options{
		Tags:        *tags,
		Level:       lvl,
		Timeout:     *timeout,
		Seed:        *seed,
		Concurrency: *concurrency,
		Shard:       shard,
		MaxBroken:   *maxBroken,
	}
	if *maxBroken == 0 {
		opts.MaxBroken = -1
	}
	if err := addScenarioDirs(&opts, *scenDirs); err != nil {
		return 0, err
	}
	chosen := 0
	for _, b := range []bool{*ref, *url != "", *mutant != ""} {
		if b {
			chosen++
		}
	}
	if chosen > 1 || (chosen == 0 && !*dryRun) {
		return 0, usagef("say which target, once: --reference, --target URL or --mutant NAME")
	}
	{
		// What can be found wrong without the target is found now, not
		// after the install, the start and the run.
		n, err := preflight(opts, base, stderr)
		if err != nil {
			return exitHarness, err
		}
		if *dryRun {
			fmt.Fprintf(stdout, "conformance run --dry-run: %s of the suite selected", plural(n, "scenario", "scenarios"))
			if base != nil {
				fmt.Fprintf(stdout, "; the baseline's %s name scenarios of the suite", plural(len(base.Entries), "entry", "entries"))
			}
			fmt.Fprintln(stdout, "; nothing run")
			return exitOK, nil
		}
	}

	// The harness's own servers: the simulator, the callbacks, the chat
	// server; each scenario running at once has its conversation.
	lim.Sessions = max(limits.DefaultSessions, 2**concurrency)
	if !flagSet(fs, "max-in-flight") {
		lim.InFlight = max(limits.DefaultInFlight, 4**concurrency) // a scenario's target calls the harness's servers a few at a time
	}
	chatsim.DefaultLimits = lim
	if *mutant != "" {
		return runMutant(ctx, *mutant, "run", args, fs, stdout, stderr)
	}
	var tgt target.Target
	if *ref {
		if tgt, err = referenceTarget(*denial); err != nil {
			return 0, err
		}
		if *overHTTP {
			srv, err := driverserver.NewServer(tgt, all.ModelsWithin(lim.ReplyBytes), driverserver.WithLimits(limits.Limits{HeaderTimeout: lim.HeaderTimeout, RequestBytes: lim.RequestBytes, ReplyBytes: lim.ReplyBytes, Sessions: lim.Sessions, BodyTimeout: lim.BodyTimeout, InFlight: lim.InFlight}))
			if err != nil {
				return exitHarness, err
			}
			defer srv.Close()
			*url = srv.URL
		}
	} else if *overHTTP {
		return 0, usagef("--over-http: only with --reference or --mutant")
	}
	if *url != "" {
		ht, err := httptarget.New(*url, httptarget.WithTimeout(*timeout), httptarget.WithCallbackAddr(net.JoinHostPort(*listen, "0")), httptarget.WithLimits(lim))
		if err != nil {
			return exitHarness, fmt.Errorf("--target: %w", err)
		}
		wiring, err := httptarget.NewWiringWith(net.JoinHostPort(*listen, "0"), lim)
		if err != nil {
			ht.Close()
			return exitHarness, err
		}
		defer wiring.Close()
		if _, err := ht.Info(ctx); err != nil {
			ht.Close()
			return exitHarness, fmt.Errorf("--target %s: %w", *url, err)
		}
		tgt, opts.Wiring = ht, wiring
	}
	defer tgt.Close()
	opts.Target = tgt

	if *godogFormat != "" {
		opts.Format, opts.Output = *godogFormat, stdout
	}
	var line *progressLine
	if showProgress {
		line = &progressLine{w: stderr, tty: tty, counts: map[report.Verdict]int{}}
		opts.Progress = line.update
	}
	if *deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, *deadline, fmt.Errorf("the run's deadline passed (--deadline %s)", *deadline))
		defer cancel()
	}
	res, err := runner.Run(ctx, opts)
	if line != nil {
		line.end()
	}
	var terr *tagexpr.Error
	if errors.As(err, &terr) {
		return 0, describeFlagErr("tags", err)
	}
	if err != nil {
		return exitHarness, err
	}
	var suite []string
	if base != nil {
		listed, err := runner.List(opts)
		if err != nil {
			return exitHarness, err
		}
		for _, l := range listed {
			suite = append(suite, l.ID)
		}
	}
	code, err := deliver(stdout, res, pretty, files, destination{root: root}, base, suite)
	if pretty && *ref && *denial != "abort-remaining" && needsAbortRemaining(res) {
		fmt.Fprintln(stdout, "(The scenarios of the abort-remaining denial policy run with --denial-policy abort-remaining.)")
	}
	if res.Interrupted != "" {
		fmt.Fprintf(stderr, "conformance run: %s: %d scenario(s) finished, %d not run; the results are partial and marked interrupted\n", res.Interrupted, len(res.Scenarios), res.NotRun)
		code = exitHarness
		if i, ok := interrupted(ctx); ok {
			code = i.code()
		}
	}
	return code, err
}

// needsAbortRemaining reports whether a scenario did not apply for want of
// the abort-remaining denial policy.
func needsAbortRemaining(r *report.Run) bool {
	for _, s := range r.Scenarios {
		if s.Verdict == report.NotApplicable && strings.Contains(s.Message, "abort-remaining") {
			return true
		}
	}
	return false
}

// destination is where report files go: a folder of their own under
// root (root/<target>/<timestamp>), or the folder dir.
type destination struct{ root, dir string }

// deliver prints the summary (and the baseline's outcome), writes the report
// files, and returns the exit code: the baseline's when there is one, the
// run's otherwise. suite, when known, lists every scenario id of the suite,
// so that a baseline entry that names none is found.
func deliver(stdout io.Writer, res *report.Run, pretty bool, files []string, dest destination, base *baseline.File, suite []string) (int, error) {
	var outcome *baseline.Outcome
	switch {
	case base != nil && suite != nil:
		outcome = baseline.ApplySuite(base, res, suite)
	case base != nil:
		outcome = baseline.Apply(base, res)
	}
	if outcome != nil {
		res.Baseline = baselineResult(base, outcome)
	}
	if pretty {
		if err := report.WriteSummary(stdout, res); err != nil {
			return 0, fmt.Errorf("write summary: %w", err)
		}
		if outcome != nil {
			writeOutcome(stdout, base, outcome)
		}
	}
	if len(files) > 0 {
		dir := dest.dir
		var (
			written []string
			err     error
		)
		if dir != "" {
			written, err = report.WriteDir(dir, res, files...)
		} else {
			dir, written, err = report.WriteNew(dest.root, res, files...)
		}
		if err != nil {
			return exitHarness, err
		}
		fmt.Fprintf(stdout, "\nReport: %s (%s)\n", dir, strings.Join(baseNames(written), ", "))
	}
	if outcome != nil {
		return baselineExit(outcome), nil
	}
	return exitCode(res), nil
}

// flagSet reports whether a flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// parseFormats splits --format into the summary and the report files.
func parseFormats(s string) (pretty bool, files []string, err error) {
	for _, f := range splitList(s) {
		switch {
		case f == formatPretty:
			pretty = true
		case f == "all":
			pretty = true
			files = report.Formats()
		case slices.Contains(report.Formats(), f):
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		default:
			return false, nil, usagef("--format: unknown format %q (want pretty, %s or all)", f, strings.Join(report.Formats(), ", "))
		}
	}
	if !pretty && len(files) == 0 {
		return false, nil, usagef("--format: no format given")
	}
	return pretty, files, nil
}

// addScenarioDirs adds the directories of --scenarios to the options.
func addScenarioDirs(opts *runner.Options, list string) error {
	for _, dir := range splitList(list) {
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			return usagef("--scenarios: %s is not a directory", dir)
		}
		opts.ExtraScenarios = append(opts.ExtraScenarios, os.DirFS(dir))
		opts.ExtraScenarioNames = append(opts.ExtraScenarioNames, dir)
	}
	return nil
}

// preflight checks what a run can check without its target: the suite
// loads (every bad scenario file named), the tags select a scenario (a
// tag that names none of the suite's gets a did-you-mean), and every
// baseline entry names a scenario of the suite. It returns how many
// scenarios the run selects.
func preflight(opts runner.Options, base *baseline.File, stderr io.Writer) (int, error) {
	listed, err := runner.List(opts)
	if err != nil {
		return 0, err
	}
	expr, err := tagexpr.Parse(opts.Tags)
	if err != nil {
		return 0, describeFlagErr("tags", err)
	}
	known := map[string]bool{}
	var ids []string
	n := 0
	for _, l := range listed {
		ids = append(ids, l.ID)
		for _, t := range l.Tags {
			known[t] = true
		}
		if expr.Match(l.Tags) && opts.Shard.Accepts(l.ID) {
			n++
		}
	}
	var hints []string
	for _, t := range expr.Tags() {
		if !known[t] {
			if h := hintOf(t, slices.Collect(maps.Keys(known))); h != "" {
				hints = append(hints, t+" names no tag of the suite"+h)
			}
		}
	}
	if len(listed) == 0 {
		return 0, errors.New("the suite holds no scenario")
	}
	if n == 0 && opts.Shard.N <= 1 {
		msg := fmt.Sprintf("no scenario matches %q (of the %d scenarios of the suite)", opts.Tags, len(listed))
		if len(hints) > 0 {
			msg += ": " + strings.Join(hints, "; ")
		}
		return 0, usagef("--tags: %s", msg)
	}
	for _, h := range hints {
		fmt.Fprintf(stderr, "conformance run: --tags: %s\n", h)
	}
	if err := base.CheckSuite(ids); err != nil {
		return 0, fmt.Errorf("--expected-failures: %w", err)
	}
	return n, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p[strings.LastIndexAny(p, `/\`)+1:]
	}
	return out
}

// exitCode is 1 when a MUST check failed, else 2 when a scenario could not
// be run, else 0.
func exitCode(r *report.Run) int {
	if r.Failed() {
		return exitFail
	}
	if !r.Certified() {
		return exitHarness
	}
	return exitOK
}

// baselineExit: 0 when every failure is expected and no entry is stale; 1
// when a failure is unexpected or an entry stale, unless every unexpected
// result is an error or timeout (2: the run itself is in doubt); 2 when an
// entry names no scenario of the suite (a mistake in the file, which run
// finds before it starts).
func baselineExit(o *baseline.Outcome) int {
	if o.OK() {
		return exitOK
	}
	if len(o.Unknown) > 0 {
		return exitHarness
	}
	if len(o.Stale) > 0 {
		return exitFail
	}
	for _, h := range o.Unexpected {
		if h.Verdict == report.Fail {
			return exitFail
		}
	}
	return exitHarness
}

// baselineResult is what the reports say of the baseline's outcome.
func baselineResult(f *baseline.File, o *baseline.Outcome) *report.BaselineResult {
	hits := func(hs []baseline.Hit) []report.BaselineHit {
		out := make([]report.BaselineHit, len(hs))
		for i, h := range hs {
			out[i] = report.BaselineHit{Scenario: h.Scenario, Check: h.Check, Verdict: h.Verdict, Reason: h.Reason}
		}
		return out
	}
	entries := func(es []baseline.Entry) []report.BaselineEntry {
		out := make([]report.BaselineEntry, len(es))
		for i, e := range es {
			out[i] = report.BaselineEntry{Entry: e.String(), Line: e.Line}
		}
		return out
	}
	return &report.BaselineResult{
		File: f.Path, Held: o.OK(),
		Expected: hits(o.Expected), Unexpected: hits(o.Unexpected),
		Stale: entries(o.Stale), Unknown: entries(o.Unknown), NotRun: entries(o.NotRun),
	}
}

func writeOutcome(w io.Writer, f *baseline.File, o *baseline.Outcome) {
	fmt.Fprintf(w, "\nBaseline %s: %d expected, %d unexpected, %d stale", f.Path, len(o.Expected), len(o.Unexpected), len(o.Stale))
	if len(o.Unknown) > 0 {
		fmt.Fprintf(w, ", %d unknown", len(o.Unknown))
	}
	fmt.Fprintf(w, ", %d not run\n", len(o.NotRun))
	for _, h := range o.Unexpected {
		check := ""
		if h.Check != "" {
			check = " [" + h.Check + "]"
		}
		fmt.Fprintf(w, "  UNEXPECTED %s  %s%s\n", strings.ToUpper(string(h.Verdict)), h.Scenario, check)
	}
	for _, e := range o.Stale {
		fmt.Fprintf(w, "  STALE      %s:%d  %s  (it passes now: remove the entry)\n", f.Path, e.Line, e)
	}
	for _, e := range o.Unknown {
		fmt.Fprintf(w, "  UNKNOWN    %s:%d  %s  (no scenario of the suite has this id: misspelled, or renamed?)\n", f.Path, e.Line, e)
	}
	for _, e := range o.NotRun {
		fmt.Fprintf(w, "  NOT RUN    %s:%d  %s  (left out by --tags or --shard)\n", f.Path, e.Line, e)
	}
}

// progressWanted decides whether to show progress, and whether stderr is a
// terminal (one line redrawn) or not (a line every progressEvery scenarios).
func progressWanted(mode string, stderr io.Writer) (show, tty bool, err error) {
	if f, ok := stderr.(*os.File); ok {
		st, err := f.Stat()
		tty = err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	switch mode {
	case "always":
		return true, tty, nil
	case "never":
		return false, tty, nil
	case "auto":
		return tty, tty, nil
	}
	return false, false, usagef("--progress: unknown mode %q (want auto, always or never)", mode)
}

// progressEvery is the most scenarios a log (not a terminal) goes
// without a progress line; it gets one each tenth of the run at least.
const progressEvery = 25

// progressLine shows progress on stderr after each scenario.
type progressLine struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool
	counts map[report.Verdict]int
	drawn  bool
}

func (p *progressLine) update(done, total int, last report.Scenario) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[last.Verdict]++
	var parts []string
	for _, v := range []report.Verdict{report.Pass, report.Fail, report.Warn, report.Error, report.Timeout, report.NotApplicable, report.NotEvaluated} {
		if n := p.counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	name := last.ID
	if r := []rune(name); len(r) > 50 {
		name = string(r[:49]) + "…"
	}
	width := len(fmt.Sprint(total))
	if !p.tty {
		every := max(1, min(progressEvery, total/10))
		if done%every == 0 || done == total {
			fmt.Fprintf(p.w, "%*d/%d scenarios: %s\n", width, done, total, strings.Join(parts, ", "))
		}
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%*d/%d scenarios: %s | %s", width, done, total, strings.Join(parts, ", "), name)
	p.drawn = true
}

func (p *progressLine) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
