package dashboard

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// fixtureRun is a run of an SDK: PRE-03 fails with the harm given (none:
// no harm), PRE-12 warns, the rest of what it runs passes.
func fixtureRun(sdk, version string, harm checks.Harm) *report.Run {
	fail := report.Finding{Check: "PRE-03", Outcome: report.OutcomeFail, Message: "PRE-03: call_1 had its result and ran again", Harm: string(harm), HarmEvidence: "call_1 ran twice"}
	r := &report.Run{Target: sdk, TargetInfo: map[string]any{"name": sdk + " adapter", "sdk": sdk, "sdkVersion": version, "roles": []any{"agent"},
		"features": map[string]any{"modes": []any{"generate", "stream"}, "dynamicPolicy": true, "contract": map[string]any{"wholeBatches": true}}},
		Started: time.Date(2026, 11, 27, 3, 4, 5, 0, time.UTC), Scenarios: []report.Scenario{
			{ID: "hostile.yaml: re-sent (generate)", Checks: []string{"PRE-03", "PRE-12"}, Verdict: report.Fail,
				CheckVerdicts: map[string]report.Verdict{"PRE-03": report.Fail, "PRE-12": report.Warn},
				Findings:      []report.Finding{fail, {Check: "PRE-12", Outcome: report.OutcomeFail, Message: "PRE-12: an approval part reached the model", Graded: "a SHOULD check"}}},
			{ID: "basic.yaml: approved (generate)", Checks: []string{"PRE-01"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Pass}},
		}}
	if harm == "" {
		r.Scenarios[0].CheckVerdicts["PRE-03"] = report.Pass
		r.Scenarios[0].Verdict = report.Warn
		r.Scenarios[0].Findings = r.Scenarios[0].Findings[1:]
	}
	r.Aggregate(checks.Must)
	return r
}

// certifiedDir writes certified folders: the fake SDK's line 1 at 1.0.0
// (PRE-03 runs against the answer, cited by F1) and 1.2.0 (fixed) on the
// wire path, 1.0.0 on the canonical path, and other 0.33.2.
func certifiedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(id string, r *report.Run, files map[string]string) {
		t.Helper()
		if _, err := report.WriteDir(filepath.Join(dir, id), r, report.FormatJSON); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, id, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := "expectedFailures:\n  - scenario: \"hostile.yaml: re-sent (generate)\"\n    check: PRE-03\n    reason: \"SDK defect F1 (FINDINGS.md): re-sent answers run again\"\n"
	findings := "# fake 1.0.0: findings\n\n```\n## F1. not a heading in a fence\n```\n\n## F1. PRE-03 — a re-sent answer runs the call again\n\ntext\n\n### F1: ready to file\n"
	write("fake@1.0.0-wire", fixtureRun("fake", "1.0.0", checks.RanAgainstAnswer), map[string]string{baselineFile: base, findingsFile: findings})
	write("fake@1.2.0-wire", fixtureRun("fake", "1.2.0", ""), nil)
	write("fake@1.0.0-canonical", fixtureRun("fake", "1.0.0", checks.Refused), map[string]string{baselineFile: base})
	write("other@0.33.2", fixtureRun("@other/sdk", "0.33.2", checks.Lost), nil)
	if err := os.MkdirAll(filepath.Join(dir, "not-a-certification"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadReadsTheFolders(t *testing.T) {
	certs, err := Load(certifiedDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range certs {
		got = append(got, c.ID+"="+c.Adapter+"|"+c.Version+"|"+c.Path+"|"+c.Line())
	}
	want := []string{
		"fake@1.0.0-wire=fake|1.0.0|wire|fake 1 (wire)",
		"fake@1.2.0-wire=fake|1.2.0|wire|fake 1 (wire)",
		"fake@1.0.0-canonical=fake|1.0.0|canonical|fake 1 (canonical)",
		"other@0.33.2=other|0.33.2||other 0.33",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("loaded\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h, ok := certs[0].Findings["F1"]
	if !ok || h.Title != "PRE-03 — a re-sent answer runs the call again" || h.Anchor != "f1-pre-03--a-re-sent-answer-runs-the-call-again" {
		t.Errorf("F1's heading: %+v", h)
	}
	if certs[1].Baseline != nil || certs[1].HasFindings {
		t.Errorf("a folder without a baseline or findings: %+v", certs[1])
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no certified folder") {
		t.Errorf("an empty folder: %v", err)
	}
	dir := certifiedDir(t)
	if err := os.WriteFile(filepath.Join(dir, "fake@1.0.0-wire", baselineFile), []byte("expectedFailures:\n  - scenario: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "expected-failures.yaml:2") {
		t.Errorf("a broken baseline: %v", err)
	}
	bad := t.TempDir()
	if _, err := report.WriteDir(filepath.Join(bad, "nameless"), fixtureRun("x", "1.0.0", ""), report.FormatJSON); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "<sdk>@<version>") {
		t.Errorf("a folder not named sdk@version: %v", err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"D1. PRE-03, WIRE-01 — an approval sent again":     "d1-pre-03-wire-01--an-approval-sent-again",
		"E9. Forged approvals are honoured (SEC-01, warn)": "e9-forged-approvals-are-honoured-sec-01-warn",
		"Upstream issues, ready to file":                   "upstream-issues-ready-to-file",
		"`vercel-ai@7.0.173-unsigned`: SEC-01":             "vercel-ai70173-unsigned-sec-01",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// The page: a row per certification with a cell per check, coloured by
// harm; a trend per line; each certification's features, findings (linked
// to FINDINGS.md's heading) and evidence; nothing from the network.
func TestRenderThePage(t *testing.T) {
	dir := certifiedDir(t)
	out := filepath.Join(t.TempDir(), "site", "dashboard.html")
	if err := WriteFile(out, dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	rel, _ := filepath.Rel(filepath.Dir(out), dir)
	rel = filepath.ToSlash(rel) + "/"
	for _, want := range []string{
		`<tr class="cert sdk-first" id="fake@1.0.0-wire"`,
		`<td class="h-ran-against-answer" title="PRE-03 on fake@1.0.0-wire: fail in 1 of 1 scenarios; harm: ran-against-answer"><a href="#ev-fake@1.0.0-wire-PRE-03" tabindex="-1">RUN</a></td>`,
		`<td class="h-refused" title="PRE-03 on fake@1.0.0-canonical: fail in 1 of 1 scenarios; harm: refused">`,
		`<td class="h-lost"`,
		`<td class="warn" title="PRE-12 on fake@1.2.0-wire: warn in 1 of 1 scenarios">`,
		`<td class="nr" title="REQ-01 on fake@1.2.0-wire: not run on this path"><span></span></td>`,
		`<tr class="trend-row" id="trend-fake-1-wire"`,
		`<td class="t-better" title="PRE-03 across fake 1 (wire): 1.0.0 fail (ran-against-answer), 1.2.0 pass"><span>▲</span></td>`,
		`<td class="t-same" title="PRE-12 across fake 1 (wire): 1.0.0 warn, 1.2.0 warn"><span>=</span></td>`,
		`<a href="#trend-fake-1-wire">fake 1 (wire)</a>: 1.0.0 → 1.2.0; 1 check(s) moved: PRE-03 (fail (ran-against-answer) → pass)`,
		`other 0.33: 0.33.2 (one release certified)`,
		`<a href="` + rel + `fake@1.0.0-wire/FINDINGS.md#f1-pre-03--a-re-sent-answer-runs-the-call-again">F1</a>: PRE-03 — a re-sent answer runs the call again`,
		`<a href="` + rel + `fake@1.0.0-wire/report.md">report</a>`,
		`<dt>modes</dt><dd>generate, stream</dd>`,
		`<dt>contract</dt><dd>wholeBatches: yes</dd>`,
		`<details class="check" id="ev-fake@1.0.0-wire-PRE-03">`,
		`(finding F1)`,
		`Harm: ran-against-answer: <span class="mono">call_1 ran twice</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//|@import|url\(\s*['"]?https?:`)
	if m := external.FindString(page); m != "" {
		t.Errorf("the page loads %q from the network", m)
	}
	if n := strings.Count(page, `<tr class="cert`); n != 4 {
		t.Errorf("%d certification rows, want 4", n)
	}
	if n := strings.Count(page, `<tr class="trend-row"`); n != 1 {
		t.Errorf("%d trend rows, want 1 (the one line of two releases)", n)
	}
	// The trend row follows the line's last release.
	if i, j := strings.Index(page, `id="fake@1.2.0-wire"`), strings.Index(page, `id="trend-fake-1-wire"`); i < 0 || j < i || strings.Index(page, `id="fake@1.0.0-canonical"`) < j {
		t.Error("the trend row is not right after its line's releases")
	}
}

// The committed certifications render, every one of them a row whose id
// the README's badges link to.
func TestRenderTheCommittedCertifications(t *testing.T) {
	certs := committed(t)
	page, err := Render(certs, Options{Base: "certified"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range certs {
		if !strings.Contains(string(page), `id="`+c.ID+`" data-text=`) {
			t.Errorf("no row for %s", c.ID)
		}
	}
	if len(page) > 3<<20 {
		t.Errorf("the page is %d bytes: keep it under 3 MB", len(page))
	}
}
