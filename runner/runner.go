// Package runner runs the conformance suite against a target: it parses the
// features and compiles the YAML scenarios once per process (a suite is
// cached by its inputs), runs each selected scenario with the suite's
// steps bound to the target (an undefined step fails, as in godog's strict
// mode), and gathers every scenario's verdict into a report.Run. A run
// that asks for godog's own output runs through godog instead, with the
// same steps and verdicts.
package runner

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/steps"
	"github.com/approval-conformance-kit/ack/tagexpr"
	"github.com/approval-conformance-kit/ack/target"
)

// Options configure a run.
type Options struct {
	// Target is the implementation under test.
	Target target.Target
	// Name names the target in the report (the target's info name if empty).
	Name string
	// Features holds the .feature files; the embedded suite if nil.
	Features fs.FS
	// Paths are the paths within Features to run ("." if empty).
	Paths []string
	// NoFeatures leaves the .feature files out.
	NoFeatures bool
	// Scenarios holds YAML scenarios (*.yaml, any depth); the embedded
	// scenarios/ if nil.
	Scenarios fs.FS
	// NoScenarios leaves the YAML scenarios out.
	NoScenarios bool
	// ExtraScenarios are more directories of YAML scenarios, run with the
	// others (conformance run --scenarios DIR).
	ExtraScenarios []fs.FS
	// ExtraScenarioNames name ExtraScenarios, one each (their directories),
	// so that an error in one of their files names the file as the user
	// knows it.
	ExtraScenarioNames []string
	// Tags filters scenarios with a tag expression (package tagexpr):
	// "@PRE-01", "not @should", "@REQ-01 or @REQ-02", "@stream and not
	// @should", and godog's "~@should", "@REQ-01,@REQ-02", "&&". A
	// malformed expression is a *tagexpr.Error.
	Tags string
	// Level is the lowest check level required to pass (MUST by default).
	Level checks.Level
	// Timeout bounds each turn (10s when zero).
	Timeout time.Duration
	// Seed, when non-zero, runs the scenarios in an order shuffled by it.
	Seed int64
	// Concurrency runs that many scenarios at once (1 when zero).
	Concurrency int
	// Wiring prepares turns for an HTTP target.
	Wiring steps.Wiring
	// Format is godog's output format ("pretty", "progress", ...); output
	// goes to Output. Empty means no godog output.
	Format string
	Output io.Writer
	// Progress, when set, is called after each scenario with the count
	// done and the count the run will run in all.
	Progress func(done, total int, last report.Scenario)
	// Shard runs the I-th of N shards (1-based); zero values run everything.
	// Scenarios are spread over shards by a hash of their id, so every
	// shard of the same suite runs a fixed, disjoint part of it.
	Shard Shard
	// MaxBroken stops the run, marked interrupted, after this many
	// scenarios in a row could not be run (error or timeout): a target
	// that no longer works costs a few timeouts, not one per scenario.
	// Every probeEvery of them in a row, the target's info is asked
	// again; when that fails too, the run stops at once. 0 means 10;
	// negative, never.
	MaxBroken int
	// TestingT, when set, runs the suite through godog with each scenario
	// a subtest of it, named by SubtestName so that go test -run
	// 'TestX/PRE-01' selects one check's scenarios (a scenario -run leaves
	// out is not run); Format and Output still choose godog's own output
	// (none when empty). Judge, when set, reports each scenario's result
	// on its subtest (a failure, a skip, a log).
	TestingT *testing.T
	Judge    func(t *testing.T, s report.Scenario)
}

// probeEvery is how many scenarios in a row must fail to run before the
// target's info is asked again.
const probeEvery = 3

// health watches for a target that stopped answering: scenarios in a row
// that could not be run.
type health struct {
	target  target.Target
	timeout time.Duration
	max     int

	mu     sync.Mutex
	broken int
}

// after counts a scenario's result and returns why the run must stop, or
// nil.
func (h *health) after(ctx context.Context, s report.Scenario) error {
	max := h.max
	switch {
	case max == 0:
		max = 10
	case max < 0:
		return nil
	}
	h.mu.Lock()
	if s.Verdict != report.Error && s.Verdict != report.Timeout {
		h.broken = 0
		h.mu.Unlock()
		return nil
	}
	h.broken++
	n := h.broken
	h.mu.Unlock()
	if n >= max {
		return fmt.Errorf("the target stopped working: %d scenarios in a row could not be run", n)
	}
	if n%probeEvery != 0 {
		return nil
	}
	timeout := h.timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := h.target.Info(pctx); err != nil && ctx.Err() == nil {
		return fmt.Errorf("the target stopped answering: %d scenarios in a row could not be run, and its info cannot be read: %v", n, err)
	}
	return nil
}

// prefilter is the tag expression in godog's syntax, so that godog does
// not start the scenarios it leaves out (the runner's own selection, by
// tags and shard, decides what runs and is recorded; this only saves
// godog's work). "" when the expression has no short rewriting.
func prefilter(e *tagexpr.Expr) string {
	s, ok := e.Legacy()
	if !ok {
		return ""
	}
	return s
}

// interruption says why ctx ended: its cause, when one was given.
func interruption(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil {
		return cause.Error()
	}
	return ctx.Err().Error()
}

// Shard is the I-th of N parts of the suite.
type Shard struct{ I, N int }

// ParseShard reads "I/N".
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || sh.N < 1 || sh.I < 1 || sh.I > sh.N || fmt.Sprintf("%d/%d", sh.I, sh.N) != s {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 <= I <= N", s)
	}
	return sh, nil
}

// Accepts reports whether the scenario id belongs to this shard. The two
// modes of a scenario fall to the same shard (its id is hashed without its
// mode), so that each shard compares them (PRE-08) as a whole run does.
func (sh Shard) Accepts(id string) bool {
	if sh.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(modeSuffix.ReplaceAllString(id, "$1<mode>)")))
	return int(h.Sum32()%uint32(sh.N)) == sh.I-1
}

// List returns every scenario of the suite the options name (features and
// YAML scenarios, extra directories included), whatever their tags and
// shard: what a run could run.
func List(opts Options) ([]Listed, error) {
	st, err := load(opts)
	if err != nil {
		return nil, err
	}
	return st.all, nil
}

// Run runs the suite and returns the report. An error means the suite could
// not run at all (bad options, unreadable features, no scenario matched),
// not that checks failed.
//
// When ctx ends before the suite does (a signal, a deadline: its cause says
// which), the scenarios not yet started are not run, those running are
// dropped (their verdicts would be the interruption's, not the target's),
// and the report is marked interrupted with the cause, holding the
// scenarios that finished before.
func Run(ctx context.Context, opts Options) (*report.Run, error) {
	if opts.Target == nil {
		return nil, errors.New("no target to run against")
	}
	level := opts.Level
	if level == "" {
		level = checks.Must
	}
	expr, err := tagexpr.Parse(opts.Tags)
	if err != nil {
		return nil, err
	}

	st, err := load(opts)
	if err != nil {
		return nil, err
	}
	selected := map[string]bool{}
	var selection []string // every shard's
	for _, l := range st.all {
		if !expr.Match(l.Tags) {
			continue
		}
		selection = append(selection, l.ID)
		if opts.Shard.Accepts(l.ID) {
			selected[l.ID] = true
		}
	}
	if len(selected) == 0 && opts.Shard.N <= 1 {
		if opts.Tags != "" {
			return nil, fmt.Errorf("no scenario matches --tags %q (of the %d scenarios of the suite)", opts.Tags, len(st.all))
		}
		return nil, errors.New("the suite holds no scenario")
	}
	total := len(selected)

	run := &report.Run{Started: time.Now(), Seed: opts.Seed, Target: opts.Name}
	run.Suite = &report.Suite{Digest: st.digest, Tags: opts.Tags, Scenarios: len(selection), Selection: report.SelectionDigest(selection)}
	if opts.Shard.N >= 1 {
		run.Shard = &report.Shard{Index: opts.Shard.I, Count: opts.Shard.N, Scenarios: total}
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var mu sync.Mutex
	health := &health{target: opts.Target, timeout: opts.Timeout, max: opts.MaxBroken}
	suite := &steps.Suite{
		Target:  opts.Target,
		Timeout: opts.Timeout,
		Wiring:  opts.Wiring,
		Record: func(s report.Scenario) {
			if ctx.Err() != nil {
				return // ended by the interruption, not by the target
			}
			mu.Lock()
			run.Scenarios = append(run.Scenarios, s)
			n := len(run.Scenarios)
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(n, total, s)
			}
			if why := health.after(ctx, s); why != nil {
				stop(why)
			}
		},
	}
	info, err := suite.Info(ctx)
	if err == nil {
		run.TargetInfo = info
		if run.Target == "" {
			run.Target = info.Name
		}
	}
	if opts.TestingT != nil {
		if err := runSubtests(ctx, st, suite, selected, expr, opts); err != nil {
			return nil, err
		}
	} else if opts.Format != "" && opts.Output != nil {
		if err := runGodog(ctx, st, suite, selected, expr, opts); err != nil {
			return nil, err
		}
	} else {
		runScenarios(ctx, suite, st.order(selected, expr, opts.Seed), max(opts.Concurrency, 1))
	}
	run.Duration = time.Since(run.Started)
	if ctx.Err() != nil {
		run.Interrupted = interruption(ctx)
		run.NotRun = total - len(run.Scenarios)
		run.NotRunScenarios = notRun(st.all, selected, run.Scenarios)
	}
	compareModes(run)
	run.Aggregate(level)
	return run, nil
}

// notRun lists, in the suite's order, the selected scenarios that did not
// finish.
func notRun(all []Listed, selected map[string]bool, done []report.Scenario) []string {
	finished := make(map[string]bool, len(done))
	for _, s := range done {
		finished[s.ID] = true
	}
	var out []string
	for _, l := range all {
		if selected[l.ID] && !finished[l.ID] {
			out = append(out, l.ID)
		}
	}
	return out
}
