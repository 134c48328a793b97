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
	certifyReference(t, reference.Independent)
}

// TestConformanceAbortRemaining certifies the reference under its other
// denial policy, whose scenarios do not apply to the default one.
func TestConformanceAbortRemaining(t *testing.T) {
	certifyReference(t, reference.AbortRemaining)
}

func certifyReference(t *testing.T, policy reference.DenialPolicy) {
	tgt := inprocess.New(reference.New(reference.WithDenialPolicy(policy)), "reference")
	run := acktest.Run(t, tgt, acktest.Options{})
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
