package steps

import (
	"errors"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
)

// gradeOne judges one failed assertion of check in a fresh world and
// returns the scenario's verdict for the check and the finding.
func gradeOne(t *testing.T, info *target.Info, tags []string, input []string, check string, err error) (report.Verdict, report.Finding, report.Scenario) {
	t.Helper()
	w := &world{reported: map[string]bool{}, info: info}
	for _, tag := range input {
		w.markInput(tag)
	}
	if jerr := w.judge(check, err); jerr != nil {
		t.Fatalf("judge: %v", jerr)
	}
	res := report.Scenario{Tags: tags, Checks: []string{check}}
	w.verdict(&res)
	if len(res.Findings) != 1 {
		t.Fatalf("findings %+v, want one", res.Findings)
	}
	return res.CheckVerdicts[check], res.Findings[0], res
}

// A MUST failure stands only where the run shows its harm: a failure that
// shows none, or whose harm the run does not show, warns.
func TestGradeByHarm(t *testing.T) {
	info := &target.Info{}
	never := func(*world) (string, bool) { return "", false }
	shown := func(*world) (string, bool) { return "model call 2 was refused with HTTP 400", true }
	for _, tc := range []struct {
		name       string
		check      string
		err        error
		want       report.Verdict
		harm       string
		gradedHas  string
		evidenceIs string
	}{
		{"harmless", "REQ-01", harmless(errors.New("no approval request for call_1")), report.Warn, "", "no harm", ""},
		{"unnamed harm is none", "REQ-03", errors.New("finish reason stop"), report.Warn, "", "no harm", ""},
		{"shown by itself", "REQ-01", harmed(checks.RanAgainstAnswer, errors.New("deleteFile ran 1 time")), report.Fail, "ran-against-answer", "", "deleteFile ran 1 time"},
		{"shown by the run", "REQ-06", harmedIf(checks.Refused, shown, errors.New("call_2 has no result")), report.Fail, "refused", "", "model call 2 was refused with HTTP 400"},
		{"not shown by the run", "REQ-06", harmedIf(checks.Lost, never, errors.New("call_2 deferred")), report.Warn, "", "not shown", ""},
		{"a SHOULD check warns whatever its harm", "SEC-01", harmed(checks.Forged, errors.New("forged approval honoured")), report.Warn, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, f, _ := gradeOne(t, info, nil, nil, tc.check, tc.err)
			if v != tc.want {
				t.Errorf("verdict %s, want %s (finding %+v)", v, tc.want, f)
			}
			if f.Harm != tc.harm {
				t.Errorf("harm %q, want %q", f.Harm, tc.harm)
			}
			if tc.gradedHas != "" && !strings.Contains(f.Graded, tc.gradedHas) {
				t.Errorf("graded %q, want it to say %q", f.Graded, tc.gradedHas)
			}
			if tc.evidenceIs != "" && f.HarmEvidence != tc.evidenceIs {
				t.Errorf("evidence %q, want %q", f.HarmEvidence, tc.evidenceIs)
			}
		})
	}
}

// On out-of-contract input only the safety harms are MUST; a trait makes
// input out-of-contract only for a target whose declared contract
// excludes it.
func TestGradeByProvenance(t *testing.T) {
	lost := func() error { return harmed(checks.Lost, errors.New("no result for d2")) }
	ran := func() error { return harmed(checks.RanAgainstAnswer, errors.New("d2 ran after its denial")) }
	plain := &target.Info{}
	contract := &target.Info{Features: target.Features{Contract: target.Contract{AnswersInLastMessage: true}}}

	v, _, res := gradeOne(t, plain, []string{"out-of-contract"}, nil, "PRE-09", lost())
	if v != report.Warn || res.Provenance != "out-of-contract" {
		t.Errorf("lost on an out-of-contract scenario: %s (%s), want warn, out-of-contract", v, res.Provenance)
	}
	if v, _, _ := gradeOne(t, plain, nil, []string{checks.OutOfContractTag}, "PRE-02", ran()); v != report.Fail {
		t.Errorf("ran-against-answer on out-of-contract input: %s, want fail", v)
	}
	if v, _, res := gradeOne(t, plain, nil, []string{"@answers-in-several-messages"}, "PRE-09", lost()); v != report.Fail || res.Provenance != "conforming" {
		t.Errorf("answers in two messages, no contract declared: %s (%s), want fail, conforming", v, res.Provenance)
	}
	v, f, res := gradeOne(t, contract, nil, []string{"@answers-in-several-messages"}, "PRE-09", lost())
	if v != report.Warn || res.Provenance != "out-of-contract" || !strings.Contains(res.ProvenanceWhy, "answersInLastMessage") || !strings.Contains(f.Graded, "out-of-contract") {
		t.Errorf("answers in two messages, answersInLastMessage declared: %s (%s: %s; %s), want warn, out-of-contract", v, res.Provenance, res.ProvenanceWhy, f.Graded)
	}
	if v, _, _ := gradeOne(t, contract, nil, []string{"@answers-in-several-messages"}, "PRE-02", ran()); v != report.Fail {
		t.Errorf("ran-against-answer outside the contract: %s, want fail", v)
	}
}

// A client request that leaves a call dangling is refused by the provider,
// unless the target declares that its own chat server resolves it.
func TestDanglingHarmFollowsTheContract(t *testing.T) {
	w := &world{info: &target.Info{}}
	if _, ok := danglingHarm.show(w); !ok {
		t.Error("no contract: the dangling call's harm is not shown")
	}
	w.info.Features.Contract.ServerSupersedesPending = true
	if _, ok := danglingHarm.show(w); ok {
		t.Error("serverSupersedesPending: the dangling call's harm is shown")
	}
}

// Every MUST assertion step either names its harm or leaves it to its
// failures; the static harms name a harm of their check's catalogue entry
// where the check is fixed.
func TestFixedAssertionHarmsAreTheirChecks(t *testing.T) {
	for _, d := range definitions(func() *world { return nil }) {
		if d.kind != kindAssert || d.fixed == "" || d.harm.harm == "" {
			continue
		}
		c, _ := checks.Lookup(d.fixed)
		found := false
		for _, h := range c.Harm {
			found = found || h == d.harm.harm
		}
		if !found {
			t.Errorf("step %q of %s names the harm %s, which %s does not list (%v)", d.expr, d.fixed, d.harm.harm, d.fixed, c.Harm)
		}
	}
}

// A turn error of code Other is crashed only when it says nothing or is the
// runtime's own fault; a clear error of another name harms nobody.
func TestCrashedIfOther(t *testing.T) {
	base := errors.New("the turn failed with Other, want InvalidApproval")
	for _, tc := range []struct {
		e     target.TurnError
		crash bool
	}{
		{target.TurnError{Code: "Other", Message: "TypeError: Cannot read properties of undefined (reading 'approved')"}, true},
		{target.TurnError{Code: "Other", Message: "the run failed", SDKError: "panic: runtime error: invalid memory address or nil pointer dereference"}, true},
		{target.TurnError{Code: "Other"}, true},
		{target.TurnError{Code: "Other", Message: "Max turns (2) exceeded"}, false},
		{target.TurnError{Code: "InvalidMessages", Message: "TypeError: x"}, false},
	} {
		var herr *harmError
		got := errors.As(crashedIfOther(&tc.e, base), &herr) && herr.spec.harm == checks.Crashed
		if got != tc.crash {
			t.Errorf("%+v: crashed %v, want %v", tc.e, got, tc.crash)
		}
	}
}

// A target whose SDK takes a step's answers only together finds the
// scenarios that answer part of a step not applicable; others run them.
func TestBatchedDecisionsMakePartialBatchesNotApplicable(t *testing.T) {
	w := &world{info: &target.Info{}}
	w.requireWholeBatches()
	if w.na != nil {
		t.Errorf("no batchedDecisions: not applicable (%s)", w.na.reason)
	}
	w.info.Features.BatchedDecisions = true
	w.requireWholeBatches()
	if w.na == nil || !strings.Contains(w.na.reason, "batchedDecisions") {
		t.Errorf("batchedDecisions: want not applicable naming it, got %+v", w.na)
	}
}

// A harm judged by the end of the scenario is not shown by a scenario that
// stopped before its end (a step it could not run): the loss never had
// the chance to be made good.
func TestHarmByEndNeedsTheEnd(t *testing.T) {
	shown := func(*world) (string, bool) { return "call_2 never ran", true }
	for _, tc := range []struct {
		stopped string
		want    report.Verdict
	}{{"", report.Fail}, {`the user denies "call_2"`, report.Warn}} {
		w := &world{reported: map[string]bool{}, info: &target.Info{}, stoppedAt: tc.stopped}
		if err := w.judge("REQ-06", harmedByEnd(checks.Lost, shown, errors.New("call_2 has no result"))); err != nil {
			t.Fatal(err)
		}
		res := report.Scenario{Checks: []string{"REQ-06"}}
		w.verdict(&res)
		if got := res.CheckVerdicts["REQ-06"]; got != tc.want {
			t.Errorf("stopped at %q: %s, want %s (%+v)", tc.stopped, got, tc.want, res.Findings)
		}
	}
}

// A clear refusal of conforming input loses the user's message and answers:
// it is the evidence of "lost" for a failure whose harm the run does not
// otherwise show. A refusal an assertion accepted, one of out-of-contract
// input, and a model error show nothing.
func TestRefusalOfConformingInputIsLost(t *testing.T) {
	never := func(*world) (string, bool) { return "", false }
	for _, tc := range []struct {
		name     string
		code     string
		accepted bool
		ooc      bool
		want     report.Verdict
	}{
		{"refused conforming input", "InvalidMessages", false, false, report.Fail},
		{"the scenario expected the refusal", "InvalidMessages", true, false, report.Warn},
		{"a refusal naming the toolkit", "ToolNotFound", false, false, report.Warn},
		{"out-of-contract input", "InvalidApproval", false, true, report.Warn},
		{"a model error is no refusal", "Model", false, false, report.Warn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{reported: map[string]bool{}, info: &target.Info{}}
			w.turns = []*turnRecord{{N: 1, Response: &target.TurnResponse{Error: &target.TurnError{Code: tc.code, Message: "approval response for call_1 is not valid"}}}}
			if tc.accepted {
				w.acceptRefusal()
			}
			if tc.ooc {
				w.markInput(checks.OutOfContractTag)
			}
			if err := w.judge("PRE-01", harmedByEnd(checks.Lost, never, errors.New("call_1 has no result"))); err != nil {
				t.Fatal(err)
			}
			res := report.Scenario{Checks: []string{"PRE-01"}}
			w.verdict(&res)
			if got := res.CheckVerdicts["PRE-01"]; got != tc.want {
				t.Fatalf("%s, want %s (%+v)", got, tc.want, res.Findings)
			}
			if tc.want == report.Fail && (res.Findings[0].Harm != string(checks.Lost) || !strings.Contains(res.Findings[0].HarmEvidence, "turn 1 refused its conforming input with InvalidMessages")) {
				t.Errorf("finding %+v, want lost with the refusal as evidence", res.Findings[0])
			}
		})
	}
}

// A result a turn's messages lack is lost only if the conversation went on
// without it: a scenario that ends with the turn cannot tell a result held
// back for the next request from one dropped.
func TestResultNeverSeenNeedsTheConversationToGoOn(t *testing.T) {
	for _, later := range []bool{false, true} {
		w, _ := oneAtATime(t)
		withModel(t, w, "readFile")
		w.turns = w.turns[:1]
		w.turns[0].FirstModelCall, w.turns[0].LastModelCall = 1, 1
		if later {
			w.turns = append(w.turns, &turnRecord{N: w.turns[0].N + 1, Response: &target.TurnResponse{}})
		}
		_, shown := resultNeverSeen(w.turns[0].N, "d2")(w)
		if shown != later {
			t.Errorf("a later turn: %v; lost shown: %v, want %v", later, shown, later)
		}
	}
}

// A refusal in a scenario whose toolkit lacks a tool the history needs is
// the application's to answer (PRE-05, PRE-06): it shows no loss.
func TestRefusalWithAToolMissingShowsNothing(t *testing.T) {
	w := &world{reported: map[string]bool{}, info: &target.Info{}, omitted: map[string]bool{"deleteFile": true}}
	w.turns = []*turnRecord{{N: 2, Response: &target.TurnResponse{Error: &target.TurnError{Code: "InvalidApproval", Message: "resume entry references unknown interrupt"}}}}
	if ev, shown := w.refusedConforming(); shown {
		t.Errorf("shown %q, want nothing", ev)
	}
	delete(w.omitted, "deleteFile")
	if _, shown := w.refusedConforming(); !shown {
		t.Error("with the whole toolkit, the refusal shows nothing; want lost")
	}
}

// A call that never ran is lost only if the conversation went on after the
// model made it: a runtime may run it with the next request.
func TestNeverRanNeedsTheConversationToGoOn(t *testing.T) {
	for _, later := range []bool{false, true} {
		w, _ := oneAtATime(t)
		withModel(t, w, "readFile")
		w.turns = w.turns[:1]
		if later {
			w.turns = append(w.turns, &turnRecord{N: 2, FirstModelCall: 2, LastModelCall: 1, Response: &target.TurnResponse{}})
		}
		if _, shown := neverRan("d2", 1)(w); shown != later {
			t.Errorf("a later turn: %v; lost shown: %v, want %v", later, shown, later)
		}
	}
}
