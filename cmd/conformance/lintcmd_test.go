package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lintData = "../../lint/testdata/"

func TestLintExitCodes(t *testing.T) {
	clean := lintData + "openai-chat/clean-approved.json"
	broken := lintData + "openai-chat/broken-dangling-after-denial.json"
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\"messages\":[\n{\"role\":\"user\",\n\"content\":}]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI("lint", clean)
	if code != exitOK || !strings.Contains(out, "clean-approved.json: clean") {
		t.Fatalf("clean: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("lint", clean, broken)
	if code != exitFail || !strings.Contains(out, "messages[2]: WIRE-01 MUST dangling") || !strings.Contains(out, "did not have response messages: call_B") {
		t.Fatalf("broken: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("lint", broken, bad)
	if code != exitHarness || !strings.Contains(out, "bad.json:3:11: cannot read: not valid JSON") {
		t.Fatalf("unreadable: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI("lint")
	if code != exitHarness || !strings.Contains(errOut, "give one or more files") {
		t.Fatalf("no file: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runCLI("lint", "--input-format", "yaml", clean)
	if code != exitHarness || !strings.Contains(errOut, `unknown input format "yaml"`) {
		t.Fatalf("bad format: exit %d\n%s", code, errOut)
	}
}

// TestLintJSON: flags may follow the files; the JSON names each finding.
func TestLintJSON(t *testing.T) {
	code, out, errOut := runCLI("lint", lintData+"ui-messages/broken-denied-stuck-responded.json", "--format", "json", "--provider", "anthropic-messages")
	if code != exitFail {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep struct {
		Findings int
		Files    []struct {
			Format   string
			Findings []struct {
				Check, Kind, Path string
				Also              []string
				Line              int
				Provider          struct{ Profile, Message string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	f := rep.Files[0].Findings[0]
	if rep.Findings != 1 || rep.Files[0].Format != "ui-messages" || f.Check != "PRE-02" || f.Kind != "unresolved-approval" || f.Path != "messages[1]" || f.Line == 0 ||
		f.Provider.Profile != "anthropic-messages" || !strings.Contains(f.Provider.Message, "`tool_use` ids were found without `tool_result` blocks immediately after: call-B") {
		t.Fatalf("report %+v", rep)
	}
}

// TestLintRuntime: --runtime picks the conversion of UI messages; the
// default is the reference's, and an unknown runtime is a usage error.
func TestLintRuntime(t *testing.T) {
	file := lintData + "ui-messages/runtime-answer-then-user-message.json"
	code, out, _ := runCLI("lint", file)
	if code != exitOK || !strings.Contains(out, "messages[1].parts[1]: fl (bookFlight) approval-responded -> resolved (reference)") ||
		!strings.Contains(out, "vercel-ai@6.0.326: refused") {
		t.Fatalf("reference: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("lint", "--runtime", "vercel-ai@7.0.173", file)
	if code != exitFail || !strings.Contains(out, "PRE-10 (also PRE-01) MUST sdk-refusal") || !strings.Contains(out, "MissingToolResultsError: Tool result is missing for tool call fl.") {
		t.Fatalf("vercel-ai@7.0.173: exit %d\n%s", code, out)
	}
	code, _, errOut := runCLI("lint", "--runtime", "vercel-ai@5.0.0", file)
	if code != exitHarness || !strings.Contains(errOut, "no conversion on record") {
		t.Fatalf("unknown runtime: exit %d\n%s", code, errOut)
	}
}
