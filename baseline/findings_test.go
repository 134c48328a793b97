package baseline

import (
	"slices"
	"testing"

	"github.com/approval-conformance-kit/ack/report"
)

// Across the baselines of a line, a cell one release charges to E1 alone
// and another to E1 and B1 is shared: B1 is judged by its own cells.
func TestSignaturesAcrossALine(t *testing.T) {
	beta, err := Parse("beta.yaml", []byte(`expectedFailures:
  - {scenario: "a.feature: one", check: PRE-01, reason: "E1/B1: results at the end"}
  - {scenario: "a.feature: two", check: PRE-02, reason: "B1: results not returned"}
`))
	if err != nil {
		t.Fatal(err)
	}
	stable, err := Parse("stable.yaml", []byte(`expectedFailures:
  - {scenario: "a.feature: one", check: PRE-01, reason: "E1/E2: results at the end"}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Signature{}
	for _, s := range Signatures(beta, stable) {
		got[s.Finding] = s
	}
	if s := got["B1"]; len(s.Entries) != 1 || s.Entries[0].Scenario != "a.feature: two" || s.Shared != 1 {
		t.Errorf("B1: %+v", s)
	}
	if s := got["E1"]; len(s.Entries) != 1 || s.Entries[0].Scenario != "a.feature: one" {
		t.Errorf("E1: %+v", s)
	}
	if len(got) != 3 {
		t.Errorf("findings %v, want B1, E1, E2", got)
	}
}

func TestEntryFindings(t *testing.T) {
	for reason, want := range map[string][]string{
		"SDK defect D2 (FINDINGS.md): answers in two messages":    {"D2"},
		"E1/B1: results appended at the end":                      {"E1", "B1"},
		"B1 with E4: the turn returned no result":                 {"B1", "E4"},
		"A2 (and A7: the call is named fc_r1): the free call":     {"A2", "A7"},
		"M2 and M4 (FINDINGS.md): E9 is named after the colon":    {"M2", "M4"},
		"configuration (FINDINGS.md): the docs advise the secret": nil,
		"no label at all, D5 without a colon":                     nil,
		"PRE-01: a check id is not a finding id":                  nil,
		"D1 and D1 again: cited once":                             {"D1"},
	} {
		if got := (Entry{Reason: reason}).Findings(); !slices.Equal(got, want) {
			t.Errorf("%q cites %v, want %v", reason, got, want)
		}
	}
}

func TestSignatures(t *testing.T) {
	f, err := Parse("base.yaml", []byte(`expectedFailures:
  - scenario: "a.feature: one (stream)"
    check: PRE-08
    reason: "D1: stream mode is broken"
  - scenario: "b.feature: three"
    check: WIRE-04
    reason: "D2/D1: replays run again"
  - scenario: "c.feature: *"
    reason: "D3: the target hangs there"
  - scenario: "z.feature: gone"
    reason: "D4: filtered out"
  - scenario: "a.feature: two"
    reason: "D5: fixed since"
  - scenario: "a.feature: one (stream)"
    check: PRE-01
    reason: "the kit's: no finding"
`))
	if err != nil {
		t.Fatal(err)
	}
	sigs := Signatures(f)
	var ids []string
	for _, s := range sigs {
		ids = append(ids, s.Finding)
	}
	if want := []string{"D1", "D2", "D3", "D4", "D5"}; !slices.Equal(ids, want) {
		t.Fatalf("findings %v, want %v", ids, want)
	}
	// D1 is judged by its own cell; D2, which has none, by the one it
	// shares with D1.
	if len(sigs[0].Entries) != 1 || sigs[0].Shared != 1 || sigs[0].Entries[0].Check != "PRE-08" {
		t.Errorf("D1's signature: %+v, want its own cell only, one shared left out", sigs[0])
	}
	if len(sigs[1].Entries) != 1 || sigs[1].Shared != 0 || sigs[1].Entries[0].Check != "WIRE-04" {
		t.Errorf("D2's signature: %+v, want the cell it shares", sigs[1])
	}
	r := run()
	for i, want := range []Presence{Shown, Shown, Unknown, Unknown, Absent} {
		got := sigs[i].In(r)
		if got.Presence != want {
			t.Errorf("%s: %s in the run, want %s (cells %+v)", sigs[i].Finding, got.Presence, want, got.Cells)
		}
	}
	// A timeout is no evidence either way; a pass beside it is.
	if got := sigs[2].In(r); len(got.Cells) != 1 || got.Run != 0 {
		t.Errorf("D3: cells %+v, run %d", got.Cells, got.Run)
	}
	// A signature whose cells all pass in a run no longer holds there; one
	// of them warning is enough for it to hold.
	fixed := run()
	fixed.Scenarios[0].CheckVerdicts["PRE-08"] = report.Pass
	if got := sigs[0].In(fixed); got.Presence != Absent || got.Run != 1 {
		t.Errorf("D1 once fixed: %+v", got)
	}
	if got := sigs[1].In(fixed); got.Presence != Shown {
		t.Errorf("D2, whose cell still warns: %+v", got)
	}
	fixed.Scenarios[0].CheckVerdicts["PRE-08"] = report.Warn
	if got := sigs[0].In(fixed); got.Presence != Shown {
		t.Errorf("D1 with a warning: %+v", got)
	}
	if got := sigs[0].In(nil); got.Presence != Unknown {
		t.Errorf("D1 in no run: %+v", got)
	}
}
