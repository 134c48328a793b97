// Package cputime reads the CPU time the process has used, for benchmarks
// that run on shared machines: wall time there counts the neighbours' work
// too, CPU time only the benchmark's (its garbage collection included).
package cputime

import "time"

// Used returns the user and system CPU time the process has used so far.
func Used() time.Duration { return used() }

// Meter measures the CPU time of a stretch of a benchmark.
type Meter struct{ start time.Duration }

// Start returns a meter running from now.
func Start() Meter { return Meter{start: used()} }

// Elapsed returns the CPU time used since Start.
func (m Meter) Elapsed() time.Duration { return used() - m.start }

// PerOp returns the CPU nanoseconds per operation over n operations since
// Start, for b.ReportMetric.
func (m Meter) PerOp(n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(m.Elapsed().Nanoseconds()) / float64(n)
}
