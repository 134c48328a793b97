package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
)

// Badge is a shields.io endpoint badge (https://shields.io/badges/endpoint-badge):
// serve badge.json and point https://img.shields.io/endpoint?url=... at it.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// BadgeOf returns the badge of a run, labelled "approval conformance":
//
//   - pass: "35/35 checks" (checks passed of those that applied),
//     brightgreen; with SHOULD warnings "pass, 2 warnings", yellow;
//   - fail: "fail: 3 MUST checks", red ("fail: 3 checks" when, at level
//     should or may, warnings fail it too);
//   - incomplete: "incomplete: 2 errors" (scenarios that errored or timed
//     out), lightgrey;
//   - interrupted: "interrupted", lightgrey;
//   - no check exercised: "no checks", lightgrey.
//
// With a baseline of expected failures, a run that holds it says so
// ("fail: 3 MUST checks, all expected", orange), and one that does not
// says that ("pass, baseline not held: 1 stale entry", red).
func BadgeOf(r *Run) Badge {
	b := runBadge(r)
	base := r.Baseline
	if base == nil || r.Result() == ResultInterrupted {
		return b
	}
	switch {
	case base.Held && len(base.Expected) > 0:
		b.Message += ", all expected"
		b.Color = "orange"
	case !base.Held:
		var parts []string
		if n := len(base.Unexpected); n > 0 {
			parts = append(parts, plural(n, "unexpected failure", "unexpected failures"))
		}
		if n := len(base.Stale) + len(base.Unknown); n > 0 {
			parts = append(parts, plural(n, "stale entry", "stale entries"))
		}
		b.Message += ", baseline not held: " + strings.Join(parts, ", ")
		b.Color = "red"
	}
	return b
}

func runBadge(r *Run) Badge {
	b := Badge{SchemaVersion: 1, Label: "approval conformance"}
	t := r.Totals()
	st := r.ScenarioTotals()
	switch r.Result() {
	case ResultFail:
		failing, mustFailed := r.FailingChecks(), 0
		for _, c := range r.Checks {
			if c.Level == checks.Must && c.Verdict == Fail {
				mustFailed++
			}
		}
		if mustFailed == len(failing) {
			b.Message = "fail: " + plural(len(failing), "MUST check", "MUST checks")
		} else {
			b.Message = "fail: " + plural(len(failing), "check", "checks") // warnings among them, at level should or may
		}
		b.Color = "red"
	case ResultInterrupted:
		b.Message, b.Color = "interrupted", "lightgrey"
	case ResultIncomplete:
		b.Message = "incomplete: " + plural(st[Error]+st[Timeout], "error", "errors")
		b.Color = "lightgrey"
	default:
		applied := len(r.Checks) - t[NotApplicable]
		switch {
		case applied == 0:
			b.Message, b.Color = "no checks", "lightgrey"
		case t[Warn] > 0:
			b.Message, b.Color = "pass, "+plural(t[Warn], "warning", "warnings"), "yellow"
		default:
			b.Message, b.Color = fmt.Sprintf("%d/%d checks", t[Pass], applied), "brightgreen"
		}
	}
	return b
}

func encodeBadge(r *Run) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(BadgeOf(r)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
