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
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	switch *format {
	case "text":
		return exitOK, writeChecksText(stdout)
	case "md", "markdown":
		return exitOK, writeChecksMarkdown(stdout)
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return exitOK, enc.Encode(checks.All())
	}
	return 0, usagef("--format: unknown format %q (want text, md or json)", *format)
}

func writeChecksText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range checks.Groups {
		fmt.Fprintf(tw, "%s (%s)\n", g.Title, g.Prefix)
		for _, c := range checks.All() {
			if c.Group == g.Prefix {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.ID, c.Level, c.Rule)
			}
		}
	}
	return tw.Flush()
}

func writeChecksMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Check catalogue\n\n")
	b.WriteString("Levels follow RFC 2119: a MUST failure fails certification, a SHOULD failure is a warning, MAY is informational.\n")
	for _, g := range checks.Groups {
		fmt.Fprintf(&b, "\n## %s (%s)\n\n| id | level | role | rule | source |\n|---|---|---|---|---|\n", g.Title, g.Prefix)
		for _, c := range checks.All() {
			if c.Group == g.Prefix {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.ID, c.Level, c.Role, mdEscape(c.Rule), mdEscape(c.Source))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
