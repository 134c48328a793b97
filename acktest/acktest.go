// Package acktest certifies a Go implementation of the kit's target
// interfaces (package target) from its own go test: the whole conformance
// suite, or a tag selection of it, runs through godog with each scenario a
// subtest, and the verdict per check is printed at the end.
//
//	func TestConformance(t *testing.T) {
//		acktest.Run(t, mytarget.New(), acktest.Options{
//			ExpectedFailures: "testdata/expected-failures.yaml",
//		})
//	}
//
// Each scenario's subtest is named by the checks it exercises and its id
// ("PRE-01,PRE-03 pre_resolution.feature: a denied call does not run
// (stream)"; go test writes the spaces as underscores), so that
//
//	go test -run 'TestConformance/PRE-01'        # the scenarios of one check
//	go test -run 'TestConformance/pre_resolution' # the scenarios of one file
//
// select what they name. A subtest fails when its scenario fails a MUST
// check (or, with Options.Level, a lower one) or could not be run, unless
// the baseline of expected failures lists it; its log names each failed
// check, the step, why, and the evidence (the model calls, the tool runs,
// the turns), as the CLI's report does. A scenario that does not apply to
// the target is skipped, saying why. At the end, the test logs the
// verdict of every check (go test -v shows it), applies the baseline to
// the whole run (an entry that passes now is stale and fails the test, as
// does one that names no scenario of the suite), and writes the report
// files Options.ReportDir asks for.
//
// The target runs in the test's process: each turn's model is the
// simulator in-process (target.TurnRequest.Model.Local, an llm.Model), and
// its tools and policies run through TurnRequest.Harness. A target whose
// SDK only speaks a provider's HTTP API sets Options.ServeModel: each
// turn's model is then the simulator served on loopback
// (TurnRequest.Model.BaseURL), in the wire the harness chooses from the
// target's declared model APIs.
package acktest

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/tagexpr"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
)

// Options configure a certification. The zero value runs the whole suite
// with no baseline and writes no report.
type Options struct {
	// Name names the target in the report (its info's name when empty).
	Name string
	// Tags selects scenarios with a tag expression, as conformance run
	// --tags does: "@agent", "@PRE-01 or @PRE-02", "not @should".
	Tags string
	// Level is the lowest check level that fails a scenario (MUST when
	// empty); failures of lower levels are warnings, logged.
	Level checks.Level
	// Scenarios are more directories of YAML scenarios, run with the
	// suite's (as conformance run --scenarios DIR): an adapter's own
	// regression scenarios, for example.
	Scenarios []string
	// ExpectedFailures is a baseline file (the format of conformance run
	// --expected-failures): the failures it lists do not fail their
	// subtests; an entry that passes now fails the test.
	ExpectedFailures string
	// ReportDir, when set, receives the report files in a folder of their
	// own, ReportDir/<target>/<timestamp>/, as conformance run --report.
	ReportDir string
	// Formats are the report files written to ReportDir: json, junit, md,
	// html, badge, journal (json and md when empty).
	Formats []string
	// Timeout bounds each step that waits on the target (10s when zero).
	Timeout time.Duration
	// Concurrency runs that many scenarios at once (1 when zero).
	Concurrency int
	// ServeModel serves each scenario's simulator over loopback HTTP and
	// gives turns its base URL rather than the in-process model.
	ServeModel bool
	// GodogFormat and GodogOutput, when both set, write godog's own
	// output ("pretty", "progress", "cucumber", "junit").
	GodogFormat string
	GodogOutput io.Writer
}

// EvidenceBytes bounds the evidence a failed subtest logs.
const EvidenceBytes = 6000

// Run certifies tgt in t: each selected scenario runs in a subtest of t,
// and the run's verdicts are logged at the end. It returns the run, with
// every scenario that ran (nil when the suite could not run, which fails
// t). Run does not close tgt.
func Run(t *testing.T, tgt target.Target, opts Options) *report.Run {
	t.Helper()
	base, err := loadBaseline(opts.ExpectedFailures)
	if err != nil {
		t.Fatal(err)
	}
	ropts, closeWiring, err := runnerOptions(tgt, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closeWiring()
	level := ropts.Level
	ropts.TestingT = t
	ropts.Judge = func(t *testing.T, s report.Scenario) {
		t.Helper()
		judge(t, s, base, level)
	}
	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, dl.Add(-5*time.Second), fmt.Errorf("the test's deadline (go test -timeout) is near"))
		defer cancel()
	}
	run, err := runner.Run(ctx, ropts)
	if err != nil {
		t.Fatalf("acktest: %v", err)
		return nil
	}
	var summary strings.Builder
	if err := report.WriteSummary(&summary, run); err != nil {
		t.Errorf("acktest: %v", err)
	}
	t.Log("\n" + summary.String())
	if opts.ReportDir != "" {
		dir, _, err := report.WriteNew(opts.ReportDir, run, formatsOf(opts)...)
		if err != nil {
			t.Errorf("acktest: write the report: %v", err)
		} else {
			t.Logf("report: %s", dir)
		}
	}
	out, narrowed, err := applyBaseline(base, run, ropts)
	if err != nil {
		t.Errorf("acktest: %v", err)
		return run
	}
	for _, msg := range runFailures(run, base, out, narrowed) {
		t.Error(msg)
	}
	return run
}

// Certify runs the suite against tgt without a testing.T, as conformance
// run does: the run, and the baseline's outcome (the unexpected failures,
// stale and unknown entries; every failure of a MUST check is unexpected
// when Options.ExpectedFailures is empty). The error is a suite that could
// not run at all, or a baseline file that does not load.
func Certify(ctx context.Context, tgt target.Target, opts Options) (*report.Run, *baseline.Outcome, error) {
	base, err := loadBaseline(opts.ExpectedFailures)
	if err != nil {
		return nil, nil, err
	}
	ropts, closeWiring, err := runnerOptions(tgt, opts)
	if err != nil {
		return nil, nil, err
	}
	defer closeWiring()
	run, err := runner.Run(ctx, ropts)
	if err != nil {
		return nil, nil, err
	}
	if opts.ReportDir != "" {
		if _, _, err := report.WriteNew(opts.ReportDir, run, formatsOf(opts)...); err != nil {
			return run, nil, fmt.Errorf("write the report: %w", err)
		}
	}
	out, _, err := applyBaseline(base, run, ropts)
	return run, out, err
}

func loadBaseline(path string) (*baseline.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := baseline.Load(path)
	if err != nil {
		return nil, fmt.Errorf("acktest: expected failures: %w", err)
	}
	return f, nil
}

func formatsOf(opts Options) []string {
	if len(opts.Formats) == 0 {
		return []string{"json", "md"}
	}
	return opts.Formats
}

// runnerOptions are the runner's options for a certification, and what
// closes the loopback model server when Options.ServeModel started one.
func runnerOptions(tgt target.Target, opts Options) (runner.Options, func(), error) {
	level := opts.Level
	if level == "" {
		level = checks.Must
	}
	if !slices.Contains([]checks.Level{checks.Must, checks.Should, checks.May}, level) {
		return runner.Options{}, nil, fmt.Errorf("acktest: Options.Level: unknown level %q (want MUST, SHOULD or MAY)", opts.Level)
	}
	for _, f := range opts.Formats {
		if !slices.Contains(report.Formats(), f) {
			return runner.Options{}, nil, fmt.Errorf("acktest: Options.Formats: unknown format %q (want one of %s)", f, strings.Join(report.Formats(), ", "))
		}
	}
	if opts.ReportDir != "" {
		if err := report.CheckRoot(opts.ReportDir); err != nil {
			return runner.Options{}, nil, fmt.Errorf("acktest: Options.ReportDir: %w", err)
		}
	}
	ro := runner.Options{
		Target:      tgt,
		Name:        opts.Name,
		Tags:        opts.Tags,
		Level:       level,
		Timeout:     opts.Timeout,
		Concurrency: opts.Concurrency,
	}
	for _, dir := range opts.Scenarios {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return runner.Options{}, nil, fmt.Errorf("acktest: Options.Scenarios: %s is not a directory of scenarios", dir)
		}
		ro.ExtraScenarios = append(ro.ExtraScenarios, os.DirFS(dir))
		ro.ExtraScenarioNames = append(ro.ExtraScenarioNames, dir)
	}
	if opts.GodogFormat != "" && opts.GodogOutput != nil {
		ro.Format, ro.Output = opts.GodogFormat, opts.GodogOutput
	}
	closeWiring := func() {}
	// A target over HTTP (driver protocol v1) always reaches the model over
	// HTTP.
	if _, overHTTP := tgt.(*httptarget.Target); opts.ServeModel || overHTTP {
		w, err := httptarget.NewWiringWith(net.JoinHostPort("127.0.0.1", "0"), limits.Default())
		if err != nil {
			return runner.Options{}, nil, fmt.Errorf("acktest: serve the model: %w", err)
		}
		ro.Wiring = w
		closeWiring = func() { _ = w.Close() }
	}
	return ro, closeWiring, nil
}

// judge reports a scenario's result on its subtest: a pass passes; a
// scenario that does not apply is skipped, saying why; a failure the
// baseline expects, or a warning, is logged; anything else fails the
// subtest, naming every failed check with its step, why and the evidence.
func judge(t *testing.T, s report.Scenario, base *baseline.File, level checks.Level) {
	t.Helper()
	switch s.Verdict {
	case report.Pass:
		return
	case report.NotApplicable:
		t.Skipf("not applicable: %s", s.Message)
	}
	out := baseline.Apply(base, &report.Run{Scenarios: []report.Scenario{s}})
	failed := len(out.Unexpected) > 0
	for _, h := range out.Expected {
		check := h.Check
		if check == "" {
			check = "the scenario"
		}
		t.Logf("expected failure (%s): %s %s: %s", base.Path, check, h.Verdict, h.Reason)
	}
	// Below MUST, a warning of a required level fails too (a baseline
	// lists MUST failures, errors and timeouts only).
	for id, v := range s.CheckVerdicts {
		if c, ok := checks.Lookup(id); ok && v == report.Warn && c.Level != checks.Must && required(c.Level, level) {
			failed = true
		}
	}
	if failed {
		t.Error(Describe(s))
		return
	}
	t.Log(Describe(s))
}

// required reports whether a check of level l counts at the run's level.
func required(l, at checks.Level) bool {
	rank := map[checks.Level]int{checks.Must: 0, checks.Should: 1, checks.May: 2}
	return rank[l] <= rank[at]
}

// Describe writes a scenario's result as a failed subtest logs it: the
// verdict and id, each failed or warned check with the step that found
// it and why, the step that could not go on, and the evidence.
func Describe(s report.Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  [%s]\n", strings.ToUpper(string(s.Verdict)), s.ID, strings.Join(s.Checks, " "))
	for _, f := range s.Findings {
		if f.Outcome != report.OutcomeFail {
			continue
		}
		level := ""
		if c, ok := checks.Lookup(f.Check); ok {
			level = " (" + string(c.Level) + ")"
		}
		fmt.Fprintf(&b, "  %s%s failed", f.Check, level)
		if harm := harmOf(f); harm != "" {
			fmt.Fprintf(&b, ", harm: %s", harm)
		}
		fmt.Fprintf(&b, "\n    step: %s\n    why:  %s\n", f.Step, strings.TrimPrefix(f.Message, f.Check+": "))
	}
	if s.FailedStep != "" && (s.Verdict == report.Error || s.Verdict == report.Timeout) {
		fmt.Fprintf(&b, "  step: %s\n", s.FailedStep)
	}
	if s.Message != "" {
		fmt.Fprintf(&b, "  message: %s\n", s.Message)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	if ev := report.EvidenceText(s.Evidence, EvidenceBytes); ev != "" {
		b.WriteString("  evidence:\n")
		for _, line := range strings.Split(strings.TrimRight(ev, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// harmOf is the harm a failed MUST assertion caused (a call refused by the
// provider, run against the user's answer, lost, crashed, forged), once
// findings carry one; "" until then.
func harmOf(report.Finding) string { return "" }

// applyBaseline applies the baseline to the whole run, knowing every
// scenario of the suite (so that an entry naming none is unknown).
// narrowed is true when the run holds fewer scenarios than the tags
// select: go test -run left some out, so an entry matching only passing
// scenarios of the run may fail in the others, and is not judged stale.
func applyBaseline(base *baseline.File, run *report.Run, ropts runner.Options) (*baseline.Outcome, bool, error) {
	listed, err := runner.List(ropts)
	if err != nil {
		return nil, false, err
	}
	expr, err := tagexpr.Parse(ropts.Tags)
	if err != nil {
		return nil, false, err
	}
	var suite []string
	selected := 0
	for _, l := range listed {
		suite = append(suite, l.ID)
		if expr.Match(l.Tags) {
			selected++
		}
	}
	return baseline.ApplySuite(base, run, suite), len(run.Scenarios) < selected, nil
}

// runFailures are the reasons the test as a whole fails, beyond its
// subtests: failures found only across the run (PRE-08 compares each
// scenario's generate and stream rows), stale and unknown baseline
// entries, and an interrupted run.
func runFailures(run *report.Run, base *baseline.File, out *baseline.Outcome, narrowed bool) []string {
	var msgs []string
	for _, s := range run.Scenarios {
		for _, f := range s.Findings {
			if f.Check == "PRE-08" && f.Outcome == report.OutcomeFail && strings.HasPrefix(f.Step, "(") && unexpectedHit(out, s.ID, f.Check) {
				msgs = append(msgs, fmt.Sprintf("PRE-08 failed across modes in %s: %s", s.ID, f.Message))
			}
		}
	}
	path := "the baseline"
	if base != nil {
		path = base.Path
	}
	if !narrowed {
		for _, e := range out.Stale {
			msgs = append(msgs, fmt.Sprintf("%s:%d: stale entry %s: it passes now (remove it)", path, e.Line, e))
		}
	}
	for _, e := range out.Unknown {
		msgs = append(msgs, fmt.Sprintf("%s:%d: entry %s names no scenario of the suite (misspelled, or renamed?)", path, e.Line, e))
	}
	if run.Interrupted != "" {
		msgs = append(msgs, fmt.Sprintf("the run was interrupted (%s): %d scenario(s) not run", run.Interrupted, run.NotRun))
	}
	return msgs
}

func unexpectedHit(out *baseline.Outcome, id, check string) bool {
	for _, h := range out.Unexpected {
		if h.Scenario == id && (h.Check == check || h.Check == "") {
			return true
		}
	}
	return false
}

// The environment FromEnv reads.
const (
	EnvTags             = "ACK_TAGS"
	EnvExpectedFailures = "ACK_EXPECTED_FAILURES"
	EnvReportDir        = "ACK_REPORT_DIR"
	EnvFormats          = "ACK_FORMATS"
	// EnvScenarios adds a directory of scenarios to Options.Scenarios.
	EnvScenarios = "ACK_SCENARIOS"
)

// FromEnv is opts with what the environment sets in place of its fields,
// so that CI (or the kit's certification runner) chooses them without a
// change to the test: ACK_TAGS (Tags), ACK_EXPECTED_FAILURES
// (ExpectedFailures), ACK_REPORT_DIR (ReportDir), ACK_FORMATS (Formats,
// comma-separated; "pretty", the summary, is the test's own log and is
// left out) and ACK_SCENARIOS (one more directory of Scenarios). An unset
// or empty variable leaves its field as it is.
func FromEnv(opts Options) Options {
	if v := os.Getenv(EnvTags); v != "" {
		opts.Tags = v
	}
	if v := os.Getenv(EnvScenarios); v != "" {
		opts.Scenarios = append(opts.Scenarios[:len(opts.Scenarios):len(opts.Scenarios)], v)
	}
	if v := os.Getenv(EnvExpectedFailures); v != "" {
		opts.ExpectedFailures = v
	}
	if v := os.Getenv(EnvReportDir); v != "" {
		opts.ReportDir = v
	}
	if v := os.Getenv(EnvFormats); v != "" {
		var formats []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" && f != "pretty" {
				formats = append(formats, f)
			}
		}
		opts.Formats = formats
	}
	return opts
}
