package runner

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// overHTTP runs the suite against tgt behind a driver server, over HTTP.
func overHTTP(t *testing.T, tgt target.Target, opts Options) *report.Run {
	t.Helper()
	srv, err := driverserver.NewServer(tgt, all.Models)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	wiring, err := httptarget.NewWiring("")
	if err != nil {
		t.Fatal(err)
	}
	defer wiring.Close()
	opts.Target, opts.Wiring = ht, wiring
	run, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Two paths, one verdict: the reference in-process and the reference over
// HTTP (driver protocol, provider wire formats, chat over loopback) get
// the same verdict, scenario by scenario.
func TestHTTPGivesTheSameVerdicts(t *testing.T) {
	in, err := Run(context.Background(), Options{Target: inprocess.New(reference.New(), "reference")})
	if err != nil {
		t.Fatal(err)
	}
	over := overHTTP(t, inprocess.New(reference.New(), "reference"), Options{})
	got := map[string]report.Scenario{}
	for _, s := range over.Scenarios {
		got[s.ID] = s
	}
	for _, s := range in.Scenarios {
		o, ok := got[s.ID]
		switch {
		case !ok:
			t.Errorf("%s: not run over HTTP", s.ID)
		case o.Verdict != s.Verdict:
			t.Errorf("%s: %s in-process, %s over HTTP\n  step: %s\n  %s", s.ID, s.Verdict, o.Verdict, o.FailedStep, o.Message)
		}
	}
	if len(over.Scenarios) != len(in.Scenarios) {
		t.Errorf("%d scenarios over HTTP, %d in-process", len(over.Scenarios), len(in.Scenarios))
	}
	t.Logf("%d scenarios, the same verdict on both paths: %v", len(in.Scenarios), in.ScenarioTotals())
}
