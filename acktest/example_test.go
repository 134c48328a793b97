package acktest_test

import (
	"context"
	"fmt"

	"github.com/approval-conformance-kit/ack/acktest"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// A Go team certifies its own target in a test function:
//
//	func TestConformance(t *testing.T) {
//		acktest.Run(t, myTarget(), acktest.Options{
//			ExpectedFailures: "testdata/expected-failures.yaml",
//			ReportDir:        os.Getenv("ACK_REPORT_DIR"),
//		})
//	}
//
// Outside a test, Certify runs the same suite and returns the run: here
// the scenarios of one check against the kit's reference.
func Example() {
	tgt := inprocess.New(reference.New(), "reference")
	run, outcome, err := acktest.Certify(context.Background(), tgt, acktest.Options{Tags: "@PRE-05"})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := run.CheckVerdict("PRE-05")
	fmt.Println("PRE-05:", v)
	fmt.Println("as the baseline expects:", outcome.OK())
	// Output:
	// PRE-05: pass
	// as the baseline expects: true
}
