package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// compiler type-checks a package of the module with one mutation applied.
// Gremlins compiles only the mutants the suite's coverage reaches; one on a
// line the suite never runs is reported as not covered whether or not it
// compiles. A string concatenation turned into a subtraction is no mutant
// at all, so each not-covered mutant is compiled here first.
type compiler struct {
	root    string
	exports map[string]string // import path to export data file
	module  string
}

// newCompiler lists the export data of the packages' dependencies (go list
// -export builds them).
func newCompiler(root string, dirs []string) (*compiler, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Module}}"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	c := &compiler{root: root, exports: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) == 3 && f[1] != "" {
			c.exports[f[0]] = f[1]
		}
	}
	modCmd := exec.Command("go", "list", "-m")
	modCmd.Dir = root
	mod, err := modCmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	c.module = strings.TrimSpace(string(mod))
	return c, nil
}

// compiles reports whether the mutant's package type-checks with the
// mutation applied.
func (c *compiler) compiles(m *mutant) (bool, error) {
	dir := path.Dir(m.File)
	fset := token.NewFileSet()
	entries, err := os.ReadDir(filepath.Join(c.root, filepath.FromSlash(dir)))
	if err != nil {
		return false, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(dir), name))
		if err != nil {
			return false, err
		}
		if path.Join(dir, name) == m.File {
			if src, err = mutatedSource(src, m); err != nil {
				return false, err
			}
		}
		f, err := parser.ParseFile(fset, path.Join(dir, name), src, 0)
		if err != nil {
			return false, nil // the mutation does not even parse
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		file, ok := c.exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	})
	conf := types.Config{Importer: imp, Error: func(error) {}}
	_, err = conf.Check(c.module+"/"+dir, fset, files, nil)
	return err == nil, nil
}

// mutatedSource is the file with the mutation applied as gremlins applies
// it: the operator changed in the syntax tree, and the tree printed. The
// printer keeps the tree's grouping, so `a > 0 && b && c` with its first
// `&&` mutated reads `(a > 0 || b) && c`.
func mutatedSource(src []byte, m *mutant) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, m.File, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if !apply(fset, f, m) {
		return nil, fmt.Errorf("%s: no %s to mutate there", m.at(), m.Before)
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// apply changes the operator at the mutant's position, as gremlins does.
func apply(fset *token.FileSet, f *ast.File, m *mutant) bool {
	to, ok := tokenOf(m.After)
	if !ok {
		return false
	}
	done := false
	at := func(p token.Pos) bool {
		pos := fset.Position(p)
		return pos.Line == m.Line && pos.Column == m.Column
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if done {
			return false
		}
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if at(n.OpPos) {
				n.Op, done = to, true
			}
		case *ast.UnaryExpr:
			if at(n.OpPos) {
				n.Op, done = to, true
			}
		case *ast.AssignStmt:
			if at(n.TokPos) {
				n.Tok, done = to, true
			}
		case *ast.IncDecStmt:
			if at(n.TokPos) {
				n.Tok, done = to, true
			}
		case *ast.BranchStmt:
			if at(n.TokPos) {
				n.Tok, done = to, true
			}
		}
		return !done
	})
	return done
}

// tokenOf is the token a mutation writes.
func tokenOf(s string) (token.Token, bool) {
	for t := token.ILLEGAL; t <= token.TILDE; t++ {
		if t.String() == s && (t.IsOperator() || t.IsKeyword()) {
			return t, true
		}
	}
	return token.ILLEGAL, false
}
