package main

import (
	"strings"
	"testing"
)

func TestReplayCommand(t *testing.T) {
	journal := lintData + "journal/broken-late-resolution.jsonl"
	id := "pre_resolution.feature: an approved call runs before the model is called, and the prompt holds its result (generate)"
	code, out, errOut := runCLI("replay", journal, "--mutant", "late-resolution", "--conversation", id)
	if code != exitOK || !strings.Contains(out, "identical: 2 model call(s) as recorded") {
		t.Fatalf("against its mutant: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI("replay", journal, "--conversation", id)
	for _, want := range []string{
		`turn 1: say "delete /a": 1 model call(s), finish tool-calls`,
		"turn 2: approve call_1: 1 model call(s), finish stop",
		"first divergence at model call 2 (turn 2): the prompt differs in length: 2 item(s) recorded, 3 replayed",
		"recorded: #2 assistant tool call call_1 deleteFile {\"path\":\"/a\"} | (the prompt ends after 2 item(s))",
		"replayed: #2 assistant tool call call_1 deleteFile {\"path\":\"/a\"} | #3 tool result for call_1",
		"note: call call_1 (deleteFile) has no result when model call 2 is made",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Errorf("against the reference: exit %d, want %d", code, exitFail)
	}
	code, _, errOut = runCLI("replay", journal, "--conversation", "nope")
	if code != exitHarness || !strings.Contains(errOut, `no conversation "nope"`) {
		t.Fatalf("unknown conversation: exit %d %s", code, errOut)
	}
	code, _, errOut = runCLI("replay", journal, "--reference", "--mutant", "late-resolution")
	if code != exitHarness || !strings.Contains(errOut, "give one of") {
		t.Fatalf("two targets: exit %d %s", code, errOut)
	}
}
