// Package mutants holds the hand-written mutants of the reference: each is
// the reference with one bug that a real SDK had or could have, kept
// outside the reference as a change to its source (one NAME.patch file
// each: a YAML header saying what the bug is, where it comes from, which
// checks must catch it and which others it also breaks, then a unified
// diff against reference/). The suite proves itself by failing every
// mutant on its checks while passing the clean reference (the mutation
// tests in runner).
//
// A mutant runs as a program of its own: Builder applies the diff in memory
// and builds cmd/conformance with go build -overlay, so the kit's source
// tree and the Go toolchain are needed to run a mutant, and nothing else
// is (the reference itself carries no switch for any bug).
package mutants

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

//go:embed *.patch
var files embed.FS

// Mutant is the reference with one bug.
type Mutant struct {
	// Name identifies the mutant on the command line and in reports; its
	// file is mutants/NAME.patch.
	Name string `yaml:"name"`
	// Bug says what the mutant does wrong.
	Bug string `yaml:"bug"`
	// Source is where the bug comes from (a seed, an SDK issue).
	Source string `yaml:"source"`
	// Checks are the check ids that must catch it.
	Checks []string `yaml:"checks"`
	// DenialPolicy is the denial policy the mutant runs under when none is
	// asked for ("" for the reference's default): its bug lies on that
	// policy's path.
	DenialPolicy string `yaml:"denial-policy"`
	// Collateral are the checks beyond its targets that the mutant fails
	// when the whole suite runs against it, each with why its bug truly
	// breaks that check's own rule (TestMutantCollateral pins them).
	Collateral map[string]string `yaml:"collateral"`

	// Role is the side of the protocol the bug is on: "agent", "client"
	// when it changes the chat client (reference/chatclient), or "server"
	// when it changes the chat server (reference/chatserver).
	Role string `yaml:"-"`
	// File is the mutant's file, mutants/NAME.patch.
	File string `yaml:"-"`
	// Diff is the change, a unified diff against the kit's source tree.
	Diff string `yaml:"-"`
	// Files are the source files the diff changes, relative to the tree.
	Files []string `yaml:"-"`

	patches []filePatch
}

var (
	loadOnce sync.Once
	loaded   []Mutant
	loadErr  error
)

// All returns the mutants, sorted by name. An error names the mutant file
// that could not be read.
func All() ([]Mutant, error) {
	loadOnce.Do(func() { loaded, loadErr = load(files) })
	if loadErr != nil {
		return nil, loadErr
	}
	return slices.Clone(loaded), nil
}

// Lookup returns the mutant with the given name.
func Lookup(name string) (Mutant, error) {
	all, err := All()
	if err != nil {
		return Mutant{}, err
	}
	for _, m := range all {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("no mutant named %q (see conformance mutants)", name)
}

func load(fsys fs.FS) ([]Mutant, error) {
	names, err := fs.Glob(fsys, "*.patch")
	if err != nil {
		return nil, err
	}
	var out []Mutant
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		m, err := Parse("mutants/"+name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Parse reads a mutant file: the YAML header, then, from the first line
// that starts with "--- ", the unified diff. file names it in errors and
// its base name must be the mutant's name.
func Parse(file string, data []byte) (Mutant, error) {
	header, diff := data, []byte(nil)
	if i := bytes.Index(data, []byte("\n--- ")); i >= 0 {
		header, diff = data[:i+1], data[i+1:]
	}
	var m Mutant
	dec := yaml.NewDecoder(bytes.NewReader(header))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return Mutant{}, fmt.Errorf("%s: the header: %w", file, err)
	}
	want := strings.TrimSuffix(path.Base(file), ".patch")
	switch {
	case m.Name != want:
		return Mutant{}, fmt.Errorf("%s: name: %q, want the file's name %q", file, m.Name, want)
	case m.Bug == "":
		return Mutant{}, fmt.Errorf("%s: bug: say what the mutant gets wrong", file)
	case m.Source == "":
		return Mutant{}, fmt.Errorf("%s: source: say where the bug comes from", file)
	case len(m.Checks) == 0:
		return Mutant{}, fmt.Errorf("%s: checks: name the checks that must catch it", file)
	case m.DenialPolicy != "" && m.DenialPolicy != "independent" && m.DenialPolicy != "abort-remaining":
		return Mutant{}, fmt.Errorf("%s: denial-policy: %q is not independent or abort-remaining", file, m.DenialPolicy)
	}
	for c, why := range m.Collateral {
		if why == "" {
			return Mutant{}, fmt.Errorf("%s: collateral: %s: say why the bug breaks its rule", file, c)
		}
	}
	patches, err := parseDiff(file, diff)
	if err != nil {
		return Mutant{}, err
	}
	m.File, m.Diff, m.patches = file, string(diff), patches
	m.Role = "agent"
	for _, p := range patches {
		m.Files = append(m.Files, p.path)
		if !strings.HasPrefix(p.path, "reference/") {
			return Mutant{}, fmt.Errorf("%s: the diff changes %s: a mutant changes the reference (reference/) only", file, p.path)
		}
		if strings.HasPrefix(p.path, "reference/chatclient/") {
			m.Role = "client"
		}
		if strings.HasPrefix(p.path, "reference/chatserver/") {
			m.Role = "server"
		}
	}
	return m, nil
}

// filePatch is the diff of one file.
type filePatch struct {
	path  string
	hunks []hunk
}

// hunk is one change: the lines it expects (context and removed) and the
// lines it leaves (context and added), near line oldStart (1-based).
type hunk struct {
	line     int // the hunk's line in the mutant file, for errors
	oldStart int
	old, new []string
}

func parseDiff(file string, diff []byte) ([]filePatch, error) {
	var out []filePatch
	sc := bufio.NewScanner(bytes.NewReader(diff))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	var cur *filePatch
	var h *hunk
	oldLeft, newLeft := 0, 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case h != nil && (oldLeft > 0 || newLeft > 0):
			if line == "" { // an empty context line whose space was trimmed
				line = " "
			}
			switch line[0] {
			case ' ':
				h.old = append(h.old, line[1:])
				h.new = append(h.new, line[1:])
				oldLeft--
				newLeft--
			case '-':
				h.old = append(h.old, line[1:])
				oldLeft--
			case '+':
				h.new = append(h.new, line[1:])
				newLeft--
			case '\\': // "\ No newline at end of file"
			default:
				return nil, fmt.Errorf("%s: diff line %d: %q is not a line of the hunk", file, n, line)
			}
			if oldLeft < 0 || newLeft < 0 {
				return nil, fmt.Errorf("%s: diff line %d: the hunk is longer than its header says", file, n)
			}
		case strings.HasPrefix(line, "--- "):
			if h != nil && (oldLeft != 0 || newLeft != 0) {
				return nil, fmt.Errorf("%s: diff line %d: the hunk before is shorter than its header says", file, n)
			}
			if !sc.Scan() {
				return nil, fmt.Errorf("%s: diff line %d: a file header without its +++ line", file, n)
			}
			n++
			plus := sc.Text()
			if !strings.HasPrefix(plus, "+++ b/") {
				return nil, fmt.Errorf("%s: diff line %d: %q: want +++ b/PATH", file, n, plus)
			}
			p := strings.TrimPrefix(strings.Fields(plus[4:])[0], "b/")
			if p != path.Clean(p) || strings.HasPrefix(p, "../") || path.IsAbs(p) {
				return nil, fmt.Errorf("%s: diff line %d: %q is not a path inside the tree", file, n, p)
			}
			out = append(out, filePatch{path: p})
			cur, h = &out[len(out)-1], nil
		case strings.HasPrefix(line, "@@ "):
			if cur == nil {
				return nil, fmt.Errorf("%s: diff line %d: a hunk before any file header", file, n)
			}
			oldStart, oldLen, newLen, ok := hunkHeader(line)
			if !ok {
				return nil, fmt.Errorf("%s: diff line %d: %q: want @@ -START,COUNT +START,COUNT @@", file, n, line)
			}
			cur.hunks = append(cur.hunks, hunk{line: n, oldStart: oldStart})
			h = &cur.hunks[len(cur.hunks)-1]
			oldLeft, newLeft = oldLen, newLen
		case strings.TrimSpace(line) == "":
		default:
			return nil, fmt.Errorf("%s: diff line %d: %q: want a file header (--- a/PATH) or a hunk (@@)", file, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if h != nil && (oldLeft != 0 || newLeft != 0) {
		return nil, fmt.Errorf("%s: the last hunk is shorter than its header says", file)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no diff: a mutant is a change to the reference", file)
	}
	for _, p := range out {
		if len(p.hunks) == 0 {
			return nil, fmt.Errorf("%s: %s: a file header without a hunk", file, p.path)
		}
	}
	return out, nil
}

// hunkHeader reads "@@ -START[,COUNT] +START[,COUNT] @@ ...".
func hunkHeader(line string) (oldStart, oldLen, newLen int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, false
	}
	rng := func(s string) (start, n int, ok bool) {
		a, b, found := strings.Cut(s, ",")
		n = 1
		var err error
		if start, err = strconv.Atoi(a); err != nil || start < 0 {
			return 0, 0, false
		}
		if found {
			if n, err = strconv.Atoi(b); err != nil || n < 0 {
				return 0, 0, false
			}
		}
		return start, n, true
	}
	oldStart, oldLen, ok1 := rng(f[1][1:])
	_, newLen, ok2 := rng(f[2][1:])
	return oldStart, oldLen, newLen, ok1 && ok2
}

// Apply returns the source files the mutant changes, as the mutant has
// them, by their path relative to the tree; read gives a file of the
// clean tree. Each hunk must find the lines it expects, exactly, at its
// line or elsewhere in the file (the nearest place wins); a hunk that finds
// them nowhere is an error naming the mutant, the file and the hunk: the
// reference changed under the mutant, whose diff must be written again.
func (m Mutant) Apply(read func(path string) ([]byte, error)) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range m.patches {
		src, err := read(p.path)
		if err != nil {
			return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		text := string(src)
		trailingNL := strings.HasSuffix(text, "\n")
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		offset := 0
		for _, h := range p.hunks {
			at := find(lines, h.old, h.oldStart-1+offset)
			if at < 0 {
				return nil, fmt.Errorf("mutant %s (%s, diff line %d): the change to %s no longer applies: the lines it changes (from line %d) are not in the file any more; write the mutant's change again against the reference",
					m.Name, m.File, h.line, p.path, h.oldStart)
			}
			lines = slices.Concat(lines[:at], h.new, lines[at+len(h.old):])
			offset = at - (h.oldStart - 1) + len(h.new) - len(h.old)
		}
		res := strings.Join(lines, "\n")
		if trailingNL {
			res += "\n"
		}
		out[p.path] = []byte(res)
	}
	return out, nil
}

// find returns where want occurs in lines, the occurrence nearest to near,
// or -1.
func find(lines, want []string, near int) int {
	best := -1
	for i := 0; i+len(want) <= len(lines); i++ {
		if !slices.Equal(lines[i:i+len(want)], want) {
			continue
		}
		if best < 0 || abs(i-near) < abs(best-near) {
			best = i
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
