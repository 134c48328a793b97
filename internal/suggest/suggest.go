// Package suggest finds, among the names a command knows, the one a
// misspelled name most likely meant: the "did you mean" of an error.
package suggest

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Nearest returns the known name closest to name, by edit distance
// (insertions, deletions, substitutions and swaps of two neighbours, case
// ignored), when it is close enough to be a misspelling of it: at most a
// third of name's length away, and at least one edit for a short name. A
// name whose numbers are a known name's, written with other leading zeros
// ("PRE-1" for "PRE-01"), is that name. ok is false when no known name is
// that close, or name is known itself. Of names equally close, the first
// in sorted order is returned (Hint names up to three).
func Nearest(name string, known []string) (best string, ok bool) {
	all := nearest(name, known)
	if len(all) == 0 {
		return "", false
	}
	return all[0], true
}

// nearest returns the known names closest to name, sorted.
func nearest(name string, known []string) []string {
	limit := max(1, utf8.RuneCountInString(name)/3)
	bestD := limit + 1
	lower := strings.ToLower(name)
	key := numbersValued(lower)
	var best []string
	for _, k := range known {
		if k == name {
			return nil
		}
		kl := strings.ToLower(k)
		d := distance(lower, kl, bestD+1)
		if numbersValued(kl) == key {
			d = 0
		}
		switch {
		case d < bestD:
			best, bestD = []string{k}, d
		case d == bestD && d <= limit && !slices.Contains(best, k):
			best = append(best, k)
		}
	}
	if bestD > limit {
		return nil
	}
	slices.Sort(best)
	return best
}

// numbersValued writes every run of digits of s without its leading zeros.
func numbersValued(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		run := strings.TrimLeft(s[i:j], "0")
		if run == "" {
			run = "0"
		}
		b.WriteString(run)
		i = j
	}
	return b.String()
}

// Hint is Nearest as a clause for an error: ` (did you mean "X"?)`, with
// up to three names equally close (` (did you mean "X" or "Y"?)`), or ""
// when no known name is close.
func Hint(name string, known []string) string {
	all := nearest(name, known)
	if len(all) == 0 {
		return ""
	}
	all = all[:min(len(all), 3)]
	quoted := make([]string, len(all))
	for i, a := range all {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	list := quoted[0]
	if n := len(quoted); n > 1 {
		list = strings.Join(quoted[:n-1], ", ") + " or " + quoted[n-1]
	}
	return " (did you mean " + list + "?)"
}

// distance is the optimal string alignment distance between a and b, or
// any value of at least bound when it is bound or more (the rows stop
// early).
func distance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= bound || -d >= bound {
		return bound
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin >= bound {
			return bound
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
