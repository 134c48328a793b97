package simulator

import (
	"strings"
	"testing"
	"time"
)

func TestParseScript(t *testing.T) {
	s, err := ParseScript("s.yaml", []byte(`provider: anthropic-messages
turns:
  - reply:
      text: hello
      latency: 150ms
      toolCalls:
        - {id: c1, name: deleteFile, input: {path: /a}}
  - expect:
      results: [{toolCallId: c1, type: json}]
    reply: {text: done}
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "anthropic-messages" || len(s.Turns) != 2 || s.Turns[0].Reply.Latency != 150*time.Millisecond || string(s.Turns[0].Reply.ToolCalls[0].Input) != `{"path":"/a"}` {
		t.Fatalf("script %+v", s)
	}
	for _, c := range []struct{ in, want string }{
		{"turns: []", "s.yaml:1: turns: the script has no turn"},
		{"", "s.yaml: turns: the script has no turn"},
		{"turns:\n  - reply: {txt: x}", `s.yaml:2: turns[0].reply: unknown field "txt" (allowed: text, toolCalls, providerResults, finishReason, usage, error, latency, chunkSize)`},
		{"turns:\n  - reply: {text: x, latency: soon}", "turns[0].reply.latency: not a duration"},
		{"provider: bard\nturns:\n  - reply: {text: x}", "unknown provider profile"},
		{"turns: [", "s.yaml:1: did not find expected node content"},
		{"turns:\n  - reply:\n      toolCalls:\n        - {id: c1, tool: deleteFile}", `s.yaml:4: turns[0].reply.toolCalls[0]: unknown field "tool" (allowed: id, name, input, providerExecuted, approvalId); a script says "name" where a scenario says "tool"`},
		{"turns:\n  - expect:\n      results: [{call: c1}]\n    reply: {text: x}", `s.yaml:3: turns[0].expect.results[0]: unknown field "call" (allowed: toolCallId, type, reason, value, textContains, text, check, typeCheck, reasonCheck, reasonInText); a script says "toolCallId" where a scenario says "call"`},
		{"turns:\n  - reply: {text: x, chunkSize: big}", `s.yaml:2: turns[0].reply.chunkSize: want a whole number, not "big"`},
		{"turns:\n  - reply: {text: [a]}", `s.yaml:2: turns[0].reply.text: want text, not a list`},
		{"turns:\n  - optional: sometimes\n    reply: {text: x}", `s.yaml:2: turns[0].optional: want true or false, not "sometimes"`},
		{"turns:\n  - reply:\n      text: x\n  - reply:\n      toolCalls:\n        - {name: deleteFile}", `s.yaml:6: turns[1].reply.toolCalls[0].id: missing`},
		{"turns: {reply: {text: x}}", `s.yaml:1: turns: want a list, not a mapping`},
		{"model:\n  - text: x", `s.yaml:1: the script: unknown field "model" (allowed: provider, turns)`},
		{"turns:\n  - reply: {text: x}\n---\nturns: []", "s.yaml:3: a script file holds one document"},
	} {
		if _, err := ParseScript("s.yaml", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}
