package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// lineRunOf is a run of the fake SDK: scenario one judges PRE-01 (F1's
// cell), scenario two PRE-02 (F2's), each failing or passing as told.
func lineRunOf(version string, f1, f2 bool) *report.Run {
	v := func(fail bool) report.Verdict {
		if fail {
			return report.Fail
		}
		return report.Pass
	}
	r := &report.Run{Target: "fake sdk", TargetInfo: map[string]any{"name": "fake sdk", "sdk": "fake-sdk", "sdkVersion": version},
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Scenarios: []report.Scenario{
			{ID: "a.feature: one", Feature: "a", Name: "one", Source: "a.feature", Tags: []string{"agent"}, Checks: []string{"PRE-01"},
				CheckVerdicts: map[string]report.Verdict{"PRE-01": v(f1)}, Verdict: v(f1)},
			{ID: "a.feature: two", Feature: "a", Name: "two", Source: "a.feature", Tags: []string{"agent"}, Checks: []string{"PRE-02"},
				CheckVerdicts: map[string]report.Verdict{"PRE-02": v(f2)}, Verdict: v(f2)},
		}}
	r.Aggregate(checks.Must)
	return r
}

// fakeRegistry answers npm view with the releases given, and has no
// tarball to pack (no changelog).
func fakeRegistry(t *testing.T, versions ...string) (command, *[]string) {
	t.Helper()
	times := map[string]string{"created": "2026-01-01T00:00:00Z", "modified": "2026-03-01T00:00:00Z"}
	for i, v := range versions {
		times[v] = time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	}
	var calls []string
	return func(_ context.Context, _ string, _ []string, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " "))
		switch {
		case name == "npm" && len(args) > 1 && args[0] == "view":
			return json.Marshal(times)
		case name == "npm" && len(args) > 0 && args[0] == "pack":
			return nil, errors.New("npm pack: no tarball in this test")
		}
		return nil, fmt.Errorf("unexpected command %s %v", name, args)
	}, &calls
}

// lineFixture is a repository of one fake adapter certified at 1.0.3 on
// the wire path, whose baseline cites F1 (PRE-01 of scenario one) and F2
// (PRE-02 of scenario two), with the releases 1.0.0 to 1.0.9: F1 shows in
// 1.0.2 to 1.0.5, F2 in every release.
type lineFixture struct {
	o     lineOptions
	run   command
	calls *[]string
}

func newLineFixture(t *testing.T) lineFixture {
	t.Helper()
	runs := map[string]*report.Run{}
	var versions []string
	for i := 0; i <= 9; i++ {
		v := fmt.Sprintf("1.0.%d", i)
		versions = append(versions, v)
		runs[v] = lineRunOf(v, i >= 2 && i <= 5, true)
	}
	adapters := fakeAdapter(t, runs, nil)
	root := t.TempDir()
	manifest := filepath.Join(root, "certify.yaml")
	if err := os.WriteFile(manifest, []byte("certifications:\n  - adapter: fake\n    version: 1.0.3\n    path: wire\n    adapterFlags: [--model-api, wire]\n    ci: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sources := filepath.Join(root, "lines.yaml")
	if err := os.WriteFile(sources, []byte("lines:\n  - adapter: fake\n    registry: npm\n    package: fake-sdk\n    approval: approv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	certified := filepath.Join(root, "certified")
	if err := os.MkdirAll(filepath.Join(certified, "fake@1.0.3-wire"), 0o755); err != nil {
		t.Fatal(err)
	}
	base := `expectedFailures:
  - scenario: "a.feature: one"
    check: PRE-01
    reason: "F1: a denied call runs"
  - scenario: "a.feature: two"
    check: PRE-02
    reason: "SDK defect F2 (FINDINGS.md): another"
`
	if err := os.WriteFile(filepath.Join(certified, "fake@1.0.3-wire", baselineFile), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	run, calls := fakeRegistry(t, versions...)
	return lineFixture{o: lineOptions{manifest: manifest, sources: sources, adapters: adapters, certified: certified,
		out: filepath.Join(root, "line"), bisect: true, timeout: time.Minute}, run: run, calls: calls}
}

func (f lineFixture) result(t *testing.T, spec string, stdout *bytes.Buffer) (*lineRun, *lineResult) {
	t.Helper()
	var stderr bytes.Buffer
	l, err := newLineRun(context.Background(), f.o, "fake", spec, f.run, stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.certifyLine(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l, res
}

func findingOf(t *testing.T, res *lineResult, id string) FindingRange {
	t.Helper()
	for _, f := range res.Findings {
		if f.Finding == id {
			return f
		}
	}
	t.Fatalf("no finding %s in %+v", id, res.Findings)
	return FindingRange{}
}

// Given the two ends of a line, the line certifies them and its certified
// release, then bisects: F1 appears in 1.0.2 and is fixed in 1.0.6, each
// boundary between adjacent releases; F2 holds throughout. A release the
// registry does not list is reported as such.
func TestLineBisectsEachFinding(t *testing.T) {
	f := newLineFixture(t)
	var stdout bytes.Buffer
	l, res := f.result(t, "1.0.0,1.0.9,1.0.11", &stdout)
	var certified []string
	for _, vr := range res.Certified {
		certified = append(certified, vr.Version)
	}
	// 1.0.0, 1.0.3 (certified) and 1.0.9, then the bisection's.
	if got := strings.Join(certified, " "); got != "1.0.0 1.0.1 1.0.2 1.0.3 1.0.4 1.0.6 1.0.9" && got != "1.0.0 1.0.1 1.0.2 1.0.3 1.0.5 1.0.6 1.0.9" {
		t.Errorf("certified %s: want the ends, the certified release and a bisection's few", got)
	}
	if len(res.NotInstallable) != 1 || res.NotInstallable[0].Version != "1.0.11" || !strings.Contains(res.NotInstallable[0].Why, "not on the npm registry") {
		t.Errorf("not installable: %+v", res.NotInstallable)
	}
	f1 := findingOf(t, res, "F1")
	if len(f1.Spans) != 1 || f1.Spans[0].First != "1.0.2" || f1.Spans[0].FixedIn != "1.0.6" || !f1.Spans[0].ExactStart || !f1.Spans[0].ExactEnd || f1.Spans[0].Before != "1.0.1" {
		t.Errorf("F1: %+v", f1.Spans)
	}
	if got := res.holds(f1); got != "holds for 1.0.2–1.0.5, fixed in 1.0.6" {
		t.Errorf("F1 %q", got)
	}
	if got := res.since(f1); got != "1.0.2 (1.0.1 does not show it)" {
		t.Errorf("F1 since %q", got)
	}
	f2 := findingOf(t, res, "F2")
	if got := res.holds(f2); got != "holds for 1.0.0–1.0.9, not fixed as of 1.0.9" {
		t.Errorf("F2 %q", got)
	}
	if got := res.since(f2); got != "1.0.0 or earlier (the first release certified)" {
		t.Errorf("F2 since %q", got)
	}
	// Each release ran with the certification's flags, into a folder of
	// its own, once.
	if n := strings.Count(stdout.String(), "== fake-sdk 1.0.3:"); n != 1 {
		t.Errorf("1.0.3 certified %d times:\n%s", n, &stdout)
	}
	if !fileExists(filepath.Join(f.o.out, "1.0.2", "report.json")) || !fileExists(filepath.Join(f.o.out, "1.0.2", "report.md")) {
		t.Error("a release's report is not kept in the line's folder")
	}
	log, err := os.ReadFile(filepath.Join(f.o.out, "1.0.2", "certify.log"))
	if err != nil || !strings.Contains(string(log), "baseline=") {
		t.Errorf("certify.sh's output is not kept: %v %s", err, log)
	}

	// The FINDINGS.md section: written at the end, then replaced in place.
	findings := filepath.Join(t.TempDir(), "FINDINGS.md")
	if err := os.WriteFile(findings, []byte("# fake 1.0.3: findings\n\n## F1. a denied call runs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.o.findings = findings
	if err := l.write(res); err != nil {
		t.Fatal(err)
	}
	if err := l.write(res); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(findings)
	doc := string(data)
	if strings.Count(doc, lineBegin) != 1 || strings.Count(doc, lineEnd) != 1 || !strings.HasPrefix(doc, "# fake 1.0.3: findings\n\n## F1. a denied call runs\n\n"+lineBegin) {
		t.Errorf("FINDINGS.md after two writes:\n%s", doc)
	}
	for _, want := range []string{
		"| F1 | 1 | 1.0.2 (1.0.1 does not show it) | holds for 1.0.2–1.0.5, fixed in 1.0.6 |",
		"Not certified: 1.0.11: not on the npm registry",
		"| PRE-01 | MUST | ✅ | ✅ | **❌** | ❌ |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the section lacks %q:\n%s", want, doc)
		}
	}
	var back lineResult
	data, err = os.ReadFile(filepath.Join(f.o.out, "line.json"))
	if err != nil || json.Unmarshal(data, &back) != nil || len(back.Findings) != 2 || back.Certification != "fake@1.0.3-wire" {
		t.Errorf("line.json: %v %+v", err, back)
	}
}

// Without bisection the line says only what the releases named show, and
// that a boundary is not exact.
func TestLineWithoutBisection(t *testing.T) {
	f := newLineFixture(t)
	f.o.bisect = false
	var stdout bytes.Buffer
	_, res := f.result(t, "1.0.0,1.0.9", &stdout)
	if len(res.Certified) != 3 {
		t.Fatalf("certified %d releases, want 1.0.0, 1.0.3 and 1.0.9", len(res.Certified))
	}
	if got := res.holds(findingOf(t, res, "F1")); got != "holds for 1.0.3, fixed between 1.0.3 and 1.0.9 (the releases between were not certified)" {
		t.Errorf("F1 %q", got)
	}
	if got := res.since(findingOf(t, res, "F1")); got != "between 1.0.0 and 1.0.3 (the releases between were not certified)" {
		t.Errorf("F1 since %q", got)
	}
}

// VERSIONS all certifies every release; a range every release within it.
func TestLineAllAndRange(t *testing.T) {
	f := newLineFixture(t)
	var stdout bytes.Buffer
	_, res := f.result(t, "1.0.4..1.0.7", &stdout)
	if len(res.Certified) != 4 { // 1.0.4 to 1.0.7 (the certified 1.0.3 is outside it)
		t.Errorf("range: certified %d", len(res.Certified))
	}
	_, res = f.result(t, "all", &stdout)
	if len(res.Certified) != 10 {
		t.Errorf("all: certified %d", len(res.Certified))
	}
	if got := res.since(findingOf(t, res, "F2")); got != "1.0.0, the line's first installable release" {
		t.Errorf("F2 since %q", got)
	}
}

func TestLineErrors(t *testing.T) {
	f := newLineFixture(t)
	var out bytes.Buffer
	for spec, want := range map[string]string{
		"1.0.0,2.0.0":  "two lines",
		"1.0.9..1.0.0": "comes after",
		"1.0":          "not a version",
		"":             "want all, sample",
	} {
		if _, err := newLineRun(context.Background(), f.o, "fake", spec, f.run, &out, &out); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("VERSIONS %q: %v, want an error saying %q", spec, err, want)
		}
	}
	if _, err := newLineRun(context.Background(), f.o, "other", "all", f.run, &out, &out); err == nil || !strings.Contains(err.Error(), `no line for adapter "other"`) {
		t.Errorf("unknown adapter: %v", err)
	}
	o := f.o
	o.path = "canonical"
	if _, err := newLineRun(context.Background(), o, "fake", "all", f.run, &out, &out); err == nil || !strings.Contains(err.Error(), `--path "canonical"`) {
		t.Errorf("unknown path: %v", err)
	}
}

// nextProbe bisects between the first two releases run that disagree,
// skipping those tried that said nothing.
func TestNextProbe(t *testing.T) {
	cands := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}
	p := map[string]baseline.Presence{"1": baseline.Absent, "9": baseline.Shown}
	if got := nextProbe(cands, p); got != "5" {
		t.Errorf("first probe %s, want the middle", got)
	}
	p["5"] = baseline.Unknown
	if got := nextProbe(cands, p); got != "6" {
		t.Errorf("after an unknown 5: %s, want another untried between", got)
	}
	for _, v := range []string{"2", "3", "4", "6", "7", "8"} {
		p[v] = baseline.Unknown
	}
	if got := nextProbe(cands, p); got != "" {
		t.Errorf("nothing left to try, got %s", got)
	}
	// Spans over an unknown release: it is skipped.
	s := spans(cands, map[string]baseline.Presence{"1": baseline.Absent, "2": baseline.Shown, "3": baseline.Unknown, "4": baseline.Shown, "5": baseline.Absent, "6": baseline.Shown}, cands)
	if len(s) != 2 || s[0].First != "2" || s[0].Last != "4" || s[0].FixedIn != "5" || s[1].First != "6" || s[1].FixedIn != "" {
		t.Errorf("spans %+v", s)
	}
}

func TestSplitChangelog(t *testing.T) {
	notes := splitChangelog("# ai\n\n## 7.0.185\n\n### Patch Changes\n\n- dep\n\n## 7.0.178\n\n- 63593a7: signed the approval request of a denied call\n\n## v1.0.0-beta.2\n\nx\n")
	if len(notes) != 3 || !strings.Contains(notes["7.0.178"], "approval request") || notes["1.0.0-beta.2"] != "x" {
		t.Errorf("notes %q", notes)
	}
}

func TestSourcesErrorsNameTheLine(t *testing.T) {
	for doc, want := range map[string]string{
		"lines:\n  - adapter: a\n    registry: pypi\n    package: x\n":                                       "lines.yaml:2: lines[0].registry",
		"lines:\n  - adapter: a\n    registry: npm\n":                                                        "lines.yaml:2: lines[0].package",
		"lines:\n  - adapter: a\n    registry: go\n    package: m\n    approval: x\n":                        "a Go module ships no changelog",
		"lines:\n  - adapter: a\n    registry: npm\n    package: x\n    approval: \"(\"\n":                   "lines[0].approval",
		"lines:\n  - adapter: a\n    registry: npm\n    package: x\n    pkg: y\n":                            "field pkg not found",
		"lines:\n  - {adapter: a, registry: npm, package: x}\n  - {adapter: a, registry: npm, package: y}\n": "lines.yaml:3: lines[1].adapter: a is already listed on line 2",
	} {
		if _, err := parseSources("lines.yaml", []byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
	if _, err := LoadSources(filepath.Join("..", "..", "adapters", "lines.yaml")); err != nil {
		t.Errorf("the committed adapters/lines.yaml: %v", err)
	}
}

// Every adapter of the committed manifest has its line.
func TestEveryCertifiedAdapterHasALine(t *testing.T) {
	m, err := LoadManifest(filepath.Join("..", "..", "adapters", "certify.yaml"), filepath.Join("..", "..", "adapters"))
	if err != nil {
		t.Fatal(err)
	}
	sources, err := LoadSources(filepath.Join("..", "..", "adapters", "lines.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Certifications {
		if _, ok := sources[c.Adapter]; !ok {
			t.Errorf("%s: adapters/lines.yaml does not say where %s is published", c.ID(), c.Adapter)
		}
	}
}

// The Go module proxy's list can be stale: releases after the newest
// known one are found by name, and one the proxy knows but does not serve
// is not installable.
func TestGoProxyWalksForward(t *testing.T) {
	served := map[string]bool{"v1.5.0": true, "v1.7.0": true, "v1.8.0": true, "v1.9.0": true, "v1.9.1": true, "v1.11.0": true, "v2.4.0": false}
	var asked []string
	run := func(_ context.Context, _ string, _ []string, name string, args ...string) ([]byte, error) {
		q := args[len(args)-1]
		switch {
		case name == "go" && args[0] == "env":
			return []byte("https://proxy.golang.org,direct\n"), nil
		case name == "go" && args[0] == "list" && args[len(args)-2] == "-versions":
			return []byte(`{"Path":"m","Versions":["v1.4.0"]}`), nil
		case name == "go" && args[0] == "list":
			_, v, _ := strings.Cut(q, "@")
			asked = append(asked, v)
			if _, ok := served[v]; ok {
				return []byte(`{"Path":"m","Version":"` + v + `","Time":"2026-08-17T20:46:19Z"}`), nil
			}
			return []byte(`{"Path":"m","Error":{"Err":"403 Forbidden"}}`), errors.New("exit status 1")
		case name == "go" && args[0] == "mod":
			_, v, _ := strings.Cut(q, "@")
			if !served[v] {
				return []byte(`{"Path":"m","Version":"` + v + `","Error":"zip: 403 Forbidden"}`), errors.New("exit status 1")
			}
			return []byte(`{"Path":"m","Version":"` + v + `"}`), nil
		}
		return nil, fmt.Errorf("unexpected %s %v", name, args)
	}
	g := &goProxy{run: run}
	rels, err := g.Releases(context.Background(), "m", []string{"v1.7.0"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, r.Version)
	}
	if strings.Join(got, " ") != "v1.4.0 v1.5.0 v1.7.0 v1.8.0 v1.9.0 v1.9.1 v1.11.0" {
		t.Errorf("releases %v (asked %v)", got, asked)
	}
	counts := map[string]int{}
	for _, v := range asked {
		counts[v]++
		if counts[v] > 1 {
			t.Errorf("%s asked %d times", v, counts[v])
		}
	}
	if !strings.Contains(strings.Join(g.env, " "), "GOPROXY=https://proxy.golang.org") || strings.Contains(strings.Join(g.env, " "), "direct") {
		t.Errorf("the lookups may fall through to a VCS: %v", g.env)
	}
	r := g.Lookup(context.Background(), "m", "v2.4.0")
	g.Fetch(context.Background(), "m", &r)
	if r.Installable || !strings.Contains(r.Why, "not served") {
		t.Errorf("v2.4.0: %+v", r)
	}
}
