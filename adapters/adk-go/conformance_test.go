package adkgo_test

import (
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	adkgo "github.com/approval-conformance-kit/ack/adapters/adk-go"
)

// TestConformance certifies ADK Go through acktest: the agent's
// scenarios, each a subtest. The environment (acktest.FromEnv) may name
// another baseline, a report folder and its formats, or other tags: certify.sh
// sets them.
func TestConformance(t *testing.T) {
	acktest.Run(t, adkgo.New(), acktest.FromEnv(acktest.Options{
		Tags: "@agent",
		// ADK's closed confirmation issues the rules cover, as regression
		// scenarios (FINDINGS.md, "Regressions").
		Scenarios: []string{"regressions"},
		// The committed certification's baseline: go test passes while the
		// SDK fails as published, and fails when a verdict moves.
		ExpectedFailures: "../../reports/certified/adk-go@v2.2.0-canonical/expected-failures.yaml",
	}))
}
