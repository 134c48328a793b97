package runner

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/features"
	"github.com/approval-conformance-kit/ack/internal/gherkindoc"
	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/scenarios"
	"github.com/approval-conformance-kit/ack/steps"
)

// suite is the suite a run runs: every scenario of the features and of the
// compiled YAML scenarios, parsed, linted and prepared (each step matched
// to its definition), and the list of them. A suite is built once per
// process for the same inputs (load) and shared by every run of them,
// concurrent ones too: nothing in it is written after it is built.
type suite struct {
	// files are the suite's files in the order they run: the compiled
	// YAML scenarios, then the features (godog's order).
	files []suiteFile
	// all lists every scenario in the order of the features, then of the
	// YAML scenarios.
	all []Listed

	// fsys, paths and contents are the suite as godog reads it, for runs
	// that want godog's own output.
	fsys     fs.FS
	paths    []string
	contents []godog.Feature
	// digest identifies the suite's inputs (sources.digest), "" when one
	// could not be read.
	digest string
	// long are the scenarios whose text godog reads shortened (long),
	// by the name godog gives them; restore gives them back their own.
	long map[longKey]*godog.Scenario
}

// suiteFile is a parsed file of the suite.
type suiteFile struct {
	uri       string
	scenarios []*steps.Scenario
}

// sources are the suite's inputs as the options name them.
type sources struct {
	fsys  fs.FS
	paths []string // nil when the features are left out
	// dirs are the directories of YAML scenarios: the built-in one
	// (unless left out), then the extra ones, named by extraNames.
	dirs       []fs.FS
	builtIn    int
	extraNames []string
}

func sourcesOf(opts Options) sources {
	src := sources{fsys: opts.Features, paths: opts.Paths, extraNames: opts.ExtraScenarioNames}
	if src.fsys == nil {
		src.fsys = features.FS
	}
	if len(src.paths) == 0 {
		src.paths = []string{"."}
	}
	if opts.NoFeatures {
		src.paths = nil
	}
	if !opts.NoScenarios {
		sfs := opts.Scenarios
		if sfs == nil {
			sfs = scenarios.FS
		}
		src.dirs = append(src.dirs, sfs)
	}
	src.builtIn = len(src.dirs)
	src.dirs = append(src.dirs, opts.ExtraScenarios...)
	return src
}

// suites caches the suites built in this process by the digest of their
// inputs (every file's path and bytes, and the options that choose them):
// a run whose inputs did not change reuses the suite without parsing,
// compiling or linting anything again. It keeps the last maxSuites.
var suites struct {
	sync.Mutex
	byKey map[[sha256.Size]byte]*cachedSuite
	order [][sha256.Size]byte
}

const maxSuites = 16

// cachedSuite is a suite built once, or the error building it gave.
type cachedSuite struct {
	once sync.Once
	st   *suite
	err  error
}

// load returns the suite the options name: the cached one when its inputs
// are the same, else a new one.
func load(opts Options) (*suite, error) {
	src := sourcesOf(opts)
	key, ok := src.digest()
	if !ok { // something could not be read: build says what
		return build(src)
	}
	suites.Lock()
	if suites.byKey == nil {
		suites.byKey = map[[sha256.Size]byte]*cachedSuite{}
	}
	c := suites.byKey[key]
	if c == nil {
		c = &cachedSuite{}
		suites.byKey[key] = c
		suites.order = append(suites.order, key)
		if len(suites.order) > maxSuites {
			delete(suites.byKey, suites.order[0])
			suites.order = suites.order[1:]
		}
	}
	suites.Unlock()
	c.once.Do(func() {
		c.st, c.err = build(src)
		if c.st != nil {
			c.st.digest = hex.EncodeToString(key[:16])
		}
	})
	return c.st, c.err
}

// digest hashes every input of the suite; ok is false when one cannot be
// read.
func (src sources) digest() (key [sha256.Size]byte, ok bool) {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	file := func(fsys fs.FS, name string) bool {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return false
		}
		field(name)
		field(string(data))
		return true
	}
	walk := func(fsys fs.FS, root string, keep func(string) bool) bool {
		err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && keep(name) && !file(fsys, name) {
				return errors.New("unreadable")
			}
			return nil
		})
		return err == nil
	}
	field(fmt.Sprintf("paths %d", len(src.paths)))
	for _, p := range src.paths {
		field(p)
		name, _ := splitLine(p)
		st, err := fs.Stat(src.fsys, name)
		if err != nil {
			return key, false
		}
		if !st.IsDir() {
			if !file(src.fsys, name) {
				return key, false
			}
			continue
		}
		if !walk(src.fsys, name, isFeature) {
			return key, false
		}
	}
	field(fmt.Sprintf("dirs %d %d", len(src.dirs), src.builtIn))
	for i, dir := range src.dirs {
		field(fmt.Sprintf("dir %d", i))
		if j := i - src.builtIn; j >= 0 && j < len(src.extraNames) {
			field(src.extraNames[j])
		}
		if !walk(dir, ".", isYAML) {
			return key, false
		}
	}
	copy(key[:], h.Sum(nil))
	return key, true
}

func isFeature(name string) bool { return strings.HasSuffix(name, ".feature") }
func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// build reads, compiles, lints, parses and prepares the suite. A
// directory of YAML scenarios whose files do not load gives every bad
// file's error at once (scenario.Errors), not the first; an extra
// directory with no scenario is an error.
func build(src sources) (*suite, error) {
	st := &suite{fsys: src.fsys, paths: src.paths}
	var compiled []suiteFile
	var bad scenario.Errors
	seen := map[string]bool{}
	for i, sfs := range src.dirs {
		j := i - src.builtIn
		extra := j >= 0 && j < len(src.extraNames)
		named := func(e *scenario.Error) *scenario.Error {
			if extra {
				e.File = filepath.Join(src.extraNames[j], filepath.FromSlash(e.File))
			}
			return e
		}
		files, err := scenario.LoadFS(sfs, ".")
		var errs scenario.Errors
		var one *scenario.Error
		switch {
		case errors.As(err, &errs):
			for _, e := range errs {
				bad = append(bad, named(e))
			}
			continue
		case errors.As(err, &one):
			bad = append(bad, named(one))
			continue
		case err != nil:
			return nil, err
		}
		if extra && len(files) == 0 {
			bad = append(bad, &scenario.Error{File: src.extraNames[j], Msg: "holds no YAML scenario (a *.yaml or *.yml file, at any depth)"})
			continue
		}
		for _, f := range files {
			text, err := scenario.Compile(f)
			if err != nil {
				if errors.As(err, &one) {
					bad = append(bad, named(one))
					continue
				}
				return nil, err
			}
			doc, errs := parseAndLint(f.Path, []byte(text))
			if len(errs) > 0 {
				bad = append(bad, named(&scenario.Error{File: f.Path, Msg: fmt.Sprintf("compiles to a scenario that fails the lint (conformance scenario show %s): %v", f.Path, errs[0])}))
				continue
			}
			contents, err := st.forGodog(doc, text)
			if err != nil {
				bad = append(bad, named(&scenario.Error{File: f.Path, Msg: err.Error()}))
				continue
			}
			st.contents = append(st.contents, godog.Feature{Name: f.Path, Contents: contents})
			if seen[f.Path] { // godog runs a file once
				continue
			}
			seen[f.Path] = true
			compiled = append(compiled, prepare(doc.URI, doc.Pickles))
		}
	}
	if len(bad) == 1 {
		return nil, bad[0]
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%d scenario files do not load:\n%w", len(bad), bad)
	}
	feats, err := readFeatures(src.fsys, src.paths)
	if err != nil {
		return nil, fmt.Errorf("read the suite: %w", err)
	}
	st.files = append(compiled, feats...)
	for _, f := range append(feats, compiled...) {
		for _, sc := range f.scenarios {
			st.all = append(st.all, listed(sc.Pickle))
		}
	}
	return st, nil
}

// parseAndLint parses a compiled YAML scenario and lints it.
func parseAndLint(uri string, text []byte) (*gherkindoc.Document, []steps.LintError) {
	doc, err := gherkindoc.Parse(uri, text)
	if err != nil {
		var perr *gherkindoc.Error
		msg := err.Error()
		if errors.As(err, &perr) {
			msg = perr.Err.Error()
		}
		return nil, []steps.LintError{{Source: uri, Scenario: "(file)", Msg: msg}}
	}
	return doc, steps.LintDocument(doc)
}

// prepare makes a file's pickles ready to run.
func prepare(uri string, pickles []*godog.Scenario) suiteFile {
	f := suiteFile{uri: uri}
	for _, p := range pickles {
		f.scenarios = append(f.scenarios, steps.Prepare(p))
	}
	return f
}
