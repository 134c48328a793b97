//go:build mutation

package chatserver_test

import (
	"testing"

	"github.com/approval-conformance-kit/ack/reference/internal/mutationsuite"
)

// TestConformanceSuite judges the chat server compiled into this binary
// (under `make mutation`, a mutated one) by the whole conformance suite.
// With the "mutation" tag it is the package's only test: the unit tests
// are built without it.
func TestConformanceSuite(t *testing.T) { mutationsuite.Run(t) }
