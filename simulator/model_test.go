package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/wire"
)

func call(id, name string) ToolCall {
	return ToolCall{ID: id, Name: name, Input: json.RawMessage(`{"path":"/a"}`)}
}

func prompt(msgs ...model.Message) *llm.Request { return &llm.Request{Messages: msgs} }

func assistantCalls(ids ...string) model.Message {
	m := model.Message{Role: model.RoleAssistant}
	for _, id := range ids {
		m.Content = append(m.Content, model.ToolCall(id, "deleteFile", json.RawMessage(`{}`)))
	}
	return m
}

func toolResult(id string, out *model.ToolOutput) model.Message {
	return model.Message{Role: model.RoleTool, Content: []model.Part{model.ToolResult(id, "deleteFile", out)}}
}

func mustNew(t *testing.T, s Script, opts ...Option) *Model {
	t.Helper()
	m, err := New(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRepliesInOrderAndExactlyOnce(t *testing.T) {
	ctx := context.Background()
	m := mustNew(t, Script{Turns: []Turn{
		{Reply: Reply{ToolCalls: []ToolCall{call("call_1", "deleteFile")}}},
		{Reply: Reply{Text: "done"}},
	}})
	r1, err := m.Generate(ctx, prompt(model.UserText("delete /a")))
	if err != nil {
		t.Fatal(err)
	}
	if r1.FinishReason != llm.FinishToolCalls || len(r1.Content) != 1 || r1.Content[0].ToolCallID != "call_1" {
		t.Fatalf("first reply %+v", r1)
	}
	if got := m.Remaining(); got != 1 {
		t.Errorf("remaining after one call = %d, want 1", got)
	}
	if p := m.Problems(); len(p) != 1 || !strings.Contains(p[0].Detail, "1 scripted turn(s) left unconsumed") {
		t.Errorf("unconsumed turn not reported: %v", p)
	}
	r2, err := m.Generate(ctx, prompt(model.UserText("delete /a"), assistantCalls("call_1"), toolResult("call_1", model.TextOutput("ok"))))
	if err != nil {
		t.Fatal(err)
	}
	if r2.FinishReason != llm.FinishStop || r2.Content[0].Text != "done" {
		t.Fatalf("second reply %+v", r2)
	}
	if p := m.Problems(); len(p) != 0 {
		t.Errorf("problems after a complete script: %v", p)
	}
	_, err = m.Generate(ctx, prompt(model.UserText("more")))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Type != ErrTypeExhausted || apiErr.Status != 400 {
		t.Fatalf("call past the end: got %v", err)
	}
	if p := m.Problems(); len(p) != 1 || p[0].Call != 3 {
		t.Errorf("extra call not reported: %v", p)
	}
	j := m.Journal()
	if len(j) != 3 || j[0].Verdict != VerdictOK || j[2].Verdict != VerdictExhausted || j[1].Turn != 1 || j[2].Turn != -1 {
		t.Errorf("journal %+v", j)
	}
}

func TestDanglingCallIsRejectedWithProviderBody(t *testing.T) {
	cases := []struct {
		profile wire.Profile
		body    string
	}{
		{wire.OpenAIChat, `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1","type":"invalid_request_error","param":"messages","code":null}}`},
		{wire.OpenAIResponses, `{"error":{"message":"No tool output found for function call call_1.","type":"invalid_request_error","param":"input","code":null}}`},
		{wire.AnthropicMessages, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\"},\"request_id\":\"req_sim_1\"}"},
	}
	for _, tc := range cases {
		t.Run(string(tc.profile), func(t *testing.T) {
			m := mustNew(t, Script{Provider: tc.profile, Turns: []Turn{{Reply: Reply{Text: "never"}}}})
			_, err := m.Generate(context.Background(), prompt(model.UserText("x"), assistantCalls("call_1")))
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("got %v, want an API error", err)
			}
			if apiErr.Status != 400 || string(apiErr.Body) != tc.body || apiErr.Check != "WIRE-01" {
				t.Errorf("got %d %s (check %s)\nwant 400 %s", apiErr.Status, apiErr.Body, apiErr.Check, tc.body)
			}
			if m.Remaining() != 1 {
				t.Error("a rejected call consumed a turn")
			}
			j := m.Journal()
			if len(j) != 1 || j[0].Verdict != VerdictViolation || j[0].ErrorBody != tc.body || len(j[0].Violations) != 1 {
				t.Errorf("journal %+v", j)
			}
			var wireProblem bool
			for _, p := range m.Problems() {
				if p.Check == "WIRE-01" && p.Call == 1 {
					wireProblem = true
				}
			}
			if !wireProblem {
				t.Errorf("problems do not name WIRE-01: %v", m.Problems())
			}
		})
	}
}

func TestOrphanAndMisplacedResults(t *testing.T) {
	m := mustNew(t, Script{Turns: []Turn{{Reply: Reply{Text: "x"}}}})
	_, err := m.Generate(context.Background(), prompt(model.UserText("x"), toolResult("ghost", model.TextOutput("?"))))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || !strings.Contains(string(apiErr.Body), "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'") {
		t.Fatalf("orphan: got %v", err)
	}
	m = mustNew(t, Script{Turns: []Turn{{Reply: Reply{Text: "x"}}}})
	_, err = m.Generate(context.Background(), prompt(model.UserText("x"), assistantCalls("c1"), model.UserText("hurry"), toolResult("c1", model.TextOutput("ok"))))
	if !errors.As(err, &apiErr) || apiErr.Check != "WIRE-02" {
		t.Fatalf("misplaced: got %v", err)
	}
}

func TestExpectations(t *testing.T) {
	denied := "too risky"
	skipped := "Error: Tool execution was skipped due to previous tool denial."
	two := 2
	script := func() Script {
		return Script{Turns: []Turn{{
			Expect: &Expect{
				Results: []ResultExpect{
					{ToolCallID: "c1", Type: "execution-denied", Reason: &denied},
					{ToolCallID: "c2", Text: &skipped, Check: "PART-02"},
				},
				NoApprovalParts: true,
				Messages:        &two,
				Contains:        []string{"too risky"},
				NotContains:     []string{"secret"},
				Check:           "PRE-02",
			},
			Reply: Reply{Text: "ok"},
		}}}
	}
	req := prompt(
		model.UserText("x"),
		assistantCalls("c1", "c2"),
		model.Message{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a1", true, "secret")}},
		model.Message{Role: model.RoleTool, Content: []model.Part{
			model.ToolResult("c1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`))),
			model.ToolResult("c2", "deleteFile", model.ErrorTextOutput("Error: Tool execution was skipped due to previous tool denial")),
		}},
	)
	want := map[string]string{
		"expected the result for c1 to be of type execution-denied, got json":                                         "PRE-02",
		"expected no approval parts, found tool-approval-response a1 at messages[2].content[0]":                       "PRE-02",
		"expected 2 messages in the prompt, got 4":                                                                    "PRE-02",
		`expected the prompt to contain "too risky"`:                                                                  "PRE-02",
		`expected the prompt not to contain "secret"`:                                                                 "PRE-02",
		`expected the result for c2 to read exactly "Error: Tool execution was skipped due to previous tool denial."`: "PART-02",
	}
	checkProblems := func(t *testing.T, problems []Problem) {
		t.Helper()
		for text, check := range want {
			found := false
			for _, p := range problems {
				if strings.Contains(p.Detail, text) {
					found = true
					if p.Check != check {
						t.Errorf("%q blames %q, want %q", text, p.Check, check)
					}
				}
			}
			if !found {
				t.Errorf("missing failure %q in %v", text, problems)
			}
		}
	}

	t.Run("recorded, and the reply is sent", func(t *testing.T) {
		m := mustNew(t, script())
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("an unmet expectation must not fail the call: %v", err)
		}
		if len(resp.Content) != 1 || resp.Content[0].Text != "ok" {
			t.Errorf("reply %+v, want the scripted text", resp.Content)
		}
		checkProblems(t, m.Problems())
		if j := m.Journal(); len(j) != 1 || len(j[0].Failures) != len(want) {
			t.Errorf("journal %+v: want one entry with %d failures", j, len(want))
		}
	})
	t.Run("rejected with RejectUnmet", func(t *testing.T) {
		m, err := New(script(), RejectUnmet())
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Generate(context.Background(), req)
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) || apiErr.Type != ErrTypeExpectation || apiErr.Check != "PRE-02" {
			t.Fatalf("got %v", err)
		}
		checkProblems(t, m.Problems())
	})
}

// TestResultAspectsChargedToTheirChecks: a result's presence, type and
// denial reason are each charged to their own check; a missing result is
// charged to its presence check only, and its type and reason are blocked
// (not evaluated), never passed or failed.
func TestResultAspectsChargedToTheirChecks(t *testing.T) {
	reason := "not today"
	expect := func() *Expect {
		return &Expect{Results: []ResultExpect{
			{ToolCallID: "c1", Type: "execution-denied", Reason: &reason, Check: "PRE-02", TypeCheck: "DEN-01", ReasonCheck: "DEN-02"},
			{ToolCallID: "c2", Type: "execution-denied", Reason: &reason, Check: "PRE-02", TypeCheck: "DEN-01", ReasonCheck: "DEN-02"},
		}}
	}
	if got, want := strings.Join(expect().Checks(), ","), "DEN-01,DEN-02,PRE-02"; got != want {
		t.Errorf("Checks() = %s, want %s", got, want)
	}
	run := func(t *testing.T, results ...model.Part) Entry {
		t.Helper()
		m := mustNew(t, Script{Turns: []Turn{{Expect: expect(), Reply: Reply{Text: "ok"}}}})
		msgs := []model.Message{model.UserText("x"), assistantCalls("c1", "c2")}
		if len(results) > 0 {
			msgs = append(msgs, model.Message{Role: model.RoleTool, Content: results})
		}
		m.Generate(context.Background(), prompt(msgs...)) // a violation is fine: the journal tells
		return m.Journal()[0]
	}
	checksOf := func(ps []Problem) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Check)
		}
		return strings.Join(out, ",")
	}
	t.Run("wrong type and reason", func(t *testing.T) {
		e := run(t,
			model.ToolResult("c1", "deleteFile", model.JSONOutput(json.RawMessage(`{}`))),
			model.ToolResult("c2", "deleteFile", model.DeniedOutput("other")))
		if got := checksOf(e.Failures); got != "DEN-01,DEN-02" {
			t.Errorf("failures charged to %s, want DEN-01 (c1's type), DEN-02 (c2's reason): %v", got, e.Failures)
		}
		if got := checksOf(e.Blocked); got != "DEN-02" {
			t.Errorf("blocked %s, want DEN-02 (the reason of c1, which is no denial): %v", got, e.Blocked)
		}
	})
	t.Run("missing results", func(t *testing.T) {
		m := mustNew(t, Script{Turns: []Turn{{Expect: expect(), Reply: Reply{Text: "ok"}}}})
		if _, err := m.Generate(context.Background(), prompt(model.UserText("x"))); err != nil {
			t.Fatal(err)
		}
		e := m.Journal()[0]
		if got := checksOf(e.Failures); got != "PRE-02,PRE-02" {
			t.Errorf("failures charged to %s, want PRE-02 twice: %v", got, e.Failures)
		}
		if got := checksOf(e.Blocked); got != "DEN-01,DEN-02,DEN-01,DEN-02" {
			t.Errorf("blocked %s, want the type and reason of both: %v", got, e.Blocked)
		}
		for _, p := range m.Problems() {
			if p.Check == "DEN-01" || p.Check == "DEN-02" {
				t.Errorf("a blocked expectation is a problem: %v", p)
			}
		}
	})
}

// TestValueOfAnUntypedResult: a result of no expected type holds a JSON
// value when its text is that JSON (an SDK whose tool outputs are strings);
// a result of an expected type must hold the value as that type.
func TestValueOfAnUntypedResult(t *testing.T) {
	c := resultCheck{present: "PRE-03", typ: "PRE-03", reason: "DEN-02"}
	value := json.RawMessage(`{"deleted":"by hand"}`)
	untyped := ResultExpect{ToolCallID: "del", Value: value}
	if f, _ := checkResult(c, untyped, model.TextOutput(`{"deleted": "by hand"}`)); len(f) != 0 {
		t.Errorf("the text is the value, yet %v", f)
	}
	if f, _ := checkResult(c, untyped, model.TextOutput(`{"deleted":"by machine"}`)); len(f) != 1 || f[0].Check != "PRE-03" {
		t.Errorf("a text of another value gives %v, want one PRE-03 failure", f)
	}
	if f, _ := checkResult(c, untyped, model.TextOutput(`deleted by hand`)); len(f) != 1 {
		t.Errorf("a text that is no JSON gives %v, want one failure", f)
	}
	typed := ResultExpect{ToolCallID: "del", Type: string(model.OutputJSON), Value: value}
	if f, _ := checkResult(c, typed, model.TextOutput(`{"deleted":"by hand"}`)); len(f) != 2 {
		t.Errorf("a json result expected, a text given: %v, want the type and the value failed", f)
	}
}

// TestReasonInText: for untyped results, a denial's reason is read from
// the result's text, whatever its type.
func TestReasonInText(t *testing.T) {
	reason := "keep b"
	c := resultCheck{present: "PRE-02", typ: "DEN-01", reason: "DEN-02"}
	want := ResultExpect{ToolCallID: "b", Reason: &reason, ReasonInText: true}
	if f, _ := checkResult(c, want, model.TextOutput("Tool call denied: keep b")); len(f) != 0 {
		t.Errorf("the reason is in the text, yet %v", f)
	}
	f, _ := checkResult(c, want, model.TextOutput("Tool call denied."))
	if len(f) != 1 || f[0].Check != "DEN-02" {
		t.Errorf("a text without the reason gives %v, want one DEN-02 failure", f)
	}
}

func TestExpectationsMet(t *testing.T) {
	m := mustNew(t, Script{Turns: []Turn{{
		Expect: &Expect{
			Results:           []ResultExpect{{ToolCallID: "c1", Type: "json", Value: json.RawMessage(`{"deleted": true}`)}},
			ProviderApprovals: []ProviderApprovalExpect{{ApprovalID: "mcpr_1", Approved: true}},
			LastRole:          "tool",
			Tools:             []string{"b", "a"},
		},
		Reply: Reply{Text: "ok"},
	}}})
	req := prompt(model.UserText("x"), assistantCalls("c1"),
		model.Message{Role: model.RoleTool, Content: []model.Part{
			model.ToolResult("c1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`))),
			{Type: model.PartToolApprovalResponse, ApprovalID: "mcpr_1", Approved: true, ProviderExecuted: true},
		}})
	req.Tools = []llm.ToolDef{{Name: "a"}, {Name: "b"}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if p := m.Problems(); len(p) != 0 {
		t.Errorf("problems: %v", p)
	}
}

func TestStreamEventsAndGate(t *testing.T) {
	gate := make(chan struct{})
	m := mustNew(t, Script{Turns: []Turn{{Reply: Reply{
		Text:      "héllo wörld",
		ChunkSize: 3,
		ToolCalls: []ToolCall{call("c1", "deleteFile"), {ID: "mcp_1", Name: "mcp.search", ProviderExecuted: true, ApprovalID: "mcpr_1"}},
		Gate:      gate,
	}}}})
	got := make(chan llm.StreamEvent, 64)
	done := make(chan error, 1)
	go func() {
		done <- m.Stream(context.Background(), prompt(model.UserText("x")), func(ev llm.StreamEvent) error {
			got <- ev
			return nil
		})
	}()
	var text strings.Builder
	var sawCall, sawApproval bool
	for ev := range got {
		if ev.Type == llm.StreamFinish {
			t.Fatal("finish arrived before the gate opened")
		}
		switch {
		case ev.Type == llm.StreamTextDelta:
			text.WriteString(ev.Text)
			if len(ev.Text) > 3 && ev.Text != "ö" {
				// a chunk may exceed the size only to keep a rune whole
				t.Errorf("chunk %q longer than 3 bytes", ev.Text)
			}
		case ev.Type == llm.StreamPart && ev.Part.Type == model.PartToolCall && ev.Part.ToolCallID == "c1":
			sawCall = true
		case ev.Type == llm.StreamPart && ev.Part.Type == model.PartToolApprovalRequest:
			sawApproval = ev.Part.ApprovalID == "mcpr_1" && ev.Part.ToolCallID == "mcp_1"
		}
		if sawApproval {
			break
		}
	}
	if text.String() != "héllo wörld" || !sawCall || !sawApproval {
		t.Fatalf("text %q call %v approval %v", text.String(), sawCall, sawApproval)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	last := <-got
	if last.Type != llm.StreamFinish || last.FinishReason != llm.FinishToolCalls {
		t.Errorf("last event %+v", last)
	}
}

func TestCollectAssemblesStream(t *testing.T) {
	m := mustNew(t, Script{Turns: []Turn{{Reply: Reply{Text: "abcdef", ChunkSize: 2, ToolCalls: []ToolCall{call("c1", "t")}}}}})
	resp, err := llm.Collect(context.Background(), m, prompt(model.UserText("x")))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 2 || resp.Content[0].Text != "abcdef" || resp.Content[1].ToolCallID != "c1" || resp.FinishReason != llm.FinishToolCalls {
		t.Errorf("collected %+v", resp)
	}
}

func TestScriptedErrorAndObserver(t *testing.T) {
	var mu sync.Mutex
	var seen []int
	m := mustNew(t, Script{Turns: []Turn{{Reply: Reply{Error: &ErrorReply{Status: 429, Type: "rate_limit_error", Message: "slow down"}}}}},
		WithObserver(func(c int) { mu.Lock(); seen = append(seen, c); mu.Unlock() }))
	_, err := m.Generate(context.Background(), prompt(model.UserText("x")))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || !strings.Contains(string(apiErr.Body), `"rate_limit_error"`) {
		t.Fatalf("got %v", err)
	}
	if len(seen) != 1 || seen[0] != 1 {
		t.Errorf("observer saw %v", seen)
	}
	if p := m.Problems(); len(p) != 0 {
		t.Errorf("a scripted error is not a problem, got %v", p)
	}
}

func TestCanceledCall(t *testing.T) {
	gate := make(chan struct{})
	m := mustNew(t, Script{Turns: []Turn{{Reply: Reply{Text: "x", Gate: gate}}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, prompt(model.UserText("x"))); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestScriptValidation(t *testing.T) {
	bad := []Script{
		{Provider: "gemini"},
		{Turns: []Turn{{Reply: Reply{ToolCalls: []ToolCall{{Name: "t"}}}}}},
		{Turns: []Turn{{Reply: Reply{ToolCalls: []ToolCall{{ID: "a", Name: "t"}, {ID: "a", Name: "t"}}}}}},
		{Turns: []Turn{{Reply: Reply{ToolCalls: []ToolCall{{ID: "a", Name: "t", Input: json.RawMessage(`{`)}}}}}},
		{Turns: []Turn{{Reply: Reply{Error: &ErrorReply{Status: 200}}}}},
		{Turns: []Turn{{Reply: Reply{ToolCalls: []ToolCall{{ID: "a", Name: "t", ApprovalID: "x"}}}}}},
	}
	for i, s := range bad {
		if _, err := New(s); err == nil {
			t.Errorf("script %d accepted", i)
		}
	}
}

func TestChunksKeepRunesWhole(t *testing.T) {
	for _, s := range []string{"", "abc", "日本語テキスト", "a😀b😀c"} {
		for n := 0; n < 6; n++ {
			if got := strings.Join(chunks(s, n), ""); got != s {
				t.Errorf("chunks(%q, %d) joined = %q", s, n, got)
			}
			for _, c := range chunks(s, n) {
				if !utf8ValidString(c) {
					t.Errorf("chunks(%q, %d) split a rune: %q", s, n, c)
				}
			}
		}
	}
}

func utf8ValidString(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// A conversation's cost is bounded: calls past the limit, or whose bodies
// would overflow the journal, are refused, not journaled, and a problem.
func TestLimits(t *testing.T) {
	script := Script{Turns: []Turn{{Reply: Reply{Text: "a"}}, {Reply: Reply{Text: "b"}}}}
	m, err := New(script, WithLimits(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := &llm.Request{Messages: []model.Message{model.UserText("hi")}}
	for i := range 5 {
		_, err := m.Generate(ctx, req)
		var apiErr *llm.APIError
		switch {
		case i < 2 && err != nil:
			t.Fatalf("call %d: %v", i+1, err)
		case i >= 2 && (!errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Type != ErrTypeLimit || !strings.Contains(apiErr.Message, "--max-calls")):
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	if len(m.Journal()) != 2 || m.Refused() != 3 || m.Calls() != 2 {
		t.Errorf("journal %d, refused %d, calls %d", len(m.Journal()), m.Refused(), m.Calls())
	}
	if p := m.Problems(); len(p) != 1 || !strings.Contains(p[0].Detail, "limit of 2 model calls") {
		t.Errorf("problems %v", p)
	}

	m, _ = New(script)
	m.Limit(0, 100)
	big := json.RawMessage(`"` + strings.Repeat("x", 60) + `"`)
	for i, want := range []int{0, 413} {
		_, err := m.Handle(ctx, Call{Mode: "generate", Request: req, Wire: big})
		var apiErr *llm.APIError
		if (want == 0) != (err == nil) || (want != 0 && (!errors.As(err, &apiErr) || apiErr.Status != want || !strings.Contains(apiErr.Message, "--max-journal-bytes"))) {
			t.Errorf("call %d: %v", i+1, err)
		}
	}
	if len(m.Journal()) != 1 {
		t.Errorf("journal %d entries", len(m.Journal()))
	}
}
