package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/approval-conformance-kit/ack"

// TestArchitectureDoc holds docs/architecture.md to the code: every
// package of the module has its paragraph, every paragraph is a package,
// and each package imports only the packages of the kit its paragraph
// allows, all of them given before it on the page (the graph is in the
// page's order).
func TestArchitectureDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("(?m)^### `([^`]+)`\n\n((?:.+\n)+)")
	mayImport := regexp.MustCompile("(?m)^May import: (.*)\\.$")
	allowed := map[string][]string{}
	var order []string
	for _, m := range heading.FindAllStringSubmatch(string(doc), -1) {
		pkg, body := m[1], m[2]
		if _, dup := allowed[pkg]; dup {
			t.Errorf("docs/architecture.md: %s has two paragraphs", pkg)
		}
		may := mayImport.FindStringSubmatch(body)
		if may == nil {
			t.Errorf("docs/architecture.md: %s: its paragraph ends without a line \"May import: ...\"", pkg)
			continue
		}
		var list []string
		if may[1] != "no package of the kit" {
			for _, f := range strings.Split(may[1], ", ") {
				list = append(list, strings.Trim(f, "`"))
			}
		}
		allowed[pkg] = list
		order = append(order, pkg)
	}
	if len(order) < 20 {
		t.Fatalf("docs/architecture.md: %d package paragraphs read", len(order))
	}

	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "|")
		pkg := strings.TrimPrefix(path, module+"/")
		listed[pkg] = true
		may, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s has no paragraph in docs/architecture.md: say its one job and whom it may import", pkg)
			continue
		}
		at := slices.Index(order, pkg)
		for _, imp := range strings.Fields(imports) {
			dep, inKit := strings.CutPrefix(imp, module+"/")
			if !inKit {
				continue
			}
			if !slices.Contains(may, dep) {
				t.Errorf("package %s imports %s, which docs/architecture.md does not allow it", pkg, dep)
			}
			if i := slices.Index(order, dep); i > at {
				t.Errorf("package %s imports %s, given after it in docs/architecture.md: the page is in the graph's order", pkg, dep)
			}
		}
	}
	for _, pkg := range order {
		if !listed[pkg] {
			t.Errorf("docs/architecture.md has a paragraph for %s, which is not a package of the module", pkg)
		}
	}
}

// maxFileLines is the size past which a hand-written Go file holds more
// than one idea: split it along its responsibilities.
const maxFileLines = 800

// TestFilesHoldOneIdea: no hand-written Go file of the kit (its adapters'
// modules included) passes maxFileLines lines.
func TestFilesHoldOneIdea(t *testing.T) {
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "versions", ".git", "testdata", "reports":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > maxFileLines {
			t.Errorf("%s has %d lines (at most %d): split it along what it holds", strings.TrimPrefix(path, "../../"), n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
