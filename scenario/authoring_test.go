package scenario

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/simulator"
)

// approveFlow is a valid two-turn scenario body: a call, then its answer.
const approveFlow = `tools: [{name: del, approval: always}]
turns:
  - model: [{toolCalls: [{id: c1, tool: del, input: {path: /a}}]}]
    say: delete /a
  - model: [{text: Done.}]
    approve: [c1]
    expect: {runs: {c1: 1}}
`

// TestAuthoringErrorsAreLoadErrors: a mistake in a scenario is refused when
// it loads (so conformance scenario check and run both say so, exit 2 for a
// run), naming the file, the line and the field, instead of being charged
// to the target or judging it by nothing.
func TestAuthoringErrorsAreLoadErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		field, msg string
	}{
		{"answer to a call no reply makes (issue 9)", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "approve: [c1]", "approve: [c9]", 1),
			8, "turns[1].approve", `no model reply of an earlier turn makes a call, and no tool is named "c9"`},
		{"answer to a call of the same turn", "title: x\nchecks: [PRE-01]\ntools: [{name: del, approval: always}]\nturns:\n  - model: [{toolCalls: [{id: c1, tool: del}]}]\n    approve: [c1]\n    expect: {runs: {c1: 0}}\n",
			6, "turns[0].approve", `makes a call`},
		{"everyCallAccounted on a turn without calls (issue 9)", "title: x\nchecks: [REQ-06]\nturns:\n  - model: [{text: Hi.}]\n    say: hi\n    expect:\n      everyCallAccounted: true\n",
			7, "turns[0].expect.everyCallAccounted", "no model reply of this turn makes a local tool call"},
		{"everyCallAccountedOrRefused on a turn without calls", "title: x\nchecks: [REQ-06]\nturns:\n  - model: [{text: Hi.}]\n    say: hi\n    expect:\n      everyCallAccountedOrRefused: true\n",
			7, "turns[0].expect.everyCallAccountedOrRefused", "no model reply of this turn makes a local tool call"},
		{"everyCallAccountedOrRefused beside an expectation that needs the turn to succeed", "title: x\nchecks: [REQ-06]\ntools: [{name: rd, approval: never}]\nturns:\n  - model: [{toolCalls: [{id: c1, tool: rd}]}, {text: ok}]\n    say: hi\n    expect:\n      everyCallAccountedOrRefused: true\n      finishReason: stop\n",
			9, "turns[0].expect.finishReason", "allows the turn to fail"},
		{"a result for a call no earlier reply made", "title: x\nchecks: [PRE-01]\ntools: [{name: del, approval: always}]\nturns:\n  - model:\n      - toolCalls: [{id: c1, tool: del}]\n        expect: {results: [{call: c1, type: json}]}\n    say: go\n    expect: {runs: {c1: 0}}\n",
			7, "turns[0].model[0].expect.results[0].call", `no earlier model reply (nor the history) makes a call "c1"`},
		{"ranBefore a model call the script does not have", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{ranBefore: {c1: 3}}", 1),
			9, "turns[1].expect.ranBefore.c1", "the script has no model call 3"},
		{"stream expectations without stream mode", "title: x\nchecks: [REQ-07]\n" + strings.Replace(approveFlow, "    say: delete /a\n", "    say: delete /a\n    expect: {streamMatches: true}\n", 1),
			7, "turns[0].expect", "need modes: [stream]"},
		{"no check for an expectation", "title: x\nchecks: [PRE-01, PRE-02]\n" + approveFlow,
			9, "turns[1].expect.runs", "which check does this assert?"},
		{"a check the scenario does not list", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, checks: {runs: PRE-03}}", 1),
			9, "turns[1].expect.runs", "asserts PRE-03, which the scenario's checks do not list: list it"},
		{"a natural check the scenario does not list", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "    say: delete /a\n", "    say: delete /a\n    expect: {approvals: [c1]}\n", 1),
			7, "turns[0].expect.approvals", "asserts REQ-01"},
		{"a listed check nothing asserts", "title: x\nchecks: [PRE-01, PRE-02]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, check: PRE-01}", 1),
			2, "checks", "PRE-02 is listed, but no expectation of the scenario asserts it"},
		{"a fixed check charged to another", "title: x\nchecks: [REQ-02, PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, uniqueApprovalIds: true, check: PRE-01, checks: {uniqueApprovalIds: PRE-01}}", 1),
			9, "turns[1].expect.uniqueApprovalIds", "always an assertion of REQ-02"},
		{"a checks entry that names nothing", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, checks: {run: PRE-01}}", 1),
			9, "turns[1].expect.checks.run", `no expectation of this block is "run"`},
		{"an unknown check", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, check: PRE-77}", 1),
			9, "turns[1].expect.check", `unknown check "PRE-77"`},
		{"a removed field", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runsAtMost: {c1: 1}}", 1),
			9, "turns[1].expect.runsAtMost", "use atMostOnce"},
		{"level is gone", "title: x\nchecks: [PRE-01]\nlevel: should\n" + approveFlow,
			3, "level", "a check's own level decides"},
		{"a turn that asserts nothing", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "    expect: {runs: {c1: 1}}\n", "", 1),
			7, "turns[1].expect", "the turn asserts nothing"},
		{"approvals for a call of another turn", "title: x\nchecks: [PRE-01, REQ-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{runs: {c1: 1}, approvals: [c1]}", 1),
			9, "turns[1].expect.approvals", `no model reply of this turn makes a call "c1"`},
		{"messages of a turn that must fail", "title: x\nchecks: [PRE-05]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{error: ToolkitRequired, resultsAdded: [c1]}", 1),
			9, "turns[1].expect.resultsAdded", "reads the messages of a turn that succeeded, but error expects the turn to fail"},
		{"an answer to a call whose turn must fail", "title: x\nchecks: [PRE-01, ERR-01]\n" + strings.Replace(approveFlow, "    say: delete /a\n", "    say: delete /a\n    expect: {clearError: true, check: ERR-01}\n", 1),
			8, "turns[1]", "expected to fail: no approval was requested"},
		{"a provider answer no call asks", "title: x\nchecks: [PROV-01]\nprovider: openai-responses\ntools: [{name: s, provider: true}]\nturns:\n  - model: [{toolCalls: [{id: m, tool: s, approvalId: a1}]}]\n    say: go\n    expect: {runs: {s: 0}}\n  - providerAnswer: {approvalId: a2, approve: true}\n    expect: {runs: {s: 0}}\n",
			9, "turns[1].providerAnswer.approvalId", `no provider call of an earlier turn asks approval "a2"`},
		{"a provider tool off the Responses profile", "title: x\nchecks: [PROV-01]\ntools: [{name: s, provider: true}]\nturns: [{say: go, expect: {runs: {s: 0}}}]\n",
			3, "tools[0].provider", "set provider: openai-responses"},
		{"a provider tool that runs", "title: x\nchecks: [PROV-01]\nprovider: openai-responses\ntools: [{name: s, provider: true}]\nturns:\n  - model: [{toolCalls: [{id: m, tool: s, approvalId: a1}]}]\n    say: go\n    expect: {runs: {s: 1}}\n",
			8, "turns[0].expect.runs.s", "never runs locally"},
		{"more model calls than replies", "title: x\nchecks: [PRE-01]\n" + strings.Replace(approveFlow, "{runs: {c1: 1}}", "{modelCalls: 2}", 1),
			9, "turns[1].expect.modelCalls", "cannot be called 2 time(s)"},
		{"a policy asked for a static tool", "title: x\nchecks: [REQ-04]\n" + strings.Replace(approveFlow, "    say: delete /a\n", "    say: delete /a\n    expect: {policyAsked: [c1]}\n", 1),
			7, "turns[0].expect", "without a dynamic policy"},
		{"a check id as a tag", "title: x\nchecks: [PRE-01]\ntags: [PRE-02]\n" + approveFlow,
			1, "tags", "PRE-02 is a check: list it in checks"},
		{"a type check without a type", "title: x\nchecks: [PRE-01, DEN-01]\n" + strings.Replace(approveFlow, "model: [{text: Done.}]", "model: [{text: Done., expect: {results: [{call: c1, typeCheck: DEN-01, check: PRE-01}]}}]", 1),
			7, "turns[1].model[0].expect.results[0].typeCheck", "there is no type to charge"},
		{"two messages that are one", "title: x\nchecks: [PRE-09]\n" + strings.Replace(approveFlow, "approve: [c1]", "answersInTwoMessages: [[{call: c1, approve: true}]]", 1),
			7, "turns[1].answersInTwoMessages", "give two lists of answers"},
		{"a rename to the same tool", "title: x\nchecks: [SEC-02]\n" + strings.Replace(approveFlow, "approve: [c1]", "rename: {call: c1, tool: del}", 1),
			8, "turns[1].rename.tool", `"del" is already the tool of c1`},
		{"a denial type for the skipped text", "title: x\nchecks: [PART-02]\n" + strings.Replace(approveFlow, "model: [{text: Done.}]", "model: [{text: Done., expect: {results: [{call: c1, skipped: true, type: json}]}}]", 1),
			7, "turns[1].model[0].expect.results[0].skipped", "leave out type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("scenarios/x.yaml", []byte(tc.yaml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *scenario.Error\n%s", err, tc.yaml)
			}
			if e.File != "scenarios/x.yaml" || e.Line != tc.line || e.Field != tc.field || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %s (line %d field %q)\nwant line %d field %q msg containing %q", err, e.Line, e.Field, tc.line, tc.field, tc.msg)
			}
		})
	}
}

func mustCompile(t *testing.T, src string) string {
	t.Helper()
	f, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text, err := Compile(f)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestAssertionsNameTheirChecks: every assertion of the compiled feature
// is labelled with the check it resolves to, except the steps fixed to a
// check; an answer without an asserted request gets one, charged to REQ-01,
// which joins the tags.
func TestAssertionsNameTheirChecks(t *testing.T) {
	text := mustCompile(t, `title: x
checks: [PRE-01, PRE-02, REQ-02]
tools: [{name: del, approval: always}]
turns:
  - model: [{toolCalls: [{id: c1, tool: del}, {id: c2, tool: del}]}]
    say: delete
  - model: [{text: Done.}]
    answers: [{call: c1, approve: true}, {call: c2, approve: false}]
    expect:
      check: PRE-01
      finishReason: stop
      runs: {c1: 1, c2: 0}
      checks: {runs.c2: PRE-02}
      uniqueApprovalIds: true
`)
	for _, want := range []string{
		"@REQ-01 @REQ-02 @PRE-01 @PRE-02\n",
		`Then [REQ-01] approvals are requested for "c1" and "c2"`,
		`Then [PRE-01] the turn ends with finish reason "stop"`,
		`And [PRE-01] "c1" has run 1 time`,
		`And [PRE-02] "c2" has not run`,
		"And every approval id in the conversation is unique\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the compiled feature lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "@should") {
		t.Errorf("a scenario with MUST checks is tagged @should:\n%s", text)
	}
}

// TestResultAspectsResolveToTheirChecks: an expected denial result's
// presence goes to the item's check, its type to DEN-01, its reason to
// DEN-02; the skipped text is PART-02's, word for word.
func TestResultAspectsResolveToTheirChecks(t *testing.T) {
	text := mustCompile(t, `title: x
checks: [PRE-02, DEN-01, DEN-02, PART-02, REQ-01]
denialPolicy: abort-remaining
tools: [{name: del, approval: always}]
turns:
  - model: [{toolCalls: [{id: c1, tool: del}, {id: c2, tool: del}]}]
    say: delete
    expect: {approvals: [c1, c2]}
  - model:
      - text: Done.
        expect:
          results:
            - {call: c1, type: execution-denied, reason: no, check: PRE-02}
            - {call: c2, skipped: true}
    answers: [{call: c1, approve: false, reason: no}, {call: c2, approve: true}]
    expect: {runs: {c1: 0}, check: PRE-02}
`)
	docs := strings.Split(text, "      \"\"\"\n")
	if len(docs) < 5 {
		t.Fatalf("want two scripted replies:\n%s", text)
	}
	var turn simulator.Turn
	if err := json.Unmarshal([]byte(docs[3]), &turn); err != nil || turn.Expect == nil {
		t.Fatalf("%v\n%s", err, docs[3])
	}
	r := turn.Expect.Results
	if len(r) != 2 {
		t.Fatalf("results %+v", r)
	}
	if r[0].Check != "PRE-02" || r[0].TypeCheck != "DEN-01" || r[0].ReasonCheck != "DEN-02" {
		t.Errorf("the denial's checks are %q/%q/%q, want PRE-02/DEN-01/DEN-02", r[0].Check, r[0].TypeCheck, r[0].ReasonCheck)
	}
	if r[1].Check != "PART-02" || r[1].TypeCheck != "PART-02" || r[1].Type != "error-text" || r[1].Text == nil || *r[1].Text != skippedText {
		t.Errorf("the skipped result expects %+v", r[1])
	}
	if got := strings.Join(turn.Expect.Checks(), ","); got != "DEN-01,DEN-02,PART-02,PRE-02" {
		t.Errorf("the reply's expectations blame %s", got)
	}
}

// TestShouldTagIsDerived: a scenario whose checks are all SHOULD is tagged
// @should, for --tags ~@should.
func TestShouldTagIsDerived(t *testing.T) {
	text := mustCompile(t, `title: x
checks: [REQ-05]
tools: [{name: pay, approval: fails}]
turns:
  - model: [{toolCalls: [{id: p, tool: pay}]}]
    say: pay
    expect: {asksOrFails: p, runs: {pay: 0}}
`)
	if !strings.HasPrefix(text, "@yaml @agent @should\n") {
		t.Errorf("not tagged @should:\n%s", text)
	}
}

// TestProviderAnswerNeedsTheProvidersRequest: answering a provider's
// approval presumes the turn carried the provider's request; the compiler
// asserts it, charged to PROV-01.
func TestProviderAnswerNeedsTheProvidersRequest(t *testing.T) {
	text := mustCompile(t, `title: x
checks: [PROV-01]
provider: openai-responses
tools: [{name: s, provider: true}]
turns:
  - model: [{toolCalls: [{id: m, tool: s, approvalId: a1}]}]
    say: search
  - model:
      - text: Found.
        expect: {providerApprovals: [{approvalId: a1, approved: true}]}
    providerAnswer: {approvalId: a1, approve: true}
    expect: {runs: {s: 0}}
`)
	for _, want := range []string{
		"  @PROV-01\n",
		`Then [PROV-01] the turn carries the provider's approval request "a1" for "m"`,
		`Then [PROV-01] "s" has not run`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the compiled feature lacks %q:\n%s", want, text)
		}
	}
}
