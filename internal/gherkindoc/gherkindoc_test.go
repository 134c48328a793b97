package gherkindoc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/features"
	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/scenarios"
)

// library parses src as the Gherkin library does on its own.
func library(t *testing.T, uri string, src []byte) *Document {
	t.Helper()
	newID := (&messages.Incrementing{}).NewId
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(src), newID)
	if err != nil {
		t.Fatalf("%s: the library refuses it: %v", uri, err)
	}
	doc.Uri = uri
	return &Document{URI: uri, Doc: doc, Pickles: gherkin.Pickles(*doc, uri, newID)}
}

func same(t *testing.T, uri string, src []byte) {
	t.Helper()
	got, err := Parse(uri, src)
	if err != nil {
		t.Fatalf("%s: %v", uri, err)
	}
	if diff := cmp.Diff(library(t, uri, src), got); diff != "" {
		t.Errorf("%s: the document differs from the library's (-library +Parse):\n%s", uri, diff)
	}
}

// Every document of the suite parses to what the library makes of it: the
// features and every compiled YAML scenario.
func TestSuiteParsesAsTheLibraryParsesIt(t *testing.T) {
	err := fs.WalkDir(features.FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".feature") {
			return err
		}
		src, err := fs.ReadFile(features.FS, name)
		if err != nil {
			return err
		}
		same(t, name, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := scenario.LoadFS(scenarios.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text, err := scenario.Compile(f)
		if err != nil {
			t.Fatal(err)
		}
		same(t, f.Path, []byte(text))
	}
}

// Doc strings of every shape: empty, one line, blank lines inside and at
// the ends, indentation kept and stripped, escaped delimiters, backticks,
// a media type, in a background, an outline and a rule, beside tables.
func TestDocStringsParseAsTheLibraryParsesThem(t *testing.T) {
	src := "# a comment\n@tag\nFeature: doc strings\n  Some description\n\n  Background:\n    Given a step:\n      \"\"\"\n      in the background\n      \"\"\"\n\n" +
		"  Scenario: shapes\n    Given an empty one:\n      \"\"\"\n      \"\"\"\n    And one line:\n      \"\"\"json\n      {\"a\": 1}\n      \"\"\"\n" +
		"    And blank lines:\n      \"\"\"\n\n      first\n\n        indented\n      \\\"\\\"\\\" escaped\n\n      \"\"\"\n" +
		"    And backticks:\n      ```\n      a\n      b\n      ```\n    And a table:\n      | a | b |\n      | 1 | 2 |\n\n" +
		"  Rule: a rule\n    Scenario Outline: rows <n>\n      Given a doc:\n        \"\"\"\n        row <n>\n        of <n>\n        \"\"\"\n\n      Examples:\n        | n |\n        | 1 |\n        | 2 |\n"
	same(t, "shapes.feature", []byte(src))
}

// A doc string of thousands of lines parses to the library's text.
func TestLongDocString(t *testing.T) {
	var b strings.Builder
	b.WriteString("Feature: long\n  Scenario: long\n    Given a doc:\n      \"\"\"\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "      line %d\n", i)
	}
	b.WriteString("      \"\"\"\n")
	same(t, "long.feature", []byte(b.String()))
}

// A document the library refuses is refused, named by its uri.
func TestErrorNamesTheFile(t *testing.T) {
	_, err := Parse("bad.feature", []byte("Feature: bad\n  Scenario: x\n    Given a doc:\n      \"\"\"\n      never closed\n"))
	var perr *Error
	if !errors.As(err, &perr) || perr.URI != "bad.feature" || !strings.HasPrefix(err.Error(), "bad.feature: ") {
		t.Fatalf("got %v", err)
	}
	if _, lerr := gherkin.ParseGherkinDocument(strings.NewReader("Feature: bad\n  Scenario: x\n    Given a doc:\n      \"\"\"\n      never closed\n"), (&messages.Incrementing{}).NewId); lerr == nil || perr.Err.Error() != lerr.Error() {
		t.Errorf("the error %q is not the library's %v", perr.Err, lerr)
	}
}

// BenchmarkParse parses the longest compiled YAML scenario, beside the
// library parsing it on its own (the baseline), whose doc strings cost
// time quadratic in their length.
func BenchmarkParse(b *testing.B) {
	files, err := scenario.LoadFS(scenarios.FS, ".")
	if err != nil {
		b.Fatal(err)
	}
	var longest string
	var uri string
	for _, f := range files {
		text, err := scenario.Compile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(text) > len(longest) {
			longest, uri = text, f.Path
		}
	}
	src := []byte(longest)
	b.Run("gherkindoc", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if _, err := Parse(uri, src); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=gherkin", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			newID := (&messages.Incrementing{}).NewId
			doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(src), newID)
			if err != nil {
				b.Fatal(err)
			}
			gherkin.Pickles(*doc, uri, newID)
		}
	})
}

// A line longer than the library's scanner reads (64 KiB) parses: in a
// step's text, in a doc string, in a table; the document is what the
// library makes of the same document with the long text short, the long
// text in its place.
func TestLongLines(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	src := "Feature: f\n\n  Scenario: s\n    Given a step \"" + long + "\"\n    And a doc:\n      \"\"\"\n      " + long + "\n      \"\"\"\n    And a table:\n      | " + long + " | b |\r\n"
	doc, err := Parse("long.feature", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pickles) != 1 || len(doc.Pickles[0].Steps) != 3 {
		t.Fatalf("want one scenario of 3 steps, got %+v", doc.Pickles)
	}
	st := doc.Pickles[0].Steps
	if st[0].Text != "a step \""+long+"\"" {
		t.Errorf("the step's text is %d bytes, want the long line's", len(st[0].Text))
	}
	if st[1].Argument.DocString.Content != long {
		t.Errorf("the doc string is %d bytes, want %d", len(st[1].Argument.DocString.Content), len(long))
	}
	if c := st[2].Argument.DataTable.Rows[0].Cells; c[0].Value != long || c[1].Value != "b" {
		t.Errorf("the table's row is %d bytes and %q", len(c[0].Value), c[1].Value)
	}
	short := strings.ReplaceAll(src, long, "y")
	want := library(t, "long.feature", []byte(short))
	got, err := Parse("long.feature", []byte(short))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-library +Parse):\n%s", diff)
	}
}

// The lines end as the library's do: "\n" or "\r\n", the last one with or
// without a line break.
func TestLineEnds(t *testing.T) {
	for _, src := range []string{
		"Feature: f\n  Scenario: s\n    Given x\n",
		"Feature: f\r\n  Scenario: s\r\n    Given x\r\n",
		"Feature: f\n  Scenario: s\n    Given x",
		"Feature: f\n  Scenario: s\n    Given x\n\n\n",
		"",
		"\n",
	} {
		same(t, fmt.Sprintf("%q", src), []byte(src))
	}
}
