package scenario_test

import (
	"testing"

	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/scenarios"
	"github.com/approval-conformance-kit/ack/steps"
)

// TestEveryScenarioPassesTheLint compiles every YAML scenario and runs the
// suite's lint on the feature it becomes: each assertion charged to a check
// the scenario names, each named check asserted, each answer after an
// assertion that its approval was requested, each turn judged.
func TestEveryScenarioPassesTheLint(t *testing.T) {
	files, err := scenario.LoadFS(scenarios.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario embedded")
	}
	for _, f := range files {
		text, err := scenario.Compile(f)
		if err != nil {
			t.Errorf("%s: %v", f.Path, err)
			continue
		}
		for _, e := range steps.Lint(f.Path, []byte(text)) {
			t.Errorf("%v\n(compiled from %s; see conformance scenario show)", e, f.Path)
		}
	}
}
