package suggest

import "testing"

func TestNearest(t *testing.T) {
	checks := []string{"PRE-01", "PRE-02", "PRE-10", "REQ-01", "WIRE-01", "DEN-02"}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{
		{"PRE-1", "PRE-01", true}, // a number with other leading zeros, though PRE-10 is as few edits away
		{"pre-001", "PRE-01", true},
		{"pre-01", "PRE-01", true},
		{"PER-01", "PRE-01", true}, // two letters swapped
		{"WIRE-1", "WIRE-01", true},
		{"PRE-01", "", false}, // known: nothing to suggest
		{"XYZ-99", "", false}, // nothing close
		{"", "", false},
	} {
		got, ok := Nearest(c.name, checks)
		if got != c.want || ok != c.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	ids := []string{"pre_resolution.feature: a denied call does not run (stream)", "pre_resolution.feature: a denied call does not run (generate)"}
	if got, ok := Nearest("pre_resolution.feature: a denied call does not run (steam)", ids); !ok || got != ids[0] {
		t.Errorf("a scenario id with a typo: %q, %v", got, ok)
	}
	if h := Hint("PRE-1", checks); h != ` (did you mean "PRE-01"?)` {
		t.Errorf("Hint: %q", h)
	}
	if h := Hint("PRE-0", checks); h != ` (did you mean "PRE-01", "PRE-02" or "PRE-10"?)` {
		t.Errorf("Hint of names equally close: %q", h)
	}
	if h := Hint("nothing like it", checks); h != "" {
		t.Errorf("Hint of a name nothing is close to: %q", h)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abc", "abc", 0}, {"éa", "ae", 2}} {
		if got := distance(c.a, c.b, 100); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
	if got := distance("aaaaaaaa", "bbbbbbbb", 3); got < 3 {
		t.Errorf("a bounded distance past its bound: %d", got)
	}
}
