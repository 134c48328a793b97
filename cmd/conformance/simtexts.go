package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/approval-conformance-kit/ack/wire"
)

// cmdSimTexts is `conformance sim texts`: the provider error texts the
// simulator answers with, each with the date of the newest public record
// the kit read it from, and those older than --max-age. A provider's
// wording cannot be refreshed from here; the date says how old the claim
// is. With --fail, a text older than --max-age fails (exit 1).
func cmdSimTexts(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("sim texts", stderr)
	maxAge := fs.String("max-age", "180d", "list the texts last seen longer ago than this (days, 180d, or a duration, 720h)")
	format := fs.String("format", "text", "text or json")
	fail := fs.Bool("fail", false, "exit 1 when a text is older than --max-age")
	today := fs.String("today", "", "the date to age the texts from (YYYY-MM-DD; default: today)")
	if err := parseArgs(fs, args); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, usagef("texts takes no arguments, got %q", fs.Args())
	}
	age, err := wire.ParseAge(*maxAge)
	if err != nil {
		return 0, usagef("--max-age: %v", err)
	}
	now := time.Now().UTC()
	if *today != "" {
		if now, err = time.Parse(time.DateOnly, *today); err != nil {
			return 0, usagef("--today: want YYYY-MM-DD, not %q", *today)
		}
	}
	old := wire.OlderThan(now, age)
	stale := map[string]bool{}
	for _, t := range old {
		stale[t.ID] = true
	}
	switch *format {
	case "json":
		type entry struct {
			wire.ProviderText
			AgeDays int  `json:"ageDays"`
			Older   bool `json:"olderThanMaxAge"`
		}
		var out struct {
			Today   string  `json:"today"`
			MaxAge  string  `json:"maxAge"`
			Texts   []entry `json:"texts"`
			OlderOf int     `json:"older"`
		}
		out.Today, out.MaxAge, out.OlderOf = now.Format(time.DateOnly), *maxAge, len(old)
		for _, t := range wire.ProviderTexts() {
			out.Texts = append(out.Texts, entry{t, int(t.Age(now).Hours() / 24), stale[t.ID]})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return exitHarness, err
		}
	case "text":
		fmt.Fprintf(stdout, "The simulator's provider texts, each dated by the newest public record it was read from (%s):\n\n", now.Format(time.DateOnly))
		tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSEEN\tAGE\tSTATUS\tSOURCE")
		for _, t := range wire.ProviderTexts() {
			mark := ""
			if stale[t.ID] {
				mark = "  older than " + *maxAge
			}
			fmt.Fprintf(tw, "%s\t%s\t%dd\t%d%s\t%s\n", t.ID, t.Seen, int(t.Age(now).Hours()/24), t.Status, mark, t.Source)
		}
		tw.Flush()
		if len(old) == 0 {
			fmt.Fprintf(stdout, "\nNone is older than %s.\n", *maxAge)
		} else {
			fmt.Fprintf(stdout, "\n%d text(s) older than %s: the provider may answer otherwise now; only a newer public record of the error (its body, with its date) can refresh a text (wire/texts.go, and its pin).\n", len(old), *maxAge)
		}
	default:
		return 0, usagef("--format: want text or json, not %q", *format)
	}
	if *fail && len(old) > 0 {
		return exitFail, nil
	}
	return exitOK, nil
}
