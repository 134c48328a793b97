package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
)

// The fixtures in testdata are the report.json files of real runs, written
// by WriteDir (go run ./report/internal/render, then gzip -9 -n):
// reference: the suite against the reference (pass); late-resolution: the
// suite against the late-resolution mutant (fail, with evidence).
var fixtures = []string{"reference", "late-resolution"}

// fixture reads testdata/<name>.report.json.gz with ReadJSON.
func fixture(t testing.TB, name string) *Run {
	t.Helper()
	r, err := ReadJSON(fixturePath(t, name))
	if err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return r
}

// fixturePath unpacks a fixture into a temporary report.json.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".report.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// nasty is text that breaks careless escaping in every format: markup,
// entities, quotes, backticks, a CDATA end, control characters and
// invalid UTF-8.
const nasty = "<script>alert(1)</script> & \"quotes\" 'single' `tool_use` ```js ]]> \x00\x1b\x7f \xff| *bold* _em_ [link](http://x) # not a heading"

// Go types as a runner would hold them in evidence: the report sees them
// only as JSON.
type testInfo struct {
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Roles    []string `json:"roles"`
	Features struct {
		Modes        []string `json:"modes"`
		DenialPolicy string   `json:"denialPolicy"`
	} `json:"features"`
}

type testJournalEntry struct {
	Call      int              `json:"call"`
	Turn      int              `json:"turn"`
	Mode      string           `json:"mode"`
	Prompt    []map[string]any `json:"prompt"`
	Tools     []string         `json:"tools"`
	Verdict   string           `json:"verdict"`
	Status    int              `json:"status"`
	ErrorBody string           `json:"errorBody,omitempty"`
}

// synthRun is a run with every verdict, hostile text and evidence of
// several shapes; its result is fail (PRE-02 and WIRE-01 fail).
func synthRun() *Run {
	info := testInfo{Name: "evil <target> & co", Version: "1.0", Roles: []string{"agent"}}
	info.Features.Modes = []string{"generate", "stream"}
	info.Features.DenialPolicy = "independent"
	call1 := testJournalEntry{Call: 1, Turn: 0, Mode: "generate", Verdict: "ok", Status: 200, Tools: []string{"deleteFile"},
		Prompt: []map[string]any{{"role": "user", "content": []any{map[string]any{"type": "text", "text": "delete " + nasty}}}}}
	r := &Run{
		Target:     "evil <target> & co",
		TargetInfo: info,
		Started:    time.Date(2026, 11, 22, 15, 5, 1, 123456789, time.FixedZone("CET", 3600)),
		Duration:   1500 * time.Millisecond,
		Seed:       7,
		Scenarios: []Scenario{
			{ID: "a.feature: passes", Feature: "a", Name: "passes", Source: "a.feature", Tags: []string{"PRE-01"},
				Checks: []string{"PRE-01"}, CheckVerdicts: map[string]Verdict{"PRE-01": Pass}, Verdict: Pass, Duration: 2 * time.Millisecond},
			{ID: "a.feature: fails " + nasty, Feature: "a", Name: "fails " + nasty, Source: "a.feature", Tags: []string{"PRE-02"},
				Checks: []string{"PRE-02", "WIRE-01"}, CheckVerdicts: map[string]Verdict{"PRE-02": Fail, "WIRE-01": Fail},
				Verdict: Fail, Duration: 3 * time.Millisecond,
				FailedStep: `the turn added an "execution-denied" result for "call_1" ` + nasty,
				Message:    "turn 2 failed: HTTP 400 " + nasty,
				Problems: []Problem{
					{Check: "WIRE-01", Detail: "WIRE-01: model call 2: dangling tool call call_1 " + nasty},
					{Detail: "1 scripted turn(s) left unconsumed"},
				},
				Evidence: &Evidence{
					ModelCalls: []any{
						call1,
						json.RawMessage(`{"call":2,"turn":-1,"mode":"generate","prompt":[{"role":"user","content":[{"type":"text","text":"delete /a"}]},{"role":"assistant","content":[{"type":"tool-call","toolCallId":"call_1","toolName":"deleteFile","input":{"path":"/a"}},{"type":"tool-approval-request","approvalId":"ap_1","toolCallId":"call_1"}]},{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"ap_1","approved":false,"reason":"no"}]}],"tools":["deleteFile"],"verdict":"violation","status":400,"errorBody":"{\"error\":\"dangling\"}","violations":[{"check":"WIRE-01","kind":"dangling","ids":["call_1"],"text":"tool_call_ids did not have response messages: call_1"}]}`),
						"a bare string entry",
					},
					ToolRuns: []any{map[string]any{"tool": "deleteFile", "toolCallId": "call_1", "input": map[string]any{"path": "/a"}, "turn": 2, "known": true}},
					Turns:    []any{map[string]any{"turn": 1, "request": []any{}, "response": map[string]any{"finishReason": "tool-calls", "messages": []any{}}}},
					// A client-role scenario's evidence: the requests the
					// client under test made to the scripted chat server.
					ChatRequests: []any{map[string]any{"request": 1, "body": map[string]any{"messages": []any{}}, "streamed": []any{"RUN_STARTED"}}},
				}},
			{ID: "b.feature: warns", Feature: "b", Name: "warns", Source: "b.feature", Tags: []string{"PRE-12", "should"},
				Checks: []string{"PRE-12"}, CheckVerdicts: map[string]Verdict{"PRE-12": Warn}, Verdict: Warn,
				Duration: time.Millisecond, Message: "the approval's reason reached the model",
				Evidence: &Evidence{ModelCalls: []any{call1}}},
			{ID: "b.feature: errors", Feature: "b", Name: "errors", Source: "b.feature", Tags: []string{"REQ-01"},
				Checks: []string{"REQ-01"}, CheckVerdicts: map[string]Verdict{"REQ-01": Error}, Verdict: Error,
				FailedStep: "the user approves", Message: "the target is unreachable"},
			{ID: "c.yaml: times out", Feature: "c", Name: "times out", Source: "scenarios/c.yaml", Tags: []string{"REQ-03"},
				Checks: []string{"REQ-03"}, CheckVerdicts: map[string]Verdict{"REQ-03": Timeout}, Verdict: Timeout,
				Message: "turn 1 did not end within 10s"},
			{ID: "c.yaml: does not apply", Feature: "c", Name: "does not apply", Source: "scenarios/c.yaml", Tags: []string{"PART-02"},
				Checks: []string{"PART-02"}, CheckVerdicts: map[string]Verdict{"PART-02": NotApplicable}, Verdict: NotApplicable,
				Message: "the target does not declare the abort-remaining denial policy"},
		},
	}
	r.Aggregate(checks.Must)
	return r
}

// passingRun is a run whose every check passes, one with a warning when
// warn is set.
func passingRun(warn bool) *Run {
	r := &Run{Target: "reference", Started: time.Date(2026, 11, 22, 14, 5, 1, 0, time.UTC), Duration: time.Second, Scenarios: []Scenario{
		{ID: "a.feature: one", Feature: "a", Name: "one", Source: "a.feature", Checks: []string{"PRE-01"}, Verdict: Pass},
		{ID: "a.feature: two", Feature: "a", Name: "two", Source: "a.feature", Checks: []string{"PRE-12"}, Verdict: Pass},
	}}
	if warn {
		r.Scenarios[1].Verdict = Warn
		r.Scenarios[1].Message = "a recommendation is not followed"
	}
	r.Aggregate(checks.Must)
	return r
}

// readFile reads a file or fails the test.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// render renders one format of a run into a temporary directory and
// returns the file's bytes.
func render(t testing.TB, r *Run, format string) []byte {
	t.Helper()
	dir := t.TempDir()
	files, err := WriteDir(dir, r, format)
	if err != nil {
		t.Fatalf("WriteDir %s: %v", format, err)
	}
	if len(files) != 1 {
		t.Fatalf("WriteDir %s wrote %v", format, files)
	}
	return readFile(t, files[0])
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

// firstDiffLine shows where two texts part.
func firstDiffLine(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return fmt.Sprintf("line %d:\n- %q\n+ %q", i+1, x, y)
		}
	}
	return "(no difference)"
}

// scenarioNamed returns the scenario whose id starts with prefix.
func scenarioNamed(t testing.TB, r *Run, prefix string) *Scenario {
	t.Helper()
	for i := range r.Scenarios {
		if strings.HasPrefix(r.Scenarios[i].ID, prefix) {
			return &r.Scenarios[i]
		}
	}
	t.Fatalf("no scenario %q", prefix)
	return nil
}
