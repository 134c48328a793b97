package genkitgo_test

import (
	"context"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	genkitgo "github.com/approval-conformance-kit/ack/adapters/genkit-go"
)

// TestConformance certifies Genkit Go through acktest: the agent's
// scenarios, each a subtest. The environment (acktest.FromEnv) may name
// a baseline, a report folder and its formats, or other tags: certify.sh
// sets them.
func TestConformance(t *testing.T) {
	acktest.Run(t, genkitgo.New(context.Background()), acktest.FromEnv(acktest.Options{Tags: "@agent"}))
}
