package baseline

import (
	"strings"
	"testing"
)

// FuzzParse: any file is a baseline or an error naming the file, never a
// panic; a baseline that loads has entries with a scenario and a reason.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"expectedFailures:\n  - scenario: \"a.feature: x\"\n    check: PRE-01\n    reason: y\n",
		"expectedFailures: []\n", "", "expectedFailure: 3\n", "expectedFailures:\n  - [a]\n", "- x\n---\n- y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("b.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "b.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, e := range file.Entries {
			if strings.TrimSpace(e.Scenario) == "" || strings.TrimSpace(e.Reason) == "" || e.Line < 1 {
				t.Fatalf("entry %+v loaded", e)
			}
		}
	})
}
