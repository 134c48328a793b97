package reference

import (
	"fmt"
	"testing"
)

// A tool's input schema is compiled once and reused; a schema that does
// not compile is refused every time; past maxSchemas, schemas are still
// compiled, and the cache stops growing.
func TestCompiledSchemasAreReused(t *testing.T) {
	doc := []byte(`{"type":"object","properties":{"reused":{"type":"string"}}}`)
	a, err := compileSchema(doc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := compileSchema(append([]byte(nil), doc...))
	if err != nil || a != b {
		t.Errorf("the same schema compiled twice: %p, %p (%v)", a, b, err)
	}
	if err := a.Validate([]byte(`{"reused":1}`)); err == nil {
		t.Error("the reused schema accepts a number for a string")
	}
	for range 2 {
		if _, err := compileSchema([]byte(`{"type":"nonsense"}`)); err == nil {
			t.Error("a schema with an unknown type compiled")
		}
	}
	for i := range maxSchemas + 10 {
		s, err := compileSchema([]byte(fmt.Sprintf(`{"type":"object","required":["f%d"]}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate([]byte(`{}`)) == nil {
			t.Fatalf("schema %d accepts an object without its required field", i)
		}
	}
	schemas.RLock()
	n := len(schemas.byDoc)
	schemas.RUnlock()
	if n > maxSchemas {
		t.Errorf("%d schemas cached, at most %d", n, maxSchemas)
	}
}
