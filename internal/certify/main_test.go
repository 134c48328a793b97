package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// adaptersWith makes an adapters folder holding the named adapters, each
// with a certify.sh.
func adaptersWith(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n, "certify.sh"), []byte("#!/usr/bin/env bash\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestManifestReadsEveryField(t *testing.T) {
	adapters := adaptersWith(t, "tanstack")
	m, err := parseManifest("certify.yaml", []byte(`certifications:
  - adapter: tanstack
    version: 0.33.2
    path: canonical
    adapterFlags: [--model-api, canonical]
    tags: "@agent"
    about: the application's own model
    ci: true
    held:
      - {check: ERR-01, reason: the kit reads DEN-01's rule}
    choices:
      - {choice: step limit, value: "5", moves: [REQ-01, REQ-06], why: the docs loop}
    regressions: {scenarios: adapters/tanstack/regressions, expectedFailures: r.yaml, about: T1}
  - adapter: tanstack
    version: 0.4.5
`), adapters)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Certifications) != 2 {
		t.Fatalf("%d certifications, want 2", len(m.Certifications))
	}
	c := m.Certifications[0]
	if c.ID() != "tanstack@0.33.2-canonical" || !c.CI || c.Tags != "@agent" || strings.Join(c.AdapterFlags, " ") != "--model-api canonical" || c.Line != 2 {
		t.Errorf("first: %+v (id %s)", c, c.ID())
	}
	if !c.IsHeld("ERR-01") || c.IsHeld("PRE-01") {
		t.Errorf("held: %+v", c.Held)
	}
	if len(c.Choices) != 1 || c.Choices[0].Value != "5" || strings.Join(c.Choices[0].Moves, " ") != "REQ-01 REQ-06" || c.Choices[0].Why != "the docs loop" {
		t.Errorf("choices: %+v", c.Choices)
	}
	if r := c.Regressions; r == nil || r.Scenarios != "adapters/tanstack/regressions" || r.ExpectedFailures != "r.yaml" || r.About != "T1" {
		t.Errorf("regressions: %+v", c.Regressions)
	}
	if m.Certifications[1].Regressions != nil {
		t.Errorf("a certification without regressions has %+v", m.Certifications[1].Regressions)
	}
	if id := m.Certifications[1].ID(); id != "tanstack@0.4.5" {
		t.Errorf("a certification without a path is %s, want tanstack@0.4.5", id)
	}
}

func TestManifestErrorsNameTheLine(t *testing.T) {
	adapters := adaptersWith(t, "tanstack")
	for name, tc := range map[string]struct{ doc, want string }{
		"unknown field":            {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    verison: 2\n", "line 4: field verison not found"},
		"no adapter":               {"certifications:\n  - version: 1.0.0\n", "certify.yaml:2: certifications[0].adapter"},
		"no certify.sh":            {"certifications:\n  - adapter: effect\n    version: 1.0.0\n", "certify.yaml:2: certifications[0].adapter: " + filepath.Join(adapters, "effect") + " has no certify.sh"},
		"bad version":              {"certifications:\n  - adapter: tanstack\n    version: ../x\n", "certifications[0].version"},
		"bad path":                 {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    path: Wire Path\n", "certifications[0].path"},
		"bad tags":                 {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    tags: \"@agent and\"\n", "certifications[0].tags"},
		"dash dash":                {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    adapterFlags: [--, --tags]\n", "adapterFlags[0]"},
		"duplicate":                {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n  - adapter: tanstack\n    version: 1.0.0\n", "certify.yaml:4: certifications[1]: tanstack@1.0.0 is already listed on line 2"},
		"unknown held":             {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    held: [{check: XYZ-01, reason: r}]\n", "held[0].check: unknown check"},
		"held, no why":             {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    held: [{check: ERR-01}]\n", "held[0].reason"},
		"choice, no why":           {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    choices: [{choice: c, value: v, moves: [REQ-01]}]\n", "certify.yaml:2: certifications[0].choices[0].why"},
		"choice, no moves":         {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    choices: [{choice: c, value: v, why: w}]\n", "choices[0].moves"},
		"choice, bad check":        {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    choices: [{choice: c, value: v, moves: [XYZ-01], why: w}]\n", "choices[0].moves[0]: unknown check"},
		"choice, no value":         {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    choices: [{choice: c, moves: [REQ-01], why: w}]\n", "choices[0].value"},
		"regressions, no dir":      {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    regressions: {expectedFailures: b.yaml, about: D4}\n", "certify.yaml:2: certifications[0].regressions.scenarios"},
		"regressions, no baseline": {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    regressions: {scenarios: r, about: D4}\n", "regressions.expectedFailures"},
		"regressions, no about":    {"certifications:\n  - adapter: tanstack\n    version: 1.0.0\n    regressions: {scenarios: r, expectedFailures: b.yaml}\n", "regressions.about"},
		"empty":                    {"", "empty"},
		"no entries":               {"certifications: []\n", "no entry"},
	} {
		_, err := parseManifest("certify.yaml", []byte(tc.doc), adapters)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", name, err, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	m := &Manifest{Path: "certify.yaml", Certifications: []Certification{
		{Adapter: "tanstack", Version: "0.33.2", Path: "wire", CI: true},
		{Adapter: "tanstack", Version: "0.4.5"},
		{Adapter: "effect", Version: "4.1.0", Path: "wire", CI: true},
	}}
	ids := func(cs []Certification) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID())
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		names []string
		ci    bool
		want  string
	}{
		{nil, false, "tanstack@0.33.2-wire tanstack@0.4.5 effect@4.1.0-wire"},
		{nil, true, "tanstack@0.33.2-wire effect@4.1.0-wire"},
		{[]string{"tanstack"}, false, "tanstack@0.33.2-wire tanstack@0.4.5"},
		{[]string{"effect@4.1.0-wire", "tanstack@0.4.5"}, false, "tanstack@0.4.5 effect@4.1.0-wire"},
	} {
		got, err := m.Select(tc.names, tc.ci)
		if err != nil || ids(got) != tc.want {
			t.Errorf("Select(%v, ci %v) = %q, %v; want %q", tc.names, tc.ci, ids(got), err, tc.want)
		}
	}
	if _, err := m.Select([]string{"tanstack@0.4.5"}, true); err == nil || !strings.Contains(err.Error(), `no certification "tanstack@0.4.5"`) {
		t.Errorf("a name CI does not run: %v", err)
	}
}

// run2 is a run with two scenarios: a passing one and one whose PRE-02
// fails and PRE-12 warns.
func run2() *report.Run {
	r := &report.Run{Target: "fake sdk", TargetInfo: map[string]any{"name": "fake sdk", "sdk": "fake", "sdkVersion": "1.0.0"}, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Scenarios: []report.Scenario{
		{ID: "a.feature: one", Feature: "a", Name: "one", Source: "a.feature", Tags: []string{"agent"}, Checks: []string{"PRE-01"},
			CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Pass}, Verdict: report.Pass},
		{ID: "a.feature: two", Feature: "a", Name: "two", Source: "a.feature", Tags: []string{"agent"}, Checks: []string{"PRE-02", "PRE-12"},
			CheckVerdicts: map[string]report.Verdict{"PRE-02": report.Fail, "PRE-12": report.Warn}, Verdict: report.Fail, Message: "PRE-02: call_1 ran"},
	}}
	r.Aggregate(checks.Must)
	return r
}

func TestDrift(t *testing.T) {
	if d := Drift(run2(), run2()); len(d) != 0 {
		t.Errorf("the same verdicts drift: %q", d)
	}
	fixed := run2()
	fixed.Scenarios[1].CheckVerdicts["PRE-02"] = report.Pass
	fixed.Scenarios[1].Verdict = report.Warn
	fixed.Scenarios = append(fixed.Scenarios, report.Scenario{ID: "b.feature: new", Feature: "b", Name: "new", Source: "b.feature", Checks: []string{"PRE-03"}, CheckVerdicts: map[string]report.Verdict{"PRE-03": report.Pass}, Verdict: report.Pass})
	fixed.Aggregate(checks.Must)
	got := strings.Join(Drift(run2(), fixed), "\n")
	for _, want := range []string{
		"check PRE-02: pass, was fail",
		"check PRE-03: pass, was absent",
		`scenario "a.feature: two": warn, was fail`,
		`scenario "a.feature: two": PRE-02 pass, was fail`,
		`scenario "b.feature: new": new (pass)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("drift lacks %q:\n%s", want, got)
		}
	}
	if back := strings.Join(Drift(fixed, run2()), "\n"); !strings.Contains(back, `scenario "b.feature: new": no longer run (was pass)`) {
		t.Errorf("a scenario no longer run:\n%s", back)
	}
}

func TestRenderReadme(t *testing.T) {
	pubs := []Published{
		{Certification: Certification{Adapter: "fake", Version: "1.0.0", Path: "wire", About: "the | wire", Held: []Held{{Check: "PRE-12", Reason: "kit"}},
			Choices: []Choice{{Choice: "step limit", Value: "5", Moves: []string{"REQ-01", "REQ-06"}, Why: "the docs | loop"}}}, Run: run2(), Findings: true, Baseline: true},
		{Certification: Certification{Adapter: "fake", Version: "0.9.0"}},
	}
	doc := RenderReadme("adapters/certify.yaml", pubs)
	for _, want := range []string{
		"| [fake@1.0.0-wire](certified/fake@1.0.0-wire/) | fake 1.0.0 | the \\| wire | [![fail: 1 MUST check](https://img.shields.io/badge/approval%20conformance-fail:%201%20MUST%20check-red)](dashboard.html#fake@1.0.0-wire) |",
		"[findings](certified/fake@1.0.0-wire/FINDINGS.md), [baseline](certified/fake@1.0.0-wire/expected-failures.yaml)",
		"(1 held back)",
		"| fake@0.9.0 | 0.9.0 |  | not published |",
		"| [PRE-01](../docs/checks.md#pre-01) | MUST | ✅ |",
		"| [PRE-02](../docs/checks.md#pre-02) | MUST | ❌ |",
		"| [PRE-12](../docs/checks.md#pre-12) | SHOULD | ⏸️ |",
		"| [PRE-03](../docs/checks.md#pre-03) | MUST | · |",
		"## Choices that move a verdict",
		"| [fake@1.0.0-wire](certified/fake@1.0.0-wire/) | step limit | 5 | REQ-01, REQ-06 | the docs \\| loop |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("README lacks %q:\n%s", want, doc)
		}
	}
	if strings.Count(doc, "\n| [") != 2+len(checks.All()) {
		t.Errorf("want one row per published certification and one per check:\n%s", doc)
	}
}

// fakeAdapter makes an adapters folder with one adapter, "fake", whose
// certify.sh plays an adapter's: for version "broken" it fails as an
// install would; otherwise it writes the report files of runs/<version>
// where --report says, and exits with runs/<version>/exit.
func fakeAdapter(t *testing.T, runs map[string]*report.Run, exits map[string]int) string {
	t.Helper()
	adapters := adaptersWith(t, "fake")
	store := t.TempDir()
	for v, r := range runs {
		if _, err := report.WriteDir(filepath.Join(store, v), r, publishedFormats...); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(store, v, "exit"), []byte(strings.Repeat("x", exits[v])), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `#!/usr/bin/env bash
set -euo pipefail
version="$1"; shift
if [ "$version" = broken ]; then echo "npm ERR! 404 fake@broken" >&2; exit 1; fi
while [ "$1" != "--" ]; do shift; done; shift
report=""; baseline=""; scenarios=""
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report="$2"; shift ;;
    --expected-failures) baseline="$2"; shift ;;
    --scenarios) scenarios="$2"; shift ;;
  esac
  shift
done
echo "baseline=${baseline}"
run="$version"
if [ -n "$scenarios" ]; then echo "scenarios=${scenarios}"; run="$version-regressions"; fi
mkdir -p "$report/fake/20260102T030405Z"
cp "` + store + `/$run"/*.* "$report/fake/20260102T030405Z/"
exit $(wc -c < "` + store + `/$run/exit")
`
	if err := os.WriteFile(filepath.Join(adapters, "fake", "certify.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return adapters
}

func TestRunPublishesThenChecks(t *testing.T) {
	passing := run2()
	passing.Scenarios[1].CheckVerdicts["PRE-02"] = report.Pass
	passing.Scenarios[1].Verdict = report.Warn
	passing.Aggregate(checks.Must)
	adapters := fakeAdapter(t, map[string]*report.Run{"1.0.0": run2(), "2.0.0": passing}, map[string]int{"1.0.0": 1})
	root := t.TempDir()
	manifest := filepath.Join(root, "certify.yaml")
	doc := "certifications:\n  - adapter: fake\n    version: 1.0.0\n    ci: true\n  - adapter: fake\n    version: 2.0.0\n"
	if err := os.WriteFile(manifest, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, readme := filepath.Join(root, "certified"), filepath.Join(root, "README.md")
	keep := filepath.Join(root, "kept")
	args := []string{"--manifest", manifest, "--adapters", adapters, "--out", out, "--readme", readme, "--keep", keep}
	var stdout, stderr bytes.Buffer

	// A first run publishes both; without baselines it fails.
	if code := run(args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (no baseline):\n%s%s", code, &stdout, &stderr)
	}
	for _, f := range []string{"report.json", "report.md", "junit.xml", "badge.json", "journal.jsonl"} {
		if !fileExists(filepath.Join(out, "fake@1.0.0", f)) {
			t.Errorf("fake@1.0.0/%s not published", f)
		}
	}
	if fileExists(filepath.Join(out, "fake@1.0.0", "report.html")) {
		t.Error("report.html published")
	}
	if !strings.Contains(stdout.String(), "expected-failures.yaml: missing") {
		t.Errorf("no word of the missing baseline:\n%s", &stdout)
	}
	if data, err := os.ReadFile(readme); err != nil || !strings.Contains(string(data), "[fake@2.0.0](certified/fake@2.0.0/)") {
		t.Errorf("README: %v\n%s", err, data)
	}

	// With baselines and FINDINGS.md in place, publishing again keeps them.
	base := filepath.Join(out, "fake@1.0.0", baselineFile)
	if err := os.WriteFile(base, []byte("expectedFailures:\n  - scenario: \"a.feature: two\"\n    check: PRE-02\n    reason: the SDK runs denied calls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "fake@2.0.0", baselineFile), []byte("expectedFailures:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := filepath.Join(out, "fake@1.0.0", findingsFile)
	if err := os.WriteFile(findings, []byte("# findings\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	// The fake run exits 1 for 1.0.0, as a run whose baseline fails does:
	// the exit code of certify.sh is what counts.
	if code := run(args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "baseline="+mustAbs(t, base)) {
		t.Errorf("the baseline was not given to the run:\n%s", &stdout)
	}
	if !strings.Contains(stdout.String(), "does not hold its baseline") || !strings.Contains(stdout.String(), "== fake@2.0.0: ok") {
		t.Errorf("want 1.0.0 failed on its baseline, 2.0.0 ok:\n%s", &stdout)
	}
	if !fileExists(findings) || !fileExists(base) {
		t.Error("publishing removed a hand-written file")
	}
	// 2.0.0 held its (empty) baseline with the committed verdicts: its
	// folder was left as it was, unless --force.
	if !strings.Contains(stdout.String(), "fake@2.0.0: the verdicts are those of the committed report; left as it is") {
		t.Errorf("an unchanged certification was published again:\n%s", &stdout)
	}
	stdout.Reset()
	if code := run(append(args, "--force", "fake@2.0.0"), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "published "+filepath.Join(out, "fake@2.0.0")) {
		t.Errorf("--force: exit %d, want the folder published:\n%s", code, &stdout)
	}

	// --check: the committed verdicts hold for 2.0.0; 1.0.0's run now
	// gives other verdicts than its committed report (its version folder
	// is given the passing run).
	stdout.Reset()
	if code := run(append(args, "--check", "fake@2.0.0"), &stdout, &stderr); code != 0 {
		t.Fatalf("check of an unchanged certification: exit %d:\n%s%s", code, &stdout, &stderr)
	}
	if err := os.WriteFile(filepath.Join(out, "fake@2.0.0", "report.json"), mustRender(t, run2()), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if code := run(append(args, "--check", "fake@2.0.0"), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "check PRE-02: pass, was fail") {
		t.Errorf("check of drifted verdicts: exit %d, want 1 naming the drift:\n%s", code, &stdout)
	}
	if !fileExists(filepath.Join(keep, "fake@2.0.0", "report.json")) || !strings.Contains(stdout.String(), "kept in "+filepath.Join(keep, "fake@2.0.0")) {
		t.Errorf("the report of a run that failed its check is not kept in %s:\n%s", keep, &stdout)
	}
	if fileExists(filepath.Join(keep, "fake@1.0.0")) {
		t.Error("a report kept for a run never checked")
	}
	before, _ := os.ReadFile(readme)
	if err := os.WriteFile(readme, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(append(args, "--check", "fake@2.0.0"), &stdout, &stderr)
	if after, _ := os.ReadFile(readme); string(after) != "stale" || len(before) == 0 {
		t.Error("--check wrote the README")
	}
}

func TestRunFailsLoudlyWhenAVersionCannotBeInstalled(t *testing.T) {
	adapters := fakeAdapter(t, nil, nil)
	root := t.TempDir()
	manifest := filepath.Join(root, "certify.yaml")
	if err := os.WriteFile(manifest, []byte("certifications:\n  - adapter: fake\n    version: broken\n    ci: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "certified")
	if err := os.MkdirAll(filepath.Join(out, "fake@broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "fake@broken", baselineFile), []byte("expectedFailures:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"--manifest", manifest, "--adapters", adapters, "--out", out, "--readme", filepath.Join(root, "README.md"), "--check", "--ci"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "could not be installed or run") || !strings.Contains(stderr.String(), "npm ERR! 404") {
		t.Errorf("exit %d, want 1 saying the version could not be installed, with the script's own error:\n%s\n%s", code, &stdout, &stderr)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func mustRender(t *testing.T, r *report.Run) []byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r")
	if _, err := report.WriteDir(dir, r, report.FormatJSON); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRegressionsRunAgainstTheSDK: a certification's regression scenarios
// run through its certify.sh after the suite, with their directory and
// baseline, in publishing and in --check runs; a run that does not hold
// their baseline, or runs none of them, fails the certification.
func TestRegressionsRunAgainstTheSDK(t *testing.T) {
	reproduced := run2()
	empty := run2()
	empty.Scenarios = nil
	empty.Aggregate(checks.Must)
	adapters := fakeAdapter(t, map[string]*report.Run{
		"1.0.0": run2(), "1.0.0-regressions": reproduced,
		"2.0.0": run2(), "2.0.0-regressions": reproduced,
		"3.0.0": run2(), "3.0.0-regressions": empty,
	}, map[string]int{"2.0.0-regressions": 1})
	root := t.TempDir()
	regs := filepath.Join(root, "regressions")
	if err := os.MkdirAll(regs, 0o755); err != nil {
		t.Fatal(err)
	}
	regBase := filepath.Join(root, "expected-regressions.yaml")
	if err := os.WriteFile(regBase, []byte("expectedFailures:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(root, "certify.yaml")
	doc := "certifications:\n"
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		doc += "  - adapter: fake\n    version: " + v + "\n    regressions: {scenarios: " + regs + ", expectedFailures: " + regBase + ", about: D4}\n"
	}
	if err := os.WriteFile(manifest, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "certified")
	for _, v := range []string{"1.0.0", "2.0.0", "3.0.0"} {
		dir := filepath.Join(out, "fake@"+v)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, baselineFile), []byte("expectedFailures:\n  - scenario: \"a.feature: two\"\n    check: PRE-02\n    reason: r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "report.json"), mustRender(t, run2()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--manifest", manifest, "--adapters", adapters, "--out", out, "--readme", filepath.Join(root, "README.md"), "--keep", ""}
	var stdout, stderr bytes.Buffer
	if code := run(append(args, "--check", "fake@1.0.0"), &stdout, &stderr); code != 0 {
		t.Fatalf("regressions that hold their baseline: exit %d:\n%s%s", code, &stdout, &stderr)
	}
	if !strings.Contains(stdout.String(), "scenarios="+regs) || !strings.Contains(stdout.String(), "baseline="+regBase) {
		t.Errorf("the regression run was not given its directory and baseline:\n%s", &stdout)
	}
	stdout.Reset()
	if code := run(append(args, "--check", "fake@2.0.0"), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "do not hold their baseline "+regBase) {
		t.Errorf("regressions that do not hold their baseline: exit %d, want 1 saying so:\n%s", code, &stdout)
	}
	stdout.Reset()
	if code := run(append(args, "--check", "fake@3.0.0"), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "no regression scenario of "+regs+" ran") {
		t.Errorf("no regression scenario run: exit %d, want 1 saying so:\n%s", code, &stdout)
	}
	stdout.Reset()
	if code := run(append(args, "fake@2.0.0"), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "do not hold their baseline") {
		t.Errorf("a publishing run runs the regressions too: exit %d:\n%s", code, &stdout)
	}
}

// A published report names the paths under the repository relative to it.
func TestRelativize(t *testing.T) {
	in := []byte(`the baseline /home/ci/ack/reports/certified/x/expected-failures.yaml holds; /home/ci/ackother stays`)
	got := string(relativize(in, "/home/ci/ack"))
	if want := `the baseline reports/certified/x/expected-failures.yaml holds; /home/ci/ackother stays`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := string(relativize(in, "/")); got != string(in) {
		t.Errorf("root /: got %q", got)
	}
}
