package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/tagexpr"
)

// Certification is one entry of the manifest: one published version of an
// SDK, certified through its adapter on one path.
type Certification struct {
	// Adapter is the adapter's folder under adapters/ (it names the SDK):
	// adapters/<Adapter>/certify.sh runs it.
	Adapter string `yaml:"adapter"`
	// Version is the SDK version the adapter's certify.sh takes.
	Version string `yaml:"version"`
	// Path names how the SDK is driven (wire, canonical, ...); empty when
	// the version is certified one way only.
	Path string `yaml:"path"`
	// AdapterFlags go to certify.sh before "--" (the adapter's own flags).
	AdapterFlags []string `yaml:"adapterFlags"`
	// Tags, when set, selects the scenarios (conformance run --tags): a path
	// that only changes the agent's model API runs the agent's scenarios.
	Tags string `yaml:"tags"`
	// CI says whether CI certifies it on every run (.ci/run).
	CI bool `yaml:"ci"`
	// About says what the path is, for the table of reports/README.md.
	About string `yaml:"about"`
	// Held are the checks whose verdict here is the kit's fault, not yet
	// fixed: the table shows them as held back, not as the SDK's verdict,
	// and FINDINGS.md says why.
	Held []Held `yaml:"held"`
	// Choices are the adapter's configuration choices that move a verdict
	// here, each with the checks it moves and why it is the one an
	// application following the SDK's docs makes (reports/README.md shows
	// them beside the certification).
	Choices []Choice `yaml:"choices"`

	// Regressions, when set, are regression scenarios run against this
	// certification's SDK after the suite, each time (make certify and
	// make certify-check), held to a baseline of their own: a defect
	// reproduced from a transcript keeps failing on the SDK that had it.
	Regressions *Regressions `yaml:"regressions"`
	// Line is where the entry is in the manifest.
	Line int `yaml:"-"`
}

// Regressions are a certification's regression scenarios.
type Regressions struct {
	// Scenarios is a directory of YAML scenarios tagged regression
	// (conformance run --scenarios DIR --tags @regression), relative to
	// the directory the runner runs in (the repository's root).
	Scenarios string `yaml:"scenarios"`
	// ExpectedFailures is their baseline: the failures that reproduce the
	// SDK's defects, each with its reason.
	ExpectedFailures string `yaml:"expectedFailures"`
	// About says which defect they reproduce.
	About string `yaml:"about"`
}

// Held is a check held back from a certification's table.
type Held struct {
	Check  string `yaml:"check"`
	Reason string `yaml:"reason"`
}

// Choice is one configuration choice of an adapter that moves a verdict.
type Choice struct {
	// Choice names what is chosen (the step limit, the approval secret).
	Choice string `yaml:"choice"`
	// Value is the value this certification runs with.
	Value string `yaml:"value"`
	// Moves are the checks whose verdict the other value changes.
	Moves []string `yaml:"moves"`
	// Why says why it is the value an application following the SDK's
	// docs chooses, and how the other value was run.
	Why string `yaml:"why"`
}

// IsHeld reports whether a check is held back.
func (c Certification) IsHeld(check string) bool {
	for _, h := range c.Held {
		if h.Check == check {
			return true
		}
	}
	return false
}

// ID names the certification and its folder: <adapter>@<version>[-<path>].
func (c Certification) ID() string {
	id := c.Adapter + "@" + c.Version
	if c.Path != "" {
		id += "-" + c.Path
	}
	return id
}

// Manifest is the list of certifications (adapters/certify.yaml).
type Manifest struct {
	Path           string
	Certifications []Certification
}

var (
	adapterRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`)
	pathRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// LoadManifest reads the manifest strictly: an unknown field, a missing
// adapter or version, an adapter without a certify.sh under adaptersDir, a
// malformed tag expression or two entries with one id is an error naming
// the file and line.
func LoadManifest(path, adaptersDir string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return parseManifest(path, data, adaptersDir)
}

// doc is the manifest's top level.
type doc struct {
	Certifications []yaml.Node `yaml:"certifications"`
}

func parseManifest(path string, data []byte, adaptersDir string) (*Manifest, error) {
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	// Strictly first, for unknown fields and wrong kinds (yaml.v3 names
	// their lines); then as nodes, for each entry's line.
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	var typed struct {
		Certifications []Certification `yaml:"certifications"`
	}
	if err := strict.Decode(&typed); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty (want certifications: a list of entries)", path)
		}
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var d doc
	if err := yaml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	m := &Manifest{Path: path}
	seen := map[string]int{}
	for i, n := range d.Certifications {
		var c Certification
		if err := n.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s: certifications[%d]: %s", path, i, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		c.Line = n.Line
		where := fmt.Sprintf("certifications[%d]", i)
		switch {
		case !adapterRE.MatchString(c.Adapter):
			return nil, fail(c.Line, "%s.adapter: want the name of a folder of adapters/ (lower case, digits, dashes), not %q", where, c.Adapter)
		case !versionRE.MatchString(c.Version):
			return nil, fail(c.Line, "%s.version: want a published version (e.g. 7.0.173), not %q", where, c.Version)
		case c.Path != "" && !pathRE.MatchString(c.Path):
			return nil, fail(c.Line, "%s.path: want lower case, digits and dashes (e.g. canonical), not %q", where, c.Path)
		}
		if c.Tags != "" {
			if _, err := tagexpr.Parse(c.Tags); err != nil {
				return nil, fail(c.Line, "%s.tags: %v", where, err)
			}
		}
		held := map[string]bool{}
		for j, h := range c.Held {
			switch _, known := checks.Lookup(h.Check); {
			case !known:
				return nil, fail(c.Line, "%s.held[%d].check: unknown check %q", where, j, h.Check)
			case strings.TrimSpace(h.Reason) == "":
				return nil, fail(c.Line, "%s.held[%d].reason: say which fault of the kit makes %s's verdict wrong here", where, j, h.Check)
			case held[h.Check]:
				return nil, fail(c.Line, "%s.held[%d]: %s is held twice", where, j, h.Check)
			}
			held[h.Check] = true
		}
		for j, ch := range c.Choices {
			at := fmt.Sprintf("%s.choices[%d]", where, j)
			switch {
			case strings.TrimSpace(ch.Choice) == "":
				return nil, fail(c.Line, "%s.choice: name the adapter's choice (e.g. the step limit)", at)
			case strings.TrimSpace(ch.Value) == "":
				return nil, fail(c.Line, "%s.value: say which value this certification runs with", at)
			case len(ch.Moves) == 0:
				return nil, fail(c.Line, "%s.moves: list the checks the other value moves", at)
			case strings.TrimSpace(ch.Why) == "":
				return nil, fail(c.Line, "%s.why: say why an application following the SDK's docs makes this choice", at)
			}
			for k, id := range ch.Moves {
				if _, known := checks.Lookup(id); !known {
					return nil, fail(c.Line, "%s.moves[%d]: unknown check %q", at, k, id)
				}
			}
		}
		if r := c.Regressions; r != nil {
			switch {
			case strings.TrimSpace(r.Scenarios) == "":
				return nil, fail(c.Line, "%s.regressions.scenarios: name the directory of the regression scenarios", where)
			case strings.TrimSpace(r.ExpectedFailures) == "":
				return nil, fail(c.Line, "%s.regressions.expectedFailures: name their baseline (the failures they reproduce)", where)
			case strings.TrimSpace(r.About) == "":
				return nil, fail(c.Line, "%s.regressions.about: say which defect they reproduce", where)
			}
		}
		for j, f := range c.AdapterFlags {
			if f == "--" {
				return nil, fail(c.Line, "%s.adapterFlags[%d]: \"--\" ends the adapter's flags; the runner adds it", where, j)
			}
		}
		if adaptersDir != "" {
			script := filepath.Join(adaptersDir, c.Adapter, "certify.sh")
			if _, err := os.Stat(script); err != nil {
				return nil, fail(c.Line, "%s.adapter: %s has no certify.sh (every adapter certifies with certify.sh VERSION [adapter flags] [-- conformance run flags])", where, filepath.Join(adaptersDir, c.Adapter))
			}
		}
		if first, dup := seen[c.ID()]; dup {
			return nil, fail(c.Line, "%s: %s is already listed on line %d", where, c.ID(), first)
		}
		seen[c.ID()] = c.Line
		m.Certifications = append(m.Certifications, c)
	}
	if len(m.Certifications) == 0 {
		return nil, fmt.Errorf("%s: certifications: no entry", path)
	}
	return m, nil
}

// Select returns the certifications named (by id, or every one of an
// adapter by its name), in the manifest's order; all of them when none is
// named, only those CI runs when ciOnly. A name that matches nothing is an
// error.
func (m *Manifest) Select(names []string, ciOnly bool) ([]Certification, error) {
	var out []Certification
	used := map[string]bool{}
	for _, c := range m.Certifications {
		if ciOnly && !c.CI {
			continue
		}
		want := len(names) == 0
		for _, n := range names {
			if n == c.ID() || n == c.Adapter {
				want = true
				used[n] = true
			}
		}
		if want {
			out = append(out, c)
		}
	}
	for _, n := range names {
		if !used[n] {
			var ids []string
			for _, c := range m.Certifications {
				if !ciOnly || c.CI {
					ids = append(ids, c.ID())
				}
			}
			return nil, fmt.Errorf("%s: no certification %q (known: %s)", m.Path, n, strings.Join(ids, ", "))
		}
	}
	return out, nil
}
