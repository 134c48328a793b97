package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// A target that panics in a turn fails the step with the panic's value:
// the scenario is an error, not a crash of the run.
func TestPanickingTargetIsAnError(t *testing.T) {
	tgt := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		panic("the target fell over")
	}}
	s := runOne(t, tgt, oneScenario, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, "the target fell over") || s.FailedStep != `the user says "delete /a"` {
		t.Errorf("got %s at %q: %s", s.Verdict, s.FailedStep, s.Message)
	}
}

// A scenario without steps is recorded, as one that asserted nothing.
func TestScenarioWithoutStepsIsAnError(t *testing.T) {
	s := runOne(t, inprocess.New(reference.New(), "reference"), "Feature: empty\n  @PRE-01\n  Scenario: nothing to do\n", Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, "no assertion") {
		t.Errorf("got %s: %s", s.Verdict, s.Message)
	}
}

// An undefined step after a step that stopped the scenario changes
// nothing: the scenario's verdict is the first stop's.
func TestUndefinedStepAfterAStopIsNotTheVerdict(t *testing.T) {
	tgt := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		return nil, errStop
	}}
	feature := strings.Replace(oneScenario, `Then [PRE-01] "call_1" has run`, `Then something nobody defined happens`, 1)
	s := runOne(t, tgt, feature, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, errStop.Error()) || s.FailedStep != `the user says "delete /a"` {
		t.Errorf("got %s at %q: %s", s.Verdict, s.FailedStep, s.Message)
	}
}

var errStop = &stopError{}

type stopError struct{}

func (*stopError) Error() string { return "the target is down for maintenance" }

// A suite is parsed once per process for the same inputs, and again when
// an input changes: the same path with other contents, in a map or in a
// directory on disk.
func TestSuiteFollowsItsInputs(t *testing.T) {
	ref := inprocess.New(reference.New(), "reference")
	names := func(opts Options) []string {
		t.Helper()
		opts.Target, opts.NoScenarios = ref, true
		run, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range run.Scenarios {
			out = append(out, s.Name)
		}
		return out
	}
	renamed := strings.Replace(oneScenario, "approve and run", "approve, then run", 1)
	a := names(Options{Features: fstest.MapFS{"probe.feature": {Data: []byte(oneScenario)}}})
	b := names(Options{Features: fstest.MapFS{"probe.feature": {Data: []byte(renamed)}}})
	if len(a) != 1 || len(b) != 1 || a[0] != "approve and run" || b[0] != "approve, then run" {
		t.Errorf("got %v, then %v", a, b)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "probe.feature")
	for _, want := range []string{oneScenario, renamed, oneScenario} {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		got := names(Options{Features: os.DirFS(dir)})
		if wantName := strings.TrimSpace(strings.SplitN(strings.SplitN(want, "Scenario: ", 2)[1], "\n", 2)[0]); len(got) != 1 || got[0] != wantName {
			t.Errorf("the directory holds %q, the run ran %v", wantName, got)
		}
	}
}

// Runs that ask for godog's own output run the scenarios through godog:
// the output is godog's, the verdicts are the same as without it, scenario
// by scenario, for the reference and for a mutant.
func TestGodogOutputKeepsTheVerdicts(t *testing.T) {
	m, err := mutants.Lookup("executes-twice")
	if err != nil {
		t.Fatal(err)
	}
	// The mutant is its own program, served over HTTP.
	srv, err := mutantBuilder(t).Serve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	wiring, err := httptarget.NewWiring("")
	if err != nil {
		t.Fatal(err)
	}
	defer wiring.Close()
	for i, tgt := range []target.Target{inprocess.New(reference.New(), "reference"), ht} {
		opts := Options{Target: tgt, Tags: "@WIRE-03,@PRE-02,@CHAIN-04"}
		if i == 1 {
			opts.Wiring = wiring
		}
		plain, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		opts.Format, opts.Output = "progress", &out
		viaGodog, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "scenarios (") {
			t.Errorf("godog's progress output is missing: %q", out.String())
		}
		verdicts := func(run *report.Run) map[string]string {
			out := map[string]string{}
			for _, s := range run.Scenarios {
				out[s.ID] = string(s.Verdict) + " " + s.Message + " " + s.FailedStep
				for _, c := range s.Checks {
					out[s.ID] += " " + c + ":" + string(s.CheckVerdicts[c])
				}
			}
			return out
		}
		a, b := verdicts(plain), verdicts(viaGodog)
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%d scenarios without godog, %d with", len(a), len(b))
		}
		failed := 0
		for id, v := range a {
			if b[id] != v {
				t.Errorf("%s: %q without godog, %q with", id, v, b[id])
			}
			if strings.HasPrefix(v, "fail") {
				failed++
			}
		}
		if mutant := i == 1; mutant != (failed > 0) {
			t.Errorf("%s failed %d scenarios", plain.Target, failed)
		}
	}
}
