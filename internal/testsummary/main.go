// Command testsummary reads `go test -json` on standard input and prints
// what `go test` prints (a line per package, the output of what failed),
// then every skipped test with the reason it gave, so that a skip is never
// silent. It exits 1 when a test, a package or a build failed.
//
//	go test -json ./... | go run ./internal/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string
	FailedBuild string
}

// skip is a skipped test and why.
type skip struct {
	pkg, test, reason string
}

// summary follows a run.
type summary struct {
	out    io.Writer
	output map[string]*strings.Builder // by package and test
	skips  []skip
	failed bool
}

func key(pkg, test string) string { return pkg + "\x00" + test }

func (s *summary) buffer(k string) *strings.Builder {
	b := s.output[k]
	if b == nil {
		b = &strings.Builder{}
		s.output[k] = b
	}
	return b
}

// add takes one line of input.
func (s *summary) add(line []byte) {
	var e event
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
		fmt.Fprintf(s.out, "%s\n", line) // not an event: the go command's own words
		return
	}
	k := key(e.Package, e.Test)
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.out, e.Output)
	case "build-fail":
		s.failed = true
	case "output":
		s.buffer(k).WriteString(e.Output)
	case "fail":
		s.failed = true
		fmt.Fprint(s.out, s.buffer(k).String())
		if e.Test == "" && !strings.Contains(s.buffer(k).String(), "FAIL\t"+e.Package) {
			fmt.Fprintf(s.out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
		}
		delete(s.output, k)
	case "skip":
		if e.Test != "" {
			s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: reason(s.buffer(k).String())})
		} else {
			fmt.Fprintf(s.out, "?   \t%s\t[no test files]\n", e.Package)
		}
		delete(s.output, k)
	case "pass":
		if e.Test == "" {
			fmt.Fprintf(s.out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
		}
		delete(s.output, k)
	}
}

// reason is what a skipped test said, without the test runner's lines.
func reason(output string) string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		lines = append(lines, t)
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, " ")
}

// finish prints the skips.
func (s *summary) finish() {
	if len(s.skips) == 0 {
		return
	}
	sort.Slice(s.skips, func(i, j int) bool {
		if s.skips[i].pkg != s.skips[j].pkg {
			return s.skips[i].pkg < s.skips[j].pkg
		}
		return s.skips[i].test < s.skips[j].test
	})
	fmt.Fprintf(s.out, "\nSKIPPED: %d test(s) did not run:\n", len(s.skips))
	for _, k := range s.skips {
		fmt.Fprintf(s.out, "SKIP\t%s\t%s: %s\n", k.pkg, k.test, k.reason)
	}
}

func run(in io.Reader, out io.Writer) (failed bool, err error) {
	s := &summary{out: out, output: map[string]*strings.Builder{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		s.add(sc.Bytes())
	}
	s.finish()
	return s.failed, sc.Err()
}

func main() {
	failed, err := run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary: reading the test events:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
