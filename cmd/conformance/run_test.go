package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/report"
)

// reportDir returns the one report directory a run wrote under root.
func reportDir(t *testing.T, root string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("report dirs under %s: %v (%v)", root, dirs, err)
	}
	return dirs[0]
}

func scenarioIDs(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Scenarios []struct {
			ID string `json:"id"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(r.Scenarios))
	for i, s := range r.Scenarios {
		ids[i] = s.ID
	}
	return ids
}

// Two shards run disjoint halves; merged, they are the whole run.
func TestShardsMergeIntoTheWholeRun(t *testing.T) {
	tmp := t.TempDir()
	tags := "@PRE-01,@DEN-01"
	whole, a, b := filepath.Join(tmp, "whole"), filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, c := range []struct{ root, shard string }{{whole, ""}, {a, "1/2"}, {b, "2/2"}} {
		args := []string{"run", "--reference", "--tags", tags, "--format", "json", "--report", c.root}
		if c.shard != "" {
			args = append(args, "--shard", c.shard)
		}
		if code, out, errOut := runCLI(args...); code != exitOK {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	all, ia, ib := scenarioIDs(t, reportDir(t, whole)), scenarioIDs(t, reportDir(t, a)), scenarioIDs(t, reportDir(t, b))
	if len(ia) == 0 || len(ib) == 0 || len(ia)+len(ib) != len(all) {
		t.Fatalf("shards ran %d and %d scenarios of %d", len(ia), len(ib), len(all))
	}
	seen := map[string]bool{}
	for _, id := range append(ia, ib...) {
		if seen[id] {
			t.Fatalf("%s ran in both shards", id)
		}
		seen[id] = true
	}
	out := filepath.Join(tmp, "merged")
	code, stdout, errOut := runCLI("report", "merge", "--out", out, reportDir(t, a), reportDir(t, b))
	if code != exitOK {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, errOut)
	}
	if got := scenarioIDs(t, out); len(got) != len(all) {
		t.Fatalf("the merged report has %d scenarios, want %d", len(got), len(all))
	}
	for _, f := range []string{"report.json", "junit.xml", "report.md", "report.html", "badge.json", "journal.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the merged report lacks %s", f)
		}
	}
}

const mutantFailures = `expectedFailures:
  - scenario: "five-calls-mixed-answers.yaml: *"
    reason: the mutant loses results
  - scenario: "independent-first-denied.yaml: *"
    reason: the mutant loses results
  - scenario: "abort-remaining-*"
    reason: the mutant loses results
  - scenario: "approve-by-tool-name-abort-remaining.yaml: *"
    reason: the mutant loses results
  - scenario: "answers-in-two-messages.yaml: *"
    reason: the mutant loses results
  - scenario: "mixed-answers-on-*"
    reason: the mutant loses results
  - scenario: "partial_denial.feature: under the abort-remaining policy, *"
    reason: the mutant loses results
  - scenario: "partial_denial.feature: a denied call among several leaves no call without a result (*"
    check: PART-01
    reason: the mutant loses results
  - scenario: "partial_denial.feature: a denied call among several leaves no call without a result (*"
    check: WIRE-01
    reason: the results it loses leave calls dangling
`

// baselineLines is how many lines mutantFailures has: an entry appended to
// it starts on the next.
var baselineLines = strings.Count(mutantFailures, "\n")

func TestExpectedFailures(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(file string) (int, string) {
		code, out, errOut := runCLI("run", "--mutant", "lost-results-on-partial-denial", "--tags", "@PART-01", "--expected-failures", file)
		return code, out + errOut
	}
	// Every failure expected: the run passes.
	// Its summary says so on the result line: no bare "Result: FAIL"
	// beside an exit code of 0.
	if code, out := run(write("all.yaml", mutantFailures)); code != exitOK || !strings.Contains(out, "0 unexpected, 0 stale") ||
		!strings.Contains(out, "Result: FAIL (EXPECTED): ") || !strings.Contains(out, "so the run holds its baseline") {
		t.Fatalf("a complete baseline: exit %d\n%s", code, out)
	}
	// A failure the baseline does not list fails the run.
	partial := strings.Join(strings.Split(mutantFailures, "\n")[:3], "\n") + "\n"
	if code, out := run(write("partial.yaml", partial)); code != exitFail || !strings.Contains(out, "UNEXPECTED FAIL  independent-first-denied.yaml") {
		t.Fatalf("an incomplete baseline: exit %d\n%s", code, out)
	}
	// An entry that passes is stale, and names its line.
	stale := write("stale.yaml", mutantFailures+"  - scenario: \"five-calls-all-denied.yaml: *\"\n    reason: fixed long ago\n")
	if code, out := run(stale); code != exitFail || !strings.Contains(out, "STALE      "+stale+fmt.Sprintf(":%d", baselineLines+1)) {
		t.Fatalf("a stale entry: exit %d\n%s", code, out)
	}
	// A broken file is a harness error naming the line.
	if code, out := run(write("bad.yaml", "expectedFailures:\n  - scenario: x\n")); code != exitHarness || !strings.Contains(out, "bad.yaml") {
		t.Fatalf("a broken baseline: exit %d\n%s", code, out)
	}
	// An entry that names no scenario of the suite is a mistake in the
	// file: named by its line, with what it meant, before the run (exit 2,
	// no run); one left out by the tags is named as not run.
	typo := write("typo.yaml", mutantFailures+"  - scenario: \"five-calls-mixed-answrs.yaml: *\"\n    reason: misspelled\n")
	if code, out := run(typo); code != exitHarness || strings.Contains(out, "Result:") || !strings.Contains(out, typo+fmt.Sprintf(`:%d: "five-calls-mixed-answrs.yaml: *" names no scenario of the suite (did you mean "five-calls-mixed-answers.yaml: *"?)`, baselineLines+1)) {
		t.Fatalf("a misspelled entry: exit %d\n%s", code, out)
	}
	notRun := write("notrun.yaml", mutantFailures+"  - scenario: \"wire.feature: *\"\n    reason: left out by the tags\n")
	if code, out := run(notRun); code != exitOK || !strings.Contains(out, "NOT RUN    "+notRun+fmt.Sprintf(":%d  wire.feature: *", baselineLines+1)) {
		t.Fatalf("an entry left out by the tags: exit %d\n%s", code, out)
	}
	// Mistakes in the file say where and what is allowed, never a Go type.
	for doc, want := range map[string]string{
		"":                                      "empty.yaml: the file is empty",
		"expectedFailure:\n  - {scenario: x}\n": "empty.yaml:1: expectedFailure: unknown field (allowed: expectedFailures)",
	} {
		code, out := run(write("empty.yaml", doc))
		if code != exitHarness || !strings.Contains(out, want) || strings.Contains(out, "struct") || strings.Contains(out, "EOF") {
			t.Errorf("%q: exit %d\n%s", doc, code, out)
		}
	}
}

// A YAML file in a directory given with --scenarios runs with no Go change.
func TestExtraScenarios(t *testing.T) {
	dir := t.TempDir()
	yaml := `title: A deliberately wrong expectation, to prove the file runs
checks: [REQ-01]
tools:
  - name: deleteFile
    approval: never
turns:
  - model:
      - toolCalls:
          - {id: c1, tool: deleteFile, input: {path: /a}}
      - text: Deleted.
    say: delete a
    expect:
      runs: {c1: 0}
`
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("run", "--reference", "--scenarios", dir, "--tags", "@REQ-01")
	if code != exitFail || !strings.Contains(out, "mine.yaml: A deliberately wrong expectation") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI("scenario", "show", filepath.Join(dir, "mine.yaml"))
	if code != exitOK || !strings.Contains(out, "Scenario Outline:") || !strings.Contains(out, "@REQ-01") {
		t.Fatalf("scenario show: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("title: x\nchecks: [REQ-01]\nturns:\n  - model: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI("scenario", "check", bad)
	if code != exitFail || !strings.Contains(errOut, "bad.yaml:4") {
		t.Fatalf("scenario check: exit %d: %s", code, errOut)
	}
	// A broken file of --scenarios is named by its path, not its base name.
	code, _, errOut = runCLI("run", "--reference", "--scenarios", dir)
	if code != exitHarness || !strings.Contains(errOut, bad+":4") {
		t.Fatalf("run --scenarios with a broken file: exit %d: %s", code, errOut)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--reference", "--format", "pdf"},
		{"run", "--reference", "--shard", "3/2"},
		{"run", "--reference", "--shard", "x"},
		{"run", "--reference", "--scenarios", "/no/such/dir"},
		{"run", "--reference", "--mutant", "late-resolution"},
		{"run", "--reference", "--progress", "sometimes"},
		{"run", "--reference", "--expected-failures", "/no/such/file.yaml"},
		{"report"}, {"report", "merge"}, {"report", "merge", "/no/such/dir"},
		{"scenario"}, {"scenario", "show"}, {"scenario", "frob", "x"},
	} {
		if code, _, _ := runCLI(args...); code != exitHarness {
			t.Errorf("%v: exit %d, want %d", args, code, exitHarness)
		}
	}
}

// The Action passes flags to `conformance run`; every one must exist.
func TestActionUsesRealFlags(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, help := runCLI("run", "-h")
	used := regexp.MustCompile(`(?:\(|\s)--([a-z-]+)\b`).FindAllStringSubmatch(string(data), -1)
	if len(used) < 5 {
		t.Fatalf("found only %d flags in action.yml", len(used))
	}
	for _, m := range used {
		if !strings.Contains(help, "  -"+m[1]+" ") && !strings.Contains(help, "  -"+m[1]+"\n") {
			t.Errorf("action.yml passes --%s, which conformance run does not define", m[1])
		}
	}
}

// Two runs of one target in the same second keep both reports: each set
// has a folder of its own.
func TestReportsOfRunsInTheSameSecondAreKept(t *testing.T) {
	root := t.TempDir()
	code, out, errOut := runCLI("run", "--reference", "--tags", "@PRE-01", "--format", "json", "--report", root)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	first := reportDir(t, root)
	// A second run in the same second: the timestamp's folder is taken.
	r, err := report.ReadJSON(filepath.Join(first, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deliver(io.Discard, r, false, []string{"json"}, destination{root: root}, nil, nil); err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "*"))
	if len(dirs) != 2 || dirs[1] != first+"-2" {
		t.Fatalf("report folders %v, want %s and %s-2", dirs, first, first)
	}
	if ids := scenarioIDs(t, first); len(ids) == 0 {
		t.Error("the first report was lost")
	}
}

// An unwritable --report is found before the run, not after it.
func TestUnwritableReportFolderIsFoundFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	code := run(context.Background(), []string{"run", "--reference", "--report", filepath.Join(file, "reports"), "--progress", "always"}, io.Discard, &progress)
	if code != exitHarness || !strings.Contains(progress.String(), "--report") || strings.Contains(progress.String(), "scenarios:") {
		t.Errorf("exit %d, stderr:\n%s", code, progress.String())
	}
}

// The progress line counts against the total, and a log gets it even for
// a run of a few scenarios.
func TestProgressShowsTheTotal(t *testing.T) {
	code, _, errOut := runCLI("run", "--reference", "--tags", "@PRE-01", "--progress", "always")
	last := regexp.MustCompile(`(?m)^(\d+)/(\d+) scenarios: (\d+) pass\n\z`).FindStringSubmatch(errOut)
	if code != exitOK || last == nil || last[1] != last[2] || last[1] != last[3] || strings.Count(errOut, "/"+last[2]+" scenarios") < 5 {
		t.Errorf("exit %d, progress:\n%s", code, errOut)
	}
}

// A usage error shows the command's usage, not the general help.
func TestUsageErrorShowsTheCommandsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "conformance run --reference | --target URL"},
		{[]string{"run", "--reference", "--tags", "@PRE-01 &&"}, "conformance run --reference | --target URL"},
		{[]string{"run", "--reference", "--tags", ","}, "conformance run --reference | --target URL"},
		{[]string{"report", "merge"}, "conformance report merge [--out DIR]"},
		{[]string{"scenario", "frob"}, "conformance scenario check FILE..."},
		{[]string{"checks", "--format", "pdf"}, "conformance checks [--format"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != exitHarness || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "Commands:") {
			t.Errorf("%v: exit %d, stderr:\n%s", c.args, code, errOut)
		}
		if strings.Count(errOut, "conformance "+c.args[0]+": ") != 1 {
			t.Errorf("%v: the error is not said once, by its command:\n%s", c.args, errOut)
		}
	}
}

// report merge refuses a set that is not every shard of one run, once.
func TestMergeRefusesAnIncompleteSet(t *testing.T) {
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	if code, out, errOut := runCLI("run", "--reference", "--tags", "@PRE-01,@DEN-01", "--shard", "1/2", "--format", "json", "--report", a); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, dirs := range [][]string{{reportDir(t, a)}, {reportDir(t, a), reportDir(t, a)}} {
		code, out, errOut := runCLI(append([]string{"report", "merge", "--out", filepath.Join(tmp, "m")}, dirs...)...)
		if code != exitHarness || strings.Contains(out, "PASS") || !strings.Contains(errOut, "shard") {
			t.Errorf("merge %d dirs: exit %d\n%s\n%s", len(dirs), code, out, errOut)
		}
	}
}

// report merge proves the shards cover one suite's selection exactly
// once: a shard run with other --tags, or whose report.json lost its
// scenarios, is refused (exit 2, no PASS), however well the rest went.
func TestMergeRefusesShardsOfAnotherSelection(t *testing.T) {
	tmp := t.TempDir()
	shard := func(name, tags, n string) string {
		root := filepath.Join(tmp, name)
		if code, out, errOut := runCLI("run", "--reference", "--tags", tags, "--shard", n, "--format", "json", "--report", root); code != exitOK {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		return reportDir(t, root)
	}
	a, b, other := shard("a", "@PRE-05,@REQ-02", "1/2"), shard("b", "@PRE-05,@REQ-02", "2/2"), shard("c", "@REQ-02", "2/2")
	emptied := filepath.Join(tmp, "emptied")
	if err := os.MkdirAll(emptied, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := report.ReadJSON(filepath.Join(b, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	r.Scenarios = nil
	r.Aggregate(r.Level)
	if _, err := report.WriteDir(filepath.Join(emptied, "r"), r, report.FormatJSON); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		dirs []string
		want string
	}{
		"other tags":      {[]string{a, other}, `the shards ran other selections: --tags "@PRE-05,@REQ-02" in ` + a + `, --tags "@REQ-02" in ` + other},
		"a shard emptied": {[]string{a, filepath.Join(emptied, "r")}, "holds 0 scenarios of the"},
	} {
		code, out, errOut := runCLI(append([]string{"report", "merge", "--out", filepath.Join(tmp, "m-"+strings.ReplaceAll(name, " ", "-"))}, c.dirs...)...)
		if code != exitHarness || strings.Contains(out, "PASS") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d\n%s\n%s", name, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI("report", "merge", "--out", filepath.Join(tmp, "m"), a, b); code != exitOK {
		t.Errorf("the whole set: exit %d\n%s\n%s", code, out, errOut)
	}
}

// make fuzz runs every fuzz target of the module.
func TestMakeFuzzRunsEveryFuzzTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\t([a-z/]+:Fuzz\w+)(?: \\)?$`).FindAllStringSubmatch(string(makefile), -1) {
		listed[m[1]] = true
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(data), -1) {
			found++
			if name := filepath.ToSlash(rel) + ":" + m[1]; !listed[name] {
				t.Errorf("make fuzz does not run %s (add it to FUZZ_TARGETS)", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 || len(listed) != found {
		t.Errorf("%d fuzz targets found, %d listed in the Makefile", found, len(listed))
	}
}
