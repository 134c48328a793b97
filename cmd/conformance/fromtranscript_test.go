package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromTranscriptCommand: the scenario written from the late-resolution
// mutant's journal is accepted by scenario check, fails on that mutant and
// passes on the reference; a clean transcript gives no scenario.
func TestFromTranscriptCommand(t *testing.T) {
	dir := t.TempDir()
	journal := lintData + "journal/broken-late-resolution.jsonl"
	id := "pre_resolution.feature: an approved call runs before the model is called, and the prompt holds its result (generate)"
	code, out, errOut := runCLI("scenario", "from-transcript", journal, "--conversation", id, "--id", "late-resolution-repro", "--out", dir)
	path := filepath.Join(dir, "late-resolution-repro.yaml")
	if code != exitOK || !strings.Contains(out, path+": written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id: late-resolution-repro", "checks: [REQ-01, PRE-01, WIRE-01]", "tags: [regression]", "say: delete /a", "approve: [call_1]", "results: [{call: call_1}]",
		"#     openai-chat answered HTTP 400: An assistant message with 'tool_calls' must be followed by tool messages"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the scenario lacks %q:\n%s", want, data)
		}
	}
	if code, out, errOut := runCLI("scenario", "check", path); code != exitOK || !strings.Contains(out, "ok (late-resolution-repro)") {
		t.Fatalf("scenario check: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI("run", "--mutant", "late-resolution", "--scenarios", dir, "--tags", "@regression"); code != exitFail || !strings.Contains(out, "FAIL") {
		t.Fatalf("on the mutant: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI("run", "--reference", "--scenarios", dir, "--tags", "@regression"); code != exitOK {
		t.Fatalf("on the reference: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI("scenario", "from-transcript", lintData+"openai-chat/clean-approved.json")
	if code != exitFail || !strings.Contains(errOut, "nothing for a regression scenario to assert") {
		t.Fatalf("clean transcript: exit %d %s", code, errOut)
	}
	code, out, _ = runCLI("scenario", "from-transcript", lintData+"anthropic-messages/broken-dangling-after-denial.json")
	if code != exitOK || !strings.HasPrefix(out, "# Regression scenario written by conformance scenario from-transcript from broken-dangling-after-denial.json") || !strings.Contains(out, "errorOrDenial: {call: toolu_01WQfwh7MJKmV9YfsFiJ4zxx, code: MissingToolResults}") {
		t.Fatalf("to stdout: exit %d\n%s", code, out)
	}
}

// --out as the docs show it: a folder that does not exist yet is created
// and the scenario is <id>.yaml in it; a .yaml path is the file itself; a
// file without the extension is refused rather than overwritten.
func TestFromTranscriptOut(t *testing.T) {
	src := lintData + "anthropic-messages/broken-dangling-after-denial.json"
	root := t.TempDir()
	dir := filepath.Join(root, "scenarios", "regressions")
	code, out, errOut := runCLI("scenario", "from-transcript", src, "--id", "dangling", "--out", dir)
	if want := filepath.Join(dir, "dangling.yaml"); code != exitOK || !strings.Contains(out, want+": written") {
		t.Fatalf("a new folder: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(root, "more", "mine.yml")
	if code, out, errOut := runCLI("scenario", "from-transcript", src, "--out", file); code != exitOK || !strings.Contains(out, file+": written") {
		t.Fatalf("a .yml path: exit %d\n%s%s", code, out, errOut)
	}
	plain := filepath.Join(root, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("scenario", "from-transcript", src, "--out", plain); code != exitHarness || !strings.Contains(errOut, "a file without a .yaml extension") {
		t.Fatalf("a plain file: exit %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(plain); string(data) != "x" {
		t.Error("the plain file was overwritten")
	}
}

// A chat client's request gives an agent-side scenario, and from-transcript
// says (on stderr and in the scenario) that it cannot capture a bug of the
// client that sent it, and why.
func TestFromTranscriptOfAClientRequestSaysWhatItCannotShow(t *testing.T) {
	for _, f := range []string{"ui-messages/broken-pending-then-new-message.json", "ag-ui/broken-pending-then-new-message.json"} {
		code, out, errOut := runCLI("scenario", "from-transcript", lintData+f)
		if code != exitOK || !strings.Contains(errOut, "It cannot capture a bug of the client that sent it") || !strings.Contains(errOut, "the transcript holds the request the client sent") ||
			!strings.Contains(out, "\n# it. It cannot capture a bug of the client that sent it") {
			t.Errorf("%s: exit %d\n%s\n%s", f, code, errOut, out)
		}
	}
	if _, _, errOut := runCLI("scenario", "from-transcript", lintData+"anthropic-messages/broken-dangling-after-denial.json"); strings.Contains(errOut, "chat client") {
		t.Errorf("a model request is not a client's: %s", errOut)
	}
}

// A recorded conversation with a user message longer than 64 KiB gives a
// scenario that scenario check accepts and run runs (a long line is not
// bad input): neither panics.
func TestFromTranscriptLongMessage(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(lintData + "anthropic-messages/broken-dangling-after-denial.json")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("tell me more ", 10_000) + "please"
	src := filepath.Join(dir, "long.json")
	if err := os.WriteFile(src, []byte(strings.Replace(string(data), `"delete /a"`, `"delete /a `+long+`"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scenarios")
	if code, stdout, errOut := runCLI("scenario", "from-transcript", src, "--id", "long", "--out", out); code != exitOK {
		t.Fatalf("from-transcript: exit %d\n%s%s", code, stdout, errOut)
	}
	path := filepath.Join(out, "long.yaml")
	if code, stdout, errOut := runCLI("scenario", "check", path); code != exitOK || !strings.Contains(stdout, "ok (long)") {
		t.Fatalf("scenario check: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := runCLI("scenario", "show", path); code != exitOK || !strings.Contains(stdout, long) {
		t.Fatalf("scenario show: exit %d\n%.3000s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := runCLI("run", "--reference", "--scenarios", out, "--tags", "@regression"); code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, errOut)
	}
}

// The user's text after a denial, in the same request, stays in the
// regression scenario (replay sends it too), and the written scenario
// says how to run it, target and all.
func TestFromTranscriptKeepsFollowUpText(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(lintData + "canonical/broken-approved-never-run.json")
	if err != nil {
		t.Fatal(err)
	}
	denied := strings.Replace(string(data), `"approved": true`, `"approved": false, "reason": "not that one"`, 1)
	if denied == string(data) {
		t.Fatal("the transcript has no approval to turn into a denial")
	}
	src := filepath.Join(dir, "denied.json")
	if err := os.WriteFile(src, []byte(denied), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scenarios")
	code, stdout, errOut := runCLI("scenario", "from-transcript", src, "--id", "denied-then", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "conformance run --target URL --scenarios "+out) || !strings.Contains(stdout, "conformance run --reference --scenarios "+out) {
		t.Fatalf("from-transcript: exit %d\n%s%s", code, stdout, errOut)
	}
	path := filepath.Join(out, "denied-then.yaml")
	yaml, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(yaml), "deny: [call_1]") || !strings.Contains(string(yaml), "then: did it work?") {
		t.Fatalf("the user's text after the denial is lost:\n%s", yaml)
	}
	if code, stdout, errOut := runCLI("scenario", "show", path); code != exitOK || !strings.Contains(stdout, `the user answers and adds "did it work?":`) {
		t.Fatalf("scenario show: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, stdout, errOut := runCLI("run", "--reference", "--scenarios", out, "--tags", "@regression"); code != exitOK {
		t.Fatalf("on the reference: exit %d\n%s%s", code, stdout, errOut)
	}
}

// A transcript that cannot be read is placed the same way by lint,
// from-transcript and replay: file, line and column.
func TestUnreadableTranscriptIsPlacedAlike(t *testing.T) {
	data, err := os.ReadFile(lintData + "canonical/broken-denied-no-result.json")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "cut.json")
	if err := os.WriteFile(src, data[:195], 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runCLI("lint", src)
	i := strings.Index(out+errOut, src+":")
	if i < 0 {
		t.Fatalf("lint does not place the error:\n%s%s", out, errOut)
	}
	place := strings.SplitN((out + errOut)[i:], ": ", 2)[0] // file:line:col
	if strings.Count(place, ":") != 2 {
		t.Fatalf("lint places it at %q, want file:line:column", place)
	}
	for _, args := range [][]string{{"scenario", "from-transcript", src}, {"replay", src, "--reference"}} {
		code, out, errOut := runCLI(args...)
		if code != exitHarness || !strings.Contains(errOut, place+": cannot read: ") || strings.Contains(errOut, "byte ") {
			t.Errorf("%v: exit %d, want 2 and the error at %s\n%s%s", args, code, place, out, errOut)
		}
	}
}
