package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// Every mutant's change applies to the reference as it is now, and
// changes it; a change that no longer applies fails here, naming the
// mutant, before any build.
func TestEveryMutantApplies(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 42 {
		t.Fatalf("%d mutants, want at least 42", len(all))
	}
	root, err := SourceTree()
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(root, p)) }
	for _, m := range all {
		changed, err := m.Apply(read)
		if err != nil {
			t.Error(err)
			continue
		}
		for p, data := range changed {
			clean, _ := read(p)
			if string(clean) == string(data) {
				t.Errorf("%s: the change leaves %s as it is", m.File, p)
			}
		}
		if m.Role != "agent" && m.Role != "client" && m.Role != "server" {
			t.Errorf("%s: role %q", m.File, m.Role)
		}
	}
}

const sample = `# a comment
name: sample
bug: says no
source: a test
checks: [PRE-01]
collateral:
  PRE-02: because

--- a/reference/x.go
+++ b/reference/x.go
@@ -2,3 +2,3 @@
 b
-c
+C
 d
`

func TestApply(t *testing.T) {
	m, err := Parse("mutants/sample.patch", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "sample" || m.Collateral["PRE-02"] != "because" || m.Role != "agent" || len(m.Files) != 1 {
		t.Fatalf("parsed %+v", m)
	}
	// The lines moved down by two: the change still finds them.
	src := "new\nnew\na\nb\nc\nd\ne\n"
	out, err := m.Apply(func(string) ([]byte, error) { return []byte(src), nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out["reference/x.go"]); got != "new\nnew\na\nb\nC\nd\ne\n" {
		t.Errorf("applied: %q", got)
	}
	// The lines changed under the mutant: an error naming it.
	_, err = m.Apply(func(string) ([]byte, error) { return []byte("a\nb\nX\nd\n"), nil })
	if err == nil || !strings.Contains(err.Error(), "mutant sample") || !strings.Contains(err.Error(), "no longer applies") || !strings.Contains(err.Error(), "reference/x.go") {
		t.Errorf("a stale change: %v", err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ name, file, data, want string }{
		{"name differs", "mutants/other.patch", sample, `want the file's name "other"`},
		{"no bug", "mutants/sample.patch", strings.Replace(sample, "bug: says no\n", "", 1), "bug:"},
		{"no checks", "mutants/sample.patch", strings.Replace(sample, "checks: [PRE-01]\n", "", 1), "checks:"},
		{"unknown field", "mutants/sample.patch", "colour: red\n" + sample, "colour"},
		{"no diff", "mutants/sample.patch", sample[:strings.Index(sample, "--- a/")], "no diff"},
		{"outside the reference", "mutants/sample.patch", strings.ReplaceAll(sample, "reference/x.go", "steps/x.go"), "the reference (reference/) only"},
		{"short hunk", "mutants/sample.patch", strings.Replace(sample, "@@ -2,3 +2,3 @@", "@@ -2,4 +2,4 @@", 1), "shorter than its header"},
		{"bad policy", "mutants/sample.patch", "denial-policy: never\n" + sample, "denial-policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.file, []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.file) {
				t.Errorf("got %v, want an error naming %s and saying %q", err, tc.file, tc.want)
			}
		})
	}
}

func TestLoadNamesTheBadFile(t *testing.T) {
	_, err := load(fstest.MapFS{"good.patch": {Data: []byte(strings.Replace(sample, "name: sample", "name: good", 1))}, "bad.patch": {Data: []byte("name: [")}})
	if err == nil || !strings.Contains(err.Error(), "mutants/bad.patch") {
		t.Errorf("got %v", err)
	}
}

// Without the Go toolchain a mutant cannot be built: the error says so.
func TestBuilderNeedsTheGoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := NewBuilder()
	if err == nil || !strings.Contains(err.Error(), "needs the Go toolchain") {
		t.Errorf("got %v", err)
	}
}

// Outside the kit's source tree, the tree this package was compiled from
// is found.
func TestSourceTreeFromElsewhere(t *testing.T) {
	t.Chdir(t.TempDir())
	root, err := SourceTree()
	if err != nil {
		t.Fatal(err)
	}
	if !isTree(root) {
		t.Errorf("%s is not the kit's tree", root)
	}
}
