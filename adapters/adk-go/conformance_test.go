package adkgo_test

import (
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	adkgo "github.com/approval-conformance-kit/ack/adapters/adk-go"
)

// TestConformance certifies ADK Go through acktest: the agent's
// scenarios, each a subtest. The environment (acktest.FromEnv) may name
// a baseline, a report folder and its formats, or other tags: certify.sh
// sets them.
func TestConformance(t *testing.T) {
	acktest.Run(t, adkgo.New(), acktest.FromEnv(acktest.Options{Tags: "@agent"}))
}
