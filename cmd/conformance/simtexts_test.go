package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/wire"
)

// sim texts lists every provider text with its date and age, marks those
// older than --max-age, and fails on them only with --fail.
func TestSimTexts(t *testing.T) {
	texts := wire.ProviderTexts()
	code, out, errOut := runCLI("sim", "texts", "--today", "2027-01-01", "--max-age", "300d")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	older := 0
	for _, p := range texts {
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, p.ID+" ") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, p.Seen) {
			t.Errorf("%s is not listed with its date:\n%s", p.ID, out)
		}
		if p.Seen < "2026-03-07" { // more than 300 days before 2027-01-01
			older++
			if !strings.Contains(line, "older than 300d") {
				t.Errorf("%s (%s) is not marked older than 300d: %q", p.ID, p.Seen, line)
			}
		} else if strings.Contains(line, "older than") {
			t.Errorf("%s (%s) is marked old: %q", p.ID, p.Seen, line)
		}
	}
	if older == 0 {
		t.Fatal("the test's date marks no text old: move it")
	}
	if code, _, _ := runCLI("sim", "texts", "--today", "2027-01-01", "--max-age", "300d", "--fail"); code != exitFail {
		t.Errorf("--fail with %d old texts: exit %d, want 1", older, code)
	}
	if code, _, _ := runCLI("sim", "texts", "--today", "2026-01-01", "--max-age", "3650d", "--fail"); code != exitOK {
		t.Errorf("--fail with no old text: exit %d, want 0", code)
	}
	code, out, _ = runCLI("sim", "texts", "--today", "2027-01-01", "--max-age", "300d", "--format", "json")
	var doc struct {
		Texts []struct {
			ID    string `json:"id"`
			Text  string `json:"text"`
			Older bool   `json:"olderThanMaxAge"`
		} `json:"texts"`
		Older int `json:"older"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitOK || len(doc.Texts) != len(texts) || doc.Older != older {
		t.Errorf("json: exit %d, %v, %d texts, %d older:\n%s", code, err, len(doc.Texts), doc.Older, out)
	}
	for _, bad := range [][]string{{"--max-age", "soon"}, {"--today", "tomorrow"}, {"--format", "xml"}, {"extra"}} {
		if code, _, _ := runCLI(append([]string{"sim", "texts"}, bad...)...); code != exitHarness {
			t.Errorf("sim texts %v: exit %d, want 2", bad, code)
		}
	}
}
