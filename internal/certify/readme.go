package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// Published is a certification with its committed report, as the table of
// reports/README.md shows it.
type Published struct {
	Certification
	// Run is the committed report.json; nil when the certification has not
	// been published yet (or is held back).
	Run *report.Run
	// Files are the hand-written files of its folder that exist
	// (FINDINGS.md, expected-failures.yaml).
	Findings, Baseline bool
}

// dashboardFile is the page of every certification, written beside the
// table (report/dashboard).
const dashboardFile = "dashboard.html"

// The files of a certified folder.
const (
	findingsFile = "FINDINGS.md"
	baselineFile = "expected-failures.yaml"
)

var cellIcon = map[report.Verdict]string{
	report.Pass:          "✅",
	report.Fail:          "❌",
	report.Warn:          "⚠️",
	report.NotApplicable: "➖",
	report.NotEvaluated:  "⏹️",
	report.Error:         "💥",
	report.Timeout:       "⏱️",
}

// RenderReadme writes reports/README.md: the certifications with their
// badges, and their verdicts check by check.
func RenderReadme(manifestPath string, pubs []Published) string {
	var b strings.Builder
	b.WriteString("# Certified SDKs\n\n")
	fmt.Fprintf(&b, "<!-- Written by `make certify` (internal/certify) from %s and the reports under certified/; do not edit. -->\n\n", manifestPath)
	b.WriteString(`Each folder of [certified/](certified/) is one published SDK version run
through its adapter (` + "`adapters/<sdk>/`" + `) against the whole suite: ` + "`report.md`" + `,
` + "`report.json`" + `, ` + "`junit.xml`" + `, ` + "`journal.jsonl`" + ` (every model call) and ` + "`badge.json`" + `
as ` + "`conformance run`" + ` wrote them; ` + "`FINDINGS.md`" + `, each failed or warned check
traced to the SDK's own source with a reproduction that uses the SDK alone;
` + "`expected-failures.yaml`" + `, the baseline CI holds the version to (a failure it
does not list, or an entry that passes, fails CI).

A path says how the SDK was driven: ` + "`wire`" + `, its own provider clients against
the kit's simulator over the providers' HTTP APIs; ` + "`canonical`" + `, a model of the
application's own that hands the harness the SDK's prompt whole (the kit's
canonical model API), so that what a provider wire drops (approval parts,
result types) is checked too. The canonical path runs the agent's scenarios
only: the client role has no model.

`)
	// The dashboard (report/dashboard), written beside this table.
	fmt.Fprintf(&b, "All of it on one page: [%s](%s), every certification by check, each verdict coloured by the harm it shows, with the trend of each check across each line's releases, the features each certification drove and each failure's evidence (`make dashboard`; a badge below links to its certification's row).\n\n", dashboardFile, dashboardFile)
	b.WriteString("| Certification | SDK | Path | Result | Checks | Files |\n|---|---|---|---|---|---|\n")
	for _, p := range pubs {
		id := p.ID()
		dir := "certified/" + id + "/"
		if p.Run == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | not published | | |\n", id, cell(p.Version), cell(p.About))
			continue
		}
		badge := report.BadgeOf(p.Run)
		files := []string{fmt.Sprintf("[report](%sreport.md)", dir)}
		if p.Findings {
			files = append(files, fmt.Sprintf("[findings](%s%s)", dir, findingsFile))
		}
		if p.Baseline {
			files = append(files, fmt.Sprintf("[baseline](%s%s)", dir, baselineFile))
		}
		checkCounts := counts(p.Run)
		if len(p.Held) > 0 {
			checkCounts += fmt.Sprintf(" (%d held back)", len(p.Held))
		}
		// The badge links to the certification's row of the dashboard.
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | [![%s](%s)](%s#%s) | %s | %s |\n",
			id, dir, cell(sdkOf(p)), cell(p.About), cell(badge.Message), badgeURL(badge), dashboardFile, id, checkCounts, strings.Join(files, ", "))
	}

	writeChoices(&b, pubs)

	b.WriteString("\n## Verdicts by check\n\n")
	b.WriteString("✅ pass, ❌ fail, ⚠️ warn (a SHOULD check), ➖ not applicable (the SDK declares it lacks what the check needs), ⏹️ not evaluated (every scenario of the check stopped, on an earlier failure, before its assertions), · not run on this path, ⏸️ held back (the report's verdict is a fault of the kit, not yet fixed; the report still shows it). Every ❌, ⚠️ and ⏸️ is explained in the certification's FINDINGS.md.\n\n")
	var cols []Published
	for _, p := range pubs {
		if p.Run != nil {
			cols = append(cols, p)
		}
	}
	b.WriteString("| Check | Level |")
	for _, p := range cols {
		fmt.Fprintf(&b, " [%s](certified/%s/) |", strings.ReplaceAll(p.ID(), "-", "&#8209;"), p.ID())
	}
	b.WriteString("\n|---|---|")
	for range cols {
		b.WriteString(":---:|")
	}
	b.WriteString("\n")
	for _, c := range checks.All() {
		fmt.Fprintf(&b, "| [%s](../docs/checks.md#%s) | %s |", c.ID, strings.ToLower(c.ID), c.Level)
		for _, p := range cols {
			v := verdictCell(p.Run, c.ID)
			if p.IsHeld(c.ID) {
				v = "⏸️"
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	writeHarms(&b, pubs)
	return b.String()
}

// writeChoices lists, beside each certification, the adapter's choices
// that move a verdict there (docs/adapter-guide.md lists them by adapter).
func writeChoices(b *strings.Builder, pubs []Published) {
	have := false
	for _, p := range pubs {
		if len(p.Choices) > 0 {
			have = true
		}
	}
	if !have {
		return
	}
	b.WriteString("\n## Choices that move a verdict\n\n")
	b.WriteString("The adapter's configuration is part of each verdict: every choice below moves the checks it names when made the other way (how that was run is in its row), and its row says why the certification makes it: the one an application following the SDK's docs makes, or, on a path that changes one thing, what that path shows. [docs/adapter-guide.md](../docs/adapter-guide.md#choices-that-move-a-verdict) lists them by adapter.\n\n")
	b.WriteString("| Certification | Choice | Value | Moves | Why |\n|---|---|---|---|---|\n")
	for _, p := range pubs {
		for _, ch := range p.Choices {
			fmt.Fprintf(b, "| [%s](certified/%s/) | %s | %s | %s | %s |\n", p.ID(), p.ID(), cell(ch.Choice), cell(ch.Value), cell(strings.Join(ch.Moves, ", ")), cell(ch.Why))
		}
	}
}

// verdictCell is a check's verdict in a run: "·" when no scenario of the
// check ran.
func verdictCell(r *report.Run, id string) string {
	for _, c := range r.Checks {
		if c.ID != id {
			continue
		}
		if len(c.Scenarios) == 0 {
			return "·"
		}
		return cellIcon[c.Verdict]
	}
	return "·"
}

// sdkOf names the SDK and version a run certified, from the target's info.
func sdkOf(p Published) string {
	if info, ok := infoFields(p.Run.TargetInfo); ok && info.SDK != "" {
		return info.SDK + " " + info.SDKVersion
	}
	return p.Adapter + " " + p.Version
}

func counts(r *report.Run) string {
	t := r.Totals()
	var parts []string
	for _, v := range []report.Verdict{report.Pass, report.Fail, report.Warn, report.Error, report.Timeout, report.NotApplicable, report.NotEvaluated} {
		if t[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", t[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

// badgeURL is a static shields.io badge with the badge.json's label,
// message and colour.
func badgeURL(b report.Badge) string {
	esc := func(s string) string {
		s = strings.ReplaceAll(s, "-", "--")
		s = strings.ReplaceAll(s, "_", "__")
		return url.PathEscape(s)
	}
	return "https://img.shields.io/badge/" + esc(b.Label) + "-" + esc(b.Message) + "-" + url.PathEscape(b.Color)
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
