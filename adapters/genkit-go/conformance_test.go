package genkitgo_test

import (
	"context"
	"os"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	genkitgo "github.com/approval-conformance-kit/ack/adapters/genkit-go"
)

// TestConformance certifies Genkit Go through acktest: the agent's
// scenarios, each a subtest. ACK_EXPECTED_FAILURES names a baseline and
// ACK_REPORT_DIR a report folder.
func TestConformance(t *testing.T) {
	acktest.Run(t, genkitgo.New(context.Background()), acktest.Options{
		Tags:             "@agent",
		ExpectedFailures: os.Getenv("ACK_EXPECTED_FAILURES"),
		ReportDir:        os.Getenv("ACK_REPORT_DIR"),
		Formats:          []string{"json", "junit", "md", "html", "badge", "journal"},
	})
}
