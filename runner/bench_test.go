package runner

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// BenchmarkSuiteInProcess measures whole-suite runs against the in-process
// reference; it reports suite runs per second.
func BenchmarkSuiteInProcess(b *testing.B) {
	tgt := inprocess.New(reference.New(), "reference")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), Options{Target: tgt}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "suites/s")
}
