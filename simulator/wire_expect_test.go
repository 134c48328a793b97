package simulator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

func TestCheckWireResult(t *testing.T) {
	reason := "keep b"
	empty := ""
	text := func(s string) *model.ToolOutput { return model.TextOutput(s) }
	cases := []struct {
		name string
		want ResultExpect
		got  *model.ToolOutput
		fail string
	}{
		{"json as text", ResultExpect{ToolCallID: "a", Type: "json", Value: json.RawMessage(`{"ok":true}`)}, text(`{"ok": true}`), ""},
		{"json value differs", ResultExpect{ToolCallID: "a", Type: "json", Value: json.RawMessage(`{"ok":true}`)}, text(`{"ok":false}`), "to have the value"},
		{"json expected, prose given", ResultExpect{ToolCallID: "a", Type: "json"}, text("done"), "to be JSON"},
		{"denial carries its reason", ResultExpect{ToolCallID: "b", Type: "execution-denied", Reason: &reason}, text("Tool call denied: keep b"), ""},
		{"denial lost its reason", ResultExpect{ToolCallID: "b", Type: "execution-denied", Reason: &reason}, text("Tool call execution denied."), `the reason "keep b"`},
		{"denial without a reason", ResultExpect{ToolCallID: "b", Type: "execution-denied", Reason: &empty}, text("Tool call execution denied."), ""},
		{"typed denial", ResultExpect{ToolCallID: "b", Type: "execution-denied", Reason: &reason}, model.DeniedOutput("keep b"), ""},
		{"error text", ResultExpect{ToolCallID: "c", Type: "error-text", TextContains: "disk full"}, text("Error: disk full"), ""},
		{"untyped denial carries its reason", ResultExpect{ToolCallID: "b", Reason: &reason, ReasonInText: true}, text("Denied: keep b"), ""},
		{"untyped denial lost its reason", ResultExpect{ToolCallID: "b", Reason: &reason, ReasonInText: true}, text("Denied."), `the reason "keep b" in its text`},
		{"error text missing", ResultExpect{ToolCallID: "c", Type: "error-text", TextContains: "disk full"}, text("ok"), `to contain "disk full"`},
	}
	for _, c := range cases {
		probs, blocked := checkWireResult(resultCheck{"PRE-01", "PRE-01", "PRE-01"}, c.want, c.got)
		if len(blocked) > 0 {
			t.Errorf("%s: blocked %v", c.name, blocked)
		}
		switch {
		case c.fail == "" && len(probs) > 0:
			t.Errorf("%s: unexpected problems %v", c.name, probs)
		case c.fail != "" && (len(probs) == 0 || !strings.Contains(probs[0].Detail, c.fail)):
			t.Errorf("%s: problems %v, want one saying %q", c.name, probs, c.fail)
		}
		for _, p := range probs {
			if p.Check != "PRE-01" {
				t.Errorf("%s: blamed %s", c.name, p.Check)
			}
		}
	}
}

// TestWireResultChargesEachAspectToItsCheck: over a wire, a result that is
// not JSON is charged to the type's check, a denial without the reason to
// the reason's check, a wrong value to the result's own check.
func TestWireResultChargesEachAspectToItsCheck(t *testing.T) {
	reason := "keep b"
	c := resultCheck{present: "PRE-02", typ: "DEN-01", reason: "DEN-02"}
	cases := []struct {
		name  string
		want  ResultExpect
		got   *model.ToolOutput
		check string
	}{
		{"not JSON", ResultExpect{ToolCallID: "a", Type: "json"}, model.TextOutput("done"), "DEN-01"},
		{"reason lost", ResultExpect{ToolCallID: "b", Type: "execution-denied", Reason: &reason}, model.TextOutput("denied"), "DEN-02"},
		{"wrong value", ResultExpect{ToolCallID: "a", Value: json.RawMessage(`{"ok":true}`)}, model.TextOutput(`{"ok":false}`), "PRE-02"},
	}
	for _, tc := range cases {
		fails, _ := checkWireResult(c, tc.want, tc.got)
		if len(fails) != 1 || fails[0].Check != tc.check {
			t.Errorf("%s: %v, want one failure of %s", tc.name, fails, tc.check)
		}
	}
}
