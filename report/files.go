package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The file formats of a report directory, as WriteDir and the CLI's
// --format name them.
const (
	// FormatJSON is report.json: the whole run (docs/schemas/report.schema.json).
	FormatJSON = "json"
	// FormatJUnit is junit.xml: a testsuite per feature, a testcase per scenario.
	FormatJUnit = "junit"
	// FormatMarkdown is report.md: the result, the checks, and the
	// scenarios that did not pass with a bounded excerpt of their evidence.
	FormatMarkdown = "md"
	// FormatHTML is report.html: a self-contained page that reads offline.
	FormatHTML = "html"
	// FormatBadge is badge.json: a shields.io endpoint badge.
	FormatBadge = "badge"
	// FormatJournal is journal.jsonl: one line per model call of every
	// scenario that kept evidence.
	FormatJournal = "journal"
)

// fileFormats lists the formats in the order WriteDir writes them,
// report.json last.
var fileFormats = []struct {
	name, file string
	render     func(*Run) ([]byte, error)
}{
	{FormatJUnit, "junit.xml", encodeJUnit},
	{FormatMarkdown, "report.md", encodeMarkdown},
	{FormatHTML, "report.html", encodeHTML},
	{FormatBadge, "badge.json", encodeBadge},
	{FormatJournal, "journal.jsonl", encodeJournal},
	{FormatJSON, "report.json", encodeJSON},
}

// Formats returns the names of every file format, in the order WriteDir
// writes them.
func Formats() []string {
	out := make([]string, len(fileFormats))
	for i, f := range fileFormats {
		out[i] = f.name
	}
	return out
}

// FileName returns the name of the file a format is written to
// ("report.json" for "json"), and false for an unknown format.
func FileName(format string) (string, bool) {
	for _, f := range fileFormats {
		if f.name == format {
			return f.file, true
		}
	}
	return "", false
}

// WriteDir writes the report files of a run into dir, as one whole set:
// each format named (every format when none is), among json (report.json),
// junit (junit.xml), md (report.md), html (report.html), badge
// (badge.json) and journal (journal.jsonl). It returns the paths written,
// in the order written.
//
// Every file is rendered first, so a run that cannot be rendered writes
// nothing. The files are written and synced in a new temporary folder next
// to dir, which is then renamed to dir: a crash or a kill leaves either no
// dir or the complete set, never part of one (at most a hidden temporary
// folder, ".<name>.ack-*.tmp", which the next write of reports in the same
// folder removes: cleanStale). dir must not exist yet, or be empty: a report
// set never mixes with the files of another run. An unknown format is an
// error and writes nothing.
func WriteDir(dir string, r *Run, formats ...string) ([]string, error) {
	files, err := renderFiles(r, formats)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	cleanStale(parent, time.Now())
	unlock, _ := lockDir(parent, false, true)
	defer unlock()
	tmp, err := writeTemp(parent, filepath.Base(dir), files)
	if err != nil {
		return nil, err
	}
	if err := place(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("write report %s: the folder already holds files (a report set goes to a folder of its own)", dir)
		}
		return nil, fmt.Errorf("write report %s: %w", dir, err)
	}
	return paths(dir, files), nil
}

// WriteNew writes the report files of a run, as WriteDir does, to a folder
// of their own under root: root/<target-slug>/<timestamp> (DefaultDir),
// or that name with "-2", "-3", ... when another run took it first. It
// returns the folder and the paths written.
func WriteNew(root string, r *Run, formats ...string) (string, []string, error) {
	files, err := renderFiles(r, formats)
	if err != nil {
		return "", nil, err
	}
	base := DefaultDir(root, r.Target, r.Started)
	parent := filepath.Dir(base)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, fmt.Errorf("write report: %w", err)
	}
	cleanTree(root, time.Now())
	unlock, _ := lockDir(parent, false, true)
	defer unlock()
	tmp, err := writeTemp(parent, filepath.Base(base), files)
	if err != nil {
		return "", nil, err
	}
	for n := 1; n <= maxSameName; n++ {
		dir := base
		if n > 1 {
			dir = fmt.Sprintf("%s-%d", base, n)
		}
		err := place(tmp, dir)
		if err == nil {
			return dir, paths(dir, files), nil
		}
		if !errors.Is(err, fs.ErrExist) {
			os.RemoveAll(tmp)
			return "", nil, fmt.Errorf("write report %s: %w", dir, err)
		}
	}
	os.RemoveAll(tmp)
	return "", nil, fmt.Errorf("write report %s: %d report folders of this target already have this name", base, maxSameName)
}

// A writer of reports holds a shared lock (lockDir) on the folder it
// writes in for as long as its hidden temporary folder exists there; the
// system ends the lock when the writer ends, however it ends (kill -9
// included). A cleaner that takes the folder's exclusive lock at once
// therefore knows that no writer is alive there, and removes every hidden
// temporary folder in it, however recent. Where no lock can be taken (a
// system or file system without flock), it removes only those older than
// staleAfter: a set is written in well under a second, so one this old was
// left by a run killed while writing, never one another run is writing now.
const staleAfter = 10 * time.Minute

// cleanStale removes the hidden temporary folders (".<name>.ack-<n>.tmp",
// ".probe.ack-<n>.tmp") that runs killed while writing left in dir, so that
// no tool that walks the reports (a junit glob) finds a set no finished
// run backs. Errors are ignored: what cannot be removed stays hidden.
func cleanStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type temp struct {
		e      os.DirEntry
		legacy bool
	}
	var stale []temp
	for _, e := range entries {
		if ours, legacy := tempName(e.Name()); e.IsDir() && (ours || legacy) {
			stale = append(stale, temp{e, legacy})
		}
	}
	if len(stale) == 0 {
		return
	}
	unlock, noWriter := lockDir(dir, true, false)
	defer unlock()
	for _, t := range stale {
		e := t.e
		if !noWriter || t.legacy {
			info, err := e.Info()
			if err != nil || now.Sub(info.ModTime()) < staleAfter {
				continue
			}
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// cleanTree cleans a report root as cleanStale does: the root itself (a
// killed CheckRoot's probe) and the folder of every target in it, so that
// any run that writes reports there cleans what any killed run left.
func cleanTree(root string, now time.Time) {
	cleanStale(root, now)
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			cleanStale(filepath.Join(root, e.Name()), now)
		}
	}
}

// tempName reports whether a name is one writeTemp or CheckRoot gives,
// "." + name + ".ack-" + digits + ".tmp" (ours), or gave before the writers
// took locks, "." + name + "." + digits + ".tmp" (legacy: removed only when
// old enough, as then).
func tempName(name string) (ours, legacy bool) {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return false, false
	}
	i := strings.LastIndexAny(rest, ".-")
	if i <= 0 || i == len(rest)-1 {
		return false, false
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return false, false
		}
	}
	if strings.HasSuffix(rest[:i+1], ".ack-") {
		return true, false
	}
	return false, true
}

// maxSameName bounds the runs of one target that share a start second.
const maxSameName = 1000

// CheckRoot reports whether report folders can be made under root, so
// that a run finds out before it starts rather than after: it creates root
// if needed and a temporary folder in it, which it removes. It removes what
// runs killed while writing left under root, too (cleanTree).
func CheckRoot(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("report folder %s: %w", root, err)
	}
	cleanTree(root, time.Now())
	unlock, _ := lockDir(root, false, true)
	defer unlock()
	probe, err := os.MkdirTemp(root, ".probe.ack-*.tmp")
	if err != nil {
		return fmt.Errorf("report folder %s: %w", root, err)
	}
	if err := os.WriteFile(filepath.Join(probe, "probe"), nil, 0o644); err != nil {
		os.RemoveAll(probe)
		return fmt.Errorf("report folder %s: %w", root, err)
	}
	return os.RemoveAll(probe)
}

// renderedFile is one file of a report set, rendered.
type renderedFile struct {
	name string
	data []byte
}

// renderFiles renders the formats asked (every format when none is), in
// the order of fileFormats.
func renderFiles(r *Run, formats []string) ([]renderedFile, error) {
	if r == nil {
		return nil, errors.New("write report: no run")
	}
	want := map[string]bool{}
	for _, f := range formats {
		f = strings.TrimSpace(f)
		if _, ok := FileName(f); !ok {
			return nil, fmt.Errorf("write report: unknown format %q (want one of %s)", f, strings.Join(Formats(), ", "))
		}
		want[f] = true
	}
	var files []renderedFile
	for _, f := range fileFormats {
		if len(want) > 0 && !want[f.name] {
			continue
		}
		data, err := f.render(r)
		if err != nil {
			return nil, fmt.Errorf("write report: %s: %w", f.file, err)
		}
		files = append(files, renderedFile{f.file, data})
	}
	return files, nil
}

// afterWrite, when set (by tests), is called after each file of a set is
// written to its temporary folder; an error stops the write there.
var afterWrite func(name string) error

// writeTemp writes the files into a new temporary folder in parent (made
// if needed), synced, and returns the folder. On error it leaves nothing.
func writeTemp(parent, name string, files []renderedFile) (_ string, err error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+name+".ack-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	for _, f := range files {
		if err := writeFileSynced(filepath.Join(tmp, f.name), f.data); err != nil {
			return "", fmt.Errorf("write report: %w", err)
		}
		if afterWrite != nil {
			if err := afterWrite(f.name); err != nil {
				return "", fmt.Errorf("write report: %w", err)
			}
		}
	}
	syncDir(tmp)
	return tmp, nil
}

// place renames the temporary folder to dir. A dir that exists and is
// empty is replaced; one that holds files gives an error that is
// fs.ErrExist.
func place(tmp, dir string) error {
	err := os.Rename(tmp, dir)
	if err != nil {
		// Where a rename cannot replace an empty folder, remove it first.
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) == 0 && os.Remove(dir) == nil {
			err = os.Rename(tmp, dir)
		}
	}
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			return fmt.Errorf("%w: %v", fs.ErrExist, err)
		}
		return err
	}
	syncDir(filepath.Dir(dir))
	return nil
}

func paths(dir string, files []renderedFile) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Join(dir, f.name)
	}
	return out
}

// writeFileSynced writes data to a new file and syncs it.
func writeFileSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// syncDir makes the renames durable where the platform allows it; where it
// does not (opening a directory fails on some systems), the files are
// still complete, only perhaps not yet on disk.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// DefaultDir returns the directory a run's report goes to:
// root/<target-slug>/<timestamp>, the timestamp in UTC like
// 20261122T140501Z and the slug the target name in lower case with every
// run of characters outside [a-z0-9] turned into one "-" (at most 64
// characters; "target" if nothing is left). The slug cannot climb out of
// root: "../x" becomes "x".
func DefaultDir(root, target string, t time.Time) string {
	return filepath.Join(root, slug(target), t.UTC().Format("20060102T150405Z"))
}

func slug(s string) string {
	const maxLen = 64
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > maxLen {
		out = strings.TrimRight(out[:maxLen], "-")
	}
	if out == "" {
		return "target"
	}
	return out
}

// sortedScenarios returns the scenarios ordered by id, leaving the run
// untouched.
func sortedScenarios(r *Run) []Scenario {
	out := slices.Clone(r.Scenarios)
	slices.SortStableFunc(out, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) })
	return out
}
