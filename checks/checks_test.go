package checks

import (
	"regexp"
	"strings"
	"testing"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	groups := map[string]bool{}
	for _, g := range Groups {
		groups[g.Prefix] = true
	}
	for _, c := range All() {
		if seen[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		seen[c.ID] = true
		if !IDPattern.MatchString(c.ID) {
			t.Errorf("%s does not match the id pattern", c.ID)
		}
		if !groups[c.Group] || c.ID[:len(c.Group)] != c.Group {
			t.Errorf("%s is in group %q", c.ID, c.Group)
		}
		if c.Level.Rank() == 0 || c.Rule == "" || c.Source == "" || (c.Role != Agent && c.Role != Client) {
			t.Errorf("%s is incomplete: %+v", c.ID, c)
		}
	}
	for id := range texts {
		if !seen[id] {
			t.Errorf("texts holds %s, which is not in the catalogue", id)
		}
	}
	if len(seen) != 44 {
		t.Errorf("the catalogue has %d checks; the brief lists 42, and edited approvals add EDIT-01 and EDIT-02", len(seen))
	}
}

func TestIDsAndLevels(t *testing.T) {
	got := IDs([]string{"@PRE-02", "should", "@REQ-01", "PRE-02", "@NOPE-01"})
	if len(got) != 2 || got[0] != "REQ-01" || got[1] != "PRE-02" {
		t.Errorf("IDs = %v", got)
	}
	for s, want := range map[string]Level{"must": Must, " SHOULD ": Should, "May": May} {
		if l, err := ParseLevel(s); err != nil || l != want {
			t.Errorf("ParseLevel(%q) = %v, %v", s, l, err)
		}
	}
	if _, err := ParseLevel("often"); err == nil {
		t.Error("ParseLevel accepted nonsense")
	}
}

// outside matches references to material that is not in the repository
// (the documents the project started from): the catalogue must stand alone.
var outside = regexp.MustCompile(`(?i)\bseed \d|\bDESIGN\b|sdk-integration|anchors|research/|§|\bmission\b`)

// Every check has its normative text, its rationale and its origin; the
// text speaks in the check's own level (a SHOULD check never says MUST, a
// MUST check says MUST), and nothing cites material users do not have.
func TestEveryCheckHasItsTexts(t *testing.T) {
	for _, c := range All() {
		for field, v := range map[string]string{"text": c.Text, "rationale": c.Rationale, "origin": c.Origin, "rule": c.Rule, "source": c.Source} {
			if len(strings.TrimSpace(v)) < 20 && field != "source" {
				t.Errorf("%s has no %s worth the name: %q", c.ID, field, v)
			}
			if m := outside.FindString(v); m != "" {
				t.Errorf("%s: its %s cites %q, which is not in the repository", c.ID, field, m)
			}
			if strings.Contains(v, "\n\n\n") || strings.HasSuffix(v, "\n") || strings.HasPrefix(v, " ") {
				t.Errorf("%s: its %s has stray blank lines or spaces", c.ID, field)
			}
		}
		switch c.Level {
		case Must:
			if !strings.Contains(c.Text, "MUST") {
				t.Errorf("%s is a MUST check whose text says MUST nowhere", c.ID)
			}
		case Should:
			if strings.Contains(c.Text, "MUST") || !strings.Contains(c.Text, "SHOULD") {
				t.Errorf("%s is a SHOULD check: its text must say SHOULD and never MUST", c.ID)
			}
		}
	}
	if c, ok := Lookup("PRE-01"); !ok || c.Text == "" {
		t.Errorf("Lookup(PRE-01) has no text: %+v", c)
	}
}

// Every MUST check names its harm; every harm a check names is one of the
// list; every decision belongs to a check.
func TestHarms(t *testing.T) {
	for _, c := range All() {
		if c.Level == Must && len(c.Harm) == 0 {
			t.Errorf("%s is MUST but names no harm", c.ID)
		}
		for _, h := range c.Harm {
			if _, err := ParseHarm(string(h)); err != nil {
				t.Errorf("%s: %v", c.ID, err)
			}
		}
	}
	for id := range harms {
		if _, ok := Lookup(id); !ok {
			t.Errorf("harms holds %s, which is not in the catalogue", id)
		}
	}
	for id := range decisions {
		if _, ok := Lookup(id); !ok {
			t.Errorf("decisions holds %s, which is not in the catalogue", id)
		}
	}
	if !RanAgainstAnswer.Safety() || !Forged.Safety() || !Crashed.Safety() || Lost.Safety() || Refused.Safety() {
		t.Error("the safety harms are ran-against-answer, forged and crashed")
	}
}
