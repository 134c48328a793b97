package runner

import (
	"context"
	"sort"
	"testing"

	"github.com/approval-conformance-kit/ack/reference/probes"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
)

// policyTarget is a target that declares another denial policy.
type policyTarget struct {
	target.Target
	policy string
}

func (p policyTarget) Info(ctx context.Context) (*target.Info, error) {
	info, err := p.Target.Info(ctx)
	if err != nil {
		return nil, err
	}
	c := *info
	c.Features.DenialPolicy = p.policy
	return &c, nil
}

// TestYAMLScenariosFailVacuityProbesUnderBothPolicies runs every YAML
// scenario against the agent vacuity probes (a target that refuses every
// turn, does nothing, or echoes its input), declaring each denial policy in
// turn, so that the scenarios limited to either policy are probed too.
// Every scenario must fail (or warn, for a SHOULD-only one) under the
// policy it applies to, and apply under at least one: none passes whatever
// the target does, none errors.
func TestYAMLScenariosFailVacuityProbesUnderBothPolicies(t *testing.T) {
	n := 0
	for _, p := range probes.All() {
		if p.Kind != probes.Vacuity || p.Role != target.RoleAgent {
			continue
		}
		n++
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			applies := map[string]bool{}
			for _, policy := range []string{"independent", "abort-remaining"} {
				tgt := policyTarget{Target: p.New(), policy: policy}
				run, err := Run(context.Background(), Options{Target: tgt, NoFeatures: true})
				tgt.Close()
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range run.Scenarios {
					if _, seen := applies[s.Source]; !seen {
						applies[s.Source] = false
					}
					switch s.Verdict {
					case report.Fail, report.Warn:
						applies[s.Source] = true
					case report.NotApplicable:
					default:
						t.Errorf("%s (%s, %s policy): %s on a probe that %s: %s", s.Source, s.Name, policy, s.Verdict, p.What, s.Message)
					}
				}
			}
			if len(applies) == 0 {
				t.Fatal("no YAML scenario ran")
			}
			var sources []string
			for src := range applies {
				sources = append(sources, src)
			}
			sort.Strings(sources)
			for _, src := range sources {
				if !applies[src] {
					t.Errorf("%s failed under neither denial policy: it was never applicable", src)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no agent vacuity probe")
	}
}
