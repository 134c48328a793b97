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
		{"turns: []", "s.yaml: turns: the script has no turn"},
		{"turns:\n  - reply: {txt: x}", `s.yaml: unknown field "txt"`},
		{"turns:\n  - reply: {text: x, latency: soon}", "turns[0].reply.latency: not a duration"},
		{"provider: bard\nturns:\n  - reply: {text: x}", "unknown provider profile"},
		{"turns: [", "s.yaml: yaml:"},
	} {
		if _, err := ParseScript("s.yaml", []byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}
