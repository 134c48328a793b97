package report

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
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
// removed by the next run that writes reports under the same root, however
// recent, once no writer is alive there; one a live run is writing stays,
// and so does anything else (a folder of another name, a report). Legacy
// names (before the writers took locks) go only once old enough.
func TestStaleTempFoldersAreCleaned(t *testing.T) {
	root := t.TempDir()
	r := passingRun(false)
	dir := filepath.Dir(DefaultDir(root, r.Target, r.Started))
	other := filepath.Join(root, "another-target")
	old, now := time.Now().Add(-time.Hour), time.Now()
	type made struct {
		at   time.Time
		gone bool
	}
	folders := map[string]made{
		filepath.Join(dir, ".20261122T140501Z.ack-123456.tmp"): {now, true},  // left by a killed run, just now
		filepath.Join(other, ".20261122T140501Z.ack-42.tmp"):   {now, true},  // by a killed run of another target
		filepath.Join(root, ".probe.ack-99.tmp"):               {now, true},  // by a killed CheckRoot
		filepath.Join(dir, ".20261122T140500Z.123.tmp"):        {old, true},  // legacy, old
		filepath.Join(dir, ".20261122T140502Z.777.tmp"):        {now, false}, // legacy, recent
		filepath.Join(dir, ".keep.tmp"):                        {old, false}, // not a name the kit gives
		filepath.Join(dir, "20261122T140503Z"):                 {old, false}, // a report
	}
	for p, m := range folders {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, m.at, m.at); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := WriteNew(root, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	for p, m := range folders {
		_, err := os.Stat(p)
		if gone := os.IsNotExist(err); gone != m.gone {
			t.Errorf("%s: removed %v, want %v", p, gone, m.gone)
		}
	}

	// A run writing there now holds the folder's lock: its temporary
	// folder stays, however recent.
	writing := filepath.Join(other, ".20261122T140509Z.ack-7.tmp")
	if err := os.MkdirAll(writing, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, locked := lockDir(other, false, true)
	defer unlock()
	if !locked {
		t.Skip("no flock on this system: a live writer's folder is told apart by its age only")
	}
	if err := CheckRoot(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(writing); err != nil {
		t.Errorf("the folder a live run is writing was removed: %v", err)
	}
}

// killedWriterEnv makes the test binary a writer of reports (TestMain).
const killedWriterEnv = "ACK_REPORT_KILLED_WRITER"

// TestMain makes the test binary, when killedWriterEnv names a root, the
// writer TestKilledWriterLeavesNothingBehind kills: it writes a report set
// there and stops in its middle, once it says so, until it is killed.
func TestMain(m *testing.M) {
	if root := os.Getenv(killedWriterEnv); root != "" {
		afterWrite = func(name string) error {
			os.Stdout.WriteString("writing\n")
			select {} // until killed
		}
		_, _, _ = WriteNew(root, passingRun(false), FormatJSON, FormatMarkdown)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// A run killed (SIGKILL) while it writes a report set leaves a hidden
// temporary folder; the next run that writes reports under the same root
// removes it at once, whatever its target: nothing of it stays.
func TestKilledWriterLeavesNothingBehind(t *testing.T) {
	if !flockWorks(t) {
		t.Skip("no flock on this system: a killed run's folder goes once old enough")
	}
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "writing\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("the writer did not start writing: %q %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	hidden := func() []string {
		var found []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), ".") {
				found = append(found, p)
			}
			return nil
		})
		return found
	}
	if len(hidden()) != 1 {
		t.Fatalf("the killed writer left %q, want its one temporary folder", hidden())
	}
	r := passingRun(false)
	r.Target = "another target"
	if _, _, err := WriteNew(root, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if left := hidden(); len(left) > 0 {
		t.Errorf("after the next run, %q is still there", left)
	}
}

// flockWorks reports whether folders take locks here.
func flockWorks(t *testing.T) bool {
	unlock, ok := lockDir(t.TempDir(), true, false)
	unlock()
	return ok
}
