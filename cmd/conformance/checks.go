package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/approval-conformance-kit/ack/checks"
)

func cmdChecks(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("checks", stderr)
	format := fs.String("format", "text", "output format: text, md or json")
	brief := fs.Bool("brief", false, "text: one line per check (id, level, rule), without the full texts")
	if err := parseArgs(fs, args); err != nil {
		return 0, err
	}
	list, err := selectChecks(fs.Args())
	if err != nil {
		return 0, err
	}
	switch *format {
	case "text":
		if *brief {
			return exitOK, writeChecksBrief(stdout, list)
		}
		return exitOK, writeChecksText(stdout, list)
	case "md", "markdown":
		if len(fs.Args()) > 0 {
			return exitOK, writeChecksSections(stdout, list)
		}
		return exitOK, writeChecksMarkdown(stdout)
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return exitOK, enc.Encode(list)
	}
	return 0, usagef("--format: unknown format %q (want text, md or json)", *format)
}

// selectChecks returns the checks named (all of them when none is), in
// catalogue order.
func selectChecks(ids []string) ([]checks.Check, error) {
	if len(ids) == 0 {
		return checks.All(), nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		id = strings.ToUpper(strings.TrimPrefix(id, "@"))
		if _, ok := checks.Lookup(id); !ok {
			return nil, usagef("checks: no check %q (see conformance checks --brief)", id)
		}
		want[id] = true
	}
	var out []checks.Check
	for _, c := range checks.All() {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

func writeChecksBrief(w io.Writer, list []checks.Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range checks.Groups {
		first := true
		for _, c := range list {
			if c.Group != g.Prefix {
				continue
			}
			if first {
				fmt.Fprintf(tw, "%s (%s)\n", g.Title, g.Prefix)
				first = false
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.ID, c.Level, c.Rule)
		}
	}
	return tw.Flush()
}

// writeChecksText writes every check in full: its line, then its normative
// text, rationale and origin, wrapped and indented.
func writeChecksText(w io.Writer, list []checks.Check) error {
	var b strings.Builder
	for _, g := range checks.Groups {
		first := true
		for _, c := range list {
			if c.Group != g.Prefix {
				continue
			}
			if first {
				fmt.Fprintf(&b, "%s (%s)\n\n", g.Title, g.Prefix)
				first = false
			}
			fmt.Fprintf(&b, "  %s  %s  %s\n", c.ID, c.Level, c.Role)
			wrap(&b, c.Rule, "    ", 78)
			secs := []struct{ title, body string }{{"Normative text", c.Text}}
			if len(c.Harm) > 0 {
				secs = append(secs, struct{ title, body string }{"Harm", harmList(c.Harm)})
			}
			if c.Decision != "" {
				secs = append(secs, struct{ title, body string }{"Decided", c.Decision})
			}
			secs = append(secs, struct{ title, body string }{"Why it matters", c.Rationale}, struct{ title, body string }{"Where it comes from", c.Origin + " (" + c.Source + ")"})
			for _, s := range secs {
				fmt.Fprintf(&b, "\n    %s:\n", s.title)
				for i, para := range strings.Split(s.body, "\n\n") {
					if i > 0 {
						b.WriteString("\n")
					}
					for _, line := range strings.Split(para, "\n") {
						wrap(&b, line, "      ", 78)
					}
				}
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap writes text as lines of at most width columns, each after indent; a
// line that starts with "- " continues under its text.
func wrap(b *strings.Builder, text, indent string, width int) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return
	}
	cont := indent
	if words[0] == "-" {
		cont = indent + "  "
	}
	line := indent
	for _, word := range words {
		if len(line) > len(cont) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = cont
		}
		if line != indent && line != cont {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}

// writeChecksMarkdown writes docs/checks.md: how verdicts work, a summary
// of every check, then each check in full.
func writeChecksMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(checksIntro)
	b.WriteString("\n## Summary\n")
	for _, g := range checks.Groups {
		fmt.Fprintf(&b, "\n### %s (%s)\n\n| id | level | role | harm | rule |\n|---|---|---|---|---|\n", g.Title, g.Prefix)
		for _, c := range checks.All() {
			if c.Group == g.Prefix {
				fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", c.ID, strings.ToLower(c.ID), c.Level, c.Role, harmList(c.Harm), mdEscape(c.Rule))
			}
		}
	}
	b.WriteString("\n## The checks in full\n")
	sections(&b, checks.All())
	_, err := io.WriteString(w, b.String())
	return err
}

// writeChecksSections writes the full sections of some checks.
func writeChecksSections(w io.Writer, list []checks.Check) error {
	var b strings.Builder
	sections(&b, list)
	_, err := io.WriteString(w, strings.TrimPrefix(b.String(), "\n"))
	return err
}

// sections writes each check of list in full, under its group's heading.
func sections(b *strings.Builder, list []checks.Check) {
	for _, g := range checks.Groups {
		first := true
		for _, c := range list {
			if c.Group != g.Prefix {
				continue
			}
			if first {
				fmt.Fprintf(b, "\n### %s (%s)\n", g.Title, g.Prefix)
				first = false
			}
			fmt.Fprintf(b, "\n#### %s\n\n", c.ID)
			fmt.Fprintf(b, "**%s**, %s role. %s\n\n", c.Level, c.Role, c.Rule)
			fmt.Fprintf(b, "**Normative text.** %s\n\n", c.Text)
			if len(c.Harm) > 0 {
				fmt.Fprintf(b, "**Harm.** %s.\n\n", harmList(c.Harm))
			}
			if c.Decision != "" {
				fmt.Fprintf(b, "**Decided.** %s\n\n", c.Decision)
			}
			fmt.Fprintf(b, "**Why it matters.** %s\n\n", c.Rationale)
			fmt.Fprintf(b, "**Where it comes from.** %s (%s)\n", c.Origin, c.Source)
		}
	}
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// harmList names harms, comma-separated ("" for none).
func harmList(hs []checks.Harm) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return strings.Join(out, ", ")
}
