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
	for _, c := range got {
		if c.Text == "" || c.Rationale == "" || c.Origin == "" {
			t.Errorf("json: %s lacks its texts", c.ID)
		}
	}
	_, text, _ := runCLI("checks")
	if !strings.Contains(text, "Pre-resolution (PRE)") || !strings.Contains(text, "PRE-01  MUST") {
		t.Errorf("text:\n%s", text)
	}
	_, brief, _ := runCLI("checks", "--brief")
	_, md, _ := runCLI("checks", "--format", "md")
	for _, c := range checks.All() {
		// The text output holds every check's texts, word for word once
		// unwrapped.
		if flat := strings.Join(strings.Fields(text), " "); !strings.Contains(flat, strings.Join(strings.Fields(c.Text), " ")) ||
			!strings.Contains(flat, strings.Join(strings.Fields(c.Rationale), " ")) || !strings.Contains(flat, strings.Join(strings.Fields(c.Origin), " ")) {
			t.Errorf("text: %s's texts are not all there", c.ID)
		}
		if !strings.Contains(brief, c.ID+"  "+string(c.Level)) || strings.Contains(brief, c.Text) {
			t.Errorf("brief: want %s's one line only", c.ID)
		}
		if !strings.Contains(md, "#### "+c.ID+"\n") || !strings.Contains(md, "**Normative text.** "+c.Text) || !strings.Contains(md, "**Why it matters.** "+c.Rationale) {
			t.Errorf("md: %s has no full section", c.ID)
		}
	}
	for _, want := range []string{"How verdicts work", "--level should", "WIRE-03", "CHAIN-05", "blocked", "not applicable", "generate row"} {
		if !strings.Contains(md, want) {
			t.Errorf("md: the introduction does not say %q", want)
		}
	}
	_, one, _ := runCLI("checks", "--format", "md", "pre-11", "@REQ-04")
	if !strings.Contains(one, "#### PRE-11") || !strings.Contains(one, "#### REQ-04") || strings.Contains(one, "#### PRE-01\n") || strings.Contains(one, "How verdicts work") {
		t.Errorf("md for two checks:\n%s", one)
	}
	if code, _, _ := runCLI("checks", "NOPE-01"); code != exitHarness {
		t.Errorf("an unknown check id: exit %d, want %d", code, exitHarness)
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

// TestDocsMutantsIsCurrent keeps docs/mutants.md in step with the mutants.
func TestDocsMutantsIsCurrent(t *testing.T) {
	_, md, _ := runCLI("mutants", "--format", "md")
	committed, err := os.ReadFile("../../docs/mutants.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != md {
		t.Error("docs/mutants.md is out of date: run make docs")
	}
}

func TestMutantsList(t *testing.T) {
	code, out, _ := runCLI("mutants")
	if code != exitOK || !strings.Contains(out, "late-resolution") || !strings.Contains(out, "PRE-01,WIRE-01") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
