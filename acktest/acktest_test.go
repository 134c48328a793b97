package acktest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// The environment that makes the test binary, run again by a test,
// certify the mutant ACKTEST_MUTANT names ("reference": the reference)
// with the baseline ACKTEST_BASELINE and the report in ACKTEST_REPORT.
const (
	childMutant   = "ACKTEST_MUTANT"
	childBaseline = "ACKTEST_BASELINE"
	childReport   = "ACKTEST_REPORT"
	// childTags selects the scenarios the child runs.
	childTags = "@PRE-09"
)

// TestChild is the certification the other tests run in a child process,
// where its failures are what they look at.
func TestChild(t *testing.T) {
	name := os.Getenv(childMutant)
	if name == "" {
		t.Skip("run by TestMutantFailsItsSubtests in a child process")
	}
	var tgt target.Target = inprocess.New(reference.New(), "reference")
	if name != "reference" {
		// A mutant is the kit built with its change: its own program,
		// served behind driver protocol v1.
		m, err := mutants.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := mutants.NewBuilder()
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		ht, stop, err := b.Target(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		tgt = ht
	}
	acktest.Run(t, tgt, acktest.Options{
		Tags:             childTags,
		ExpectedFailures: os.Getenv(childBaseline),
		ReportDir:        os.Getenv(childReport),
	})
}

// child runs TestChild (narrowed by run, a go test -run pattern under it)
// against the mutant and returns its verbose output and whether it passed.
func child(t *testing.T, mutant, run, baselineFile, reportDir string) (string, bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChild$"+run, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childMutant+"="+mutant, childBaseline+"="+baselineFile, childReport+"="+reportDir)
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatal(err)
	}
	return string(out), err == nil
}

// failedSubtests lists the subtests the output says failed.
func failedSubtests(out string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^    --- FAIL: TestChild/(\S+)`).FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// named is a subtest's name: its checks, then its id ("file: name").
var named = regexp.MustCompile(`^[A-Z]+-[0-9]+(,[A-Z]+-[0-9]+)*_[^/]+?\.(feature|yaml):_`)

func TestMutantFailsItsSubtests(t *testing.T) {
	out, ok := child(t, "late-resolution", "", "", "")
	if ok {
		t.Fatalf("a mutant that resolves approvals late passed:\n%s", out)
	}
	failed := failedSubtests(out)
	if len(failed) == 0 {
		t.Fatalf("no subtest failed:\n%s", out)
	}
	for _, name := range failed {
		if !named.MatchString(name) || !strings.Contains(name, "PRE-09") {
			t.Errorf("subtest %s is not named by its checks (PRE-09 among them) and its id", name)
		}
	}
	if !regexp.MustCompile(`PRE-01\s+MUST\s+fail`).MatchString(out) {
		t.Errorf("the verdict per check lacks PRE-01 failing:\n%s", out)
	}
	for _, want := range []string{"FAIL  ", "PRE-01 (MUST) failed", "step: ", "why:  ", "evidence:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunPatternSelectsOneScenario(t *testing.T) {
	all, _ := child(t, "late-resolution", "", "", "")
	failed := failedSubtests(all)
	if len(failed) < 2 {
		t.Fatalf("want several failed subtests to pick one from, got %v", failed)
	}
	one := failed[0]
	out, ok := child(t, "late-resolution", "/^"+regexp.QuoteMeta(one)+"$", "", "")
	if ok {
		t.Fatalf("the failing subtest passed alone:\n%s", out)
	}
	if got := failedSubtests(out); len(got) != 1 || got[0] != one {
		t.Errorf("go test -run selected %v, want [%s]", got, one)
	}
	if !strings.Contains(out, "1 scenario: ") {
		t.Errorf("the summary does not count the one scenario that ran:\n%s", out)
	}
}

func TestBaselineExpectsFailures(t *testing.T) {
	out, _ := child(t, "late-resolution", "", "", "")
	failed := failedSubtests(out)
	if len(failed) == 0 {
		t.Fatalf("no subtest failed:\n%s", out)
	}
	// Every failed scenario, expected: the run passes. Its ids are the
	// report's, from the JSON report of the run (which holds the
	// scenarios that did not pass).
	dir := t.TempDir()
	if _, ok := child(t, "late-resolution", "", "", dir); ok {
		t.Fatal("the run passed without a baseline")
	}
	run := readReport(t, dir)
	var b strings.Builder
	b.WriteString("expectedFailures:\n")
	for _, s := range run.Scenarios {
		if s.Verdict != report.Pass && s.Verdict != report.NotApplicable && s.Verdict != report.Warn {
			fmt.Fprintf(&b, "  - scenario: %q\n    reason: late resolution\n", s.ID)
		}
	}
	path := filepath.Join(t.TempDir(), "expected.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ok := child(t, "late-resolution", "", path, "")
	if !ok {
		t.Fatalf("a run whose every failure is expected failed:\n%s", out)
	}
	if !strings.Contains(out, "expected failure ("+path+")") {
		t.Errorf("the expected failures are not logged:\n%s", out)
	}

	// Against the reference, which passes them all, an entry is stale:
	// the run fails, naming it.
	stale := fmt.Sprintf("expectedFailures:\n  - scenario: %q\n    reason: stale\n", run.Scenarios[0].ID)
	if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ok = child(t, "reference", "", path, "")
	if ok || !strings.Contains(out, "stale entry "+run.Scenarios[0].ID) {
		t.Errorf("a stale entry did not fail the run with its name:\n%s", out)
	}
}

func readReport(t *testing.T, root string) *report.Run {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(root, "*", "*", "report.json"))
	if len(matches) != 1 {
		t.Fatalf("want one report.json under %s, got %v", root, matches)
	}
	run, err := report.ReadJSON(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestSubtestsAsPlainRun: the scenarios run in subtests get the verdicts
// the runner gives them without godog.
func TestSubtestsAsPlainRun(t *testing.T) {
	tgt := inprocess.New(reference.New(), "reference")
	plain, err := runner.Run(context.Background(), runner.Options{Target: tgt, Tags: "@PRE-11"})
	if err != nil {
		t.Fatal(err)
	}
	var sub *report.Run
	t.Run("sub", func(t *testing.T) {
		sub = acktest.Run(t, tgt, acktest.Options{Tags: "@PRE-11"})
	})
	if sub == nil {
		t.Fatal("no run")
	}
	want := map[string]report.Verdict{}
	for _, s := range plain.Scenarios {
		want[s.ID] = s.Verdict
	}
	got := map[string]report.Verdict{}
	for _, s := range sub.Scenarios {
		got[s.ID] = s.Verdict
	}
	if len(got) != len(want) {
		t.Errorf("%d scenarios in subtests, %d in a plain run", len(got), len(want))
	}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: %q in subtests, %q in a plain run", id, got[id], v)
		}
	}
}

func TestBadOptionsAreNamed(t *testing.T) {
	tgt := inprocess.New(reference.New(), "reference")
	for _, tc := range []struct {
		opts acktest.Options
		want string
	}{
		{acktest.Options{Level: "OFTEN"}, `Options.Level: unknown level "OFTEN"`},
		{acktest.Options{Formats: []string{"pdf"}}, `Options.Formats: unknown format "pdf"`},
		{acktest.Options{ExpectedFailures: filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml"},
		{acktest.Options{Tags: "@PRE-01 and"}, "and"},
		{acktest.Options{Scenarios: []string{filepath.Join(t.TempDir(), "none")}}, "Options.Scenarios"},
	} {
		_, _, err := acktest.Certify(context.Background(), tgt, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.opts, err, tc.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(acktest.EnvTags, "@PRE-01")
	t.Setenv(acktest.EnvExpectedFailures, "base.yaml")
	t.Setenv(acktest.EnvReportDir, "")
	t.Setenv(acktest.EnvFormats, "pretty,json, md")
	t.Setenv(acktest.EnvScenarios, "/tmp/more")
	got := acktest.FromEnv(acktest.Options{Tags: "@agent", ReportDir: "keep", Formats: []string{"html"}, Scenarios: []string{"own"}})
	if got.Tags != "@PRE-01" || got.ExpectedFailures != "base.yaml" || got.ReportDir != "keep" || strings.Join(got.Formats, ",") != "json,md" || strings.Join(got.Scenarios, ",") != "own,/tmp/more" {
		t.Errorf("FromEnv = %+v", got)
	}
}

// TestScenariosRunBesideTheSuite: a directory of Options.Scenarios runs
// with the suite's scenarios, as conformance run --scenarios does.
func TestScenariosRunBesideTheSuite(t *testing.T) {
	dir := t.TempDir()
	const yaml = `title: An approved call runs once
checks: [REQ-01, PRE-01]
tags: [from-dir]
tools:
  - name: ship
    approval: always
turns:
  - model:
      - toolCalls:
          - {id: s1, tool: ship, input: {to: home}}
    say: ship it
    expect: {approvals: [s1], check: REQ-01}
  - model:
      - text: Shipped.
    approve: [s1]
    expect: {ran: [s1], check: PRE-01}
`
	if err := os.WriteFile(filepath.Join(dir, "extra.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	tgt := inprocess.New(reference.New(), "reference")
	run, _, err := acktest.Certify(context.Background(), tgt, acktest.Options{Scenarios: []string{dir}, Tags: "@from-dir"})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) != 2 {
		t.Fatalf("%d scenarios ran, want the file's two (generate, stream)", len(run.Scenarios))
	}
	for _, s := range run.Scenarios {
		if !strings.HasPrefix(s.ID, "extra.yaml: ") || s.Verdict != report.Pass {
			t.Errorf("%s: %s, want extra.yaml's scenario passing on the reference", s.ID, s.Verdict)
		}
	}
}
