package scenario

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/scenarios"
)

// FuzzParse: any file is a scenario or an *Error naming the file, never a
// panic; a scenario that loads compiles to Gherkin or errors as cleanly.
func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(scenarios.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			if data, err := fs.ReadFile(scenarios.FS, p); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	f.Add([]byte("title: x\nchecks: [PRE-01]\nturns: [{say: hi}]\n"))
	f.Add([]byte("title: x\nchecks: [PRE-01]\nturns:\n  - model: 3\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.yaml", data)
		if err != nil {
			var serr *Error
			if !errors.As(err, &serr) || serr.File != "f.yaml" {
				t.Fatalf("error %v (%T) is not a *scenario.Error naming the file", err, err)
			}
			return
		}
		if _, err := Compile(file); err != nil {
			var serr *Error
			if !errors.As(err, &serr) {
				t.Fatalf("compile error %v (%T) is not a *scenario.Error", err, err)
			}
		}
	})
}
