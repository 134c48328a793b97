package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

// docs/scenarios.md names every result type and stream event type a
// scenario can expect.
func TestDocsNameResultTypesAndEvents(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, name := range []string{
		string(model.OutputJSON), string(model.OutputText), string(model.OutputErrorJSON), string(model.OutputErrorText), string(model.OutputExecutionDenied),
		string(model.EventStartStep), string(model.EventTextDelta), string(model.EventToolCall), string(model.EventToolApprovalRequest),
		string(model.EventToolResult), string(model.EventFinishStep), string(model.EventFinish), string(model.EventError),
	} {
		if !strings.Contains(doc, "| `"+name+"` |") {
			t.Errorf("docs/scenarios.md does not list %q in a table", name)
		}
	}
	if !strings.Contains(doc, "conformance scenario check") {
		t.Error("docs/scenarios.md does not document scenario check")
	}
}
