package report

import (
	"errors"
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

// A report set goes to a folder of its own: WriteDir never mixes its files
// with those already in a folder, and leaves them as they were.
func TestWriteDirRefusesAFolderThatHoldsFiles(t *testing.T) {
	dir := t.TempDir()
	old := "an older report\n"
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := WriteDir(dir, passingRun(false), FormatJSON, FormatMarkdown)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "already holds files") {
		t.Fatalf("writing into a folder with a report: %v", err)
	}
	if got := string(readFile(t, filepath.Join(dir, "report.json"))); got != old {
		t.Errorf("the earlier report.json was changed: %q", got)
	}
	assertOnly(t, filepath.Dir(dir), filepath.Base(dir))
	assertOnly(t, dir, "report.json")
}

// A write that stops half way (a full disk, a kill) leaves no report
// folder, and no temporary folder when the process lives to clean up.
func TestWriteDirStoppedHalfWayLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "20261122T140501Z")
	afterWrite = func(name string) error {
		if name == "report.md" {
			return errors.New("disk full")
		}
		return nil
	}
	defer func() { afterWrite = nil }()
	files, err := WriteDir(dir, synthRun())
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v, %v", files, err)
	}
	if len(files) != 0 {
		t.Errorf("reported as written: %v", files)
	}
	assertOnly(t, parent)
}

// Two runs of one target that start in the same second each get their
// own folder, whole.
func TestWriteNewGivesEachRunItsOwnFolder(t *testing.T) {
	root := t.TempDir()
	r := synthRun()
	var dirs []string
	for range 3 {
		dir, files, err := WriteNew(root, r, FormatJSON, FormatBadge)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 {
			t.Errorf("%s: wrote %v", dir, files)
		}
		dirs = append(dirs, dir)
	}
	base := DefaultDir(root, r.Target, r.Started)
	if want := []string{base, base + "-2", base + "-3"}; !slices.Equal(dirs, want) {
		t.Errorf("folders %v, want %v", dirs, want)
	}
	for _, d := range dirs {
		assertOnly(t, d, "badge.json", "report.json")
	}
}

func TestCheckRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "new", "reports")
	if err := CheckRoot(root); err != nil {
		t.Fatal(err)
	}
	assertOnly(t, root)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckRoot(filepath.Join(file, "reports")); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a root under a file: %v", err)
	}
}

// assertOnly fails unless dir holds exactly these names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %v, want %v", dir, got, names)
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

// The hidden temporary folders a run killed while writing left behind are
// removed by the next run of the target, once old enough that no run is
// writing them; a recent one (a run writing now) and anything else stay.
func TestStaleTempFoldersAreCleaned(t *testing.T) {
	root := t.TempDir()
	r := passingRun(false)
	dir := filepath.Dir(DefaultDir(root, r.Target, r.Started))
	old := time.Now().Add(-time.Hour)
	made := map[string]time.Time{
		".20261122T140501Z.123456.tmp": old,        // left by a killed run
		".probe-99.tmp":                old,        // left by a killed CheckRoot
		".20261122T140502Z.777.tmp":    time.Now(), // another run writing now
		".keep.tmp":                    old,        // not a name the kit gives
		"20261122T140503Z":             old,        // a report
	}
	for name, at := range made {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := WriteNew(root, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	for name := range made {
		_, err := os.Stat(filepath.Join(dir, name))
		gone := os.IsNotExist(err)
		if want := name == ".20261122T140501Z.123456.tmp" || name == ".probe-99.tmp"; gone != want {
			t.Errorf("%s: removed %v, want %v", name, gone, want)
		}
	}
}
