package acktest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// A Go team gets the kit with go get, at the module path the docs show
// (README.md, docs/ci.md), and its own module, which requires the kit,
// builds the acktest example of docs/adapter-guide.md as its docs show it
// (here the kit is this tree, in place of a release the proxy serves).
func TestAGoModuleBuildsWithTheKit(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(read("go.mod"))
	if m == nil {
		t.Fatal("go.mod names no module")
	}
	module := m[1]
	getLine := regexp.MustCompile(`go (get|install) (\S+)@(\S+)`)
	version := regexp.MustCompile(`^(v\d+\.\d+\.\d+|COMMIT|latest)$`)
	for _, doc := range []string{"README.md", "docs/ci.md"} {
		gets := 0
		for _, g := range getLine.FindAllStringSubmatch(read(doc), -1) {
			path := g[2]
			if g[1] == "get" {
				gets++
			}
			if path != module && !strings.HasPrefix(path, module+"/") {
				t.Errorf("%s: go %s %s: not the module %s", doc, g[1], path, module)
			}
			if g[1] == "install" && path != module+"/cmd/conformance" {
				t.Errorf("%s: go install %s: the CLI is %s/cmd/conformance", doc, path, module)
			}
			if !version.MatchString(g[3]) {
				t.Errorf("%s: go %s %s@%s: want a release (vX.Y.Z), COMMIT or latest", doc, g[1], path, g[3])
			}
		}
		if gets == 0 {
			t.Errorf("%s shows no go get of the kit", doc)
		}
	}
	guide := read("docs/adapter-guide.md")
	example := regexp.MustCompile("(?s)```go\n(func TestConformance\\(t \\*testing\\.T\\) \\{.*?\n\\})\n```").FindStringSubmatch(guide)
	if example == nil {
		t.Fatal("docs/adapter-guide.md shows no TestConformance example")
	}

	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/mysdk\n\ngo 1.26\n\nrequire "+module+" v0.1.0\n\nreplace "+module+" => "+root+"\n")
	write("go.sum", read("go.sum"))
	write("mysdk.go", `// Package mysdk stands for a Go team's SDK.
package mysdk

import (
	"`+module+`/reference"
	"`+module+`/target"
	"`+module+`/target/inprocess"
)

// NewTarget is the SDK behind the kit's target interfaces.
func NewTarget() target.Target { return inprocess.New(reference.New(), "mysdk") }
`)
	write("conformance_test.go", `package mysdk_test

import (
	"os"
	"testing"

	"`+module+`/acktest"
	"example.com/mysdk"
)

`+example[1]+"\n")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a module that requires %s does not build the guide's example: %v\n%s", module, err, out)
	}
}
