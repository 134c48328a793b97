package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/jsonschema"
)

// docsSchema compiles the published schema, docs/schemas/report.schema.json.
func docsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc := readFile(t, filepath.Join("..", "docs", "schemas", "report.schema.json"))
	s, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatalf("the report schema does not compile: %v", err)
	}
	return s
}

func TestEmbeddedSchemaIsTheDocsSchema(t *testing.T) {
	docs := readFile(t, filepath.Join("..", "docs", "schemas", "report.schema.json"))
	if !bytes.Equal(docs, JSONSchema()) {
		t.Fatal("report/report.schema.json differs from docs/schemas/report.schema.json: run go generate ./report")
	}
}

func TestReportJSONConformsToTheSchema(t *testing.T) {
	schema := docsSchema(t)
	runs := map[string]*Run{"synthetic": synthRun(), "passing": passingRun(true), "empty": {Target: "x"}}
	for _, name := range fixtures {
		runs[name] = fixture(t, name)
	}
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			doc := render(t, r, FormatJSON)
			if err := schema.Validate(doc); err != nil {
				t.Fatalf("report.json does not conform: %v", err)
			}
			var top map[string]any
			if err := json.Unmarshal(doc, &top); err != nil {
				t.Fatal(err)
			}
			if top["result"] != string(r.Result()) || top["reportVersion"] != float64(ReportVersion) {
				t.Errorf("result %v, version %v", top["result"], top["reportVersion"])
			}
		})
	}
}

// TestSchemaRejectsBadReports shows the schema is not vacuous.
func TestSchemaRejectsBadReports(t *testing.T) {
	schema := docsSchema(t)
	good := string(render(t, synthRun(), FormatJSON))
	bad := map[string]string{
		"unknown verdict":       strings.Replace(good, `"verdict": "warn"`, `"verdict": "so-so"`, 1),
		"unknown field":         strings.Replace(good, `"seed": 7,`, `"seed": 7, "colour": "red",`, 1),
		"missing scenarios":     strings.Replace(good, `"scenarios": [`, `"scenarioz": [`, 1),
		"negative duration":     strings.Replace(good, `"durationNs": 1500000000`, `"durationNs": -1`, 1),
		"bad check id":          strings.Replace(good, `"PRE-12": "warn"`, `"pre12": "warn"`, 1),
		"wrong version":         strings.Replace(good, `"reportVersion": 1`, `"reportVersion": 2`, 1),
		"started not RFC 3339":  strings.Replace(good, `"started": "2026-11-22T14:05:01.123456789Z"`, `"started": "yesterday"`, 1),
		"evidence unknown list": strings.Replace(good, `"modelCalls": [`, `"modelCallz": [`, 1),
	}
	for name, doc := range bad {
		if doc == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if err := schema.Validate([]byte(doc)); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

func TestJSONRoundTripIsByteForByte(t *testing.T) {
	runs := map[string]*Run{"synthetic": synthRun()}
	for _, name := range fixtures {
		runs[name] = fixture(t, name)
	}
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			first := render(t, r, FormatJSON)
			path := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(path, first, 0o644); err != nil {
				t.Fatal(err)
			}
			back, err := ReadJSON(path)
			if err != nil {
				t.Fatal(err)
			}
			second := render(t, back, FormatJSON)
			if !bytes.Equal(first, second) {
				t.Fatalf("writing a run read back gives other bytes:\n%s", firstDiffLine(first, second))
			}
			if back.Result() != r.Result() || len(back.Scenarios) != len(r.Scenarios) || len(back.Checks) != len(r.Checks) {
				t.Errorf("read back: %s, %d scenarios, %d checks; want %s, %d, %d", back.Result(), len(back.Scenarios), len(back.Checks), r.Result(), len(r.Scenarios), len(r.Checks))
			}
			if !back.Started.Equal(r.Started) || back.Duration != r.Duration || back.Seed != r.Seed || back.Level != r.Level {
				t.Errorf("read back: started %v, duration %v, seed %d, level %s", back.Started, back.Duration, back.Seed, back.Level)
			}
			// Invalid UTF-8 is written as U+FFFD, and so reads back.
			want := normalized(r).Checks
			for i := range want {
				want[i].Scenarios = slices.Clone(want[i].Scenarios)
				for j, id := range want[i].Scenarios {
					want[i].Scenarios[j] = strings.ToValidUTF8(id, "\uFFFD")
				}
			}
			if !reflect.DeepEqual(want, back.Checks) {
				t.Errorf("checks differ:\nwritten %+v\nread    %+v", want, back.Checks)
			}
		})
	}
}

func TestJSONIsDeterministic(t *testing.T) {
	// Maps (check verdicts, evidence objects) iterate in random order; the
	// bytes must not.
	want := render(t, synthRun(), FormatJSON)
	for range 20 {
		if got := render(t, synthRun(), FormatJSON); !bytes.Equal(got, want) {
			t.Fatalf("the same run gave different bytes:\n%s", firstDiffLine(want, got))
		}
	}
	// The JSON keeps what the run says, in UTC.
	for _, s := range []string{`"started": "2026-11-22T14:05:01.123456789Z"`, `"durationNs": 1500000000`, `"seed": 7`, `"level": "MUST"`, `"result": "fail"`, `"passed": 1`} {
		if !contains(want, s) {
			t.Errorf("report.json lacks %s", s)
		}
	}
}

func TestReadJSONRejectsBadInput(t *testing.T) {
	good := string(render(t, synthRun(), FormatJSON))
	cases := []struct {
		name, doc string
		want      []string // every string must be in the error
	}{
		{"empty", "", []string{"invalid JSON", "line 1"}},
		{"syntax", "{\n  \"target\": \"x\",\n  oops\n}", []string{"invalid JSON", "line 3, column 3"}},
		{"truncated", good[:len(good)/2], []string{"invalid JSON"}},
		{"trailing data", good + "{}", []string{"data after the report"}},
		{"not an object", "[1,2]", []string{"not a JSON object"}},
		{"newer version", strings.Replace(good, `"reportVersion": 1`, `"reportVersion": 2`, 1), []string{"reportVersion", "version 2 is not supported"}},
		{"unknown field", strings.Replace(good, `"seed": 7,`, `"seed": 7, "colour": "red",`, 1), []string{"unknown property \"colour\""}},
		{"bad verdict", strings.Replace(good, `"verdict": "warn"`, `"verdict": "so-so"`, 1), []string{"scenarios[", "].verdict", "so-so"}},
		{"bad check verdict", strings.Replace(good, `"PRE-12": "warn"`, `"PRE-12": "meh"`, 1), []string{"checkVerdicts.PRE-12", "meh"}},
		{"wrong type", strings.Replace(good, `"seed": 7`, `"seed": "seven"`, 1), []string{"seed", "integer"}},
		{"missing field", strings.Replace(good, `"target": "evil <target> & co",`, ``, 1), []string{"missing required property \"target\""}},
		{"overflow", strings.Replace(good, `"durationNs": 1500000000`, `"durationNs": 99999999999999999999`, 1), []string{"durationNs"}},
		{"duplicate scenario", strings.Replace(good, `"id": "a.feature: passes"`, `"id": "b.feature: errors"`, 1), []string{"scenarios[", "].id", "appears twice"}},
		{"result contradicts the checks", strings.Replace(good, `"result": "fail"`, `"result": "pass"`, 1), []string{"result:", `says "pass"`, `give "fail"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.doc == good {
				t.Fatal("the mutation did not apply")
			}
			path := filepath.Join(t.TempDir(), "shard-1", "report.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadJSON(path)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range append(c.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := ReadJSON(filepath.Join(t.TempDir(), "nowhere", "report.json")); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("a missing file: %v", err)
	}
}

func TestPointerPath(t *testing.T) {
	for ptr, want := range map[string]string{
		"":                                "",
		"/":                               "",
		"/seed":                           "seed",
		"/scenarios/3/verdict":            "scenarios[3].verdict",
		"/scenarios/0/checkVerdicts/X~1Y": "scenarios[0].checkVerdicts.X/Y",
		"/a~0b/12":                        "a~b[12]",
	} {
		if got := pointerPath(ptr); got != want {
			t.Errorf("pointerPath(%q) = %q, want %q", ptr, got, want)
		}
	}
}

// FuzzDecodeJSON: no input makes the reader panic, and whatever it
// accepts it writes back and reads again the same.
func FuzzDecodeJSON(f *testing.F) {
	var b bytes.Buffer
	good, err := encodeJSON(synthRun())
	if err != nil {
		f.Fatal(err)
	}
	b.Write(good)
	f.Add(b.Bytes())
	f.Add([]byte(`{"reportVersion":1}`))
	f.Add([]byte(`{"reportVersion":1,"result":"pass","target":"x","started":"2026-01-01T00:00:00Z","durationNs":0,"seed":0,"scenarios":[],"checks":[]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeJSON("fuzz.json", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		out, err := encodeJSON(r)
		if err != nil {
			t.Fatalf("an accepted report does not encode: %v", err)
		}
		if _, err := decodeJSON("again.json", out); err != nil {
			t.Fatalf("a written report does not read back: %v", err)
		}
	})
}
