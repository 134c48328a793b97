package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// The reasons a check's verdict moves in a scenario between a report of
// the catalogue before it was grounded in harm and one after.
const (
	reasonNoHarm        = "no harm: SHOULD at most"
	reasonNotShown      = "harm not shown in this run"
	reasonOutOfContract = "out-of-contract input"
	reasonDeclarations  = "the adapter changed what it declares or expresses (not applicable before or after)"
	reasonScenarioGone  = "scenario no longer in the suite (renamed or removed)"
	reasonScenarioNew   = "scenario new in the suite"
	reasonUnexplained   = "no decision of docs/checks.md or graded finding explains it: see FINDINGS.md"
)

// Change is one check whose verdict moved in a certification: its verdict
// in the old and the new report, the scenarios in which its verdict moved,
// and why, each reason with how many of them it explains.
type Change struct {
	Check    string
	Level    checks.Level
	Old, New report.Verdict
	Moved    int
	Reasons  []Reason
}

// Reason is why a check's verdict moved in some scenarios.
type Reason struct {
	Text      string
	Scenarios int
}

// VerdictChanges compares a certification's report before and after the
// catalogue was grounded in harm: every check whose verdict moved, for the
// run or in some scenario, with the reasons of each scenario's move (the
// graded text of the check's findings, a decision of docs/checks.md, the
// level of the check, the adapter's declarations).
func VerdictChanges(old, fresh *report.Run) []Change {
	oldChecks := map[string]report.Check{}
	for _, c := range old.Checks {
		oldChecks[c.ID] = c
	}
	newChecks := map[string]report.Check{}
	for _, c := range fresh.Checks {
		newChecks[c.ID] = c
	}
	oldScen := map[string]report.Scenario{}
	for _, s := range old.Scenarios {
		oldScen[s.ID] = s
	}
	newScen := map[string]report.Scenario{}
	for _, s := range fresh.Scenarios {
		newScen[s.ID] = s
	}
	renamed := renames(oldScen, newScen)
	var out []Change
	for _, cat := range checks.All() {
		id := cat.ID
		oc, nc := oldChecks[id], newChecks[id]
		ch := Change{Check: id, Level: cat.Level, Old: runVerdict(oc), New: runVerdict(nc)}
		reasons := map[string]int{}
		for _, sid := range union(oldScen, newScen) {
			o, inOld := oldScen[sid]
			n, inNew := newScen[sid]
			if to, ok := renamed[sid]; ok && inOld {
				n, inNew = newScen[to], true
			} else if ok {
				continue // the new name of a renamed scenario: compared under its old one
			}
			ov, nv := o.CheckVerdicts[id], n.CheckVerdicts[id]
			if ov == nv || (ov == "" && !inNew) || (nv == "" && !inOld) {
				continue
			}
			ch.Moved++
			for _, r := range moveReasons(id, oc.Level, nc.Level, o, n, inOld, inNew) {
				reasons[r]++
			}
		}
		if ch.Old == ch.New && onlyIncidental(reasons) {
			continue // the run's verdict stays, and no scenario moved for its grading
		}
		for text, n := range reasons {
			ch.Reasons = append(ch.Reasons, Reason{Text: text, Scenarios: n})
		}
		slices.SortFunc(ch.Reasons, func(a, b Reason) int {
			if a.Scenarios != b.Scenarios {
				return b.Scenarios - a.Scenarios
			}
			return strings.Compare(a.Text, b.Text)
		})
		out = append(out, ch)
	}
	return out
}

// renames pairs the scenarios that ran in one report only: a scenario of
// the old report and one of the new, of the same source and mode, when
// each is that source and mode's only one (a scenario renamed when its rule
// was decided), or when the old one is its source and mode's only one and
// exactly one of the new ones names the same checks (scenarios added to the
// source since then name others). The map holds both directions.
func renames(oldScen, newScen map[string]report.Scenario) map[string]string {
	key := func(s report.Scenario) string {
		mode := ""
		if i := strings.LastIndex(s.Name, "("); i >= 0 {
			mode = s.Name[i:]
		}
		return s.Source + "\x00" + mode
	}
	gone, added := map[string][]string{}, map[string][]string{}
	for id, s := range oldScen {
		if _, ok := newScen[id]; !ok {
			gone[key(s)] = append(gone[key(s)], id)
		}
	}
	for id, s := range newScen {
		if _, ok := oldScen[id]; !ok {
			added[key(s)] = append(added[key(s)], id)
		}
	}
	out := map[string]string{}
	for k, g := range gone {
		a := added[k]
		if len(g) != 1 || len(a) == 0 {
			continue
		}
		if len(a) > 1 {
			var same []string
			for _, id := range a {
				if slices.Equal(sortedChecks(newScen[id]), sortedChecks(oldScen[g[0]])) {
					same = append(same, id)
				}
			}
			a = same
		}
		if len(a) == 1 {
			out[g[0]], out[a[0]] = a[0], g[0]
		}
	}
	return out
}

// sortedChecks are the checks a scenario names, in order.
func sortedChecks(s report.Scenario) []string {
	c := slices.Clone(s.Checks)
	slices.Sort(c)
	return c
}

// LevelChanges lists the checks whose level differs between a report of
// the old catalogue and the catalogue now ("REQ-02 MUST → SHOULD").
func LevelChanges(old *report.Run) []string {
	var out []string
	for _, c := range old.Checks {
		if cat, ok := checks.Lookup(c.ID); ok && c.Level != "" && c.Level != cat.Level {
			out = append(out, fmt.Sprintf("%s %s → %s", c.ID, c.Level, cat.Level))
		}
	}
	return out
}

// onlyIncidental reports whether every reason is one the grading does not
// give: a scenario that ran in one report only, or one the target could not
// run in one of them (or there is none).
func onlyIncidental(reasons map[string]int) bool {
	for r := range reasons {
		if r != reasonScenarioGone && r != reasonScenarioNew && r != reasonDeclarations {
			return false
		}
	}
	return true
}

// runVerdict is a check's verdict for a run, "" when no scenario of it ran.
func runVerdict(c report.Check) report.Verdict {
	if len(c.Scenarios) == 0 {
		return ""
	}
	return c.Verdict
}

// moveReasons says why check's verdict moved from scenario o to scenario n.
func moveReasons(id string, oldLevel, newLevel checks.Level, o, n report.Scenario, inOld, inNew bool) []string {
	ov, nv := o.CheckVerdicts[id], n.CheckVerdicts[id]
	switch {
	case !inNew:
		return []string{reasonScenarioGone}
	case !inOld:
		return []string{reasonScenarioNew}
	case ov == report.NotApplicable || nv == report.NotApplicable || n.Verdict == report.NotApplicable || o.Verdict == report.NotApplicable:
		return []string{reasonDeclarations}
	}
	var out []string
	add := func(r string) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if oldLevel != "" && newLevel != "" && oldLevel != newLevel {
		add(fmt.Sprintf("%s now %s: a decision of docs/checks.md", id, newLevel))
	}
	for _, f := range n.Findings {
		if f.Check != id || f.Outcome != report.OutcomeFail {
			continue
		}
		switch {
		case strings.HasPrefix(f.Graded, "no harm"):
			add(reasonNoHarm)
		case strings.HasPrefix(f.Graded, "its harm"):
			add(reasonNotShown)
		case strings.HasPrefix(f.Graded, "out-of-contract"):
			add(reasonOutOfContract)
		case f.Graded == "" && f.Harm != "" && ov != report.Fail:
			add("fails with its harm shown (" + f.Harm + ")")
		}
	}
	if len(out) == 0 {
		if c, ok := checks.Lookup(id); ok && c.Decision != "" {
			add(fmt.Sprintf("a decision of docs/checks.md: what %s no longer demands", id))
		} else {
			add(reasonUnexplained)
		}
	}
	return out
}

// RenderChanges writes the table of every check whose verdict moved in a
// certification, for the certifications with an old report.
func RenderChanges(oldDir string, pubs []Published) (string, error) {
	var b strings.Builder
	b.WriteString("# Changes of verdict on the grounded catalogue\n\n")
	fmt.Fprintf(&b, "<!-- Written by `go run ./internal/certify --changes-from DIR` (internal/certify) from the reports before the catalogue was grounded in harm and those committed under certified/; do not edit. -->\n\n")
	b.WriteString("Every certification was taken again when the catalogue was grounded in harm ([docs/checks.md](../docs/checks.md#harm-what-makes-a-must-failure)): a failed MUST assertion stands only where the same run shows its harm, and on out-of-contract input only the safety harms are MUST. Each row is a check whose verdict moved in a certification, for the run (old → new; \"stays\" when only some scenarios moved) and in how many scenarios, with the reasons those scenarios give: the graded text of the check's findings in the new report (\"" + reasonNoHarm + "\", \"" + reasonNotShown + "\", \"" + reasonOutOfContract + "\"), a decision of [docs/checks.md](../docs/checks.md) (the check's own section says what it decided and what it no longer demands), or a change of the adapter (a scenario not applicable in one of the reports); a check whose verdict stays has a row only when some scenario moved for its grading; a scenario renamed when its rule was decided (the only one of its source and mode to leave the suite, beside the only one to join it) is compared under its old name; any other that ran in one report only is counted as new or removed. The last column links the check's decision where docs/checks.md records one. A scenario may give more than one reason. Each certification's FINDINGS.md says which of its findings were withdrawn or downgraded.\n\n")
	var rows strings.Builder
	var levels []string
	for _, p := range pubs {
		if p.Run == nil {
			continue
		}
		path := filepath.Join(oldDir, p.ID(), "report.json")
		if !fileExists(path) {
			continue
		}
		old, err := report.ReadJSON(path)
		if err != nil {
			return "", fmt.Errorf("the old report of %s: %w", p.ID(), err)
		}
		for _, l := range LevelChanges(old) {
			if !slices.Contains(levels, l) {
				levels = append(levels, l)
			}
		}
		changes := VerdictChanges(old, p.Run)
		if len(changes) == 0 {
			fmt.Fprintf(&rows, "| %s | | | no verdict moved | 0 | | |\n", p.ID())
			continue
		}
		for _, c := range changes {
			verdict := fmt.Sprintf("%s → %s", show(c.Old), show(c.New))
			if c.Old == c.New {
				verdict = fmt.Sprintf("%s (stays)", show(c.New))
			}
			var reasons []string
			for _, r := range c.Reasons {
				if r.Scenarios == 0 {
					reasons = append(reasons, r.Text)
					continue
				}
				reasons = append(reasons, fmt.Sprintf("%s (%d)", r.Text, r.Scenarios))
			}
			decision := ""
			if cat, ok := checks.Lookup(c.Check); ok && cat.Decision != "" {
				decision = fmt.Sprintf("[%s decided](../docs/checks.md#%s)", c.Check, strings.ToLower(c.Check))
			}
			fmt.Fprintf(&rows, "| %s | [%s](../docs/checks.md#%s) | %s | %s | %d | %s | %s |\n", p.ID(), c.Check, strings.ToLower(c.Check), c.Level, verdict, c.Moved, cell(strings.Join(reasons, "; ")), decision)
		}
	}
	if len(levels) > 0 {
		fmt.Fprintf(&b, "Levels decided in docs/checks.md: %s. A check whose level changed and whose verdict did not move has no row.\n\n", strings.Join(levels, ", "))
	}
	b.WriteString("| Certification | Check | Level | Verdict | Scenarios moved | Reasons | Decision |\n|---|---|---|---|---|---|---|\n")
	b.WriteString(rows.String())
	return b.String(), nil
}

// writeChanges writes the table of the verdicts that moved next to the
// README, from the old reports under oldDir (oldDir/<certification>/report.json).
func writeChanges(o options, m *Manifest) error {
	pubs, err := published(o.out, m)
	if err != nil {
		return err
	}
	doc, err := RenderChanges(o.changesFrom, pubs)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(filepath.Dir(o.readme), changesFile), []byte(doc), 0o644)
}
