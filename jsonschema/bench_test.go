package jsonschema

import "testing"

// BenchmarkCompile compiles a tool input schema, as a turn does for each
// tool it declares.
func BenchmarkCompile(b *testing.B) {
	doc := []byte(toolSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate validates one tool call's input, as a turn does before
// a tool runs.
func BenchmarkValidate(b *testing.B) {
	s, err := Compile([]byte(toolSchema))
	if err != nil {
		b.Fatal(err)
	}
	doc := []byte(`{"path":"/a","mode":"safe","count":3,"tags":["x","y"],"node":{"next":{"v":1}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
}
