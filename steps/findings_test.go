package steps

import (
	"errors"
	"testing"

	"github.com/approval-conformance-kit/ack/report"
)

// A fault another rule owns is charged to that rule once, however many
// assertions find it; each assertion's own check gets its own outcome.
func TestJudgeChargesTheOwner(t *testing.T) {
	w := &world{reported: map[string]bool{}}
	missing := &chargedError{check: "PRE-02", why: "turn 2 added no result for call_1", own: blocked("needs the result")}
	for _, check := range []string{"DEN-01", "WIRE-02"} {
		if err := w.judge(check, missing); err != nil {
			t.Fatalf("judge(%s): %v", check, err)
		}
	}
	if err := w.judge("ERR-01", &chargedError{check: "PRE-02", why: missing.why}); err != nil {
		t.Fatal(err)
	}
	if err := w.judge("PRE-02", missing); err != nil {
		t.Fatal(err)
	}
	type got struct {
		check   string
		outcome report.Outcome
	}
	var all []got
	for _, f := range w.findings {
		all = append(all, got{f.check, f.outcome})
	}
	want := []got{
		{"PRE-02", report.OutcomeFail}, {"DEN-01", report.OutcomeBlocked},
		{"WIRE-02", report.OutcomeBlocked},
		{"ERR-01", report.OutcomePass},
		{"PRE-02", report.OutcomeFail},
	}
	if len(all) != len(want) {
		t.Fatalf("findings %v, want %v", all, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("finding %d is %v, want %v", i, all[i], want[i])
		}
	}
}

// An assertion of a rule that requires the turn's result fails on its
// absence; any other is blocked and charges the rule that requires it.
func TestMissingResultOwner(t *testing.T) {
	w := &world{reported: map[string]bool{}}
	rec := &turnRecord{N: 2}
	w.check = "PRE-01"
	var cerr *chargedError
	if err := w.missingResult(rec, "call_1", "none"); err == nil || errors.As(err, &cerr) {
		t.Fatalf("PRE-01's own assertion: got %v, want a plain failure", err)
	}
	w.check = "DEN-01"
	err := w.missingResult(rec, "call_1", "none")
	if !errors.As(err, &cerr) || cerr.check != "REQ-06" {
		t.Fatalf("DEN-01's assertion on a call nobody answered: got %#v, want it charged to REQ-06", err)
	}
}

// A missing result is charged by the answer the request gave, read even
// from a message the strict decoder refuses (an unknown field on purpose).
func TestResultRuleReadsTheAnswerLeniently(t *testing.T) {
	conv := `[
	  {"role":"user","content":[{"type":"text","text":"delete /a and /b"}]},
	  {"role":"assistant","content":[
	    {"type":"tool-call","toolCallId":"call_1","toolName":"deleteFile","input":{"path":"/a"}},
	    {"type":"tool-call","toolCallId":"call_2","toolName":"deleteFile","input":{"path":"/b"}},
	    {"type":"tool-call","toolCallId":"call_3","toolName":"deleteFile","input":{"path":"/c"}},
	    {"type":"tool-approval-request","approvalId":"a1","toolCallId":"call_1"},
	    {"type":"tool-approval-request","approvalId":"a2","toolCallId":"call_2"},
	    {"type":"tool-approval-request","approvalId":"a3","toolCallId":"call_3"}]},
	  {"role":"tool","content":[
	    {"type":"tool-approval-response","approvalId":"a1","approved":false,"override":true},
	    {"type":"tool-approval-response","approvalId":"a2","approved":true}]}
	]`
	w := &world{}
	rec := &turnRecord{N: 2, Request: []byte(conv)}
	for call, want := range map[string]string{"call_1": "PRE-02", "call_2": "PRE-01", "call_3": "REQ-06"} {
		if got := w.resultRule(rec, call); got != want {
			t.Errorf("resultRule(%s) = %s, want %s", call, got, want)
		}
	}
}
