package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/regression"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// cmdFromTranscript is `conformance scenario from-transcript FILE`: a YAML
// regression scenario that reproduces a recorded conversation and asserts
// what went wrong in it. Exit 0 written, 1 nothing went wrong, 2 a file
// that cannot be read.
func cmdFromTranscript(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("scenario from-transcript", stderr)
	id := fs.String("id", "", "the scenario's id (default: regression-<the file's name>)")
	only := fs.String("conversation", "", "the conversation of a journal to reproduce (default: the first that went wrong)")
	out := fs.String("out", "-", "where to write: a .yaml (or .yml) file, a folder (created if need be; the file is <id>.yaml in it), or - for stdout")
	input := fs.String("input-format", "auto", "the file's format (see conformance lint)")
	profile := fs.String("provider", "openai-chat", "the provider for conversations that have none of their own")
	ooc := fs.String("out-of-contract", "", "why the recorded input is one no conforming client sends (a hand-built history, a replayed answer): tags the scenario out-of-contract, where only ran-against-answer, forged and crashed are MUST")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) != 1 {
		return 0, usagef("from-transcript: give one transcript")
	}
	in, err := transcript.ParseFormat(*input)
	if err != nil {
		return 0, usagef("from-transcript: --input-format: %v", err)
	}
	p, err := wire.ParseProfile(*profile)
	if err != nil {
		return 0, describeFlagErr("provider", err)
	}
	name := files[0]
	data, err := os.ReadFile(name)
	if err != nil {
		return exitHarness, err
	}
	res, err := lint.Read(strings.NewReader(string(data)), lint.Options{Format: in, Profile: p})
	if err != nil {
		return exitHarness, placed(name, err)
	}
	convs, err := transcript.ReadConversations(strings.NewReader(string(data)), transcript.Options{Format: in, Profile: p})
	if err != nil {
		return exitHarness, placed(name, err)
	}
	var src *regression.Source
	for _, c := range convs {
		if *only != "" && c.ID != *only {
			continue
		}
		s := regression.Source{File: name, Conversation: c, Single: len(convs) == 1}
		for _, f := range res.Findings {
			if len(convs) == 1 || f.Scenario == c.ID || f.Conversation == c.ID {
				s.Findings = append(s.Findings, f)
			}
		}
		if len(s.Findings) > 0 || *only != "" {
			src = &s
			break
		}
	}
	if src == nil && *only != "" {
		return exitHarness, fmt.Errorf("%s: no conversation %q", name, *only)
	}
	if src == nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, regression.ErrNothingWrong)
		return exitFail, nil
	}
	if regression.ClientRequest(src.Conversation) {
		fmt.Fprintf(stderr, "%s: note: %s\n", name, strings.ReplaceAll(regression.ClientNotice, "\n", " "))
	}
	yaml, err := regression.Scenario(*src, regression.Options{ID: *id, OutOfContract: *ooc})
	if errors.Is(err, regression.ErrNothingWrong) {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitFail, nil
	}
	if err != nil {
		return exitHarness, err
	}
	if *out == "-" {
		_, err = stdout.Write(yaml)
		return exitOK, err
	}
	path, err := outPath(*out, scenarioIDOf(yaml))
	if err != nil {
		return exitHarness, err
	}
	if err := os.WriteFile(path, yaml, 0o644); err != nil {
		return exitHarness, err
	}
	dir := filepath.Dir(path)
	fmt.Fprintf(stdout, "%s: written\n  run it against your target: conformance run --target URL --scenarios %s --tags @regression\n  against the reference:      conformance run --reference --scenarios %s --tags @regression\n", path, dir, dir)
	return exitOK, nil
}

// outPath is the file --out names: a path ending in .yaml or .yml is the
// file (its folder created if need be); anything else is a folder,
// created if need be, and the file is <id>.yaml in it. A scenario file
// without the extension would never be found by run --scenarios.
func outPath(out, id string) (string, error) {
	if ext := strings.ToLower(filepath.Ext(out)); ext == ".yaml" || ext == ".yml" {
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return "", fmt.Errorf("--out: %w", err)
		}
		return out, nil
	}
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return "", fmt.Errorf("--out %s: a file without a .yaml extension (give a .yaml path, or a folder)", out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	return filepath.Join(out, id+".yaml"), nil
}

// scenarioIDOf reads the id line the writer puts first.
func scenarioIDOf(yaml []byte) string {
	for _, line := range strings.Split(string(yaml), "\n") {
		if v, ok := strings.CutPrefix(line, "id: "); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return "regression"
}

// placed names a transcript that cannot be read as lint does: the file,
// the line and the column of the value at fault ("file:6:3: ..."), not its
// byte offset.
func placed(name string, err error) error {
	var te *transcript.Error
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", name, err)
	}
	f, oerr := os.Open(name)
	if oerr != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	pos, _ := transcript.Locate(f, []int64{te.Offset})
	var at string
	if p := pos[te.Offset]; p.Line > 0 {
		at = fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
	} else {
		at = fmt.Sprintf("%s: byte %d", name, te.Offset)
	}
	msg := te.Msg
	if te.Field != "" && !strings.HasPrefix(msg, te.Field) {
		msg = te.Field + ": " + msg
	}
	return fmt.Errorf("%s: cannot read: %s", at, msg)
}
