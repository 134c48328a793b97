package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// changesFile is the table of the verdicts that moved when the catalogue
// was grounded in harm (--changes-from), next to reports/README.md.
const changesFile = "grounded-changes.md"

// HarmCount is how many scenarios of a run fail one MUST check with one
// harm.
type HarmCount struct {
	Check     string
	Scenarios int
}

// MustFailuresByHarm reads a run's failed MUST assertions (findings that
// fail, name a harm and are not graded down to a warning) and counts, for
// each harm, the scenarios that fail each check with it. It also counts
// the scenarios with a MUST failure whose input is out-of-contract.
func MustFailuresByHarm(r *report.Run) (byHarm map[checks.Harm][]HarmCount, outOfContract int) {
	byHarm = map[checks.Harm][]HarmCount{}
	for _, s := range r.Scenarios {
		seen := map[string]bool{}
		failed := false
		for _, f := range s.Findings {
			if f.Outcome != report.OutcomeFail || f.Harm == "" || f.Graded != "" {
				continue
			}
			if c, ok := checks.Lookup(f.Check); !ok || c.Level != checks.Must {
				continue
			}
			failed = true
			key := f.Harm + "\x00" + f.Check
			if seen[key] {
				continue
			}
			seen[key] = true
			h := checks.Harm(f.Harm)
			i := slices.IndexFunc(byHarm[h], func(c HarmCount) bool { return c.Check == f.Check })
			if i < 0 {
				byHarm[h] = append(byHarm[h], HarmCount{Check: f.Check})
				i = len(byHarm[h]) - 1
			}
			byHarm[h][i].Scenarios++
		}
		if failed && s.Provenance == string(checks.OutOfContract) {
			outOfContract++
		}
	}
	for h := range byHarm {
		slices.SortFunc(byHarm[h], func(a, b HarmCount) int { return strings.Compare(checkKey(a.Check), checkKey(b.Check)) })
	}
	return byHarm, outOfContract
}

// checkKey orders check ids as the catalogue lists them.
func checkKey(id string) string {
	for i, c := range checks.All() {
		if c.ID == id {
			return fmt.Sprintf("%03d", i)
		}
	}
	return "999" + id
}

// writeHarms renders, per certification, its MUST failures by harm, and
// points to the table of the verdicts that moved when the catalogue was
// grounded in harm.
func writeHarms(b *strings.Builder, pubs []Published) {
	b.WriteString("\n## MUST failures by harm\n\n")
	b.WriteString("A MUST failure stands only where the same run shows the harm it causes ([docs/checks.md](../docs/checks.md#harm-what-makes-a-must-failure)); a failed assertion whose harm the run does not show, or whose input is out-of-contract and whose harm is not a safety harm, warns. Each cell names the checks failing with that harm and, in brackets, in how many scenarios (report.json: `findings[].harm` of the failed MUST assertions). The last column counts the failing scenarios whose input is out-of-contract (only a safety harm fails there).\n\n")
	b.WriteString("| Certification | MUST checks failed |")
	for _, h := range checks.Harms {
		fmt.Fprintf(b, " %s |", h)
	}
	b.WriteString(" out-of-contract |\n|---|---|")
	for range checks.Harms {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	for _, p := range pubs {
		if p.Run == nil {
			continue
		}
		failed := 0
		for _, c := range p.Run.Checks {
			if c.Verdict == report.Fail && c.Level == checks.Must {
				failed++
			}
		}
		byHarm, ooc := MustFailuresByHarm(p.Run)
		fmt.Fprintf(b, "| %s | %d |", p.ID(), failed)
		for _, h := range checks.Harms {
			var cells []string
			for _, c := range byHarm[h] {
				cells = append(cells, fmt.Sprintf("%s (%d)", c.Check, c.Scenarios))
			}
			fmt.Fprintf(b, " %s |", strings.Join(cells, ", "))
		}
		fmt.Fprintf(b, " %d |\n", ooc)
	}
	b.WriteString("\n## Changes of verdict on the grounded catalogue\n\n")
	fmt.Fprintf(b, "Every check whose verdict moved when the certifications were taken again on the catalogue grounded in harm, old → new, with the reason each moved scenario gives: [%s](%s).\n", changesFile, changesFile)
}
