package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWriteDirWritesEveryFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports", "x", "20261122T140501Z") // created with its parents
	files, err := WriteDir(dir, fixture(t, "late-resolution"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"junit.xml", "report.md", "report.html", "badge.json", "journal.jsonl", "report.json"}
	var got []string
	for _, f := range files {
		if filepath.Dir(f) != dir {
			t.Errorf("%s is not in %s", f, dir)
		}
		got = append(got, filepath.Base(f))
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, empty or missing", f, err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote %v, want %v (report.json last)", got, want)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v: temporary files left behind?", names)
	}
	if got, want := len(Formats()), len(want); got != want {
		t.Errorf("Formats() lists %d formats, want %d", got, want)
	}
	for _, f := range Formats() {
		if name, ok := FileName(f); !ok || !slices.Contains(got, name) {
			t.Errorf("format %s: file %q, %v", f, name, ok)
		}
	}
}

func TestWriteDirWritesTheFormatsAsked(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteDir(dir, synthRun(), FormatBadge, " json", FormatBadge)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "badge.json"), filepath.Join(dir, "report.json")}; !slices.Equal(files, want) {
		t.Errorf("wrote %v, want %v", files, want)
	}
}

func TestWriteDirRefusesBadInputAndWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	_, err := WriteDir(dir, synthRun(), "json", "pretty")
	if err == nil || !strings.Contains(err.Error(), `unknown format "pretty"`) || !strings.Contains(err.Error(), "junit") {
		t.Errorf("an unknown format: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the directory was created anyway: %v", err)
	}
	if _, err := WriteDir(dir, nil); err == nil {
		t.Error("a nil run was accepted")
	}
	// Evidence that cannot be encoded: the error names where it is.
	r := synthRun()
	r.Scenarios[0].Evidence = &Evidence{Turns: []any{func() {}}}
	_, err = WriteDir(dir, r, FormatJSON)
	if err == nil || !strings.Contains(err.Error(), "evidence.turns[0]") || !strings.Contains(err.Error(), "report.json") {
		t.Errorf("unencodable evidence: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a run that cannot be rendered wrote into %s", dir)
	}
}

func TestWriteDirReplacesFilesWhole(t *testing.T) {
	dir := t.TempDir()
	old := strings.Repeat("an older, longer report\n", 100000)
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r := passingRun(false)
	if _, err := WriteDir(dir, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, filepath.Join(dir, "report.json"))
	if want := render(t, r, FormatJSON); string(got) != string(want) {
		t.Errorf("report.json is not the new report alone (%d bytes, want %d)", len(got), len(want))
	}
	st, err := os.Stat(filepath.Join(dir, "report.json"))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("report.json: %v, mode %v", err, st.Mode())
	}
}

func TestWriteDirFailureLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	// A directory where report.json should go: the rename fails.
	if err := os.MkdirAll(filepath.Join(dir, "report.json", "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := WriteDir(dir, synthRun(), FormatBadge, FormatJSON)
	if err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, "report.json")) {
		t.Errorf("the error does not name the file: %v", err)
	}
	if len(files) != 1 || filepath.Base(files[0]) != "badge.json" {
		t.Errorf("reported as written: %v", files)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestDefaultDir(t *testing.T) {
	at := time.Date(2026, 11, 22, 15, 5, 1, 999, time.FixedZone("CET", 3600))
	for target, want := range map[string]string{
		"reference":                     "reference",
		"mutant late-resolution":        "mutant-late-resolution",
		"Vercel AI SDK 5.0 (Next.js)":   "vercel-ai-sdk-5-0-next-js",
		"../../etc/passwd":              "etc-passwd",
		"  --Ünïcode--  ":               "n-code",
		"":                              "target",
		"!!!":                           "target",
		strings.Repeat("ab-", 40) + "x": strings.TrimRight(strings.Repeat("ab-", 40)[:64], "-"),
	} {
		got := DefaultDir("reports", target, at)
		if w := filepath.Join("reports", want, "20261122T140501Z"); got != w {
			t.Errorf("DefaultDir(%q) = %q, want %q", target, got, w)
		}
		s := filepath.Base(filepath.Dir(got))
		if len(s) > 64 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") {
			t.Errorf("slug %q of %q is not [a-z0-9-]", s, target)
		}
	}
}
