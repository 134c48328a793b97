package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/semver"
)

// newest is the newest release certified ("" when none was).
func (r *lineResult) newest() string {
	if len(r.Certified) == 0 {
		return ""
	}
	return r.Certified[len(r.Certified)-1].Version
}

func (r *lineResult) certifiedVersions() []string {
	var out []string
	for _, vr := range r.Certified {
		out = append(out, vr.Version)
	}
	return out
}

// holds says in one phrase which releases show a finding: "holds for
// 7.0.150–7.0.177, fixed in 7.0.178".
func (r *lineResult) holds(f FindingRange) string {
	if len(f.Spans) == 0 {
		if slices.ContainsFunc(r.Certified, func(vr *VersionRun) bool { return f.Presence[vr.Version] == baseline.Absent }) {
			return "shown in no release certified"
		}
		return "not judged: no scenario of its signature ran to a verdict"
	}
	var parts []string
	for _, s := range f.Spans {
		rng := s.First
		if s.Last != s.First {
			rng += "–" + s.Last
		}
		switch {
		case s.FixedIn == "":
			rng += ", not fixed as of " + r.newest()
		case s.ExactEnd:
			rng += ", fixed in " + s.FixedIn
		default:
			rng += ", fixed between " + s.Last + " and " + s.FixedIn + " (the releases between were not certified)"
		}
		parts = append(parts, rng)
	}
	return "holds for " + strings.Join(parts, "; again for ")
}

// since says where a finding's first span starts.
func (r *lineResult) since(f FindingRange) string {
	if len(f.Spans) == 0 {
		return ""
	}
	s := f.Spans[0]
	switch {
	case s.Before != "" && s.ExactStart:
		return fmt.Sprintf("%s (%s does not show it)", s.First, s.Before)
	case s.Before != "":
		return fmt.Sprintf("between %s and %s (the releases between were not certified)", s.Before, s.First)
	case s.ExactStart && (r.Versions == "all" || r.Versions == "sample"):
		return s.First + ", the line's first installable release"
	}
	return s.First + " or earlier (the first release certified)"
}

func presenceMark(p baseline.Presence) string {
	switch p {
	case baseline.Shown:
		return "●"
	case baseline.Absent:
		return "○"
	}
	return "·"
}

// markdown is the line's section: LINE.md, and the generated section of
// the certification's FINDINGS.md.
func (r *lineResult) markdown() string {
	var b strings.Builder
	path := ""
	if r.Path != "" {
		path = " on the " + r.Path + " path"
	}
	fmt.Fprintf(&b, "## Release line: %s %s%s\n\n", r.Package, r.Line, path)
	fmt.Fprintf(&b, "Certified on %s by `make certify-line ADAPTER=%s VERSIONS=%s", r.Generated, r.Adapter, r.Versions)
	if r.Tags != "" {
		fmt.Fprintf(&b, " TAGS='%s'", r.Tags)
	}
	if !r.Bisect {
		b.WriteString(" BISECT=false")
	}
	fmt.Fprintf(&b, "` with the flags of %s; each finding is tracked by its signature, the cells (scenario:check) of the entries of the line's certified baselines that cite it: a release shows it (●) when one of them fails or warns, no longer shows it (○) when every one of them that ran passes, and says nothing of it (·) when none ran.", r.Certification)
	if r.Tags != "" {
		b.WriteString(" Only the scenarios the tags select were run: a check or finding outside them is not judged here.")
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "- Releases of the line on the registry (%s `%s`): %d, %s to %s.\n", r.Registry, r.Package, len(r.Releases), r.Releases[0].Version, r.Releases[len(r.Releases)-1].Version)
	var certified []string
	for _, vr := range r.Certified {
		certified = append(certified, vr.Version)
	}
	fmt.Fprintf(&b, "- Certified, each from a lockfile of its own: %s.\n", orNone(strings.Join(certified, ", ")))
	for _, n := range r.NotInstallable {
		fmt.Fprintf(&b, "- Not certified: %s: %s.\n", n.Version, strings.TrimSuffix(n.Why, "."))
	}
	var touched []string
	for v := range r.Touches {
		touched = append(touched, v)
	}
	semver.Sort(touched)
	for _, v := range touched {
		state := "certified"
		if !slices.Contains(certified, v) {
			state = "not certified"
			if slices.ContainsFunc(r.Releases, func(x Release) bool { return x.Version == v }) {
				state = "not in this run"
			} else {
				state = "not on the registry this machine reaches"
			}
		}
		fmt.Fprintf(&b, "- Touches approval (its changelog, %s): %s: %s\n", state, v, cell(clip(r.Touches[v], 240)))
	}

	b.WriteString("\n### Findings by release\n\n")
	b.WriteString("| finding | cells | first shown | range | " + strings.Join(certified, " | ") + " |\n|---|---|---|---|")
	b.WriteString(strings.Repeat(":---:|", len(certified)) + "\n")
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "| %s | %d | %s | %s |", f.Finding, f.Cells, cell(r.since(f)), cell(r.holds(f)))
		for _, v := range certified {
			b.WriteString(" " + presenceMark(f.Presence[v]) + " |")
		}
		b.WriteString("\n")
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nNo baseline of the line cites a finding.\n")
	}

	b.WriteString("\n### Verdicts by release\n\n")
	b.WriteString("| check | level | " + strings.Join(certified, " | ") + " |\n|---|---|" + strings.Repeat(":---:|", len(certified)) + "\n")
	for _, c := range checks.All() {
		vs, ok := r.Checks[c.ID]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s |", c.ID, c.Level)
		for _, v := range certified {
			i := slices.IndexFunc(vs, func(x Verdict) bool { return x.Version == v })
			if i < 0 {
				b.WriteString(" · |")
				continue
			}
			mark := cellIcon[vs[i].Verdict]
			if i > 0 && vs[i-1].Verdict != vs[i].Verdict {
				mark = "**" + mark + "**"
			}
			b.WriteString(" " + mark + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n✅ pass, ❌ fail, ⚠️ warn, ➖ not applicable, ⏹️ not evaluated, · not run; in bold, a verdict that moved from the release before.\n")
	return b.String()
}

// summary is what the command prints at its end.
func (r *lineResult) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s): %d release(s) certified", r.Package, r.Line, r.Certification, len(r.Certified))
	if len(r.NotInstallable) > 0 {
		var vs []string
		for _, n := range r.NotInstallable {
			vs = append(vs, n.Version)
		}
		fmt.Fprintf(&b, "; not certified: %s", strings.Join(vs, ", "))
	}
	b.WriteString("\n")
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %-4s %s\n", f.Finding, r.holds(f))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// clip shortens text to n bytes at a word boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndex(s[:n], " ")
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + " …"
}
