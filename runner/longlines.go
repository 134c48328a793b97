package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/internal/gherkindoc"
)

// godogLine is the longest line godog reads as it is, well under what its
// parser can read: it scans lines with a bufio.Scanner of the default
// size (64 KiB, the line break included), and panics on a longer one. A compiled YAML scenario may hold a longer
// one (a long user message, a model's long text, a long tool input), so
// godog reads a copy whose long lines are shortened, and restore gives
// each scenario its own text when godog runs it.
const godogLine = 60 * 1024

// shortLine is how much of a long line (or table cell) the copy keeps,
// before a digest of the whole that keeps shortened names apart.
const shortLine = 256

// longKey names a scenario as godog knows it.
type longKey struct{ uri, name string }

// forGodog returns the text of a compiled scenario as godog reads it:
// text itself, or, when a line is too long for godog, a copy with every
// long line shortened, whose scenarios are noted to be restored.
func (st *suite) forGodog(doc *gherkindoc.Document, text string) ([]byte, error) {
	short, changed := shortenLines(text)
	if !changed {
		return []byte(text), nil
	}
	sdoc, err := gherkindoc.Parse(doc.URI, short)
	if err != nil || len(sdoc.Pickles) != len(doc.Pickles) {
		return nil, fmt.Errorf("%s: its long lines could not be shortened for godog (%v)", doc.URI, err)
	}
	if st.long == nil {
		st.long = map[longKey]*godog.Scenario{}
	}
	for i, p := range sdoc.Pickles {
		own := doc.Pickles[i]
		if len(p.Steps) != len(own.Steps) {
			return nil, fmt.Errorf("%s: scenario %q: its long lines could not be shortened for godog", doc.URI, own.Name)
		}
		st.long[longKey{p.Uri, p.Name}] = own
	}
	return short, nil
}

// restore gives a scenario godog parsed from a shortened copy its own
// name and steps (godog calls the steps by the pickle's text, and the
// suite's steps read it): called before anything reads the scenario.
func (st *suite) restore(p *godog.Scenario) {
	own, ok := st.long[longKey{p.Uri, p.Name}]
	if !ok {
		return
	}
	p.Name = own.Name
	for i, s := range p.Steps {
		s.Text, s.Argument = own.Steps[i].Text, own.Steps[i].Argument
	}
}

// shortenLines shortens every line of text longer than godogLine, keeping
// its start, and so its kind of line (keyword, doc string, table row with
// its cells); changed says whether any was.
func shortenLines(text string) ([]byte, bool) {
	if !hasLongLine(text) {
		return nil, false
	}
	var b bytes.Buffer
	for line := range strings.Lines(text) {
		body := strings.TrimRight(line, "\r\n")
		end := line[len(body):]
		if len(body) <= godogLine {
			b.WriteString(line)
			continue
		}
		trimmed := strings.TrimLeft(body, " \t")
		if strings.HasPrefix(trimmed, "|") {
			// a table row: each cell on its own, so the row keeps its cells
			cells := strings.Split(body, "|")
			for i, c := range cells {
				if len(c) > shortLine {
					cells[i] = shorten(c)
				}
			}
			b.WriteString(strings.Join(cells, "|"))
		} else {
			b.WriteString(shorten(body))
		}
		b.WriteString(end)
	}
	return b.Bytes(), true
}

func hasLongLine(text string) bool {
	for len(text) > godogLine {
		i := strings.IndexByte(text, '\n')
		if i < 0 || i > godogLine {
			return true
		}
		text = text[i+1:]
	}
	return false
}

// shorten keeps s's first shortLine bytes (whole characters) and a digest
// of all of it.
func shorten(s string) string {
	n := shortLine
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	sum := sha256.Sum256([]byte(s))
	return s[:n] + "… (" + hex.EncodeToString(sum[:8]) + ")"
}
