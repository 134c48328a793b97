package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/mutants"
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

// apiModes are the ways the reference's model client can be served over
// HTTP: the provider wire of each scenario's profile, or only the kit's
// canonical model API (lossless).
var apiModes = []struct {
	name string
	apis []string
}{
	{"provider-wire", nil},
	{"canonical", []string{target.APICanonical}},
}

// Two paths, one verdict: the reference in-process and the reference over
// HTTP (driver protocol, provider wire formats or the canonical model API,
// chat over loopback) get the same verdict, scenario by scenario.
func TestHTTPGivesTheSameVerdicts(t *testing.T) {
	in, err := Run(context.Background(), Options{Target: inprocess.New(reference.New(), "reference")})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range apiModes {
		t.Run(mode.name, func(t *testing.T) {
			over := overHTTP(t, inprocess.New(reference.New(), "reference", inprocess.WithModelAPIs(mode.apis...)), Options{})
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
		})
	}
}

// notOnTheWire are the mutants whose bug no provider wire can show: the
// bug is in what the prompt holds beyond what a provider accepts, and the
// HTTP model client drops it, as a real provider SDK does. The canonical
// model API carries the prompt whole, so there every mutant is caught.
var notOnTheWire = map[string]string{
	"keeps-approval-parts":      "approval parts have no place in a provider request; the client encoding drops them",
	"forwards-orphan-responses": "an approval response of a local call has no place in a provider request; the client encoding drops it",
	"rewrites-old-denials":      "a denial and an error with the same text are the same text on the OpenAI Chat wire",
}

// The mutants are reachable over HTTP and caught there, each by the checks
// that target its bug (run on the scenarios of those checks): on the
// provider wires all but the few no wire can show, on the canonical model
// API every one.
func TestMutantsAreCaughtOverHTTP(t *testing.T) {
	b := mutantBuilder(t)
	all := allMutants(t)
	for _, mode := range apiModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			for _, m := range all {
				t.Run(m.Name, func(t *testing.T) {
					t.Parallel()
					wiring, err := httptarget.NewWiring("") // each run its own: scenario ids repeat across runs
					if err != nil {
						t.Fatal(err)
					}
					defer wiring.Close()
					res, err := RunMutants(context.Background(), []mutants.Mutant{m}, func(ctx context.Context, m mutants.Mutant) (*report.Run, error) {
						// The mutant's program serves it (conformance serve).
						srv, err := b.Serve(ctx, m, "--model-apis", strings.Join(mode.apis, ","))
						if err != nil {
							return nil, err
						}
						defer srv.Close()
						ht, err := httptarget.New(srv.URL)
						if err != nil {
							return nil, err
						}
						defer ht.Close()
						return Run(ctx, Options{Target: ht, Tags: targetTags(m), Wiring: wiring, Name: "mutant " + m.Name})
					})
					if err != nil {
						t.Fatal(err)
					}
					r := res.Results[0]
					why, exempt := notOnTheWire[m.Name]
					exempt = exempt && mode.apis == nil
					switch {
					case len(r.Caught) > 0 && exempt:
						t.Errorf("mutant %s is caught on the provider wire after all (%v): drop it from notOnTheWire", m.Name, r.Caught)
					case len(r.Caught) > 0:
					case exempt:
						t.Logf("mutant %s is not observable on a provider wire: %s", m.Name, why)
					default:
						t.Errorf("mutant %s (%s) survived over HTTP (%s): none of %v failed", m.Name, m.Bug, mode.name, m.Checks)
					}
				})
			}
		})
	}
}
