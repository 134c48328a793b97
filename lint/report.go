package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/transcript"
)

// FileReport is the lint of one file: its result, or why it could not be
// read.
type FileReport struct {
	File string `json:"file"`
	*Result
	Error *ReadError `json:"error,omitempty"`
}

// ReadError is an input that could not be read.
type ReadError struct {
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Offset  int64  `json:"offset"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// Report is the lint of several files (what --format json prints).
type Report struct {
	// Version is the version of this document's shape
	// (docs/schemas/lint.schema.json).
	Version  int          `json:"version"`
	Files    []FileReport `json:"files"`
	Findings int          `json:"findings"`
	// Unreadable counts the files that could not be read.
	Unreadable int `json:"unreadable"`
}

// ExitCode is 0 when every file was read and is clean, 1 when a file has
// findings, 2 when a file could not be read.
func (r *Report) ExitCode() int {
	switch {
	case r.Unreadable > 0:
		return 2
	case r.Findings > 0:
		return 1
	}
	return 0
}

// Add records a file's lint: its result and read error (a
// *transcript.Error, or another error naming the file).
func (r *Report) Add(file string, res *Result, err error) {
	fr := FileReport{File: file, Result: res}
	if err != nil {
		fr.Error = &ReadError{Message: err.Error()}
		var te *transcript.Error
		if errors.As(err, &te) {
			fr.Error = &ReadError{Message: te.Msg, Field: te.Field, Offset: te.Offset}
		}
		r.Unreadable++
	}
	if res != nil {
		r.Findings += len(res.Findings)
	}
	r.Files = append(r.Files, fr)
	r.Version = 1
}

// Offsets lists the offsets of a file's findings, notes and error, to be
// located (transcript.Locate).
func (f *FileReport) Offsets() []int64 {
	var out []int64
	if f.Result != nil {
		for _, x := range f.Findings {
			out = append(out, x.Offset)
		}
		for _, n := range f.Notes {
			out = append(out, n.Offset)
		}
		for _, p := range f.Parts {
			out = append(out, p.Offset)
		}
	}
	if f.Error != nil {
		out = append(out, f.Error.Offset)
	}
	return out
}

// Place fills lines and columns from located offsets.
func (f *FileReport) Place(pos map[int64]transcript.Pos) {
	if f.Result != nil {
		for i := range f.Findings {
			p := pos[f.Findings[i].Offset]
			f.Findings[i].Line, f.Findings[i].Column = p.Line, p.Column
		}
		for i := range f.Notes {
			f.Notes[i].Line = pos[f.Notes[i].Offset].Line
		}
		for i := range f.Parts {
			f.Parts[i].Line = pos[f.Parts[i].Offset].Line
		}
	}
	if f.Error != nil {
		p := pos[f.Error.Offset]
		f.Error.Line, f.Error.Column = p.Line, p.Column
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for people: per finding, where it is, the
// check, what is wrong, and what the provider answers.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Files {
		if f.Error != nil {
			fmt.Fprintf(&b, "%s: cannot read: %s\n", where(f.File, f.Error.Line, f.Error.Column, f.Error.Offset), errorText(f.Error))
			continue
		}
		res := f.Result
		fmt.Fprintf(&b, "%s: %s, %s, %s", f.File, res.Format.Describe(), plural(res.Requests, "request"), plural(res.Messages, "message"))
		if len(res.Profiles) > 0 {
			var ps []string
			for _, p := range res.Profiles {
				ps = append(ps, string(p))
			}
			fmt.Fprintf(&b, " (provider rules: %s)", strings.Join(ps, ", "))
		}
		b.WriteString("\n")
		for _, x := range res.Findings {
			place := where(f.File, x.Line, x.Column, x.Offset)
			fmt.Fprintf(&b, "%s: ", place)
			if res.Requests > 1 || x.Call > 0 {
				fmt.Fprintf(&b, "request %d", x.Request)
				if x.Call > 0 {
					what := "model call"
					if x.ChatRequest {
						what = "chat request"
					}
					fmt.Fprintf(&b, " (%s %d", what, x.Call)
					if x.Scenario != "" {
						fmt.Fprintf(&b, " of %s", x.Scenario)
					} else if x.Conversation != "" {
						fmt.Fprintf(&b, " of conversation %s", x.Conversation)
					}
					b.WriteString(")")
				}
				b.WriteString(", ")
			}
			if x.Path != "" {
				fmt.Fprintf(&b, "%s: ", x.Path)
			}
			check := x.Check
			if len(x.Also) > 0 {
				check += " (also " + strings.Join(x.Also, ", ") + ")"
			}
			fmt.Fprintf(&b, "%s %s %s: %s\n", check, strings.ToUpper(x.Level), x.Kind, x.Detail)
			if p := x.Provider; p != nil {
				inferred := ""
				if p.Inferred {
					inferred = " (inferred: no string on record for this case)"
				}
				fmt.Fprintf(&b, "    %s answers HTTP %d %s: %s%s\n", p.Profile, p.Status, p.Type, p.Message, inferred)
				fmt.Fprintf(&b, "    body: %s\n", p.Body)
			}
		}
		writeParts(&b, f.File, res)
		for _, n := range res.Notes {
			fmt.Fprintf(&b, "%s: note: ", where(f.File, n.Line, 0, n.Offset))
			if n.Field != "" {
				fmt.Fprintf(&b, "%s: ", n.Field)
			}
			fmt.Fprintf(&b, "%s\n", n.Text)
		}
		if len(res.Findings) == 0 {
			fmt.Fprintf(&b, "%s: clean\n", f.File)
		} else {
			fmt.Fprintf(&b, "%s: %s\n", f.File, plural(len(res.Findings), "finding"))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func errorText(e *ReadError) string {
	if e.Field != "" && !strings.HasPrefix(e.Message, e.Field) {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

func where(file string, line, col int, offset int64) string {
	switch {
	case line > 0 && col > 0:
		return fmt.Sprintf("%s:%d:%d", file, line, col)
	case line > 0:
		return fmt.Sprintf("%s:%d", file, line)
	case offset == 0:
		return file
	}
	return fmt.Sprintf("%s: byte %d", file, offset)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeParts says what each tool part of a UI history becomes: every part
// of a short history, the parts that do not simply become a call with its
// result in a long one.
func writeParts(b *strings.Builder, file string, res *Result) {
	if len(res.Parts) == 0 {
		return
	}
	all := len(res.Parts) <= 50
	counts := map[string]int{}
	var kinds []string
	for _, p := range res.Parts {
		if counts[p.Becomes] == 0 {
			kinds = append(kinds, p.Becomes)
		}
		counts[p.Becomes]++
		if !all && (p.Becomes == BecomesResult || p.Becomes == BecomesDenial) && len(p.Elsewhere) == 0 {
			continue
		}
		fmt.Fprintf(b, "%s: %s: %s", where(file, p.Line, 0, p.Offset), p.Path, p.ToolCallID)
		if p.ToolName != "" {
			fmt.Fprintf(b, " (%s)", p.ToolName)
		}
		fmt.Fprintf(b, " %s -> %s (%s): %s\n", p.State, p.Becomes, p.Runtime, p.Detail)
		for _, e := range p.Elsewhere {
			fmt.Fprintf(b, "    %s: %s: %s\n", e.Runtime, e.Becomes, e.Detail)
		}
	}
	var sum []string
	for _, k := range kinds {
		sum = append(sum, fmt.Sprintf("%d %s", counts[k], k))
	}
	fmt.Fprintf(b, "%s: %s as %s converts them: %s\n", file, plural(len(res.Parts), "tool part"), res.Runtime, strings.Join(sum, ", "))
}
