package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const source = `package p

func f(a, b int) bool {
	if a == b && a > 0 {
		return true
	}
	return a == b && a+1 > 0
}

func g(s string) string { return s + "!" }
`

// gremlinsResults are gremlins' findings in p/p.go: on line 4 a killed mutant, a
// survivor and one the suite never ran; on line 7 the same survivor as on
// line 4 (same mutation, another line), one that hung the suite and one
// that does not compile; on line 10 a string concatenation turned into a
// subtraction, which gremlins reports as not covered (it compiles only what
// the suite runs) and which does not compile either.
const gremlinsResults = `{"go_module":"m","files":[{"file_name":"p.go","mutations":[
{"line":4,"column":7,"type":"CONDITIONALS_NEGATION","status":"KILLED"},
{"line":4,"column":12,"type":"INVERT_LOGICAL","status":"LIVED"},
{"line":4,"column":17,"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED"},
{"line":7,"column":11,"type":"CONDITIONALS_NEGATION","status":"LIVED"},
{"line":7,"column":16,"type":"INVERT_LOGICAL","status":"TIMED OUT"},
{"line":7,"column":20,"type":"ARITHMETIC_BASE","status":"NOT VIABLE"},
{"line":10,"column":36,"type":"ARITHMETIC_BASE","status":"NOT COVERED"}]}]}`

// fixture writes a module root holding p/p.go, gremlins' results for it
// (run in p) and an equivalence file.
func fixture(t *testing.T, equivalent string) (root string) {
	t.Helper()
	root = t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("p/p.go", source)
	write("gremlins.json", gremlinsResults)
	write("equivalent.yaml", equivalent)
	return root
}

func runIn(t *testing.T, root string) (code int, stdout, report string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run([]string{"-run-uncovered=false", "-root", root, "-dir", "p", "-results", filepath.Join(root, "gremlins.json"),
		"-equivalent", filepath.Join(root, "equivalent.yaml"), "-out", filepath.Join(root, "mutation.md")}, &out, &errs)
	if errs.Len() > 0 {
		t.Logf("stderr: %s", errs.String())
	}
	md, _ := os.ReadFile(filepath.Join(root, "mutation.md"))
	return code, out.String(), string(md)
}

const allExplained = `
- at: p/p.go:4:12
  mutation: INVERT_LOGICAL
  code: if a == b && a > 0 {
  reason: a is positive whenever it equals b here
- at: p/p.go:4:17
  mutation: CONDITIONALS_BOUNDARY
  code: if a == b && a > 0 {
  reason: never run; a is never 0
- at: p/p.go:9:11
  mutation: CONDITIONALS_NEGATION
  code: return a == b && a+1 > 0
  gap: listed when the line was lower down; the kit cannot see it
`

func TestEverySurvivorExplained(t *testing.T) {
	code, out, md := runIn(t, fixture(t, allExplained))
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	// Caught: the killed and the timed-out mutant; viable: all but the two
	// that do not compile.
	if !strings.Contains(out, "Mutation score: 2/5 caught (killed 1, timed out 1; lived 2, not covered 1; 2 not viable)") {
		t.Errorf("summary: %s", out)
	}
	for _, want := range []string{
		"**Mutation score: 2/5** mutants caught (40.0%).",
		"| `p/p.go` | 2 | 3 | 2 |",
		"| `p` | 2/5 (40.0%) |",
		"| `p/p.go:4:12` | INVERT_LOGICAL `&&`→`\\|\\|` | `if a == b && a > 0 {` | `if a == b \\|\\| a > 0 {` | lived | equivalent: a is positive whenever it equals b here |",
		"| `p/p.go:4:17` | CONDITIONALS_BOUNDARY `>`→`>=` | `if a == b && a > 0 {` | `if a == b && a >= 0 {` | not covered | equivalent: never run; a is never 0 |",
		"| `p/p.go:7:11` | CONDITIONALS_NEGATION `==`→`!=` | `return a == b && a+1 > 0` | `return a != b && a+1 > 0` | lived | **kit gap**: listed when the line was lower down; the kit cannot see it |",
		"Of the 3 survivors, 2 are equivalent (they break no rule) and 1 break a rule the kit cannot see yet",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q\n%s", want, md)
		}
	}
	if strings.Contains(md, "4:7") || strings.Contains(md, "7:16") || strings.Contains(md, "7:20") {
		t.Errorf("the survivors' table lists a mutant that did not survive:\n%s", md)
	}
}

func TestUnexplainedAndStale(t *testing.T) {
	// The survivor on line 7 is not listed; the entry for the killed mutant
	// on line 4 is stale, as is one whose code changed.
	equivalent := `
- at: p/p.go:4:12
  mutation: INVERT_LOGICAL
  code: if a == b && a > 0 {
  reason: r
- at: p/p.go:4:17
  mutation: CONDITIONALS_BOUNDARY
  code: if a == b && a > 0 {
  reason: r
- at: p/p.go:4:7
  mutation: CONDITIONALS_NEGATION
  code: if a == b && a > 0 {
  reason: the suite kills this one
`
	code, out, md := runIn(t, fixture(t, equivalent))
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"unexplained survivor: p/p.go:7:11 CONDITIONALS_NEGATION ==→!= (lived): return a == b && a+1 > 0",
		"equivalent.yaml:10: p/p.go:4:7 CONDITIONALS_NEGATION: if a == b && a > 0 {",
		"1 unexplained survivors, 1 stale entries",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q\n%s", want, out)
		}
	}
	if !strings.Contains(md, "**unexplained**") || !strings.Contains(md, "## Stale entries") {
		t.Errorf("the report does not show the unexplained survivor and the stale entry:\n%s", md)
	}
}

func TestEquivalentFileErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"missing reason", "- at: p/p.go:4:12\n  mutation: INVERT_LOGICAL\n  code: x\n", "equivalent.yaml:1: reason is missing"},
		{"unknown field", "- at: p/p.go:4:12\n  mutation: INVERT_LOGICAL\n  code: x\n  reason: r\n- at: p/p.go:4:12\n  mutaton: INVERT_LOGICAL\n", "equivalent.yaml:5: yaml: unmarshal errors:\n  line 2: field mutaton not found"},
		{"bad at", "- at: p/p.go:4\n  mutation: INVERT_LOGICAL\n  code: x\n  reason: r\n", `equivalent.yaml:1: at: want file:line:column, not "p/p.go:4"`},
		{"unknown type", "- at: p/p.go:4:1\n  mutation: NEGATE\n  code: x\n  reason: r\n", `equivalent.yaml:1: mutation: unknown mutation type "NEGATE"`},
		{"not a list", "at: p/p.go:4:1\n", "equivalent.yaml:1: want a list of mutants"},
		{"reason and gap", "- at: p/p.go:4:1\n  mutation: INVERT_LOGICAL\n  code: x\n  reason: r\n  gap: g\n", "equivalent.yaml:1: reason and gap both given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readEquivalent("equivalent.yaml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestResultsThatDoNotFitTheSource(t *testing.T) {
	for _, tc := range []struct{ name, results, want string }{
		{"no token there", `{"files":[{"file_name":"p.go","mutations":[{"line":4,"column":8,"type":"CONDITIONALS_NEGATION","status":"LIVED"}]}]}`, "p/p.go:4:8: no token starts there"},
		{"a type that does not mutate the token", `{"files":[{"file_name":"p.go","mutations":[{"line":4,"column":7,"type":"INVERT_LOGICAL","status":"LIVED"}]}]}`, `p/p.go:4:7: INVERT_LOGICAL does not mutate "=="`},
		{"a dry run", `{"files":[{"file_name":"p.go","mutations":[{"line":4,"column":7,"type":"CONDITIONALS_NEGATION","status":"RUNNABLE"}]}]}`, "a dry run"},
		{"no mutant", `{"files":[]}`, "no mutant"},
		{"line past the end", `{"files":[{"file_name":"p.go","mutations":[{"line":40,"column":7,"type":"CONDITIONALS_NEGATION","status":"LIVED"}]}]}`, "the file has 10 lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fixture(t, "[]")
			_, err := readResults(strings.NewReader(tc.results), "p", newSources(root))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestUncoveredMutantsAreRun: a mutant gremlins reports as not covered is
// run against the package's mutation test; one that the test kills counts
// as killed, one that survives stays not covered.
func TestUncoveredMutantsAreRun(t *testing.T) {
	root := fixture(t, allExplained)
	// The mutation test: f(0, 0) is false, so a > 0 made a >= 0 (4:17)
	// fails it. Nothing tests line 7's a == b (7:11, lived: not run here).
	test := "//go:build mutation\n\npackage p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif f(0, 0) != (0 > 0) {\n\t\tt.Fatal(\"f(0, 0)\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p", "p_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"-root", root, "-dir", "p", "-results", filepath.Join(root, "gremlins.json"),
		"-equivalent", filepath.Join(root, "equivalent.yaml"), "-out", filepath.Join(root, "mutation.md")}, &out, &errs)
	// 4:17 is killed now, so its entry is stale.
	if code != 1 || !strings.Contains(out.String(), "stale entry: ") || !strings.Contains(out.String(), "p/p.go:4:17 CONDITIONALS_BOUNDARY") {
		t.Errorf("exit %d, want 1 with the entry of 4:17 stale\n%s\n%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "Mutation score: 3/5 caught (killed 2, timed out 1; lived 2, not covered 0; 2 not viable)") {
		t.Errorf("summary: %s", out.String())
	}
	if !strings.Contains(errs.String(), "1/1 p/p.go:4:17 CONDITIONALS_BOUNDARY: killed") {
		t.Errorf("progress: %s", errs.String())
	}
	md, _ := os.ReadFile(filepath.Join(root, "mutation.md"))
	if !strings.Contains(string(md), "| of which gremlins reported not covered | 1 |") {
		t.Errorf("the report does not count the mutant killed here:\n%s", md)
	}
}

// TestMutatedSourceKeepsTheGrouping: gremlins changes the operator in the
// syntax tree and prints it; the first && of a chain mutated groups what it
// joined, as the tree does.
func TestMutatedSourceKeepsTheGrouping(t *testing.T) {
	src := "package p\n\nfunc f(a, b, c bool) bool {\n\treturn a && b && c\n}\n"
	m := &mutant{File: "p.go", Line: 4, Column: 11, Type: "INVERT_LOGICAL", Before: "&&", After: "||"}
	out, err := mutatedSource([]byte(src), m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\treturn (a || b) && c\n") {
		t.Errorf("mutated:\n%s", out)
	}
}

// TestMatchKeepsIdenticalLinesApart: survivors on identical lines (a lone
// `continue`) each take the entry at their own line first; a survivor
// whose line has no entry does not take another line's; a line that moved
// takes the nearest entry left.
func TestMatchKeepsIdenticalLinesApart(t *testing.T) {
	mut := func(line int) *mutant {
		return &mutant{File: "p/p.go", Line: line, Column: 3, Type: "INVERT_LOOPCTRL", Status: lived, Code: "continue"}
	}
	ent := func(line int) *entry {
		return &entry{file: "p/p.go", line: line, column: 3, Mutation: "INVERT_LOOPCTRL", Code: "continue", Reason: "r"}
	}
	early, a, b, moved := mut(5), mut(20), mut(21), mut(42)
	e20, e21, e40 := ent(20), ent(21), ent(40)
	unexplained, stale := match([]*mutant{early, a, b, moved}, []*entry{e21, e20, e40})
	if len(unexplained) != 1 || unexplained[0] != early || len(stale) != 0 {
		t.Fatalf("unexplained %v, stale %v; want only the survivor at line 5 unexplained", unexplained, stale)
	}
	if a.Entry != e20 || b.Entry != e21 || moved.Entry != e40 {
		t.Errorf("matched %d, %d, %d; want 20, 21, 40", a.Entry.line, b.Entry.line, moved.Entry.line)
	}
}

// A survivor of the sweep that no entry explains is judged again, with
// -rerun-unexplained, against the suite as it is today: one today's suite
// kills counts as killed and needs no entry; one it does not stays
// unexplained.
func TestUnexplainedSurvivorsJudgedAgain(t *testing.T) {
	root := fixture(t, `
- at: p/p.go:4:17
  mutation: CONDITIONALS_BOUNDARY
  code: if a == b && a > 0 {
  reason: never run; a is never 0
`)
	// Today's mutation test: f(1, 2) is false. a == b || a > 0 (4:12)
	// fails it, and so does a != b on line 7 (7:11).
	test := "//go:build mutation\n\npackage p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif f(1, 2) {\n\t\tt.Fatal(\"f(1, 2)\")\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p", "p_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-run-uncovered=false", "-root", root, "-dir", "p", "-results", filepath.Join(root, "gremlins.json"),
		"-equivalent", filepath.Join(root, "equivalent.yaml"), "-out", filepath.Join(root, "mutation.md")}
	var out, errs bytes.Buffer
	if code := run(args, &out, &errs); code != 1 || !strings.Contains(out.String(), "unexplained survivor: p/p.go:4:12") {
		t.Fatalf("without -rerun-unexplained: exit %d, want 1 naming 4:12\n%s", code, out.String())
	}
	out.Reset()
	errs.Reset()
	code := run(append([]string{"-rerun-unexplained"}, args...), &out, &errs)
	if code != 0 {
		t.Errorf("exit %d, want 0: today's suite kills both survivors\n%s\n%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "killed 3, timed out 1; lived 0, not covered 1") {
		t.Errorf("summary: %s", out.String())
	}
	md, _ := os.ReadFile(filepath.Join(root, "mutation.md"))
	if !strings.Contains(string(md), "today's suite kills (judged again: `-rerun-unexplained`) | 2 |") {
		t.Errorf("the report does not count the survivors judged again:\n%s", md)
	}
}
