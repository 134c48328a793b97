package genkitgo_test

import (
	"context"
	"os"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	genkitgo "github.com/approval-conformance-kit/ack/adapters/genkit-go"
)

// TestConformance certifies Genkit Go through acktest: the agent's
// scenarios, each a subtest. The environment (acktest.FromEnv) may name
// another baseline, a report folder and its formats, or other tags: certify.sh
// sets them.
//
// ACK_MODEL_API=wire (certify.sh --model-api wire) takes the wire path:
// Genkit's compat_oai plugin against the simulator over loopback HTTP.
func TestConformance(t *testing.T) {
	var opts []genkitgo.Option
	baseline := "../../reports/certified/genkit-go@v1.7.0-canonical/expected-failures.yaml"
	wire := os.Getenv("ACK_MODEL_API") == "wire"
	if wire {
		opts = append(opts, genkitgo.Wire())
		baseline = "../../reports/certified/genkit-go@v1.7.0-wire/expected-failures.yaml"
	}
	if _, err := os.Stat(baseline); err != nil {
		baseline = "" // not certified yet
	}
	acktest.Run(t, genkitgo.New(context.Background(), opts...), acktest.FromEnv(acktest.Options{
		ServeModel: wire,
		Tags:       "@agent",
		// The committed certification's baseline: go test passes while the
		// SDK fails as published, and fails when a verdict moves.
		ExpectedFailures: baseline,
	}))
}
