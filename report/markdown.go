package report

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Bounds of report.md, so that it stays readable and fits where Markdown
// reports go (a CI job summary, a pull-request comment: 65,536 characters
// on GitHub). What is left out is in report.html and report.json.
const (
	mdDetailed    = 25    // scenarios shown with their details and evidence
	mdEvidenceMax = 1800  // bytes of evidence per scenario
	mdMessageMax  = 600   // runes of a message or a problem
	mdDetailUntil = 45000 // bytes written after which scenarios get one line
	mdListUntil   = 60000 // bytes written after which they are only counted
)

var verdictIcon = map[Verdict]string{
	Pass:          "✅",
	Fail:          "❌",
	Warn:          "⚠️",
	Error:         "💥",
	Timeout:       "⏱️",
	NotApplicable: "➖",
	NotEvaluated:  "⏹️",
}

func encodeMarkdown(r *Run) ([]byte, error) {
	var b strings.Builder
	h := headlineOf(r)
	fmt.Fprintf(&b, "# Approval conformance: %s\n\n", mdText(r.Target))
	icon := map[Result]string{ResultPass: "✅", ResultFail: "❌", ResultIncomplete: "⏸️", ResultInterrupted: "⏹️"}[h.Result]
	fmt.Fprintf(&b, "**Result: %s %s**: %s.\n\n", icon, h.Label, mdText(h.Text))

	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, mdText(v)) }
	row("Target", r.Target)
	for _, kv := range targetFields(r.TargetInfo) {
		if kv[0] == "name" && kv[1] == r.Target {
			continue
		}
		row(mdText(kv[0]), kv[1])
	}
	if !r.Started.IsZero() {
		row("Started", r.Started.UTC().Format(time.RFC3339))
	}
	row("Duration", formatDuration(r.Duration))
	row("Seed", fmt.Sprint(r.Seed))
	if r.Shard != nil {
		row("Shard", r.Shard.String())
	}
	if r.Level != "" {
		row("Level", string(r.Level)+" and above")
	}
	row("Scenarios", fmt.Sprintf("%d: %s", len(r.Scenarios), countLine(r.ScenarioTotals())))
	row("Checks", fmt.Sprintf("%d: %s", len(r.Checks), countLine(r.Totals())))

	if r.Baseline != nil {
		writeMarkdownBaseline(&b, r.Baseline)
	}

	b.WriteString("\n## Checks\n\n")
	if len(r.Checks) == 0 {
		b.WriteString("No check was exercised.\n")
	} else {
		b.WriteString("| Check | Level | Verdict | Scenarios | Rule |\n|---|---|---|---:|---|\n")
		for _, c := range r.Checks {
			fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s |\n",
				mdText(c.ID), mdText(string(c.Level)), verdictIcon[c.Verdict], c.Verdict, scenarioCount(c), mdText(c.Rule))
		}
		fmt.Fprintf(&b, "\nScenarios: %s.\n", tallyLegend)
	}

	var bad, na []Scenario
	for _, s := range sortedScenarios(r) {
		switch {
		case notPassed(s):
			bad = append(bad, s)
		case s.Verdict == NotApplicable:
			na = append(na, s)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(&b, "\n## Scenarios that did not pass (%d)\n", len(bad))
		detailed := true
		for i, s := range bad {
			if detailed && (i == mdDetailed || b.Len() > mdDetailUntil) {
				detailed = false
				fmt.Fprintf(&b, "\n%s more, without details (see report.html):\n\n", plural(len(bad)-i, "scenario", "scenarios"))
			}
			if detailed {
				writeMarkdownScenario(&b, s)
				continue
			}
			if b.Len() > mdListUntil {
				fmt.Fprintf(&b, "- … and %d more\n", len(bad)-i)
				break
			}
			fmt.Fprintf(&b, "- %s **%s** %s [%s]\n", verdictIcon[s.Verdict], strings.ToUpper(string(s.Verdict)), mdText(s.ID), strings.Join(failingChecks(s), " "))
		}
	}
	if len(na) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>Not applicable to this target (%d)</summary>\n\n", len(na))
		for _, s := range na {
			fmt.Fprintf(&b, "- %s: %s\n", mdText(s.ID), mdText(clip(oneLine(s.Message), mdMessageMax)))
		}
		b.WriteString("\n</details>\n")
	}
	return []byte(plainText(b.String())), nil
}

// plainText replaces control characters other than tab and newline, and
// invalid UTF-8, by U+FFFD: a terminal or a renderer shows them as that.
func plainText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// writeMarkdownBaseline says what the baseline did, each entry on a line
// (at most mdDetailed of them; the rest are counted).
func writeMarkdownBaseline(b *strings.Builder, base *BaselineResult) {
	fmt.Fprintf(b, "\n## Baseline\n\n%s.\n\n", mdText(capitalize(baselineText(base))))
	lines := baselineLines(base)
	for i, l := range lines {
		if i == mdDetailed {
			fmt.Fprintf(b, "- … and %d more (see report.json)\n", len(lines)-i)
			break
		}
		fmt.Fprintf(b, "- %s\n", mdText(clip(l, mdMessageMax)))
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func writeMarkdownScenario(b *strings.Builder, s Scenario) {
	fmt.Fprintf(b, "\n### %s %s: %s\n\n", verdictIcon[s.Verdict], strings.ToUpper(string(s.Verdict)), mdText(s.ID))
	var cvs []string
	for _, cv := range checkVerdictList(s) {
		cvs = append(cvs, fmt.Sprintf("%s (%s)", cv[0], cv[1]))
	}
	if len(cvs) > 0 {
		fmt.Fprintf(b, "- **Checks:** %s\n", strings.Join(cvs, ", "))
	}
	if s.Provenance != "" {
		in := s.Provenance
		if s.ProvenanceWhy != "" {
			in += " (" + s.ProvenanceWhy + ")"
		}
		fmt.Fprintf(b, "- **Input:** %s\n", mdText(in))
	}
	if s.FailedStep != "" {
		fmt.Fprintf(b, "- **Failed step:** %s\n", mdText(s.FailedStep))
	}
	if s.Message != "" {
		fmt.Fprintf(b, "- **Message:** %s\n", mdText(clip(oneLine(s.Message), mdMessageMax)))
	}
	if len(s.Problems) > 0 {
		b.WriteString("- **Problems:**\n")
		for i, p := range s.Problems {
			if i == 10 {
				fmt.Fprintf(b, "  - … and %d more\n", len(s.Problems)-i)
				break
			}
			fmt.Fprintf(b, "  - %s\n", mdText(clip(oneLine(p.Detail), mdMessageMax)))
		}
	}
	if ev := evidenceText(s.Evidence, mdEvidenceMax); ev != "" {
		fence := codeFence(ev)
		fmt.Fprintf(b, "\n<details><summary>Evidence</summary>\n\n%stext\n%s\n%s\n\n</details>\n", fence, ev, fence)
	}
}

// mdText escapes text for a Markdown paragraph, list item or table cell:
// on one line, with the characters that would start markup, a link or
// HTML backslash-escaped (an underscore only at the edge of a word, where
// it could start emphasis: call_1 stays as it is).
func mdText(s string) string {
	rs := []rune(oneLine(s))
	var b strings.Builder
	for i, r := range rs {
		switch {
		case strings.ContainsRune("\\`*[]<>|~&", r):
			b.WriteByte('\\')
		case r == '_':
			inWord := i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
			if !inWord {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// codeFence returns a backtick fence longer than any run of backticks in
// s, so that s cannot close it.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
