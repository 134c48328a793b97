package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/features"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/tagexpr"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

const oneScenario = `Feature: probe
  @PRE-01 @REQ-01
  Scenario: approve and run
    Given a tool "deleteFile" that needs approval
    And the model calls "deleteFile" with {"path":"/a"} as "call_1"
    When the user says "delete /a"
    Then [REQ-01] an approval is requested for "call_1"
    Given the model replies "Deleted."
    When the user approves "call_1"
    Then [PRE-01] "call_1" has run
`

// fakeTarget answers turns with a function.
type fakeTarget struct {
	info *target.Info
	turn func(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error)
}

func (f *fakeTarget) Info(context.Context) (*target.Info, error) { return f.info, nil }
func (f *fakeTarget) Agent() target.Agent                        { return f }
func (f *fakeTarget) Client() target.Client                      { return nil }
func (f *fakeTarget) Close() error                               { return nil }
func (f *fakeTarget) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	return f.turn(ctx, req)
}

func fullInfo() *target.Info {
	return &target.Info{Name: "fake", Roles: []string{"agent"}, Features: target.Features{Modes: []target.Mode{target.Generate, target.Stream}}}
}

func runOne(t *testing.T, tgt target.Target, feature string, opts Options) report.Scenario {
	t.Helper()
	opts.Target = tgt
	opts.Features = fstest.MapFS{"probe.feature": {Data: []byte(feature)}}
	opts.NoScenarios = true
	run, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) != 1 {
		t.Fatalf("got %d scenarios", len(run.Scenarios))
	}
	return run.Scenarios[0]
}

func TestUnreachableTargetIsAnErrorNotAFailure(t *testing.T) {
	tgt := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		return nil, errors.New("connection refused")
	}}
	s := runOne(t, tgt, oneScenario, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, "connection refused") || s.FailedStep != `the user says "delete /a"` {
		t.Errorf("got %s at %q: %s", s.Verdict, s.FailedStep, s.Message)
	}
}

func TestHangingTargetTimesOut(t *testing.T) {
	tgt := &fakeTarget{info: fullInfo(), turn: func(ctx context.Context, _ *target.TurnRequest) (*target.TurnResponse, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	s := runOne(t, tgt, oneScenario, Options{Timeout: 20 * time.Millisecond})
	if s.Verdict != report.Timeout {
		t.Errorf("got %s: %s", s.Verdict, s.Message)
	}
}

func TestGarbageAnswerIsAnError(t *testing.T) {
	tgt := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		return &target.TurnResponse{Error: &target.TurnError{Code: "Kaboom"}}, nil
	}}
	s := runOne(t, tgt, oneScenario, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, `unknown code "Kaboom"`) {
		t.Errorf("got %s: %s", s.Verdict, s.Message)
	}
}

func TestWrongAnswerFailsWithEvidence(t *testing.T) {
	// A target that runs nothing and says it stopped.
	tgt := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		return &target.TurnResponse{FinishReason: "stop"}, nil
	}}
	s := runOne(t, tgt, oneScenario, Options{})
	if s.Verdict != report.Fail {
		t.Fatalf("got %s: %s", s.Verdict, s.Message)
	}
	if s.CheckVerdicts["REQ-01"] != report.Fail || s.Evidence == nil || len(s.Evidence.Turns) == 0 {
		t.Errorf("check verdicts %v, evidence %+v", s.CheckVerdicts, s.Evidence)
	}
}

func TestUndeclaredFeatureIsNotApplicable(t *testing.T) {
	info := fullInfo()
	info.Features.Modes = []target.Mode{target.Generate}
	tgt := &fakeTarget{info: info, turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		t.Error("a not-applicable scenario ran a turn")
		return nil, errors.New("unreachable")
	}}
	feature := strings.Replace(oneScenario, `Given a tool "deleteFile" that needs approval`, "Given the agent runs in stream mode\n    And a tool \"deleteFile\" that needs approval", 1)
	s := runOne(t, tgt, feature, Options{})
	if s.Verdict != report.NotApplicable || !strings.Contains(s.Message, "mode:stream") {
		t.Errorf("got %s: %s", s.Verdict, s.Message)
	}
}

// An undefined step is the scenario's mistake: an error, charged to no
// check of the target.
func TestUndefinedStepIsAnError(t *testing.T) {
	feature := strings.Replace(oneScenario, `Then [PRE-01] "call_1" has run`, `Then something nobody defined happens`, 1)
	s := runOne(t, inprocess.New(reference.New(), "reference"), feature, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, "undefined") {
		t.Errorf("an undefined step gave %s: %s", s.Verdict, s.Message)
	}
}

// A scripted reply the target never asked for, with no assertion saying
// which rule that breaks, makes the scenario an error (it is incomplete),
// never a pass.
func TestUnconsumedScriptIsNotAPass(t *testing.T) {
	feature := strings.Replace(oneScenario, `Then [PRE-01] "call_1" has run`, "Then [PRE-01] \"call_1\" has run\n    Given the model replies \"never asked for\"", 1)
	s := runOne(t, inprocess.New(reference.New(), "reference"), feature, Options{})
	if s.Verdict != report.Error || !strings.Contains(s.Message, "never asked for") {
		t.Errorf("got %s %v: %s", s.Verdict, s.CheckVerdicts, s.Message)
	}
}

func TestSeedGivesTheSameReport(t *testing.T) {
	tgt := inprocess.New(reference.New(), "reference")
	a, err := Run(context.Background(), Options{Target: tgt, Seed: 7, Tags: "@PRE-01,@PRE-02", NoScenarios: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), Options{Target: tgt, Seed: 7, Tags: "@PRE-01,@PRE-02", NoScenarios: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Scenarios) != len(b.Scenarios) || len(a.Scenarios) == 0 {
		t.Fatalf("got %d and %d scenarios", len(a.Scenarios), len(b.Scenarios))
	}
	for i := range a.Scenarios {
		if a.Scenarios[i].ID != b.Scenarios[i].ID || a.Scenarios[i].Verdict != b.Scenarios[i].Verdict {
			t.Errorf("scenario %d: %s/%s vs %s/%s", i, a.Scenarios[i].ID, a.Scenarios[i].Verdict, b.Scenarios[i].ID, b.Scenarios[i].Verdict)
		}
	}
}

func TestNoScenarioMatchedIsAnError(t *testing.T) {
	_, err := Run(context.Background(), Options{Target: inprocess.New(reference.New(), "reference"), Tags: "@NOPE-99"})
	if err == nil || !strings.Contains(err.Error(), `no scenario matches --tags "@NOPE-99"`) {
		t.Errorf("got %v", err)
	}
}

// Tag expressions are the runner's own: "not" works, and a malformed one
// is an error that says where (godog's filter panics on "@PRE-01 &&").
func TestTagExpressions(t *testing.T) {
	ref := inprocess.New(reference.New(), "reference")
	ids := func(tags string) map[string]bool {
		t.Helper()
		run, err := Run(context.Background(), Options{Target: ref, Tags: tags, NoScenarios: true})
		if err != nil {
			t.Fatalf("%q: %v", tags, err)
		}
		out := map[string]bool{}
		for _, s := range run.Scenarios {
			out[s.ID] = true
		}
		return out
	}
	all, client, notClient := ids(""), ids("@client"), ids("not @client")
	if len(client) == 0 || len(client)+len(notClient) != len(all) {
		t.Errorf("%d scenarios: %d @client, %d not @client", len(all), len(client), len(notClient))
	}
	for id := range notClient {
		if client[id] {
			t.Errorf("%s matched both @client and not @client", id)
		}
	}
	if pre01, notWire := ids("@PRE-01"), ids("@PRE-01 && ~@WIRE-02"); len(notWire) == 0 || len(notWire) >= len(pre01) {
		t.Errorf("@PRE-01: %d, without @WIRE-02: %d", len(pre01), len(notWire))
	}
	for _, bad := range []string{"@PRE-01 &&", ",", "not", "(@PRE-01"} {
		_, err := Run(context.Background(), Options{Target: ref, Tags: bad})
		var terr *tagexpr.Error
		if !errors.As(err, &terr) {
			t.Errorf("%q: got %v, want a tag expression error", bad, err)
		}
	}
}

// A run whose context ends (Ctrl-C) is marked interrupted: it keeps the
// scenarios that finished before and judges none by the interruption.
func TestInterruptedRunKeepsOnlyWhatFinished(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var totals []int
	run, err := Run(ctx, Options{
		Target: inprocess.New(reference.New(), "reference"), Tags: "@PRE-01,@DEN-01,@REQ-01", NoScenarios: true,
		Progress: func(done, total int, _ report.Scenario) {
			totals = append(totals, total)
			if done == 2 {
				cancel(errors.New("interrupted by SIGINT"))
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.Interrupted != "interrupted by SIGINT" || run.Result() != report.ResultInterrupted {
		t.Errorf("interrupted %q, result %s", run.Interrupted, run.Result())
	}
	if len(run.Scenarios) != 2 || run.NotRun != totals[0]-2 || totals[0] < 6 {
		t.Errorf("%d scenarios kept, %d not run, of %d", len(run.Scenarios), run.NotRun, totals[0])
	}
	if len(run.NotRunScenarios) != run.NotRun {
		t.Errorf("%d scenario ids not run, want %d", len(run.NotRunScenarios), run.NotRun)
	}
	for _, id := range run.NotRunScenarios {
		for _, s := range run.Scenarios {
			if s.ID == id {
				t.Errorf("%s is listed as not run, yet it finished", id)
			}
		}
	}
	for _, s := range run.Scenarios {
		if s.Verdict != report.Pass {
			t.Errorf("%s: %s: %s", s.ID, s.Verdict, s.Message)
		}
	}
}

// TestEveryScenarioNamesItsChecks keeps the suite honest: every scenario of
// the embedded features names at least one known check, and scenario ids
// are unique.
func TestEveryScenarioNamesItsChecks(t *testing.T) {
	run, err := Run(context.Background(), Options{Target: inprocess.New(reference.New(), "reference"), Features: features.FS})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range run.Scenarios {
		if seen[s.ID] {
			t.Errorf("two scenarios share the id %q", s.ID)
		}
		seen[s.ID] = true
		if len(s.Checks) == 0 {
			t.Errorf("%s names no check", s.ID)
		}
	}
	covered := map[string]bool{}
	for _, c := range run.Checks {
		covered[c.ID] = true
	}
	for _, c := range checks.All() {
		if !covered[c.ID] {
			t.Errorf("no scenario covers the check %s", c.ID)
		}
	}
}

// deadTarget answers its info until dead is set, and never a turn.
type deadTarget struct {
	fakeTarget
	infos atomic.Int32
	dead  atomic.Bool
}

func (d *deadTarget) Info(context.Context) (*target.Info, error) {
	d.infos.Add(1)
	if d.dead.Load() {
		return nil, errors.New("connection refused")
	}
	return fullInfo(), nil
}

func manyScenarios(n int) string {
	var b strings.Builder
	b.WriteString("Feature: many\n")
	for i := range n {
		fmt.Fprintf(&b, "  @PRE-01\n  Scenario: number %d\n    Given a tool \"deleteFile\" that needs approval\n    And the model calls \"deleteFile\" with {} as \"c\"\n    When the user says \"go\"\n    Then an approval is requested for \"c\"\n", i)
	}
	return b.String()
}

// A target that goes away mid-run ends the run after a few scenarios with
// one reason, instead of costing a timeout for every scenario left.
func TestTargetThatStopsAnsweringEndsTheRun(t *testing.T) {
	dead := &deadTarget{}
	dead.turn = func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		dead.dead.Store(true)
		return nil, errors.New("connection refused")
	}
	run, err := Run(context.Background(), Options{Target: dead, Features: fstest.MapFS{"many.feature": {Data: []byte(manyScenarios(40))}}, NoScenarios: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) != probeEvery || run.NotRun != 40-probeEvery || !strings.Contains(run.Interrupted, "the target stopped answering") || !strings.Contains(run.Interrupted, "connection refused") {
		t.Errorf("%d scenarios run, %d not run, interrupted %q", len(run.Scenarios), run.NotRun, run.Interrupted)
	}
	// A target that answers its info but cannot run a turn stops the run
	// after MaxBroken scenarios in a row.
	alive := &fakeTarget{info: fullInfo(), turn: func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
		return nil, errors.New("500 internal error")
	}}
	run, err = Run(context.Background(), Options{Target: alive, MaxBroken: 7, Features: fstest.MapFS{"many.feature": {Data: []byte(manyScenarios(40))}}, NoScenarios: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Scenarios) != 7 || !strings.Contains(run.Interrupted, "7 scenarios in a row could not be run") {
		t.Errorf("%d scenarios run, interrupted %q", len(run.Scenarios), run.Interrupted)
	}
	// Never, when asked.
	run, err = Run(context.Background(), Options{Target: alive, MaxBroken: -1, Features: fstest.MapFS{"many.feature": {Data: []byte(manyScenarios(12))}}, NoScenarios: true})
	if err != nil || len(run.Scenarios) != 12 || run.Interrupted != "" {
		t.Errorf("MaxBroken -1: %v, %d scenarios, interrupted %q", err, len(run.Scenarios), run.Interrupted)
	}
}

// Every scenario of the suite falls to exactly one shard, and the two
// modes of a scenario to the same one (each shard compares them for
// PRE-08, as a whole run does).
func TestShardsKeepModesTogether(t *testing.T) {
	all, err := List(Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	shardOf := map[string]int{}
	pairs := 0
	for _, l := range all {
		owners := 0
		for i := 1; i <= n; i++ {
			if (Shard{I: i, N: n}).Accepts(l.ID) {
				owners++
				key := modeSuffix.ReplaceAllString(l.ID, "$1<mode>)")
				if prev, ok := shardOf[key]; ok && prev != i {
					t.Errorf("%s: in shard %d/%d, its other mode in %d/%d", l.ID, i, n, prev, n)
				} else if ok {
					pairs++
				}
				shardOf[key] = i
			}
		}
		if owners != 1 {
			t.Errorf("%s falls to %d shards of %d", l.ID, owners, n)
		}
	}
	if pairs < 50 {
		t.Errorf("only %d scenarios run in both modes: the test sees no pairs", pairs)
	}
}
