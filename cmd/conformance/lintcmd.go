package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// cmdLint is `conformance lint FILE...`: what a provider would reject and
// what breaks pre-resolution in recorded conversations. Exit 0 clean, 1
// findings, 2 an unreadable file.
func cmdLint(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("lint", stderr)
	format := fs.String("format", "text", "output: text or json (docs/schemas/lint.schema.json)")
	input := fs.String("input-format", "auto", "the files' format: auto, canonical, openai-chat, openai-responses, anthropic-messages, ui-messages, ag-ui, ag-ui-events, journal, langchain, gemini")
	profile := fs.String("provider", "openai-chat", "the provider whose rules apply to conversations that have none of their own (canonical, UI messages, AG-UI, LangChain, Gemini, journaled prompts): openai-chat, openai-responses, anthropic-messages")
	runtime := fs.String("runtime", "reference", "the chat server whose conversion of UI messages applies: reference, vercel-ai@6.0.326, vercel-ai@7.0.173, tanstack@0.22.1, tanstack@0.33.2 (docs/transcripts.md)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: conformance lint [--format text|json] [--input-format F] [--provider P] [--runtime NAME@VERSION] FILE... (- for stdin)\n\n")
		fs.PrintDefaults()
	}
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		return 0, usagef("give one or more files (- for stdin)")
	}
	if *format != "text" && *format != "json" {
		return 0, usagef("--format %q: want text or json", *format)
	}
	in, err := transcript.ParseFormat(*input)
	if err != nil {
		return 0, usagef("--input-format: %v", err)
	}
	p, err := wire.ParseProfile(*profile)
	if err != nil {
		return 0, usagef("--provider: %v", err)
	}
	rt, err := lint.ParseRuntime(*runtime)
	if err != nil {
		return 0, usagef("--runtime: %v", err)
	}
	rep := &lint.Report{}
	for _, name := range files {
		lintFile(rep, name, lint.Options{Format: in, Profile: p, Runtime: rt})
	}
	if *format == "json" {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	return rep.ExitCode(), err
}

// lintFile lints one file (or stdin) into the report, then locates the
// findings' lines by reading a regular file once more.
func lintFile(rep *lint.Report, name string, opts lint.Options) {
	var r io.Reader = os.Stdin
	label := name
	if name == "-" {
		label = "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			rep.Add(name, nil, err)
			return
		}
		defer f.Close()
		r = f
	}
	res, err := lint.Read(r, opts)
	if err != nil {
		res = nil
	}
	rep.Add(label, res, err)
	fr := &rep.Files[len(rep.Files)-1]
	if name == "-" {
		return
	}
	f, err := os.Open(name)
	if err != nil {
		return // positions stay byte offsets
	}
	defer f.Close()
	if pos, err := transcript.Locate(f, fr.Offsets()); err == nil {
		fr.Place(pos)
	}
}

// parseWithFiles parses flags that may come before, between or after the
// file arguments, and returns the files.
func parseWithFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := parseArgs(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}
