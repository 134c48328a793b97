package jsonschema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const toolSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "pattern": "^/"},
    "mode": {"enum": ["fast", "safe"]},
    "count": {"type": "integer", "minimum": 1, "maximum": 5},
    "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 3},
    "node": {"$ref": "#/$defs/node"}
  },
  "required": ["path"],
  "additionalProperties": false,
  "$defs": {
    "node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"const": 1}}}
  }
}`

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(toolSchema))
	if err != nil {
		t.Fatal(err)
	}
	good := []string{
		`{"path":"/a"}`,
		`{"path":"/a","mode":"safe","count":3,"tags":["x","y"],"node":{"next":{"v":1}}}`,
	}
	for _, g := range good {
		if err := s.Validate([]byte(g)); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
	bad := map[string]string{
		`{}`:                                    `/: missing required property "path"`,
		`{"path":3}`:                            "/path: got number, want string",
		`{"path":"a"}`:                          `/path: 'a' does not match pattern '^/'`,
		`{"path":"/a","extra":1}`:               `/: unknown property "extra"`,
		`{"path":"/a","mode":"slow"}`:           `/mode: "slow" is not one of ["fast","safe"]`,
		`{"path":"/a","count":1.5}`:             "/count: got number, want integer",
		`{"path":"/a","count":9}`:               "/count: maximum: got 9, want 5",
		`{"path":"/a","tags":["x","x"]}`:        "/tags: items at 0 and 1 are equal",
		`{"path":"/a","tags":[1]}`:              "/tags/0: got number, want string",
		`{"path":"/a","node":{"next":{"v":2}}}`: "/node/next/v: want 1, got 2",
		`[]`:                                    "/: got array, want object",
	}
	for doc, want := range bad {
		err := s.Validate([]byte(doc))
		if err == nil {
			t.Errorf("%s: accepted", doc)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %q, want it to contain %q", doc, err, want)
		}
	}
}

func TestCombinators(t *testing.T) {
	schema := `{"oneOf":[{"type":"string"},{"type":"integer"}],"not":{"const":"no"},
	 "if":{"type":"string"},"then":{"minLength":2},"else":{"minimum":10}}`
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	for doc, ok := range map[string]bool{`"ab"`: true, `"a"`: false, `"no"`: false, `12`: true, `3`: false, `true`: false} {
		if err := s.Validate([]byte(doc)); (err == nil) != ok {
			t.Errorf("%s: got %v, want ok=%v", doc, err, ok)
		}
	}
	anyOf, _ := Compile([]byte(`{"anyOf":[{"type":"null"},{"type":"array","prefixItems":[{"const":"a"}],"items":{"type":"number"}}]}`))
	for doc, ok := range map[string]bool{`null`: true, `["a",1,2]`: true, `["b"]`: false, `["a","c"]`: false} {
		if err := anyOf.Validate([]byte(doc)); (err == nil) != ok {
			t.Errorf("anyOf %s: got %v, want ok=%v", doc, err, ok)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for bad, want := range map[string]string{
		`[1]`:                        "must be an object or a boolean",
		`{"pattern":"("}`:            "/pattern: '(' is not valid regex",
		`{"$ref":"#/$defs/missing"}`: "not found",
		`{"$ref":"http://x/y"}`:      "only references within the schema are followed",
		`{`:                          "invalid JSON",
		`{"type":"objekt"}`:          "/type",
	} {
		_, err := Compile([]byte(bad))
		if err == nil {
			t.Errorf("%s compiled", bad)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %q, want it to contain %q", bad, err, want)
		}
	}
	if _, err := Compile([]byte(`true`)); err != nil {
		t.Errorf("boolean schema: %v", err)
	}
}

func TestRefCycleDoesNotHang(t *testing.T) {
	s, err := Compile([]byte(`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`1`)); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: got %v", err)
	}
}

// A schema comes from the target (a turn's tool input schema): it must not
// make the harness read a file or call a URL.
func TestReferencesOutsideTheSchemaAreNotLoaded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ext.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + file, "ext.json", "https://example.com/s.json", "urn:x:y"} {
		_, err := Compile([]byte(`{"$ref":"` + ref + `"}`))
		if err == nil || !strings.Contains(err.Error(), "only references within the schema are followed") {
			t.Errorf("$ref %s: got %v, want it refused", ref, err)
		}
	}
}

// Keywords of draft 2020-12 beyond the handful tool schemas commonly use,
// and older drafts named by $schema, are enforced (JSON-Schema-Test-Suite
// cases the kit's earlier hand-written validator ignored).
func TestFullDraftSupport(t *testing.T) {
	cases := []struct {
		schema, doc string
		ok          bool
	}{
		{`{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, false},
		{`{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1}`, true},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, false},
		{`{"dependentSchemas":{"a":{"required":["c"]}}}`, `{"a":1}`, false},
		{`{"contains":{"const":1},"minContains":2}`, `[1,2]`, false},
		{`{"contains":{"const":1},"minContains":2}`, `[1,1]`, true},
		{`{"$defs":{"s":{"$anchor":"str","type":"string"}},"$ref":"#str"}`, `3`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`, `{"a":1}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, `["a",1]`, false},
		{`{"propertyNames":{"maxLength":2}}`, `{"abc":1}`, false},
		{`{"type":"integer"}`, `1.0`, true},
		{`{"multipleOf":0.01}`, `0.07`, true},
	}
	for _, c := range cases {
		s, err := Compile([]byte(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		if err := s.Validate([]byte(c.doc)); (err == nil) != c.ok {
			t.Errorf("%s against %s: got %v, want ok=%v", c.doc, c.schema, err, c.ok)
		}
	}
}

func TestValidateValueTakesFloatsAndNumbers(t *testing.T) {
	s, err := Compile([]byte(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ValidateValue(map[string]any{"n": float64(2)}); err != nil {
		t.Errorf("float64: %v", err)
	}
	if err := s.ValidateValue(map[string]any{"n": json.Number("4")}); err == nil || !strings.Contains(err.Error(), "/n: maximum") {
		t.Errorf("json.Number 4: got %v", err)
	}
}
