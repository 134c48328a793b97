package steps_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/features"
	"github.com/approval-conformance-kit/ack/steps"
)

// TestFeaturesLint: every feature of the suite passes the lint.
func TestFeaturesLint(t *testing.T) {
	err := fs.WalkDir(features.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".feature") {
			return err
		}
		src, err := fs.ReadFile(features.FS, path)
		if err != nil {
			return err
		}
		for _, e := range steps.Lint(path, src) {
			t.Error(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
