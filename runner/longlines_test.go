package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// longScenario is a YAML scenario whose user message and model text are
// each one line of 100 KB once compiled, longer than godog's parser reads.
func longScenario() string {
	long := strings.Repeat("y", 100_000)
	return `title: A long message is one line
checks: [REQ-01, PRE-01]
tools:
  - name: writeFile
    approval: always
turns:
  - model:
      - toolCalls: [{id: call_1, tool: writeFile, input: {path: /a}}]
    say: write ` + long + `
    expect: {approvals: [call_1]}
  - model:
      - text: done ` + long + `
        expect: {results: [{call: call_1, type: json}], check: PRE-01}
    approve: [call_1]
    expect: {ran: [call_1], check: PRE-01}
`
}

// A scenario with lines longer than 64 KiB runs, and passes on the
// reference, in every engine: the runner's own, godog's (its output
// asked for) and go test's subtests (godog's output shows the long lines
// shortened; the steps get them whole, or the model's reply, a JSON doc
// string, would not decode).
func TestLongLinesRunInEveryEngine(t *testing.T) {
	extra := fstest.MapFS{"long.yaml": {Data: []byte(longScenario())}}
	ref := inprocess.New(reference.New(), "reference")
	check := func(t *testing.T, name string, opts Options) {
		t.Helper()
		opts.Target, opts.NoFeatures, opts.NoScenarios = ref, true, true
		opts.ExtraScenarios = append(opts.ExtraScenarios, extra)
		run, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(run.Scenarios) != 2 {
			t.Fatalf("%s: want the scenario in both modes, got %d scenarios", name, len(run.Scenarios))
		}
		for _, s := range run.Scenarios {
			if s.Verdict != report.Pass {
				t.Errorf("%s: %s: %s %s at %q", name, s.Name, s.Verdict, s.Message, s.FailedStep)
			}
			if !strings.HasPrefix(s.Name, "A long message is one line (") {
				t.Errorf("%s: the scenario is named %q", name, s.Name)
			}
		}
	}
	check(t, "runner", Options{})
	var out bytes.Buffer
	check(t, "godog", Options{Format: "pretty", Output: &out})
	if !strings.Contains(out.String(), "A long message is one line") {
		t.Errorf("godog's output does not show the scenario:\n%.2000s", out.String())
	}
	t.Run("subtests", func(t *testing.T) {
		var names []string
		check(t, "subtests", Options{TestingT: t, Judge: func(t *testing.T, s report.Scenario) { names = append(names, s.Name) }})
		if len(names) != 2 {
			t.Errorf("want two subtests judged, got %q", names)
		}
	})
}

// Only the long lines are shortened for godog, each keeping its kind of
// line: a table row keeps its cells.
func TestShortenLines(t *testing.T) {
	long := strings.Repeat("é", 40_000)
	text := "Feature: f\n  Scenario: s\n    Given x \"" + long + "\"\r\n      | a | " + long + " | c |\n    Then y\n"
	got, changed := shortenLines(text)
	if !changed {
		t.Fatal("nothing shortened")
	}
	lines := strings.Split(string(got), "\n")
	if len(lines) != 6 || lines[0] != "Feature: f" || lines[4] != "    Then y" {
		t.Fatalf("the lines are not kept: %q", got)
	}
	if !strings.HasPrefix(lines[2], "    Given x \"é") || !strings.HasSuffix(lines[2], ")\r") || len(lines[2]) > shortLine+40 {
		t.Errorf("step line: %q", lines[2])
	}
	if cells := strings.Split(lines[3], "|"); len(cells) != 5 || cells[1] != " a " || cells[3] != " c " {
		t.Errorf("table row: %q", lines[3])
	}
	if _, changed := shortenLines("Feature: f\n" + strings.Repeat("x", godogLine) + "\n"); changed {
		t.Error("a line godog reads was shortened")
	}
}
