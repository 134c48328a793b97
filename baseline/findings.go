package baseline

import (
	"regexp"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/report"
)

// The finding convention of a certified folder. Its FINDINGS.md names each
// finding with an id: one or two capital letters and a number (D1, E12,
// M4), in the heading that opens it ("## D1. PRE-03, WIRE-01 — ...").
// An entry of its baseline cites the findings it is charged to in the
// label of its reason, the text before the reason's first colon:
//
//	reason: "SDK defect D2 (FINDINGS.md): answers in two tool messages ..."
//	reason: "E1/B1: results appended at the end of the prompt ..."
//	reason: "B1 with E4: the turn returned no result ..."
//
// A finding's signature is the cells (scenario, or scenario:check) of
// the entries that cite it, less those another finding is cited by too
// when it has cells of its own. A run shows the finding when one of those
// cells fails or warns, and no longer shows it when every cell of it that
// ran passes: that is how a run of another version of the SDK says
// whether the finding holds there.

// findingIDRE matches a finding id in a reason's label.
var findingIDRE = regexp.MustCompile(`\b[A-Z]{1,2}[0-9]{1,3}\b`)

// Findings returns the ids of the findings an entry's reason cites, in the
// order it cites them: the ids in the reason's label (the text before its
// first colon). A reason without a colon cites none.
func (e Entry) Findings() []string {
	label, _, ok := strings.Cut(e.Reason, ":")
	if !ok {
		return nil
	}
	var ids []string
	for _, id := range findingIDRE.FindAllString(label, -1) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Signature is a finding and the baseline entries that judge it.
type Signature struct {
	// Finding is the finding's id (D1).
	Finding string
	// Entries are the cells that judge it, in the baselines' order: those
	// only it is cited by, when there are some; else every cell that
	// cites it.
	Entries []Entry
	// Shared counts the cells that cite it beside another finding and are
	// left out of Entries for that (a cell two findings explain fails as
	// long as either holds, so it says nothing of one of them alone).
	Shared int
}

// Signatures returns the signature of every finding the baselines'
// reasons cite, in the order they first cite them. The baselines are
// those of one certification path at several releases (a line): a cell
// (scenario:check) in several is one cell, cited by every finding that
// cites it in any of them.
func Signatures(files ...*File) []Signature {
	type cell struct {
		entry Entry
		ids   []string
	}
	var cells []*cell
	byKey := map[string]*cell{}
	var order []string
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, e := range f.Entries {
			ids := e.Findings()
			if len(ids) == 0 {
				continue
			}
			c, ok := byKey[e.String()]
			if !ok {
				c = &cell{entry: e}
				byKey[e.String()] = c
				cells = append(cells, c)
			}
			for _, id := range ids {
				if !slices.Contains(c.ids, id) {
					c.ids = append(c.ids, id)
				}
				if !slices.Contains(order, id) {
					order = append(order, id)
				}
			}
		}
	}
	out := make([]Signature, 0, len(order))
	for _, id := range order {
		s := Signature{Finding: id}
		var all []Entry
		for _, c := range cells {
			if !slices.Contains(c.ids, id) {
				continue
			}
			all = append(all, c.entry)
			if len(c.ids) == 1 {
				s.Entries = append(s.Entries, c.entry)
			} else {
				s.Shared++
			}
		}
		if len(s.Entries) == 0 {
			s.Entries, s.Shared = all, 0
		}
		out = append(out, s)
	}
	return out
}

// Presence says whether a run shows a finding.
type Presence string

const (
	// Shown: a cell of the signature fails or warns.
	Shown Presence = "shown"
	// Absent: every cell of the signature that ran passed (at least one
	// ran).
	Absent Presence = "absent"
	// Unknown: no cell of the signature ran to a pass, fail or warn (none
	// was selected, or each was not applicable, not evaluated, an error or
	// a timeout).
	Unknown Presence = "unknown"
)

// Cell is one cell of a signature in one run: a scenario the entry
// matches and its verdict (on the entry's check, when it names one).
type Cell struct {
	Scenario string         `json:"scenario"`
	Check    string         `json:"check,omitempty"`
	Verdict  report.Verdict `json:"verdict"`
}

// Sighting is what one run says of a finding.
type Sighting struct {
	Presence Presence `json:"presence"`
	// Cells are the signature's cells the run has, with their verdicts;
	// Run counts those that ran to a pass, fail or warn.
	Cells []Cell `json:"cells,omitempty"`
	Run   int    `json:"run"`
	// Entries counts the signature's entries.
	Entries int `json:"entries"`
}

// In says whether a run shows the finding.
func (s Signature) In(run *report.Run) Sighting {
	out := Sighting{Presence: Unknown, Entries: len(s.Entries)}
	if run == nil {
		return out
	}
	shown, passed := false, false
	for _, sc := range run.Scenarios {
		for _, e := range s.Entries {
			if !e.matches(sc.ID) {
				continue
			}
			v := sc.Verdict
			if e.Check != "" {
				cv, ok := sc.CheckVerdicts[e.Check]
				if !ok {
					continue
				}
				v = cv
			}
			out.Cells = append(out.Cells, Cell{Scenario: sc.ID, Check: e.Check, Verdict: v})
			switch v {
			case report.Fail, report.Warn:
				shown = true
				out.Run++
			case report.Pass:
				passed = true
				out.Run++
			}
		}
	}
	switch {
	case shown:
		out.Presence = Shown
	case passed:
		out.Presence = Absent
	}
	return out
}
