package main

import (
	"strconv"
	"strings"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/internal/semver"
)

// The bisection of a line: which release to certify next for a finding,
// and the spans of releases that show it.

// nextProbe is the release bisection certifies next for one finding: the
// middle of the untried candidates between the first two consecutive
// releases (among those that showed or did not show it) that disagree;
// "" when every change lies between adjacent candidates.
func nextProbe(candidates []string, tried map[string]baseline.Presence) string {
	var ran []int
	for i, v := range candidates {
		if p := tried[v]; p == baseline.Shown || p == baseline.Absent {
			ran = append(ran, i)
		}
	}
	for k := 0; k+1 < len(ran); k++ {
		a, b := ran[k], ran[k+1]
		if tried[candidates[a]] == tried[candidates[b]] {
			continue
		}
		var between []string
		for _, v := range candidates[a+1 : b] {
			if _, done := tried[v]; !done {
				between = append(between, v)
			}
		}
		if len(between) > 0 {
			return between[len(between)/2]
		}
	}
	return ""
}

// spans reads a finding's spans from its presence in the releases run,
// oldest first; candidates tell whether each boundary is exact.
func spans(order []string, presence map[string]baseline.Presence, candidates []string) []Span {
	var ran []string
	for _, v := range order {
		if p := presence[v]; p == baseline.Shown || p == baseline.Absent {
			ran = append(ran, v)
		}
	}
	untriedBetween := func(a, b string) bool {
		for _, c := range candidates {
			if semver.Compare(c, a) > 0 && semver.Compare(c, b) < 0 {
				if _, tried := presence[c]; !tried {
					return true
				}
			}
		}
		return false
	}
	var out []Span
	for i := 0; i < len(ran); i++ {
		if presence[ran[i]] != baseline.Shown {
			continue
		}
		s := Span{First: ran[i], Last: ran[i]}
		if i > 0 {
			s.Before = ran[i-1]
			s.ExactStart = !untriedBetween(s.Before, s.First)
		} else {
			s.ExactStart = len(candidates) > 0 && candidates[0] == s.First
		}
		for i+1 < len(ran) && presence[ran[i+1]] == baseline.Shown {
			i++
			s.Last = ran[i]
		}
		if i+1 < len(ran) {
			s.FixedIn = ran[i+1]
			s.ExactEnd = !untriedBetween(s.Last, s.FixedIn)
		}
		out = append(out, s)
	}
	return out
}

// compareFindingIDs orders finding ids by their letters, then their
// number (D2 before D10).
func compareFindingIDs(a, b string) int {
	split := func(id string) (string, int) {
		i := strings.IndexAny(id, "0123456789")
		if i < 0 {
			return id, 0
		}
		n, _ := strconv.Atoi(id[i:])
		return id[:i], n
	}
	la, na := split(a)
	lb, nb := split(b)
	if c := strings.Compare(la, lb); c != 0 {
		return c
	}
	return na - nb
}
