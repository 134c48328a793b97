package runner

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// The reference chat server passes the server-role suite in every dialect
// of every protocol: the harness's client speaks the dialect the target
// declares.
func TestReferenceServerInEveryDialect(t *testing.T) {
	for protocol, dialects := range chat.Dialects {
		for _, d := range dialects[1:] { // the defaults run in TestReferencePassesEverything
			t.Run(protocol+"@"+d, func(t *testing.T) {
				tgt := inprocess.New(reference.New(), "reference", inprocess.WithServerDialects(map[string]string{protocol: d}))
				run, err := Run(context.Background(), Options{Target: tgt, Tags: "@server"})
				if err != nil {
					t.Fatal(err)
				}
				ran := 0
				for _, s := range run.Scenarios {
					if s.Verdict != report.Pass && s.Verdict != report.NotApplicable {
						t.Errorf("%s: %s\n  step: %s\n  %s", s.ID, s.Verdict, s.FailedStep, s.Message)
					}
					if s.Verdict == report.Pass {
						ran++
					}
				}
				if ran == 0 {
					t.Fatal("no server scenario ran")
				}
			})
		}
	}
}
