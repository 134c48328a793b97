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
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/suggest"
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

// Parse reads an expected-failures document. Errors name the file, the
// line and the field, and say what is allowed there.
func Parse(path string, data []byte) (*File, error) {
	fail := func(line int, format string, args ...any) error {
		if line == 0 {
			return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
		}
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail(0, "the file is empty (a baseline is \"expectedFailures:\" and a list of entries, each with scenario, reason and optionally check; \"expectedFailures: []\" for none)")
		}
		return nil, yamlError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fail(extra.Line, "a second YAML document: a baseline is one document")
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(path, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fail(root.Line, "a baseline is a mapping with the key expectedFailures, not %s", describeNode(root))
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "expectedFailures" {
			return nil, fail(k.Line, "%s: unknown field (allowed: expectedFailures)", k.Value)
		}
		list = v
	}
	if list == nil {
		return nil, fail(root.Line, "expectedFailures: missing")
	}
	f := &File{Path: path}
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return f, nil // "expectedFailures:" with nothing: no expected failure
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fail(list.Line, "expectedFailures: want a list of entries, not %s", describeNode(list))
	}
	seen := map[string]int{}
	for i, n := range list.Content {
		field := fmt.Sprintf("expectedFailures[%d]", i)
		if n.Kind != yaml.MappingNode {
			return nil, fail(n.Line, "%s: an entry is a mapping with scenario, check and reason, not %s", field, describeNode(n))
		}
		var e Entry
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			var dst *string
			switch k.Value {
			case "scenario":
				dst = &e.Scenario
			case "check":
				dst = &e.Check
			case "reason":
				dst = &e.Reason
			default:
				return nil, fail(k.Line, "%s: unknown field (allowed: scenario, check, reason)", k.Value)
			}
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				return nil, fail(v.Line, "%s.%s: want text, not %s", field, k.Value, describeNode(v))
			}
			*dst = v.Value
		}
		e.Line = n.Line
		switch {
		case strings.TrimSpace(e.Scenario) == "":
			return nil, fail(n.Line, "scenario: missing (the scenario's id as reports show it, \"file: name\"; a trailing * matches any suffix)")
		case strings.TrimSpace(e.Reason) == "":
			return nil, fail(n.Line, "reason: say why %q is expected to fail", e.Scenario)
		}
		if e.Check != "" {
			if _, ok := checks.Lookup(e.Check); !ok {
				return nil, fail(n.Line, "check: unknown check %q%s", e.Check, suggest.Hint(e.Check, checkIDs()))
			}
		}
		if first, dup := seen[e.String()]; dup {
			return nil, fail(n.Line, "%s is already listed on line %d", e.String(), first)
		}
		seen[e.String()] = n.Line
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

func checkIDs() []string {
	var ids []string
	for _, c := range checks.All() {
		ids = append(ids, c.ID)
	}
	return ids
}

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError names the file and line of a YAML syntax error.
func yamlError(path string, err error) error {
	msg := err.Error()
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], m[2])
	}
	return fmt.Errorf("%s: %s", path, strings.TrimPrefix(msg, "yaml: "))
}

// describeNode says what a YAML node is, for errors.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
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
	// Unknown are entries that match no scenario of the whole suite (a
	// misspelled id, a scenario since renamed): they fail the run, as
	// stale entries do. Only ApplySuite finds them.
	Unknown []Entry `json:"unknown,omitempty"`
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
func (o *Outcome) OK() bool {
	return len(o.Unexpected) == 0 && len(o.Stale) == 0 && len(o.Unknown) == 0
}

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

// ApplySuite is Apply, knowing every scenario id of the suite the run was
// taken from (whatever its tags and shard): an entry that matches none of
// them is Unknown rather than NotRun.
func ApplySuite(f *File, run *report.Run, suite []string) *Outcome {
	out := Apply(f, run)
	var notRun []Entry
	for _, e := range out.NotRun {
		if slices.ContainsFunc(suite, e.matches) {
			notRun = append(notRun, e)
		} else {
			out.Unknown = append(out.Unknown, e)
		}
	}
	out.NotRun = notRun
	return out
}

// CheckSuite finds, before a run, the entries that match no scenario of
// the suite (every scenario id, whatever the run's tags and shard): a
// misspelled id, a scenario since renamed. The error names each by its
// file and line, with the id it most likely meant; nil when every entry
// names a scenario.
func (f *File) CheckSuite(suite []string) error {
	if f == nil {
		return nil
	}
	var lines []string
	for _, e := range f.Entries {
		if slices.ContainsFunc(suite, e.matches) {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s:%d: %q names no scenario of the suite%s", f.Path, e.Line, e.Scenario, suggestScenario(e.Scenario, suite)))
	}
	switch len(lines) {
	case 0:
		return nil
	case 1:
		return errors.New(lines[0] + " (scenario ids are as reports show them: conformance run --format json, or the scenario list of report.md)")
	}
	return fmt.Errorf("%d entries name no scenario of the suite (scenario ids are as reports show them):\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// suggestScenario is the did-you-mean of an entry that matches no
// scenario: the nearest id, or for a pattern the nearest start of one
// (its file, "x.feature: ", or as much of an id as the pattern holds).
func suggestScenario(entry string, suite []string) string {
	prefix, pattern := strings.CutSuffix(entry, "*")
	if !pattern {
		return suggest.Hint(entry, suite)
	}
	var starts []string
	for _, id := range suite {
		if file, _, ok := strings.Cut(id, ": "); ok && !slices.Contains(starts, file+": ") {
			starts = append(starts, file+": ")
		}
		if s := id[:min(len(prefix), len(id))]; !slices.Contains(starts, s) {
			starts = append(starts, s)
		}
	}
	if best, ok := suggest.Nearest(prefix, starts); ok {
		return fmt.Sprintf(" (did you mean %q?)", best+"*")
	}
	return ""
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

// FromRun is a first baseline for a run: an entry for every failure that
// would fail it (a MUST check's fail, a scenario's error or timeout), each
// with an empty reason for its author to write (the file does not load
// until every reason is written), and the failure's step and message as
// a comment beside it.
func FromRun(run *report.Run) []byte {
	hits := Apply(nil, run).Unexpected
	byID := map[string]report.Scenario{}
	for _, s := range run.Scenarios {
		byID[s.ID] = s
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, h := range hits {
		entry := &yaml.Node{Kind: yaml.MappingNode}
		add := func(k, v string) *yaml.Node {
			val := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
			if v == "" {
				val.Style = yaml.DoubleQuotedStyle
			}
			entry.Content = append(entry.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, val)
			return val
		}
		add("scenario", h.Scenario).Style = yaml.DoubleQuotedStyle
		if h.Check != "" {
			add("check", h.Check)
		}
		reason := add("reason", "")
		s := byID[h.Scenario]
		what := string(h.Verdict)
		if h.Check != "" {
			what = h.Check + " " + what
		}
		if s.FailedStep != "" {
			what += " at: " + s.FailedStep
		}
		if s.Message != "" {
			what += "; why: " + s.Message
		}
		reason.LineComment = clip(strings.Join(strings.Fields(what), " "), 240)
		list.Content = append(list.Content, entry)
	}
	target := run.Target
	if target == "" {
		target = "the target"
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "expectedFailures", HeadComment: fmt.Sprintf(
			"Expected failures of %s: %d, from the run of %s.\n"+
				"Write each reason: why the failure is expected, traced to the\n"+
				"implementation's source (file and line), and the issue that tracks it.\n"+
				"The file does not load until every reason is written. An entry whose\n"+
				"scenario passes later is stale and fails the run: delete it then.", target, len(hits), run.Started.UTC().Format("2006-01-02 15:04 UTC"))},
		list,
	}}
	if len(hits) == 0 {
		list.Style = yaml.FlowStyle
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}) // a tree of strings always encodes
	_ = enc.Close()
	return b.Bytes()
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
