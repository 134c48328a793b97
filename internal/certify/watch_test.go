package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/report"
)

// watchFixture: the fake SDK certified at 1.0.3 on two paths, the
// registry listing 1.0.0 to 1.0.5 and a 2.0.0 beta; F1 is fixed in
// 1.0.5, F2 holds everywhere.
func watchFixture(t *testing.T) (watchOptions, command) {
	t.Helper()
	runs := map[string]*report.Run{}
	versions := []string{"2.0.0-beta.1"}
	for i := 0; i <= 5; i++ {
		v := fmt.Sprintf("1.0.%d", i)
		versions = append(versions, v)
		runs[v] = lineRunOf(v, i >= 2 && i <= 4, true)
	}
	adapters := fakeAdapter(t, runs, nil)
	root := t.TempDir()
	manifest := filepath.Join(root, "certify.yaml")
	doc := `# The certifications.
certifications:
  - adapter: fake
    version: 1.0.3
    path: wire
    adapterFlags: [--model-api, wire]
    about: "the wire path"
    ci: true
  # The canonical path.
  - adapter: fake
    version: 1.0.3
    path: canonical
    adapterFlags: [--model-api, canonical]
    tags: "@agent"
    ci: true
`
	if err := os.WriteFile(manifest, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sources := filepath.Join(root, "lines.yaml")
	if err := os.WriteFile(sources, []byte("lines:\n  - adapter: fake\n    registry: npm\n    package: fake-sdk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	certified := filepath.Join(root, "certified")
	base := "expectedFailures:\n  - scenario: \"a.feature: one\"\n    check: PRE-01\n    reason: \"F1: a denied call runs\"\n  - scenario: \"a.feature: two\"\n    check: PRE-02\n    reason: \"F2: another\"\n"
	for _, id := range []string{"fake@1.0.3-wire", "fake@1.0.3-canonical"} {
		if err := os.MkdirAll(filepath.Join(certified, id), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(certified, id, "report.json"), mustRender(t, lineRunOf("1.0.3", true, true)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(certified, id, baselineFile), []byte(base), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, _ := fakeRegistry(t, versions...)
	return watchOptions{manifest: manifest, sources: sources, adapters: adapters, certified: certified, readme: filepath.Join(root, "README.md"), timeout: time.Minute}, run
}

func TestWatchListsNewerReleases(t *testing.T) {
	o, run := watchFixture(t)
	o.list = true
	var stdout, stderr bytes.Buffer
	code, err := watch(context.Background(), o, []string{"fake"}, run, &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s", code, err, &stderr)
	}
	out := stdout.String()
	for _, want := range []string{"fake-sdk 1.0.4 (line 1, certified at 1.0.3): installable", "fake-sdk 1.0.5 (line 1, certified at 1.0.3): installable"} {
		if !strings.Contains(out, want) {
			t.Errorf("the list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "2.0.0-beta.1") || strings.Contains(out, "1.0.2 (") || strings.Contains(out, "== watch") {
		t.Errorf("a pre-release or an older release listed, or a release certified:\n%s", out)
	}
}

// Into a folder of its own, the watch certifies each newer release on
// each path, writes what moved since the release before, carries the
// baseline entries that still fail, and the manifest entries to add.
func TestWatchCertifiesIntoAFolder(t *testing.T) {
	o, run := watchFixture(t)
	o.out = t.TempDir()
	o.summary = filepath.Join(o.out, "summary.md")
	var stdout, stderr bytes.Buffer
	code, err := watch(context.Background(), o, []string{"fake"}, run, &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, &stdout, &stderr)
	}
	for _, id := range []string{"fake@1.0.4-wire", "fake@1.0.4-canonical", "fake@1.0.5-wire", "fake@1.0.5-canonical"} {
		for _, f := range []string{"report.json", "junit.xml", "report.md", "badge.json", "journal.jsonl", watchFile, baselineFile} {
			if !fileExists(filepath.Join(o.out, id, f)) {
				t.Errorf("%s/%s not written", id, f)
			}
		}
	}
	w, err := os.ReadFile(filepath.Join(o.out, "fake@1.0.5-wire", watchFile))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(w)
	for _, want := range []string{
		"# fake-sdk 1.0.5 on the wire path: what moved since 1.0.4",
		"| PRE-01 | MUST | fail | pass |",
		"| F1 | shown | absent |",
		"| F2 | shown | shown |",
		"carries 1 of the 2 entries of fake@1.0.4-wire's",
		"a.feature: one:PRE-01 (F1: a denied call runs)",
		"None: every MUST failure of the new release is one the carried baseline lists.",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("WATCH.md lacks %q:\n%s", want, doc)
		}
	}
	w4, _ := os.ReadFile(filepath.Join(o.out, "fake@1.0.4-wire", watchFile))
	if !strings.Contains(string(w4), "No check's verdict moved between 1.0.3 and 1.0.4") {
		t.Errorf("1.0.4's WATCH.md:\n%s", w4)
	}
	b, err := baseline.Load(filepath.Join(o.out, "fake@1.0.5-wire", baselineFile))
	if err != nil || len(b.Entries) != 1 || b.Entries[0].Check != "PRE-02" {
		t.Errorf("the carried baseline: %v %+v", err, b)
	}
	entries, err := os.ReadFile(filepath.Join(o.out, "manifest-entries.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(entries), "version: 1.0.4") != 2 || strings.Contains(string(entries), "ci: true") {
		t.Errorf("manifest entries:\n%s", entries)
	}
	if m, _ := os.ReadFile(o.manifest); strings.Contains(string(m), "1.0.4") {
		t.Error("a watch into another folder changed the manifest")
	}
	summary, _ := os.ReadFile(o.summary)
	if !strings.Contains(string(summary), "| 1 | 1.0.3 | 1.0.5 | 2026-01-07 |") || !strings.Contains(string(summary), "1 check(s) moved") {
		t.Errorf("summary:\n%s", summary)
	}
}

// Publishing (the default folder): the new certifications join the
// manifest, which still reads, and the table.
func TestWatchPublishes(t *testing.T) {
	o, run := watchFixture(t)
	o.out = o.certified
	var stdout, stderr bytes.Buffer
	code, err := watch(context.Background(), o, nil, run, &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, &stdout, &stderr)
	}
	m, err := LoadManifest(o.manifest, o.adapters)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range m.Certifications {
		ids = append(ids, c.ID())
		if c.Version != "1.0.3" && c.CI {
			t.Errorf("%s: a new certification is run by CI before its findings are traced", c.ID())
		}
	}
	if got := strings.Join(ids, " "); got != "fake@1.0.3-wire fake@1.0.3-canonical fake@1.0.4-wire fake@1.0.4-canonical fake@1.0.5-wire fake@1.0.5-canonical" {
		t.Errorf("manifest: %s", got)
	}
	if c := m.Certifications[3]; c.Tags != "@agent" || strings.Join(c.AdapterFlags, " ") != "--model-api canonical" {
		t.Errorf("the canonical copy lost its flags or tags: %+v", c)
	}
	readme, err := os.ReadFile(o.readme)
	if err != nil || !strings.Contains(string(readme), "[fake@1.0.5-wire](certified/fake@1.0.5-wire/)") {
		t.Errorf("README: %v\n%s", err, readme)
	}
}

func TestEntryBlockAndVersion(t *testing.T) {
	doc := "certifications:\n  - adapter: a\n    version: 1.0.0\n    ci: true\n    choices:\n      - {choice: x, value: \"version: 9\", moves: [PRE-01], why: y}\n\n  # next\n  - adapter: b\n    version: 2.0.0\n"
	certs := []Certification{{Adapter: "a", Version: "1.0.0", Line: 2}, {Adapter: "b", Version: "2.0.0", Line: 9}}
	block := entryBlock(doc, certs, 0)
	if strings.Contains(block, "# next") || !strings.HasSuffix(block, "why: y}\n") {
		t.Errorf("block %q", block)
	}
	got := withVersion(block, "1.0.1")
	if !strings.Contains(got, "    version: 1.0.1\n") || strings.Contains(got, "ci: true") || !strings.Contains(got, `value: "version: 9"`) {
		t.Errorf("withVersion %q", got)
	}
}

// A watch of a selection compares it with the same scenarios of the
// release before: a check that warned only in scenarios left out does not
// read as moved.
func TestRestrictTo(t *testing.T) {
	old := lineRunOf("1.0.3", true, true)
	fresh := lineRunOf("1.0.4", true, true)
	fresh.Scenarios = fresh.Scenarios[:1]
	fresh.Aggregate("")
	got := restrictTo(old, fresh)
	if len(got.Scenarios) != 1 || len(got.Checks) != 1 || got.Checks[0].ID != "PRE-01" {
		t.Errorf("restricted: %d scenarios, checks %+v", len(got.Scenarios), got.Checks)
	}
	if len(old.Scenarios) != 2 || len(old.Checks) != 2 {
		t.Error("restrictTo changed the run it read")
	}
}
