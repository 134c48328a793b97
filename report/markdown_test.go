package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
)

func TestMarkdownHeadline(t *testing.T) {
	incomplete := passingRun(false)
	incomplete.Scenarios = append(incomplete.Scenarios, Scenario{ID: "b.feature: hangs", Checks: []string{"REQ-03"}, Verdict: Timeout, Message: "no answer"})
	incomplete.Aggregate(checks.Must)
	for name, c := range map[string]struct {
		r    *Run
		want string
	}{
		"pass":            {passingRun(false), "**Result: ✅ PASS**: every MUST check passes (2 of 2 checks pass)."},
		"pass with warns": {passingRun(true), "**Result: ✅ PASS**: every MUST check passes (1 of 2 checks pass); 1 warning: PRE-12."},
		"fail":            {synthRun(), "**Result: ❌ FAIL**: 2 MUST checks failed: PRE-02, WIRE-01; 2 scenarios errored or timed out; 1 warning."},
		"incomplete":      {incomplete, "**Result: ⏸️ INCOMPLETE**: no MUST check failed, but 1 scenario errored or timed out; MUST checks left unproven: REQ-03."},
	} {
		md := string(render(t, c.r, FormatMarkdown))
		if !strings.Contains(md, c.want) {
			t.Errorf("%s: the report lacks %q:\n%s", name, c.want, md)
		}
	}
}

func TestMarkdownReport(t *testing.T) {
	md := string(render(t, synthRun(), FormatMarkdown))
	for _, want := range []string{
		"# Approval conformance: evil \\<target\\> \\& co\n",
		"| Started | 2026-11-22T14:05:01Z |",
		"| features.denialPolicy | independent |",
		"| Check | Level | Verdict | Scenarios | Rule |",
		"| PRE-02 | MUST | ❌ fail | 0/1 (1 fail) | Denied calls are not executed; the prompt, like the messages the turn returns, holds exactly one denial result for each. |",
		"| PART-02 | MUST | ➖ not-applicable | 0/0 (1 n/a) |",
		"## Scenarios that did not pass (4)",
		"### ⚠️ WARN: b.feature: warns",
		"- **Checks:** PRE-02 (fail), WIRE-01 (fail)",
		"- **Failed step:** the turn added an \"execution-denied\" result for \"call_1\" \\<script\\>",
		"  - 1 scripted turn(s) left unconsumed",
		"<details><summary>Evidence</summary>",
		"    assistant  tool-call call_1 deleteFile {\"path\":\"/a\"}",
		"    tool       approval-response ap_1 approved=false reason \"no\"",
		"    !          WIRE-01 dangling call_1: tool_call_ids did not have response messages: call_1",
		"  turn 2: deleteFile call_1 {\"path\":\"/a\"}",
		"<details><summary>Not applicable to this target (1)</summary>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Passing scenarios are not detailed; markup from the run is escaped
	// outside code blocks.
	if strings.Contains(md, "a.feature: passes") && strings.Contains(md, "### ✅") {
		t.Error("a passing scenario is detailed")
	}
	outside := md
	for {
		i := strings.Index(outside, "````")
		if i < 0 {
			break
		}
		j := strings.Index(outside[i+4:], "````")
		if j < 0 {
			t.Fatal("an evidence block is not closed")
		}
		outside = outside[:i] + outside[i+4+j+4:]
	}
	if strings.ContainsAny(md, "\x00\x1b\x7f") || !strings.Contains(md, "\uFFFD") {
		t.Error("control characters reach the Markdown")
	}
	if strings.Contains(outside, "<script>") {
		t.Error("markup from the run reaches the Markdown unescaped")
	}
}

func TestMarkdownFenceCannotBeClosedByTheEvidence(t *testing.T) {
	// The evidence holds ``` (in the hostile prompt text): the fence must be
	// longer.
	md := string(render(t, synthRun(), FormatMarkdown))
	if !strings.Contains(md, "````text\n") {
		t.Errorf("the evidence fence is not longer than the backticks inside:\n%s", md)
	}
	if got := codeFence("a ``` b ````` c"); got != "``````" {
		t.Errorf("codeFence = %q", got)
	}
	if got := codeFence("plain"); got != "```" {
		t.Errorf("codeFence = %q", got)
	}
}

func TestMarkdownIsBounded(t *testing.T) {
	// The real failing run: every failing scenario is named, details for
	// the first ones, and the whole fits a pull-request comment.
	r := fixture(t, "late-resolution")
	md := string(render(t, r, FormatMarkdown))
	if len(md) > 65536 {
		t.Errorf("report.md is %d bytes", len(md))
	}
	// Every failing scenario is named, or counted in the closing
	// "… and N more" line once the page is full.
	named, bad := 0, 0
	for _, s := range r.Scenarios {
		if !notPassed(s) {
			continue
		}
		bad++
		if strings.Contains(md, mdText(s.ID)) {
			named++
		}
	}
	more := 0
	if m := regexp.MustCompile(`- … and (\d+) more`).FindStringSubmatch(md); m != nil {
		more, _ = strconv.Atoi(m[1])
	}
	if named+more != bad {
		t.Errorf("report.md names %d and counts %d more of %d scenarios that did not pass", named, more, bad)
	}
	if !strings.Contains(md, "without details (see report.html)") {
		t.Error("no note that some scenarios are not detailed")
	}
	// A huge run: 2,000 failing scenarios with long messages and evidence.
	big := &Run{Target: "big", Started: time.Now()}
	for i := range 2000 {
		big.Scenarios = append(big.Scenarios, Scenario{
			ID: fmt.Sprintf("big.feature: scenario %04d", i), Checks: []string{"WIRE-01"}, Verdict: Fail,
			Message: strings.Repeat("long message ", 500), Problems: []Problem{{Detail: strings.Repeat("x", 5000)}},
			Evidence: &Evidence{ModelCalls: r.Scenarios[0].Evidence.ModelCalls, ToolRuns: []any{strings.Repeat("y", 10000)}},
		})
	}
	big.Aggregate(checks.Must)
	md = string(render(t, big, FormatMarkdown))
	if len(md) > 70000 {
		t.Errorf("report.md of a huge run is %d bytes", len(md))
	}
	if !strings.Contains(md, "- … and ") {
		t.Error("no note that scenarios were left out")
	}
}

func TestMdText(t *testing.T) {
	for in, want := range map[string]string{
		"call_1 and tool_call_id":  "call_1 and tool_call_id",
		"_em_ *b* `c` [l](u) <h>":  "\\_em\\_ \\*b\\* \\`c\\` \\[l\\](u) \\<h\\>",
		"a | b\nc &amp; d ~~s~~":   "a \\| b c \\&amp; d \\~\\~s\\~\\~",
		"back\\slash":              "back\\\\slash",
		"  spaces\t\tand\nlines  ": "spaces and lines",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

// Long evidence keeps its end in report.md: the last model call, the tool
// runs and the turns, where the denial and the run show, with the middle
// left out.
func TestMarkdownKeepsTheEndOfLongEvidence(t *testing.T) {
	var calls []any
	for i := range 60 {
		calls = append(calls, map[string]any{"call": i + 1, "turn": i, "mode": "generate", "verdict": "ok",
			"prompt": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": strings.Repeat("history ", 20)}}}}})
	}
	r := synthRun()
	r.Scenarios[0].Verdict = Fail
	r.Scenarios[0].Evidence = &Evidence{
		ModelCalls: calls,
		ToolRuns:   []any{map[string]any{"tool": "deleteFile", "toolCallId": "call_denied", "input": map[string]any{"path": "/etc"}, "turn": 2}},
		Turns:      []any{map[string]any{"turn": 2, "response": map[string]any{"finishReason": "stop", "messages": []any{}}}},
	}
	md := string(render(t, r, FormatMarkdown))
	start := strings.Index(md, "### ")
	section := md[start:]
	if end := strings.Index(section[4:], "\n### "); end > 0 {
		section = section[:end+4]
	}
	for _, want := range []string{"Model calls (60):", "deleteFile call_denied", "Tool runs (1):", "Turns (1):", "finish stop", "line(s) left out; the whole evidence is in report.json"} {
		if !strings.Contains(section, want) {
			t.Errorf("the evidence lacks %q:\n%s", want, section)
		}
	}
	if !strings.Contains(section, "#60 generate") {
		t.Errorf("the last model call is not shown:\n%s", section)
	}
}
