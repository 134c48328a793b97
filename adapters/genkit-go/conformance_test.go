package genkitgo_test

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	genkitgo "github.com/approval-conformance-kit/ack/adapters/genkit-go"
)

// TestConformance certifies Genkit Go through acktest: the agent's
// scenarios, each a subtest. The environment (acktest.FromEnv) may name
// another baseline, a report folder and its formats, or other tags: certify.sh
// sets them.
func TestConformance(t *testing.T) {
	acktest.Run(t, genkitgo.New(context.Background()), acktest.FromEnv(acktest.Options{
		Tags: "@agent",
		// The committed certification's baseline: go test passes while the
		// SDK fails as published, and fails when a verdict moves.
		ExpectedFailures: "../../reports/certified/genkit-go@v1.7.0-canonical/expected-failures.yaml",
	}))
}
