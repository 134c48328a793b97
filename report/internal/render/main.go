// Command render runs the conformance suite against the in-process
// reference (or one of its mutants), writes the report files, and renders
// report.html with headless Chromium to report.png next to them. It backs
// `make report-render`:
//
//	go run ./report/internal/render [-mutant NAME] [-root reports] [-chromium /usr/bin/chromium]
//
// It prints the report directory (reports/<target>/<timestamp>/) and the
// files in it. It exits 0 when the report was written and rendered,
// whatever the run's result, and 2 when it could not be.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/report/internal/chromium"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(2)
	}
}

func run() error {
	mutant := flag.String("mutant", "", "run against this mutant of the reference instead of the reference")
	root := flag.String("root", "reports", "the directory that holds the reports")
	browser := flag.String("chromium", chromium.DefaultPath, "the Chromium executable")
	width := flag.Int("width", 1280, "window width for the screenshot")
	height := flag.Int("height", 2000, "window height for the screenshot")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var res *report.Run
	var err error
	if *mutant != "" {
		// A mutant runs as its own program (the kit built with its change).
		m, err := mutants.Lookup(*mutant)
		if err != nil {
			return err
		}
		b, err := mutants.NewBuilder()
		if err != nil {
			return err
		}
		defer b.Close()
		if res, err = b.Run(ctx, m); err != nil {
			return err
		}
	} else {
		tgt := inprocess.New(reference.New(), "reference")
		defer tgt.Close()
		if res, err = runner.Run(ctx, runner.Options{Target: tgt}); err != nil {
			return err
		}
	}
	dir := report.DefaultDir(*root, res.Target, res.Started)
	files, err := report.WriteDir(dir, res)
	if err != nil {
		return err
	}
	png := filepath.Join(dir, "report.png")
	b := chromium.Browser{Path: *browser, Width: *width, Height: *height}
	if !b.Available() {
		return fmt.Errorf("%s not found: install Chromium (Debian: apt-get install chromium) or pass -chromium", b.Path)
	}
	if err := b.Screenshot(ctx, filepath.Join(dir, "report.html"), png); err != nil {
		return err
	}
	fmt.Printf("%s: %s (%s)\n", res.Target, res.Result(), dir)
	for _, f := range append(files, png) {
		fmt.Println("  " + f)
	}
	return nil
}
