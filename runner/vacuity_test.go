package runner

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
)

// vacuousProbes are targets that do no approval work at all. Each must fail
// every YAML scenario, except those whose expectations accept exactly what
// the probe does (listed with the reason): a scenario such a target passes
// judges nothing.
var vacuousProbes = []struct {
	name string
	turn func(req *target.TurnRequest) *target.TurnResponse
	// passes are the scenarios (by file) the probe may pass, and why.
	passes map[string]string
}{
	{
		name: "refuses every turn",
		turn: func(*target.TurnRequest) *target.TurnResponse {
			return &target.TurnResponse{Error: &target.TurnError{Code: "InvalidMessages", Message: "the probe refuses every turn"}}
		},
	},
	{
		name: "does nothing",
		turn: func(*target.TurnRequest) *target.TurnResponse {
			return &target.TurnResponse{FinishReason: "stop"}
		},
	},
	{
		name: "echoes its input",
		turn: func(req *target.TurnRequest) *target.TurnResponse {
			msgs, err := model.DecodeMessages(req.Messages)
			if err != nil {
				return &target.TurnResponse{Error: &target.TurnError{Code: "InvalidMessages", Message: err.Error()}}
			}
			return &target.TurnResponse{Messages: msgs, FinishReason: "stop"}
		},
	},
}

// TestYAMLScenariosAreNotVacuous runs every YAML scenario against targets
// that refuse every turn, do nothing, or echo their input, declaring every
// feature (so that no scenario is merely not applicable), under both denial
// policies. Each scenario must fail, unless it expects exactly what the
// probe does.
func TestYAMLScenariosAreNotVacuous(t *testing.T) {
	for _, probe := range vacuousProbes {
		t.Run(probe.name, func(t *testing.T) {
			verdicts := map[string][]report.Verdict{}
			for _, policy := range []string{"independent", "abort-remaining"} {
				info := &target.Info{Name: "probe", Roles: []string{target.RoleAgent}, Features: target.Features{
					Modes:            []target.Mode{target.Generate, target.Stream},
					DynamicPolicy:    true,
					Concurrency:      true,
					ProviderExecuted: true,
					ToolkitErrors:    true,
					DenialPolicy:     policy,
					ToolErrors:       "result",
				}}
				tgt := &fakeTarget{info: info, turn: func(_ context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
					return probe.turn(req), nil
				}}
				run, err := Run(context.Background(), Options{Target: tgt, NoFeatures: true, Timeout: 5e9})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range run.Scenarios {
					verdicts[s.Source] = append(verdicts[s.Source], s.Verdict)
					if s.Verdict == report.Error || s.Verdict == report.Timeout {
						t.Errorf("%s (%s): %s, want a verdict on the target: %s", s.Source, s.Name, s.Verdict, s.Message)
					}
					if s.Verdict == report.Pass && probe.passes[s.Source] == "" {
						t.Errorf("%s (%s) passes a target that %s: it judges nothing", s.Source, s.Name, probe.name)
					}
				}
			}
			if len(verdicts) == 0 {
				t.Fatal("no YAML scenario ran")
			}
			var sources []string
			for src := range verdicts {
				sources = append(sources, src)
			}
			sort.Strings(sources)
			for _, src := range sources {
				applicable := false
				for _, v := range verdicts[src] {
					if v != report.NotApplicable {
						applicable = true
					}
				}
				if !applicable {
					t.Errorf("%s was not applicable under either denial policy", src)
				}
			}
			for src, why := range probe.passes {
				if !slices.Contains(verdicts[src], report.Pass) {
					t.Errorf("the allowance for %s (%s) is stale: the probe does not pass it", src, why)
				}
			}
		})
	}
}
