package acktest_test

import (
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// TestConformance certifies the reference through acktest, as a Go team
// certifies its own target: the whole suite, each scenario a subtest
// (go test -run 'TestConformance/PRE-01' runs one check's).
func TestConformance(t *testing.T) {
	run := acktest.Run(t, inprocess.New(reference.New(), "reference"), acktest.Options{})
	if run == nil {
		return
	}
	if len(run.Scenarios) == 0 {
		t.Fatal("no scenario ran")
	}
	for _, s := range run.Scenarios {
		if s.Verdict != report.Pass && s.Verdict != report.NotApplicable {
			t.Errorf("%s: %s", s.ID, s.Verdict)
		}
	}
}
