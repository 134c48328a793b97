// Package baseline reads an expected-failures file and applies it to a run:
// a failure the file lists is expected and does not fail the run; a failure
// it does not list is unexpected; an entry whose scenario (or check) now
// passes is stale, and fails the run until it is removed, so the baseline
// only ever shrinks.
//
// The file is YAML:
//
//	expectedFailures:
//	  - scenario: "pre_resolution.feature: a denied call does not run (stream)"
//	    reason: our stream mode runs denied calls (#123)
//	  - scenario: "wire.feature: replaying the same request does not run a tool again (generate)"
//	    check: WIRE-04
//	    reason: no idempotency yet
//
// An entry names a scenario by its id (as reports show it; a trailing "*"
// matches any suffix, so "wire.feature: *" names every scenario of a file),
// optionally narrowed to one check, and says why.
package baseline

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// Entry is one expected failure.
type Entry struct {
	Scenario string `yaml:"scenario" json:"scenario"`
	Check    string `yaml:"check,omitempty" json:"check,omitempty"`
	Reason   string `yaml:"reason" json:"reason"`
	// Line is where the entry is in its file.
	Line int `yaml:"-" json:"line,omitempty"`
}

// String names the entry as reports and errors show it: scenario[:check].
func (e Entry) String() string {
	if e.Check != "" {
		return e.Scenario + ":" + e.Check
	}
	return e.Scenario
}

func (e Entry) matches(id string) bool {
	if prefix, ok := strings.CutSuffix(e.Scenario, "*"); ok {
		return strings.HasPrefix(id, prefix)
	}
	return id == e.Scenario
}

// File is an expected-failures file.
type File struct {
	Path    string
	Entries []Entry
}

// Load reads an expected-failures file strictly: an unknown field, a
// missing reason or an unknown check is an error naming the file and line.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	return Parse(path, data)
}

var lineRE = regexp.MustCompile(`line (\d+): (.*)`)

// Parse reads an expected-failures document.
func Parse(path string, data []byte) (*File, error) {
	var doc struct {
		ExpectedFailures []yaml.Node `yaml:"expectedFailures"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", path, m[1], m[2])
		}
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	f := &File{Path: path}
	seen := map[string]int{}
	for _, n := range doc.ExpectedFailures {
		var e Entry
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: an entry is a mapping with scenario, check and reason", path, n.Line)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i].Value; k {
			case "scenario", "check", "reason":
			default:
				return nil, fmt.Errorf("%s:%d: %s: unknown field (allowed: scenario, check, reason)", path, n.Content[i].Line, k)
			}
		}
		if err := n.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n.Line, err)
		}
		e.Line = n.Line
		switch {
		case strings.TrimSpace(e.Scenario) == "":
			return nil, fmt.Errorf("%s:%d: scenario: missing", path, n.Line)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%s:%d: reason: say why %q is expected to fail", path, n.Line, e.Scenario)
		}
		if e.Check != "" {
			if _, ok := checks.Lookup(e.Check); !ok {
				return nil, fmt.Errorf("%s:%d: check: unknown check %q", path, n.Line, e.Check)
			}
		}
		if first, dup := seen[e.String()]; dup {
			return nil, fmt.Errorf("%s:%d: %s is already listed on line %d", path, n.Line, e.String(), first)
		}
		seen[e.String()] = n.Line
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

// Outcome is what a baseline made of a run.
type Outcome struct {
	// Expected are the failures the baseline lists.
	Expected []Hit `json:"expected,omitempty"`
	// Unexpected are failures it does not list.
	Unexpected []Hit `json:"unexpected,omitempty"`
	// Stale are entries whose scenario (or check) passed.
	Stale []Entry `json:"stale,omitempty"`
	// NotRun are entries no scenario of the run matched (filtered out by
	// tags or shard); they are neither stale nor expected.
	NotRun []Entry `json:"notRun,omitempty"`
}

// Hit is a scenario failure, on one check or on the whole scenario.
type Hit struct {
	Scenario string         `json:"scenario"`
	Check    string         `json:"check,omitempty"`
	Verdict  report.Verdict `json:"verdict"`
	Reason   string         `json:"reason,omitempty"`
}

// OK reports whether the run is acceptable under the baseline: no
// unexpected failure of a MUST check and no stale entry.
func (o *Outcome) OK() bool { return len(o.Unexpected) == 0 && len(o.Stale) == 0 }

func bad(v report.Verdict) bool {
	return v == report.Fail || v == report.Error || v == report.Timeout
}

// Apply compares a run with the baseline (nil means an empty baseline).
// Only failures that would fail the run count: a MUST check's fail, and
// error or timeout; warnings never need a baseline entry.
func Apply(f *File, run *report.Run) *Outcome {
	var entries []Entry
	if f != nil {
		entries = f.Entries
	}
	out := &Outcome{}
	passedAll := make([]bool, len(entries))
	for i := range passedAll {
		passedAll[i] = true
	}
	matched := make([]bool, len(entries))
	for _, s := range run.Scenarios {
		for i, e := range entries {
			if !e.matches(s.ID) {
				continue
			}
			matched[i] = true
			v := s.Verdict
			if e.Check != "" {
				cv, ok := s.CheckVerdicts[e.Check]
				if !ok {
					continue
				}
				v = cv
			}
			if v != report.Pass && v != report.NotApplicable {
				passedAll[i] = false
			}
		}
		if s.Verdict == report.Error || s.Verdict == report.Timeout {
			out.classify(entries, s.ID, "", s.Verdict)
			continue
		}
		for _, id := range s.Checks {
			v := s.CheckVerdicts[id]
			if c, ok := checks.Lookup(id); ok && c.Level == checks.Must && bad(v) {
				out.classify(entries, s.ID, id, v)
			}
		}
	}
	for i, e := range entries {
		switch {
		case !matched[i]:
			out.NotRun = append(out.NotRun, e)
		case passedAll[i]:
			out.Stale = append(out.Stale, e)
		}
	}
	return out
}

func (o *Outcome) classify(entries []Entry, scenario, check string, v report.Verdict) {
	for _, e := range entries {
		if e.matches(scenario) && (e.Check == "" || e.Check == check) {
			o.Expected = append(o.Expected, Hit{Scenario: scenario, Check: check, Verdict: v, Reason: e.Reason})
			return
		}
	}
	o.Unexpected = append(o.Unexpected, Hit{Scenario: scenario, Check: check, Verdict: v})
}
