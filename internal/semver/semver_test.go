package semver

import (
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	vs := []string{"4.1.0", "4.0.0", "4.0.0-rc.110", "4.0.0-beta.107", "4.0.0-beta.5", "4.0.0-beta.10", "4.0.6", "4.1.5", "4.0.0-beta.107.1", "4.0.0-alpha", "v4.0.10"}
	Sort(vs)
	want := []string{"4.0.0-alpha", "4.0.0-beta.5", "4.0.0-beta.10", "4.0.0-beta.107", "4.0.0-beta.107.1", "4.0.0-rc.110", "4.0.0", "4.0.6", "v4.0.10", "4.1.0", "4.1.5"}
	if !slices.Equal(vs, want) {
		t.Errorf("sorted %v\nwant       %v", vs, want)
	}
	if Compare("not-a-version", "0.0.1") >= 0 {
		t.Error("a text that is no version sorts after one")
	}
	if Compare("7.0.185", "7.0.19") <= 0 {
		t.Error("7.0.185 is not after 7.0.19: numbers compare as text")
	}
}

func TestLine(t *testing.T) {
	for v, want := range map[string]string{"7.0.173": "7", "v1.12.0": "1", "0.33.2": "0.33", "4.0.0-beta.107": "4", "v2.4.0": "2", "7": ""} {
		if got := LineOf(v); got != want {
			t.Errorf("LineOf(%q) = %q, want %q", v, got, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "7.0", "7.0.x", "07.0.1", "7.0.1-", "-1.0.0", "a.b.c"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) took it", s)
		}
	}
	v, err := Parse("v1.7.0+build.3")
	if err != nil || v.Major() != 1 || v.Minor() != 7 || v.Patch() != 0 || v.Prerelease() || v.String() != "v1.7.0+build.3" {
		t.Errorf("Parse(v1.7.0+build.3) = %+v, %v", v, err)
	}
}
