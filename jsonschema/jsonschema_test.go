package jsonschema

import (
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
		`{"path":3}`:                            "/path: want string, got number 3",
		`{"path":"a"}`:                          `/path: "a" does not match the pattern "^/"`,
		`{"path":"/a","extra":1}`:               `/: unknown property "extra"`,
		`{"path":"/a","mode":"slow"}`:           `/mode: "slow" is not one of ["fast","safe"]`,
		`{"path":"/a","count":1.5}`:             "/count: want integer, got number 1.5",
		`{"path":"/a","count":9}`:               "/count: 9 is more than the maximum 5",
		`{"path":"/a","tags":["x","x"]}`:        "/tags: items 0 and 1 are equal",
		`{"path":"/a","tags":[1]}`:              "/tags/0: want string, got number 1",
		`{"path":"/a","node":{"next":{"v":2}}}`: "/node/next/v: want 1, got 2",
		`[]`:                                    "/: want object, got array",
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
	for _, bad := range []string{`[1]`, `{"pattern":"("}`, `{"$ref":"#/$defs/missing"}`, `{"$ref":"http://x/y"}`, `{`} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("%s compiled", bad)
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
	if err := s.Validate([]byte(`1`)); err == nil || !strings.Contains(err.Error(), "too deep") {
		t.Errorf("cycle: got %v", err)
	}
}
