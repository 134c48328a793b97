package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/approval-conformance-kit/ack/report"
)

// Drift lists where a new run's verdicts differ from a committed report's:
// a check's verdict, a scenario's verdict or one of its check verdicts, a
// scenario only one of them ran. Nothing else is compared (evidence holds
// ids the SDKs draw at random, and timings).
func Drift(committed, fresh *report.Run) []string {
	var out []string
	oldChecks := map[string]report.Verdict{}
	for _, c := range committed.Checks {
		oldChecks[c.ID] = c.Verdict
	}
	newChecks := map[string]report.Verdict{}
	for _, c := range fresh.Checks {
		newChecks[c.ID] = c.Verdict
	}
	for _, id := range union(oldChecks, newChecks) {
		if o, n := oldChecks[id], newChecks[id]; o != n {
			out = append(out, fmt.Sprintf("check %s: %s, was %s", id, show(n), show(o)))
		}
	}
	oldScen := map[string]report.Scenario{}
	for _, s := range committed.Scenarios {
		oldScen[s.ID] = s
	}
	newScen := map[string]report.Scenario{}
	for _, s := range fresh.Scenarios {
		newScen[s.ID] = s
	}
	for _, id := range union(oldScen, newScen) {
		o, inOld := oldScen[id]
		n, inNew := newScen[id]
		switch {
		case !inOld:
			out = append(out, fmt.Sprintf("scenario %q: new (%s)", id, n.Verdict))
			continue
		case !inNew:
			out = append(out, fmt.Sprintf("scenario %q: no longer run (was %s)", id, o.Verdict))
			continue
		}
		if o.Verdict != n.Verdict {
			out = append(out, fmt.Sprintf("scenario %q: %s, was %s", id, n.Verdict, o.Verdict))
		}
		for _, c := range union(o.CheckVerdicts, n.CheckVerdicts) {
			if ov, nv := o.CheckVerdicts[c], n.CheckVerdicts[c]; ov != nv {
				out = append(out, fmt.Sprintf("scenario %q: %s %s, was %s", id, c, show(nv), show(ov)))
			}
		}
	}
	return out
}

func show(v report.Verdict) string {
	if v == "" {
		return "absent"
	}
	return string(v)
}

// union returns the keys of both maps, sorted.
func union[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
