package tagexpr

import (
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tags := []string{"@PRE-01", "@stream", "@agent"}
	for expr, want := range map[string]bool{
		"":                                   true,
		"  ":                                 true,
		"@PRE-01":                            true,
		"@PRE-02":                            false,
		"not @should":                        true,
		"~@should":                           true,
		"not @stream":                        false,
		"@stream and not @should":            true,
		"@stream && ~@should":                true,
		"@REQ-01,@PRE-01":                    true,
		"@REQ-01 or @REQ-02":                 false,
		"@REQ-01 || @agent":                  true,
		"(@PRE-02 or @PRE-01) and @stream":   true,
		"@REQ-01,@PRE-01 && @generate":       false,
		"@REQ-01,@PRE-01 && @stream":         true,
		"not (@stream and @agent)":           false,
		"not not @agent":                     true,
		"@PRE-01 and @stream or @nothing":    true,
		"@nothing or @PRE-01 and @generate":  false,
		"@nothing , @agent and not @should ": true,
	} {
		e, err := Parse(expr)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		if got := e.Match(tags); got != want {
			t.Errorf("%q on %v: %v, want %v", expr, tags, got, want)
		}
	}
}

// Malformed expressions are errors that say where, never panics (godog's
// own filter indexes an empty tag: "@PRE-01 &&" and "," panic in it).
func TestErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"@PRE-01 &&":      `a tag, "not" or "(" must follow "&&" at the end`,
		",":               `unexpected "," (want a tag, "not" or "(") at column 1`,
		"@a,":             `must follow "," at the end`,
		"not":             `must follow "not" at the end`,
		"(@a or @b":       `the "(" at column 1 is not closed at the end`,
		"@a)":             `unexpected ")" (want "and", "or" or the end) at column 3`,
		"@a @b":           `unexpected tag @b`,
		"PRE-01":          `"PRE-01" is not a tag (a tag starts with @, e.g. @PRE-01) at column 1`,
		"@a & @b":         `"&" alone is not an operator (want "&&") at column 4`,
		"@a | @b":         `"|" alone is not an operator`,
		"@":               `"@" without a tag name`,
		"() ":             `unexpected ")"`,
		"@a and or @b":    `unexpected "or"`,
		"~~":              `must follow "~" at the end`,
		"@a,,@b":          `unexpected ","`,
		"@é and (@b))(  ": `unexpected ")"`,
	} {
		_, err := Parse(expr)
		if err == nil {
			t.Errorf("%q parsed", expr)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %q, want it to contain %q", expr, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"@a", "not @a", "@a,@b && ~@c", "(@a or @b) and not (@c)", "@PRE-01 &&", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			return
		}
		e.Match([]string{"@a", "@b"})
	})
}

// Legacy rewrites an expression into godog's syntax with the same meaning,
// checked against every combination of three tags.
func TestLegacyMeansTheSame(t *testing.T) {
	exprs := []string{
		"@a", "not @a", "@a and @b", "@a or @b", "not (@a or @b)", "not (@a and not @b)",
		"(@a or @b) and (@c or not @a)", "@a and @b or @c", "not (@a and @b) or (@c and not @b)", "~@a,@b && @c",
	}
	tagSets := [][]string{{}, {"@a"}, {"@b"}, {"@c"}, {"@a", "@b"}, {"@a", "@c"}, {"@b", "@c"}, {"@a", "@b", "@c"}}
	for _, src := range exprs {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		legacy, ok := e.Legacy()
		if !ok {
			t.Fatalf("%q: no rewriting", src)
		}
		back, err := Parse(legacy)
		if err != nil {
			t.Fatalf("%q rewritten as %q: %v", src, legacy, err)
		}
		for _, tags := range tagSets {
			if e.Match(tags) != back.Match(tags) {
				t.Errorf("%q and its rewriting %q differ on %v", src, legacy, tags)
			}
		}
	}
	big := strings.Repeat("(@a and @b) or ", 20) + "@c"
	if e, _ := Parse(big); e != nil {
		if _, ok := e.Legacy(); ok {
			t.Error("an expression with 2^20 clauses was rewritten")
		}
	}
	if e, _ := Parse(""); e != nil {
		if s, ok := e.Legacy(); !ok || s != "" {
			t.Errorf("the empty expression: %q, %v", s, ok)
		}
	}
}

// Tags lists the tags an expression names, once each, in order.
func TestTagsNamed(t *testing.T) {
	for src, want := range map[string][]string{
		"":                            nil,
		"@PRE-01":                     {"@PRE-01"},
		"not (@a or @b) and @a":       {"@a", "@b"},
		"~@should,@REQ-01 && @REQ-02": {"@should", "@REQ-01", "@REQ-02"},
	} {
		e, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Tags(); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}
