package report

import (
	"bytes"
	_ "embed" // the report schema
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/jsonschema"
)

// ReportVersion is the version of the report.json format this package
// writes and reads (the file's "reportVersion").
const ReportVersion = 1

// schemaJSON is docs/schemas/report.schema.json; a test keeps the copy in
// step.
//
//go:generate cp ../docs/schemas/report.schema.json report.schema.json
//go:embed report.schema.json
var schemaJSON []byte

// JSONSchema returns the JSON Schema of report.json (draft 2020-12), as
// published in docs/schemas/report.schema.json.
func JSONSchema() []byte { return bytes.Clone(schemaJSON) }

var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.Compile(schemaJSON)
})

// jsonRun is the top level of report.json: the run with its format version
// and its result (derived, for readers that want only that).
type jsonRun struct {
	ReportVersion int    `json:"reportVersion"`
	Result        Result `json:"result"`
	*Run
}

// encodeJSON renders report.json: indented, keys in a fixed order (struct
// fields in declaration order, map keys sorted), the start time in UTC, and
// absent lists written as []. The same run gives the same bytes.
func encodeJSON(r *Run) ([]byte, error) {
	n := normalized(r)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jsonRun{ReportVersion: ReportVersion, Result: n.Result(), Run: n}); err != nil {
		return nil, fmt.Errorf("%s: %w", unencodable(n), err)
	}
	return unescapeReplacement(b.Bytes()), nil
}

// unescapeReplacement writes U+FFFD as itself rather than as the escape
// \ufffd that encoding/json puts in place of invalid UTF-8, so that a
// report read back (where it is the character) writes the same bytes.
func unescapeReplacement(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\ufffd`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) && string(b[i+2:i+6]) == "fffd" {
			out = append(out, "\uFFFD"...)
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1]) // any other escape, \\ included, stays
		i++
	}
	return out
}

// unencodable names the part of a run that cannot be encoded as JSON.
func unencodable(r *Run) string {
	if _, err := json.Marshal(r.TargetInfo); err != nil {
		return "targetInfo"
	}
	for i, s := range r.Scenarios {
		if s.Evidence == nil {
			continue
		}
		for name, list := range map[string][]any{"modelCalls": s.Evidence.ModelCalls, "toolRuns": s.Evidence.ToolRuns, "turns": s.Evidence.Turns} {
			for j, e := range list {
				if _, err := json.Marshal(e); err != nil {
					return fmt.Sprintf("scenarios[%d] (%s): evidence.%s[%d]", i, s.ID, name, j)
				}
			}
		}
	}
	return "report"
}

// normalized returns a shallow copy of the run, with the start time in UTC
// and nil lists replaced by empty ones, so that the JSON does not depend
// on how the run was built.
func normalized(r *Run) *Run {
	n := *r
	n.Started = r.Started.UTC()
	n.Scenarios = make([]Scenario, len(r.Scenarios))
	for i, s := range r.Scenarios {
		if s.Tags == nil {
			s.Tags = []string{}
		}
		if s.Checks == nil {
			s.Checks = []string{}
		}
		n.Scenarios[i] = s
	}
	if r.Baseline != nil {
		b := *r.Baseline
		b.Expected = nonNil(b.Expected)
		b.Unexpected = nonNil(b.Unexpected)
		b.Stale = nonNil(b.Stale)
		b.Unknown = nonNil(b.Unknown)
		b.NotRun = nonNil(b.NotRun)
		n.Baseline = &b
	}
	n.Checks = make([]Check, len(r.Checks))
	for i, c := range r.Checks {
		if c.Scenarios == nil {
			c.Scenarios = []string{}
		}
		n.Checks[i] = c
	}
	return &n
}

// fileRun is how report.json decodes: the values the report holds as any
// (the target info, the evidence entries) stay raw JSON, byte for byte.
// The shallower fields shadow the embedded ones of the same JSON name.
type fileRun struct {
	ReportVersion int    `json:"reportVersion"`
	Result        Result `json:"result"`
	Run
	TargetInfo json.RawMessage `json:"targetInfo,omitempty"`
	Scenarios  []fileScenario  `json:"scenarios"`
}

type fileScenario struct {
	Scenario
	Evidence *fileEvidence `json:"evidence,omitempty"`
}

type fileEvidence struct {
	ModelCalls []json.RawMessage `json:"modelCalls,omitempty"`
	ToolRuns   []json.RawMessage `json:"toolRuns,omitempty"`
	Turns      []json.RawMessage `json:"turns,omitempty"`
	// ChatRequests are a client-role scenario's requests to the scripted
	// chat server.
	ChatRequests []json.RawMessage `json:"chatRequests,omitempty"`
}

// ReadJSON reads a report.json file strictly: it must be valid JSON,
// conform to the report schema (docs/schemas/report.schema.json; no
// unknown field, known verdicts and levels), be of a version this package
// knows, name each scenario once, and state the result its checks give.
// Errors name the file and the field ("scenarios[3].verdict").
//
// The values a Run holds as any come back as json.RawMessage: TargetInfo
// and the evidence entries, so that writing the run again gives the same
// bytes.
func ReadJSON(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	return decodeJSON(path, data)
}

// decodeJSON decodes report.json bytes; name names them in errors.
func decodeJSON(name string, data []byte) (*Run, error) {
	fail := func(field, format string, args ...any) error {
		if field == "" {
			return fmt.Errorf("read report %s: %s", name, fmt.Sprintf(format, args...))
		}
		return fmt.Errorf("read report %s: %s: %s", name, field, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fail("", "invalid JSON%s: %v", where(data, err), err)
	}
	if rest := data[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		off := dec.InputOffset() + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))
		return nil, fail("", "invalid JSON at %s: data after the report", lineCol(data, off))
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fail("", "not a JSON object")
	}
	// The version first: a newer format fails as such, not field by field.
	if v, ok := obj["reportVersion"].(json.Number); ok && v.String() != strconv.Itoa(ReportVersion) {
		return nil, fail("reportVersion", "version %s is not supported (this build reads version %d)", v, ReportVersion)
	}
	schema, err := compiledSchema()
	if err != nil {
		return nil, fmt.Errorf("report schema: %w", err)
	}
	if err := schema.ValidateValue(doc); err != nil {
		var verr *jsonschema.ValidationError
		if errors.As(err, &verr) && len(verr.Problems) > 0 {
			field, reason := splitProblem(verr.Problems[0])
			if more := len(verr.Problems) - 1; more > 0 {
				reason += fmt.Sprintf(" (and %d more problem(s))", more)
			}
			return nil, fail(field, "%s", reason)
		}
		return nil, fail("", "%v", err)
	}

	var f fileRun
	strict := json.NewDecoder(bytes.NewReader(data))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&f); err != nil {
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) && terr.Field != "" {
			return nil, fail(terr.Field, "%v", err)
		}
		return nil, fail("", "%v", err)
	}
	r := &f.Run
	if len(f.TargetInfo) > 0 && string(f.TargetInfo) != "null" {
		r.TargetInfo = f.TargetInfo
	}
	r.Scenarios = make([]Scenario, len(f.Scenarios))
	seen := map[string]int{}
	for i, fs := range f.Scenarios {
		s := fs.Scenario
		if j, dup := seen[s.ID]; dup {
			return nil, fail(fmt.Sprintf("scenarios[%d].id", i), "scenario %q appears twice (also scenarios[%d])", s.ID, j)
		}
		seen[s.ID] = i
		if fs.Evidence != nil {
			s.Evidence = &Evidence{
				ModelCalls:   rawList(fs.Evidence.ModelCalls),
				ToolRuns:     rawList(fs.Evidence.ToolRuns),
				Turns:        rawList(fs.Evidence.Turns),
				ChatRequests: rawList(fs.Evidence.ChatRequests),
			}
		}
		r.Scenarios[i] = s
	}
	checkIDs := map[string]int{}
	for i, c := range r.Checks {
		if j, dup := checkIDs[c.ID]; dup {
			return nil, fail(fmt.Sprintf("checks[%d].id", i), "check %s appears twice (also checks[%d])", c.ID, j)
		}
		checkIDs[c.ID] = i
	}
	if got := r.Result(); got != f.Result {
		return nil, fail("result", "the report says %q, but its checks and scenarios give %q", f.Result, got)
	}
	return r, nil
}

func rawList(list []json.RawMessage) []any {
	if list == nil {
		return nil
	}
	out := make([]any, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

// splitProblem splits a jsonschema problem ("/scenarios/3/verdict: ...")
// into the field, written as a Go-like path (scenarios[3].verdict), and the
// reason.
func splitProblem(p string) (field, reason string) {
	ptr, reason, ok := strings.Cut(p, ": ")
	if !ok {
		return "", p
	}
	return pointerPath(ptr), reason
}

// pointerPath turns a JSON Pointer into a path: /scenarios/3/checkVerdicts/X
// becomes scenarios[3].checkVerdicts.X; "/" (the root) becomes "".
func pointerPath(ptr string) string {
	if ptr == "" || ptr == "/" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// where locates a JSON decoding error in the input (" at line 3, column
// 7"), when the error says where.
func where(data []byte, err error) string {
	var serr *json.SyntaxError
	if errors.As(err, &serr) {
		// Offset counts the byte that broke the syntax.
		return " at " + lineCol(data, serr.Offset-1)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return " at " + lineCol(data, int64(len(data)))
	}
	return ""
}

// lineCol turns a byte offset into "line L, column C" (1-based).
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// formatDuration writes a duration for people: 1.25s, 340ms, 12µs.
func formatDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// nonNil returns an empty list for nil, so that JSON writes [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
