package jsonschema

import (
	"encoding/json"
	"testing"
)

// BenchmarkCompile compiles a tool input schema, as a turn does for each
// tool it declares, beside encoding/json decoding the same schema into
// generic values (the baseline).
func BenchmarkCompile(b *testing.B) {
	doc := []byte(toolSchema)
	b.Run("compile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compile(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=encoding-json", func(b *testing.B) { decodeJSON(b, doc) })
}

// BenchmarkValidate validates one tool call's input, as a turn does before
// a tool runs, beside encoding/json decoding the same input (the baseline).
func BenchmarkValidate(b *testing.B) {
	s, err := Compile([]byte(toolSchema))
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"path":"/a","mode":"safe","count":3,"tags":["x","y"],"node":{"next":{"v":1}}}`)
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Validate(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=encoding-json", func(b *testing.B) { decodeJSON(b, doc) })
}

func decodeJSON(b *testing.B, doc []byte) {
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
	}
}
