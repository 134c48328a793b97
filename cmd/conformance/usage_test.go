package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rep "github.com/approval-conformance-kit/ack/report"
)

// A mistake on the command line says what is wrong, with what was most
// likely meant, and how the command is called; it does not print every
// flag (-h does).
func TestMistakesGetADidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `unknown command "rnu" (did you mean "run"?)`},
		{[]string{"run", "--tgas", "@PRE-01"}, "unknown flag --tgas (did you mean --tags?)"},
		{[]string{"run", "--reference", "--level", "sould"}, `(did you mean "should"?)`},
		{[]string{"run", "--reference", "--tags", "@PRE-1"}, `@PRE-1 names no tag of the suite (did you mean "@PRE-01"?)`},
		{[]string{"baseline", "int"}, `unknown subcommand "int" (want init or check) (did you mean "init"?)`},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != exitHarness || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.args, code, c.want, out, errOut)
		}
		if strings.Contains(errOut, "-body-timeout") {
			t.Errorf("%v: a mistake prints every flag:\n%s", c.args, errOut)
		}
	}
	if _, _, errOut := runCLI("run", "-h"); !strings.Contains(errOut, "-body-timeout") {
		t.Errorf("run -h does not print the flags:\n%s", errOut)
	}
}

// run --scenarios names every file of the folder that does not load, not
// the first, and refuses a folder with no scenario; scenario check names
// a misspelled check with what was meant.
func TestScenarioFolderMistakes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	for name, text := range map[string]string{
		"a.yaml":     "title: x\n",
		"b.yaml":     "title: y\nchecks: [PRE-1]\n",
		"sub/c.yaml": "titel: z\n",
	} {
		p := filepath.Join(bad, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI("run", "--reference", "--scenarios", bad)
	for _, want := range []string{
		"3 scenario files do not load",
		filepath.Join(bad, "a.yaml") + ":1: checks: name at least one check id",
		filepath.Join(bad, "b.yaml") + `:1: checks: unknown check "PRE-1" (did you mean "PRE-01"?)`,
		filepath.Join(bad, "sub", "c.yaml") + ":1: titel: unknown field (did you mean title?)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("run --scenarios: the error lacks %q\n%s", want, errOut)
		}
	}
	if code != exitHarness || strings.Contains(out, "Result:") {
		t.Errorf("run --scenarios with bad files: exit %d, want 2 and no run\n%s", code, out)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI("run", "--reference", "--scenarios", empty); code != exitHarness || !strings.Contains(errOut, empty+": holds no YAML scenario") {
		t.Errorf("run --scenarios EMPTY: exit %d, want 2 naming the folder\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI("run", "--dry-run", "--tags", "@PRE-01"); code != exitOK || !strings.Contains(out, "scenarios of the suite selected; nothing run") {
		t.Errorf("run --dry-run: exit %d\n%s%s", code, out, errOut)
	}
}

// A baseline entry that names no scenario of the suite is a mistake in
// the file: run refuses it before running anything, exit 2 (not 1, a
// conformance failure), naming its line and the id it most likely meant.
func TestMisspelledBaselineEntryIsAUsageError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "expected.yaml")
	text := "expectedFailures:\n  - scenario: \"pre_resolution.featur: *\"\n    reason: a typo\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("run", "--reference", "--tags", "@PRE-01", "--expected-failures", file)
	if code != exitHarness || strings.Contains(out, "Result:") || !strings.Contains(errOut, file+`:2: "pre_resolution.featur: *" names no scenario of the suite (did you mean "pre_resolution.feature: *"?)`) {
		t.Errorf("exit %d, want 2 before any run\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runCLI("baseline", "check", file); code != exitHarness || !strings.Contains(errOut, "did you mean") {
		t.Errorf("baseline check: exit %d\n%s", code, errOut)
	}
}

// baseline init writes a first baseline from a report: an entry per
// failure, each reason left to write; the file does not load until the
// reasons are written, then holds the run (report merge applies it).
func TestBaselineInit(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "run", "report.json")
	gunzip(t, filepath.Join("..", "..", "report", "testdata", "late-resolution.report.json.gz"), report)
	// The fixture predates the suite's record in report.json, which merge
	// needs: the record a run writes today.
	r, err := rep.ReadJSON(report)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range r.Scenarios {
		ids = append(ids, s.ID)
	}
	r.Suite = &rep.Suite{Digest: "fixture", Scenarios: len(ids), Selection: rep.SelectionDigest(ids)}
	if err := os.Remove(report); err != nil {
		t.Fatal(err)
	}
	if _, err := rep.WriteDir(filepath.Dir(report), r, rep.FormatJSON); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "expected-failures.yaml")
	code, stdout, errOut := runCLI("baseline", "init", filepath.Dir(report), "--out", out)
	if code != exitOK || !strings.Contains(stdout, "entries written; write each reason") {
		t.Fatalf("baseline init: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, _, errOut := runCLI("baseline", "init", report, "--out", out); code != exitHarness || !strings.Contains(errOut, "the file exists") {
		t.Errorf("baseline init over a file: exit %d, want 2\n%s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("report", "merge", "--out", filepath.Join(dir, "m1"), "--expected-failures", out, filepath.Dir(report)); code != exitHarness || !strings.Contains(errOut, "reason: say why") {
		t.Errorf("a baseline whose reasons are not written: exit %d, want 2\n%s", code, errOut)
	}
	filled := strings.ReplaceAll(string(data), `reason: ""`, `reason: "the mutant resolves late"`)
	if err := os.WriteFile(out, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut = runCLI("report", "merge", "--out", filepath.Join(dir, "m2"), "--expected-failures", out, filepath.Dir(report))
	if code != exitOK || !strings.Contains(stdout, "FAIL (EXPECTED)") {
		t.Errorf("the baseline written from the run does not hold it: exit %d\n%s%s", code, stdout, errOut)
	}
}

func gunzip(t *testing.T, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
