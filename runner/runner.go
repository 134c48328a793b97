// Package runner runs the conformance suite against a target: it feeds the
// features to godog (strict, so an undefined step fails), binds the steps to
// the target, and gathers every scenario's verdict into a report.Run.
package runner

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/features"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/scenarios"
	"github.com/approval-conformance-kit/ack/steps"
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
	// Tags filters scenarios, in godog's syntax: "@PRE-01", "~@should",
	// "@REQ-01,@REQ-02" (or), "@stream && ~@should" (and).
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
	// Progress, when set, is called after each scenario with the count done.
	Progress func(done int, last report.Scenario)
	// Shard runs the I-th of N shards (1-based); zero values run everything.
	// Scenarios are spread over shards by a hash of their id, so every
	// shard of the same suite runs a fixed, disjoint part of it.
	Shard Shard
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

// Accepts reports whether the scenario id belongs to this shard.
func (sh Shard) Accepts(id string) bool {
	if sh.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(sh.N)) == sh.I-1
}

// Run runs the suite and returns the report. An error means the suite could
// not run at all (bad options, unreadable features), not that checks failed.
func Run(ctx context.Context, opts Options) (*report.Run, error) {
	if opts.Target == nil {
		return nil, errors.New("runner: no target")
	}
	fsys := opts.Features
	if fsys == nil {
		fsys = features.FS
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	level := opts.Level
	if level == "" {
		level = checks.Must
	}
	out := opts.Output
	format := opts.Format
	if format == "" || out == nil {
		format, out = silentFormat, io.Discard
	}

	run := &report.Run{Started: time.Now(), Seed: opts.Seed, Target: opts.Name}
	var mu sync.Mutex
	suite := &steps.Suite{
		Shard:   opts.Shard.Accepts,
		Target:  opts.Target,
		Timeout: opts.Timeout,
		Wiring:  opts.Wiring,
		Record: func(s report.Scenario) {
			mu.Lock()
			run.Scenarios = append(run.Scenarios, s)
			n := len(run.Scenarios)
			mu.Unlock()
			if opts.Progress != nil {
				opts.Progress(n, s)
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
	var contents []godog.Feature
	var dirs []fs.FS
	if !opts.NoScenarios {
		sfs := opts.Scenarios
		if sfs == nil {
			sfs = scenarios.FS
		}
		dirs = append(dirs, sfs)
	}
	dirs = append(dirs, opts.ExtraScenarios...)
	for _, sfs := range dirs {
		files, err := scenario.LoadFS(sfs, ".")
		if err != nil {
			return nil, fmt.Errorf("runner: %w", err)
		}
		for _, f := range files {
			text, err := scenario.Compile(f)
			if err != nil {
				return nil, fmt.Errorf("runner: %w", err)
			}
			if errs := steps.Lint(f.Path, []byte(text)); len(errs) > 0 {
				return nil, fmt.Errorf("runner: %s compiles to a scenario that fails the lint (conformance scenario show %s): %v", f.Path, f.Path, errs[0])
			}
			contents = append(contents, godog.Feature{Name: f.Path, Contents: []byte(text)})
		}
	}
	if opts.NoFeatures {
		paths = nil
	}
	gd := godog.TestSuite{
		Name:                "approval-conformance",
		ScenarioInitializer: suite.InitializeScenario,
		Options: &godog.Options{
			Format:          format,
			Output:          out,
			FS:              fsys,
			Paths:           paths,
			FeatureContents: contents,
			Tags:            opts.Tags,
			Strict:          true,
			Concurrency:     max(opts.Concurrency, 1),
			Randomize:       opts.Seed,
			DefaultContext:  ctx,
			NoColors:        true,
		},
	}
	status := gd.Run()
	run.Duration = time.Since(run.Started)
	if status == 2 {
		return nil, fmt.Errorf("runner: godog could not run the suite (bad options or unreadable features; see its output)")
	}
	if len(run.Scenarios) == 0 && opts.Shard.N <= 1 {
		return nil, fmt.Errorf("runner: no scenario matched (tags %q)", opts.Tags)
	}
	compareModes(run)
	run.Aggregate(level)
	return run, nil
}
