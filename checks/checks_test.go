package checks

import "testing"

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
	if len(seen) != 42 {
		t.Errorf("the catalogue has %d checks; the brief lists 42", len(seen))
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
