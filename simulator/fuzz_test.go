package simulator

import (
	"strings"
	"testing"
)

// FuzzParseScript: any file is a valid script or an error naming the
// file, never a panic; a script that loads makes a simulator.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"provider: anthropic-messages\nturns:\n  - reply:\n      text: hello\n      latency: 150ms\n      toolCalls:\n        - {id: c1, name: deleteFile, input: {path: /a}}\n  - expect:\n      results: [{toolCallId: c1, type: json}]\n    reply: {text: done}\n",
		`{"turns":[{"reply":{"text":"x","chunkSize":2}}]}`,
		"turns:\n  - reply: {error: {status: 500, message: boom}}\n",
		"turns:\n  - optional: true\n    reply: {text: x}\n", "turns: [", "", "turns: &a [*a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript("s.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "s.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if _, err := New(s); err != nil {
			t.Fatalf("a script that loads does not make a simulator: %v", err)
		}
	})
}
