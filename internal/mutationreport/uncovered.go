package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// runner runs the suite against mutants gremlins left unrun. Gremlins runs
// a mutant only when its position lies in a block the coverage profile
// marks as run, and a switch's case expressions lie in no block at all: a
// mutated `case a != b:` that the suite does run is reported as not
// covered. So every viable not-covered mutant is run here, with the test
// gremlins runs (go test -tags mutation PKG), in a copy of the module.
type runner struct {
	copyDir string
	timeout time.Duration
	log     io.Writer
}

// skipDirs are not copied: nothing the test builds lives there.
var skipDirs = map[string]bool{".git": true, "bin": true, "reports": true, "node_modules": true}

// newRunner copies the module at root to a temporary directory.
func newRunner(root string, timeout time.Duration, log io.Writer) (*runner, error) {
	dir, err := os.MkdirTemp("", "mutationreport-*")
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, info.Mode().Perm())
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("copy the module: %w", err)
	}
	return &runner{copyDir: dir, timeout: timeout, log: log}, nil
}

func (r *runner) close() { os.RemoveAll(r.copyDir) }

// run applies the mutant to the copy, runs the suite, and puts the file
// back. It returns the mutant's status: killed (the test failed), timed
// out, or notCovered when it survives (the suite passed: gremlins' reading
// of the coverage stands).
func (r *runner) run(m *mutant) (string, error) {
	file := filepath.Join(r.copyDir, filepath.FromSlash(m.File))
	orig, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	mutated, err := mutatedSource(orig, m)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return "", err
	}
	defer os.WriteFile(file, orig, 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-tags", "mutation", "-count=1", "-vet=off", "./"+path.Dir(m.File))
	cmd.Dir = r.copyDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return timedOut, nil
	case err == nil:
		return notCovered, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1 && !strings.Contains(out.String(), "[build failed]"):
		return killed, nil
	default:
		return "", fmt.Errorf("%s: go test: %v\n%s", m.at(), err, tail(out.String(), 2000))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
