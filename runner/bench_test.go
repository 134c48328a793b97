package runner

import (
	"context"
	"io"
	"io/fs"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/approval-conformance-kit/ack/internal/cputime"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/scenarios"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// BenchmarkSuiteInProcess runs the whole suite (every feature and YAML
// scenario) against the in-process reference, beside the same suite run
// through godog (the baseline: godog parses the suite again at every run
// and keeps every step's result; the verdicts are the same). It reports
// the CPU time per scenario run and scenario runs per CPU-second (the
// process's CPU, garbage collection included, so neighbours on a shared
// machine do not count), the bytes allocated per scenario run, the live
// heap before the runs (the test binary's, and the suite parsed once) and
// its peak during them.
func BenchmarkSuiteInProcess(b *testing.B) {
	b.Run("suite", func(b *testing.B) { benchSuite(b, Options{}) })
	b.Run("baseline=godog", func(b *testing.B) { benchSuite(b, Options{Format: benchFormat, Output: io.Discard}) })
}

// BenchmarkLargestScenario runs the suite's largest scenario alone (a
// 100 kB input, in both modes), through the runner and through godog (the
// baseline): the suite's peak heap is measured against this one's.
func BenchmarkLargestScenario(b *testing.B) {
	data, err := fs.ReadFile(scenarios.FS, "inputs/large-input.yaml")
	if err != nil {
		b.Fatal(err)
	}
	one := Options{NoFeatures: true, Scenarios: fstest.MapFS{"inputs/large-input.yaml": {Data: data}}}
	b.Run("largest", func(b *testing.B) { benchSuite(b, one) })
	one.Format, one.Output = benchFormat, io.Discard
	b.Run("baseline=godog", func(b *testing.B) { benchSuite(b, one) })
}

// benchSuite runs the suite of opts again and again, each time against a
// new reference (a reference keeps the ledger of every conversation it
// ran, about a kilobyte a scenario, for as long as it lives).
func benchSuite(b *testing.B, opts Options) {
	opts.Target = inprocess.New(reference.New(), "reference")
	if _, err := Run(context.Background(), opts); err != nil { // the suite parsed and cached
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc // the suite parsed, and the test binary's own
	peak := sampleHeap()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Start()
	scenarios := 0
	for b.Loop() {
		opts.Target = inprocess.New(reference.New(), "reference")
		run, err := Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		scenarios += len(run.Scenarios)
	}
	used := cpu.Elapsed()
	b.StopTimer()
	b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(used.Nanoseconds())/float64(scenarios), "cpu-ns/scenario")
	b.ReportMetric(float64(scenarios)/used.Seconds(), "scenarios/cpu-s")
	b.ReportMetric(float64(scenarios)/float64(b.N), "scenarios/op")
	b.ReportMetric(float64(before), "heap-before-B")
	b.ReportMetric(float64(peak()), "peak-live-B")
}

// sampleHeap samples the live heap (as the last garbage collection found
// it) every millisecond until the returned function is called, which
// returns the largest sample.
func sampleHeap() func() uint64 {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			peak = max(peak, samples[0].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	var peak uint64
	return func() uint64 {
		once.Do(func() { close(stop); peak = <-done })
		return peak
	}
}

// benchFormat is a godog output format that writes nothing, for the
// baselines that run the suite through godog.
const benchFormat = "ack-bench-silent"

func init() {
	godog.Format(benchFormat, "no output", func(string, io.Writer) formatters.Formatter { return silent{} })
}

type silent struct{}

func (silent) TestRunStarted()                                                            {}
func (silent) Feature(*messages.GherkinDocument, string, []byte)                          {}
func (silent) Pickle(*messages.Pickle)                                                    {}
func (silent) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (silent) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)    {}
func (silent) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)   {}
func (silent) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (silent) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)   {}
func (silent) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Summary() {}
