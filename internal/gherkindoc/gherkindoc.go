// Package gherkindoc parses a Gherkin document and compiles its pickles
// (the scenarios as they run, an outline's rows each on their own), as the
// Gherkin library does, in time linear in the document's size.
//
// The library's AST builder joins a doc string's lines by appending each
// to the text so far, which is quadratic in the doc string's length: the
// compiled YAML scenarios carry JSON doc strings of thousands of lines.
// Parse hands the builder each doc string as one line, joined once; the
// document it builds is the same.
//
// The library's scanner reads lines with a bufio.Scanner of its default
// size, and a line longer than 64 KiB stops it with an error its parser
// then dereferences as a line (a panic). Parse reads the lines itself,
// whatever their length.
package gherkindoc

import (
	"bytes"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Document is a parsed Gherkin file.
type Document struct {
	// URI names the file (the path the suite knows it by).
	URI string
	// Doc is the Gherkin AST, Doc.Uri set to URI.
	Doc *messages.GherkinDocument
	// Pickles are its scenarios as they run, in file order; each one's Uri
	// is URI.
	Pickles []*messages.Pickle
}

// Parse parses src, named uri, in Gherkin's default dialect (English, or
// the dialect a "# language:" line names). The error is the Gherkin
// parser's, prefixed with uri.
func Parse(uri string, src []byte) (*Document, error) {
	newID := (&messages.Incrementing{}).NewId
	ast := gherkin.NewAstBuilder(newID)
	parser := gherkin.NewParser(&docStrings{AstBuilder: ast})
	parser.StopAtFirstError(false)
	matcher := gherkin.NewLanguageMatcher(gherkin.DialectsBuiltin(), gherkin.DefaultDialect)
	if err := parser.Parse(&lines{src: src}, matcher); err != nil {
		return nil, &Error{URI: uri, Err: err}
	}
	doc := ast.GetGherkinDocument()
	doc.Uri = uri
	return &Document{URI: uri, Doc: doc, Pickles: gherkin.Pickles(*doc, uri, newID)}, nil
}

// Error is a document that does not parse.
type Error struct {
	URI string
	Err error
}

func (e *Error) Error() string { return e.URI + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// docStrings passes every token to the AST builder, except a doc string's
// lines: it keeps them and, when the doc string ends, passes them as one
// line holding them all, joined by newlines, which is the text the builder
// would have made of them.
type docStrings struct {
	gherkin.AstBuilder
	in    bool
	lines []*gherkin.Token
}

func (d *docStrings) Build(tok *gherkin.Token) (bool, error) {
	if d.in && tok.Type == gherkin.TokenTypeOther {
		d.lines = append(d.lines, tok)
		return true, nil
	}
	return d.AstBuilder.Build(tok)
}

func (d *docStrings) StartRule(r gherkin.RuleType) (bool, error) {
	if r == gherkin.RuleTypeDocString {
		d.in, d.lines = true, d.lines[:0]
	}
	return d.AstBuilder.StartRule(r)
}

func (d *docStrings) EndRule(r gherkin.RuleType) (bool, error) {
	if r == gherkin.RuleTypeDocString && d.in {
		d.in = false
		if len(d.lines) > 0 {
			texts := make([]string, len(d.lines))
			for i, t := range d.lines {
				texts[i] = t.Text
			}
			joined := *d.lines[0]
			joined.Text = strings.Join(texts, "\n")
			if _, err := d.AstBuilder.Build(&joined); err != nil {
				return false, err
			}
		}
	}
	return d.AstBuilder.EndRule(r)
}

func (d *docStrings) Reset() {
	d.in, d.lines = false, d.lines[:0]
	d.AstBuilder.Reset()
}

// lines is a gherkin.Scanner over a document in memory: the lines as the
// library's scanner gives them (split at "\n", a trailing "\r" dropped,
// then one last empty line at the end), with no limit on a line's length.
type lines struct {
	src []byte
	n   int
}

func (l *lines) Scan() (*gherkin.Line, bool, error) {
	l.n++
	if len(l.src) == 0 {
		return &gherkin.Line{LineNumber: l.n, AtEof: true}, true, nil
	}
	text := l.src
	if i := bytes.IndexByte(l.src, '\n'); i >= 0 {
		text, l.src = l.src[:i], l.src[i+1:]
	} else {
		l.src = nil
	}
	text = bytes.TrimSuffix(text, []byte{'\r'})
	str := string(text)
	return &gherkin.Line{LineText: str, LineNumber: l.n, TrimmedLineText: strings.TrimLeft(str, " \t")}, false, nil
}
