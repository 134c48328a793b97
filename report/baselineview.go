package report

import (
	"fmt"
	"strings"
)

// BaselineResult is what a baseline of expected failures
// (--expected-failures) made of a run: the failures it expected, those it
// did not, and its entries that no longer match a failure. The run's own
// Result stays what the checks say; with a baseline, the exit code is the
// baseline's (0 when it holds), and every report says so.
type BaselineResult struct {
	// File is the baseline's path, as given.
	File string `json:"file"`
	// Held: every failure of the run is expected and no entry is stale or
	// unknown, so the run holds its baseline (exit 0).
	Held bool `json:"held"`
	// Expected are the failures the baseline lists.
	Expected []BaselineHit `json:"expected"`
	// Unexpected are the failures it does not list.
	Unexpected []BaselineHit `json:"unexpected"`
	// Stale are entries whose scenario (or check) passed: they fail the run.
	Stale []BaselineEntry `json:"stale"`
	// Unknown are entries that name no scenario of the suite: they fail
	// the run.
	Unknown []BaselineEntry `json:"unknown"`
	// NotRun are entries left out by --tags or --shard: neither expected
	// nor stale.
	NotRun []BaselineEntry `json:"notRun"`
}

// BaselineHit is a failure (or error, or timeout) of a scenario, on one
// check or on the whole scenario, and the reason its baseline entry gives.
type BaselineHit struct {
	Scenario string  `json:"scenario"`
	Check    string  `json:"check,omitempty"`
	Verdict  Verdict `json:"verdict"`
	Reason   string  `json:"reason,omitempty"`
}

// BaselineEntry is an entry of the baseline file: scenario[:check] at a
// line.
type BaselineEntry struct {
	Entry string `json:"entry"`
	Line  int    `json:"line,omitempty"`
}

func (e BaselineEntry) where(file string) string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d %s", file, e.Line, e.Entry)
	}
	return file + " " + e.Entry
}

func (h BaselineHit) String() string {
	if h.Check != "" {
		return h.Scenario + " [" + h.Check + "]"
	}
	return h.Scenario
}

// baselineText is what the baseline did, in one sentence for the result
// line; "" without a baseline.
func baselineText(b *BaselineResult) string {
	if b == nil {
		return ""
	}
	if b.Held {
		if len(b.Expected) == 0 {
			return fmt.Sprintf("the baseline %s holds (no failure to expect, no stale entry)", b.File)
		}
		return fmt.Sprintf("every failure is expected by the baseline %s (%s held, none stale), so the run holds its baseline", b.File, plural(len(b.Expected), "expected failure", "expected failures"))
	}
	var parts []string
	for _, x := range []struct {
		n         int
		one, many string
	}{{len(b.Unexpected), "unexpected failure", "unexpected failures"}, {len(b.Stale), "stale entry", "stale entries"}, {len(b.Unknown), "unknown entry", "unknown entries"}} {
		if x.n > 0 {
			parts = append(parts, plural(x.n, x.one, x.many))
		}
	}
	return fmt.Sprintf("the baseline %s does not hold: %s (%s expected)", b.File, strings.Join(parts, ", "), plural(len(b.Expected), "failure", "failures"))
}

// baselineLabel is the result's label with the baseline's outcome: FAIL
// becomes "FAIL (EXPECTED)" when the baseline holds, and a run that does
// not hold its baseline says so whatever its own result.
func baselineLabel(label string, res Result, b *BaselineResult) string {
	switch {
	case b == nil:
		return label
	case b.Held && (res == ResultFail || res == ResultIncomplete):
		return label + " (EXPECTED)"
	case !b.Held:
		return label + " (BASELINE NOT HELD)"
	}
	return label
}

// baselineLines lists what the baseline did, one entry a line, for the
// Markdown and HTML reports and the summary.
func baselineLines(b *BaselineResult) []string {
	var out []string
	for _, h := range b.Unexpected {
		out = append(out, fmt.Sprintf("UNEXPECTED %s %s", strings.ToUpper(string(h.Verdict)), h))
	}
	for _, e := range b.Stale {
		out = append(out, fmt.Sprintf("STALE %s (it passes now: remove the entry)", e.where(b.File)))
	}
	for _, e := range b.Unknown {
		out = append(out, fmt.Sprintf("UNKNOWN %s (no scenario of the suite has this id)", e.where(b.File)))
	}
	for _, h := range b.Expected {
		line := fmt.Sprintf("EXPECTED %s %s", strings.ToUpper(string(h.Verdict)), h)
		if h.Reason != "" {
			line += ": " + oneLine(h.Reason)
		}
		out = append(out, line)
	}
	for _, e := range b.NotRun {
		out = append(out, fmt.Sprintf("NOT RUN %s (left out by --tags or --shard)", e.where(b.File)))
	}
	return out
}
