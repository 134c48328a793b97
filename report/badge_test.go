package report

import (
	"encoding/json"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
)

func TestBadge(t *testing.T) {
	incomplete := passingRun(false)
	incomplete.Scenarios = append(incomplete.Scenarios, Scenario{ID: "b.feature: hangs", Checks: []string{"REQ-03"}, Verdict: Timeout})
	incomplete.Aggregate(checks.Must)
	for name, c := range map[string]struct {
		r              *Run
		message, color string
	}{
		"pass":            {passingRun(false), "2/2 checks", "brightgreen"},
		"pass with warns": {passingRun(true), "pass, 1 warning", "yellow"},
		"fail":            {synthRun(), "fail: 2 MUST checks", "red"},
		"incomplete":      {incomplete, "incomplete: 1 error", "lightgrey"},
		"nothing ran":     {&Run{Target: "x"}, "no checks", "lightgrey"},
		"real pass":       {fixture(t, "reference"), "42/42 checks", "brightgreen"},
		"real fail":       {fixture(t, "late-resolution"), "fail: 10 MUST checks", "red"},
	} {
		doc := render(t, c.r, FormatBadge)
		// The endpoint schema: schemaVersion 1, label, message, color, and
		// nothing shields.io does not know.
		var b map[string]any
		if err := json.Unmarshal(doc, &b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := map[string]any{"schemaVersion": float64(1), "label": "approval conformance", "message": c.message, "color": c.color}
		if len(b) != len(want) {
			t.Errorf("%s: badge %v", name, b)
		}
		for k, v := range want {
			if b[k] != v {
				t.Errorf("%s: %s = %v, want %v", name, k, b[k], v)
			}
		}
	}
}
