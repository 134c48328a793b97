package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

// docs/scenarios.md names every result type and stream event type a
// scenario can expect.
func TestDocsNameResultTypesAndEvents(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, name := range []string{
		string(model.OutputJSON), string(model.OutputText), string(model.OutputErrorJSON), string(model.OutputErrorText), string(model.OutputExecutionDenied),
		string(model.EventStartStep), string(model.EventTextDelta), string(model.EventToolCall), string(model.EventToolApprovalRequest),
		string(model.EventToolResult), string(model.EventFinishStep), string(model.EventFinish), string(model.EventError),
	} {
		if !strings.Contains(doc, "| `"+name+"` |") {
			t.Errorf("docs/scenarios.md does not list %q in a table", name)
		}
	}
	if !strings.Contains(doc, "conformance scenario check") {
		t.Error("docs/scenarios.md does not document scenario check")
	}
}

// docs/scenarios.md documents every field the loader accepts: each yaml
// key of the format appears there, in backticks or as a key of its
// example.
func TestDocsNameEveryField(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	keys := map[string]bool{}
	var walk func(reflect.Type)
	seen := map[reflect.Type]bool{}
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name != "" && name != "-" {
				keys[name] = true
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(File{}))
	if len(keys) < 100 {
		t.Fatalf("found only %d fields: the walk misses the format", len(keys))
	}
	for k := range keys {
		// `key`, `key: value`, a key of the example, or one inside a
		// field's braces: `orphan: {call, approvalId}`.
		if !regexp.MustCompile("(?m)(`|^\\s*(- )?|[{,] ?)" + k + "(`|:|,|})").MatchString(doc) {
			t.Errorf("docs/scenarios.md does not document the field %q", k)
		}
	}
}
