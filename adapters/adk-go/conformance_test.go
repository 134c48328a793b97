package adkgo_test

import (
	"os"
	"testing"

	"github.com/approval-conformance-kit/ack/acktest"

	adkgo "github.com/approval-conformance-kit/ack/adapters/adk-go"
)

// TestConformance certifies ADK Go through acktest: the agent's
// scenarios, each a subtest. ACK_EXPECTED_FAILURES names a baseline and
// ACK_REPORT_DIR a report folder (certify.sh sets both).
func TestConformance(t *testing.T) {
	acktest.Run(t, adkgo.New(), acktest.Options{
		Tags:             "@agent",
		ExpectedFailures: os.Getenv("ACK_EXPECTED_FAILURES"),
		ReportDir:        os.Getenv("ACK_REPORT_DIR"),
		Formats:          []string{"json", "junit", "md", "html", "badge", "journal"},
	})
}
