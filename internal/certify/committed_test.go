package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
)

// The repository's own certifications, as committed: this test reads
// files only (no Node, no adapter runs), so make test keeps them coherent
// without installing an SDK. CI's make certify-check runs them.
const (
	repoRoot        = "../.."
	repoManifest    = "adapters/certify.yaml"
	repoCertified   = "reports/certified"
	repoReadme      = "reports/README.md"
	repoAdaptersDir = "adapters"
)

func TestCommittedCertifications(t *testing.T) {
	m, err := LoadManifest(filepath.Join(repoRoot, repoManifest), filepath.Join(repoRoot, repoAdaptersDir))
	if err != nil {
		t.Fatal(err)
	}
	listed, err := runner.List(runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var suite []string
	for _, l := range listed {
		suite = append(suite, l.ID)
	}
	out := filepath.Join(repoRoot, repoCertified)
	pubs, err := published(out, m)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, p := range pubs {
		known[p.ID()] = true
		if p.Run == nil {
			continue
		}
		t.Run(p.ID(), func(t *testing.T) {
			dir := filepath.Join(out, p.ID())
			if p.CI && !p.Baseline {
				t.Errorf("%s: CI certifies it, but it has no %s", dir, baselineFile)
			}
			if p.Baseline {
				base, err := baseline.Load(filepath.Join(dir, baselineFile))
				if err != nil {
					t.Fatal(err)
				}
				o := baseline.ApplySuite(base, p.Run, suite)
				for _, h := range o.Unexpected {
					t.Errorf("%s: the report fails %s %s, which the baseline does not list", dir, h.Scenario, h.Check)
				}
				for _, e := range o.Stale {
					t.Errorf("%s:%d: %s passes in the report: the entry is stale", base.Path, e.Line, e)
				}
				for _, e := range o.Unknown {
					t.Errorf("%s:%d: %s names no scenario of the suite", base.Path, e.Line, e)
				}
			}
			var findings string
			if p.Findings {
				data, err := os.ReadFile(filepath.Join(dir, findingsFile))
				if err != nil {
					t.Fatal(err)
				}
				findings = string(data)
			}
			// Every failed or warned check is traced in FINDINGS.md (to the
			// SDK's source, or to the kit's fault it is held back for).
			for _, c := range p.Run.Checks {
				if c.Verdict != report.Fail && c.Verdict != report.Warn {
					if p.IsHeld(c.ID) {
						t.Errorf("%s: %s is held back, but the report gives it %s: drop the hold", p.ID(), c.ID, c.Verdict)
					}
					continue
				}
				if !regexp.MustCompile(`\b` + regexp.QuoteMeta(c.ID) + `\b`).MatchString(findings) {
					t.Errorf("%s: %s is %s in the report, and %s does not name it", p.ID(), c.ID, c.Verdict, filepath.Join(dir, findingsFile))
				}
			}
		})
	}
	entries, err := os.ReadDir(out)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !known[e.Name()] {
			t.Errorf("%s: no certification of %s has this folder", filepath.Join(out, e.Name()), repoManifest)
		}
	}
	if len(entries) == 0 {
		return
	}
	want := RenderReadme(repoManifest, pubs)
	got, err := os.ReadFile(filepath.Join(repoRoot, repoReadme))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not the table of the committed reports: run go run ./internal/certify --readme-only (first difference at line %d)", repoReadme, firstDiffLine(string(got), want))
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

// TestCommittedRegressions: each certification's regression scenarios load,
// are tagged regression (the runner selects them by that tag), and their
// baseline names only scenarios of their directory.
func TestCommittedRegressions(t *testing.T) {
	m, err := LoadManifest(filepath.Join(repoRoot, repoManifest), filepath.Join(repoRoot, repoAdaptersDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Certifications {
		r := c.Regressions
		if r == nil {
			continue
		}
		t.Run(c.ID(), func(t *testing.T) {
			dir := filepath.Join(repoRoot, r.Scenarios)
			listed, err := runner.List(runner.Options{NoFeatures: true, NoScenarios: true,
				ExtraScenarios: []fs.FS{os.DirFS(dir)}, ExtraScenarioNames: []string{r.Scenarios}})
			if err != nil {
				t.Fatal(err)
			}
			if len(listed) == 0 {
				t.Fatalf("%s holds no scenario", r.Scenarios)
			}
			ids := map[string]bool{}
			for _, l := range listed {
				ids[l.ID] = true
				if !strings.Contains(" "+strings.Join(l.Tags, " ")+" ", " @regression ") {
					t.Errorf("%s: not tagged regression (tags %v): the regression run leaves it out", l.ID, l.Tags)
				}
			}
			base, err := baseline.Load(filepath.Join(repoRoot, r.ExpectedFailures))
			if err != nil {
				t.Fatal(err)
			}
			if len(base.Entries) == 0 {
				t.Errorf("%s lists no failure: a regression scenario reproduces a defect", r.ExpectedFailures)
			}
			for _, e := range base.Entries {
				if !ids[e.Scenario] {
					t.Errorf("%s:%d: %q is no scenario of %s", r.ExpectedFailures, e.Line, e.Scenario, r.Scenarios)
				}
			}
		})
	}
}
