package scenario

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/scenarios"
)

func TestEmbeddedScenariosLoadAndCompile(t *testing.T) {
	files, err := LoadFS(scenarios.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario embedded")
	}
	for _, f := range files {
		text, err := Compile(f)
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		if !strings.Contains(text, "Scenario Outline: "+oneLine(f.Title)) {
			t.Errorf("%s: compiled text lacks the scenario:\n%s", f.Path, text)
		}
	}
}

func TestLoadErrorsNameFileLineAndField(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		field, msg string
	}{
		{"unknown top field", "title: x\nchecks: [PRE-01]\ncolour: red\nturns: [{say: hi}]\n", 3, "colour", "unknown field"},
		{"unknown nested field", "title: x\nchecks: [PRE-01]\nturns:\n  - say: hi\n    expect:\n      finishReasn: stop\n", 6, "turns[0].expect.finishReasn", "unknown field"},
		{"unknown field in a reply", "title: x\nchecks: [PRE-01]\nturns:\n  - say: hi\n    model:\n      - text: a\n      - toolCalls: [{id: c, tool: t, colour: red}]\n", 7, "turns[0].model[1].toolCalls[0].colour", "unknown field (allowed: id, tool, input"},
		{"wrong type", "title: x\nchecks: [PRE-01]\noptions: {concurrency: lots}\nturns: [{say: hi}]\n", 3, "", "cannot unmarshal"},
		{"unknown check", "title: x\nchecks: [PRE-99]\nturns: [{say: hi}]\n", 1, "checks", `unknown check "PRE-99"`},
		{"client check", "title: x\nchecks: [CHAIN-01]\nturns: [{say: hi}]\n", 1, "checks", "client check"},
		{"two actions", "title: x\nchecks: [PRE-01]\nturns:\n  - say: hi\n    replay: true\n", 4, "turns[0]", "exactly one action"},
		{"no action", "title: x\nchecks: [PRE-01]\nturns:\n  - expect: {finishReason: stop}\n", 4, "turns[0]", "found 0"},
		{"bad approval", "title: x\nchecks: [PRE-01]\ntools:\n  - name: t\n    approval: sometimes\nturns: [{say: hi}]\n", 5, "tools[0].approval", `"sometimes"`},
		{"duplicate call", "title: x\nchecks: [PRE-01]\ntools: [{name: t, approval: never}]\nturns:\n  - model:\n      - toolCalls: [{id: c, tool: t}]\n      - toolCalls: [{id: c, tool: t}]\n    say: hi\n", 7, "turns[0].model[1].toolCalls[0].id", "used twice"},
		{"bad history", "title: x\nchecks: [PRE-01]\nhistory:\n  - {role: tool, content: [{type: tool-approval-response, approvalId: a, approved: yes}]}\nturns: [{say: hi}]\n", 4, "history", "history[0].content[0].approved"},
		{"error code", "title: x\nchecks: [PRE-01]\nturns:\n  - say: hi\n    expect: {error: Boom}\n", 4, "turns[0].expect", `"Boom"`},
		{"missing title", "checks: [PRE-01]\nturns: [{say: hi}]\n", 1, "title", "missing"},
		{"two documents", "title: x\nchecks: [PRE-01]\nturns: [{say: hi}]\n---\ntitle: y\n", 4, "", "one document"},
		{"syntax", "title: [x\n", 0, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("scenarios/x.yaml", []byte(tc.yaml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *scenario.Error", err)
			}
			if e.File != "scenarios/x.yaml" || (tc.line > 0 && e.Line != tc.line) || e.Field != tc.field || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %s (line %d field %q)\nwant line %d field %q msg containing %q", err, e.Line, e.Field, tc.line, tc.field, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "scenarios/x.yaml") {
				t.Errorf("error does not start with the file: %s", err)
			}
		})
	}
}

func TestCompileRefusesQuotesInSteps(t *testing.T) {
	_, err := Parse("x.yaml", []byte("title: x\nchecks: [PRE-01]\nturns:\n  - say: 'she said \"hi\"'\n    expect: {nothingRan: true}\n"))
	var e *Error
	if !errors.As(err, &e) || e.Field != "turns[0].say" || e.Line != 4 {
		t.Errorf("got %v", err)
	}
}

// yamlJSON converts a YAML document to JSON for schema validation.
func yamlJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		t.Fatal(err)
	}
	raw, err := nodeJSON(&n)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func loadSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := os.ReadFile("../docs/schemas/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatalf("the scenario schema does not compile: %v", err)
	}
	return s
}

// TestSchemaAcceptsEveryScenario validates every file in scenarios/ against
// the published JSON Schema, as an editor would.
func TestSchemaAcceptsEveryScenario(t *testing.T) {
	schema := loadSchema(t)
	n := 0
	err := fs.WalkDir(scenarios.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		n++
		data, err := fs.ReadFile(scenarios.FS, p)
		if err != nil {
			return err
		}
		if err := schema.Validate(yamlJSON(t, data)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no scenario file validated")
	}
}

// TestSchemaRejectsBadScenarios shows the schema is not vacuous.
func TestSchemaRejectsBadScenarios(t *testing.T) {
	schema := loadSchema(t)
	for name, doc := range map[string]string{
		"no turns":      "title: x\nchecks: [PRE-01]\n",
		"unknown field": "title: x\nchecks: [PRE-01]\nturns: [{say: hi}]\ncolour: red\n",
		"two actions":   "title: x\nchecks: [PRE-01]\nturns: [{say: hi, replay: true}]\n",
		"bad checks":    "title: x\nchecks: [pre-1]\nturns: [{say: hi}]\n",
		"bad mode":      "title: x\nchecks: [PRE-01]\nmodes: [batch]\nturns: [{say: hi}]\n",
		"bad approval":  "title: x\nchecks: [PRE-01]\ntools: [{name: t, approval: sometimes}]\nturns: [{say: hi}]\n",
		"level is gone": "title: x\nchecks: [PRE-01]\nlevel: should\nturns: [{say: hi}]\n",
		"removed field": "title: x\nchecks: [PRE-01]\nturns: [{say: hi, expect: {noRejection: true}}]\n",
		"say and deny":  "title: x\nchecks: [PRE-01]\nturns: [{say: hi, deny: [c]}]\n",
		"bad check":     "title: x\nchecks: [PRE-01]\nturns: [{say: hi, expect: {check: pre-1}}]\n",
		"one message":   "title: x\nchecks: [PRE-01]\nturns: [{answersInTwoMessages: [[{call: c, approve: true}]]}]\n",
	} {
		if err := schema.Validate(yamlJSON(t, []byte(doc))); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

// TestDocExampleLoads: the example of docs/scenarios.md is a scenario that
// loads and compiles.
func TestDocExampleLoads(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "```yaml\n")
	if start < 0 {
		t.Fatal("docs/scenarios.md has no yaml example")
	}
	text = text[start+len("```yaml\n"):]
	example := text[:strings.Index(text, "```")]
	f, err := Parse("docs/scenarios.md", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(f); err != nil {
		t.Fatal(err)
	}
}
