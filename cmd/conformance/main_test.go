package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/checks"
)

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunReferencePasses(t *testing.T) {
	code, out, errOut := runCLI("run", "--reference")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"REQ-01", "SEC-02", "Result: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestRunMutantFails(t *testing.T) {
	code, out, _ := runCLI("run", "--mutant", "lost-results-on-partial-denial", "--tags", "@PART-01")
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s", code, exitFail, out)
	}
	if !hasRow(out, "PART-01", "MUST", "fail") || !strings.Contains(out, "Result: FAIL") {
		t.Errorf("summary:\n%s", out)
	}
}

func TestRunShouldFailureWarnsButPasses(t *testing.T) {
	code, out, _ := runCLI("run", "--mutant", "keeps-approval-parts", "--tags", "@PRE-12")
	if code != exitOK || !hasRow(out, "PRE-12", "SHOULD", "warn") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// hasRow reports whether a line of the summary starts with these fields.
func hasRow(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= len(fields) && strings.Join(f[:len(fields)], " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, {"frobnicate"}, {"run"}, {"run", "--bogus"}, {"run", "--reference", "--level", "sometimes"},
		{"run", "--mutant", "no-such-mutant"}, {"run", "--reference", "--tags", "@NOPE-99"}, {"checks", "--format", "pdf"},
		{"run", "--reference", "extra"}, {"run", "--reference", "--denial-policy", "random"},
	} {
		if code, _, _ := runCLI(args...); code != exitHarness {
			t.Errorf("%v: exit %d, want %d", args, code, exitHarness)
		}
	}
}

func TestChecksFormats(t *testing.T) {
	code, out, _ := runCLI("checks", "--format", "json")
	if code != exitOK {
		t.Fatal(code)
	}
	var got []checks.Check
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != len(checks.All()) {
		t.Fatalf("json: %v, %d checks", err, len(got))
	}
	_, text, _ := runCLI("checks")
	if !strings.Contains(text, "Pre-resolution (PRE)") || !strings.Contains(text, "PRE-01  MUST") {
		t.Errorf("text:\n%s", text)
	}
}

// TestDocsCatalogueIsCurrent keeps docs/checks.md in step with the code.
func TestDocsCatalogueIsCurrent(t *testing.T) {
	_, md, _ := runCLI("checks", "--format", "md")
	committed, err := os.ReadFile("../../docs/checks.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != md {
		t.Error("docs/checks.md is out of date: run make docs")
	}
}

func TestMutantsList(t *testing.T) {
	code, out, _ := runCLI("mutants")
	if code != exitOK || !strings.Contains(out, "late-resolution") || !strings.Contains(out, "PRE-01,WIRE-01") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
