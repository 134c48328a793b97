package simulator

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// docs/sim-script.md documents every field of the script format, and its
// example loads.
func TestScriptFormatIsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "sim-script.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for _, name := range fieldNames(ty) {
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/sim-script.md does not document %s.%s", ty.Name(), name)
			}
			f, _ := fieldByName(ty, name)
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(Script{}))
	example := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(doc)
	if example == nil {
		t.Fatal("no YAML example")
	}
	if _, err := ParseScript("example", []byte(example[1])); err != nil {
		t.Errorf("the example does not load: %v", err)
	}
}
