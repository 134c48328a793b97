package runner

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// The reference chat client passes the client-role suite in every dialect
// of every protocol: the chat server speaks the dialect the target declares.
func TestReferenceClientInEveryDialect(t *testing.T) {
	passesInEveryDialect(t, "client", inprocess.WithClientDialects)
}

// The reference chat server passes the server-role suite in every dialect
// of every protocol: the harness's client speaks the dialect the target
// declares.
func TestReferenceServerInEveryDialect(t *testing.T) {
	passesInEveryDialect(t, "server", inprocess.WithServerDialects)
}

// passesInEveryDialect runs the role's scenarios against the reference
// declaring each dialect other than the default (the defaults run in
// TestReferencePassesEverything): every scenario passes or is not
// applicable, and at least one passes.
func passesInEveryDialect(t *testing.T, role string, with func(map[string]string) inprocess.Option) {
	t.Helper()
	for protocol, dialects := range chat.Dialects {
		for _, d := range dialects[1:] {
			t.Run(protocol+"@"+d, func(t *testing.T) {
				tgt := inprocess.New(reference.New(), "reference", with(map[string]string{protocol: d}))
				run, err := Run(context.Background(), Options{Target: tgt, Tags: "@" + role})
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
					t.Fatalf("no %s scenario ran", role)
				}
			})
		}
	}
}
