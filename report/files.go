package report

import (
	"errors"
	"fmt"
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

// fileFormats lists the formats in the order WriteDir writes them:
// report.json last, so that its presence marks a complete directory.
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

// WriteDir writes the report files of a run into dir, creating it if
// needed: each format named (every format when none is), among json
// (report.json), junit (junit.xml), md (report.md), html (report.html),
// badge (badge.json) and journal (journal.jsonl). It returns the paths
// written, in the order written.
//
// Every file is rendered before any is written, so a run that cannot be
// rendered writes nothing. Each file is written to a temporary file in
// dir, synced, then renamed over its final name, so a crash leaves the
// previous file or the new one, never half of one; report.json is written
// last, so a directory holding it holds a complete report. An unknown
// format is an error and writes nothing.
func WriteDir(dir string, r *Run, formats ...string) ([]string, error) {
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
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, f := range fileFormats {
		if len(want) > 0 && !want[f.name] {
			continue
		}
		data, err := f.render(r)
		if err != nil {
			return nil, fmt.Errorf("write report: %s: %w", f.file, err)
		}
		files = append(files, file{f.file, data})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeFileAtomic(path, f.data); err != nil {
			return written, fmt.Errorf("write report: %w", err)
		}
		written = append(written, path)
	}
	syncDir(dir)
	return written, nil
}

// writeFileAtomic writes data to a temporary file next to path, syncs it
// and renames it to path.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
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
