// Package driverkit carries the Node driver kit into the conformance
// binary: the library every Node adapter of driver protocol v1 is built
// on (the .mjs files of this folder, documented in README.md) and the
// skeleton adapter that `conformance adapter init` writes (template/,
// with a copy of the library). Its test runs the library's own tests
// under node.
package driverkit

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

//go:embed README.md *.mjs
var library embed.FS

//go:embed all:template
var template embed.FS

// LibraryDir is the folder of a skeleton that holds its copy of the kit.
const LibraryDir = "driverkit"

// MinNode is the oldest Node major version the kit runs on.
const MinNode = 20

// File is one file of the skeleton.
type File struct {
	Path string // slash-separated, relative to the skeleton's folder
	Data []byte
	Mode fs.FileMode
}

// Skeleton returns the files of a new adapter: the template, and the kit
// under LibraryDir.
func Skeleton() ([]File, error) {
	var files []File
	add := func(fsys fs.FS, root, under string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
			mode := fs.FileMode(0o644)
			if strings.HasSuffix(rel, ".sh") {
				mode = 0o755
			}
			files = append(files, File{Path: path.Join(under, rel), Data: data, Mode: mode})
			return nil
		})
	}
	if err := add(template, "template", ""); err != nil {
		return nil, fmt.Errorf("driverkit: the template: %w", err)
	}
	if err := add(library, ".", LibraryDir); err != nil {
		return nil, fmt.Errorf("driverkit: the library: %w", err)
	}
	return files, nil
}

// ErrNotEmpty is WriteSkeleton's refusal of a folder that holds files.
var ErrNotEmpty = errors.New("the folder is not empty")

// WriteSkeleton writes a new adapter into dir, which must be absent or
// empty (nothing of the user's is ever overwritten), and returns the
// paths it wrote, relative to dir.
func WriteSkeleton(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return nil, fmt.Errorf("%s: %w (it holds %s): name a new folder", dir, ErrNotEmpty, entries[0].Name())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	files, err := Skeleton()
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return written, err
		}
		if err := os.WriteFile(target, f.Data, f.Mode); err != nil {
			return written, err
		}
		written = append(written, f.Path)
	}
	return written, nil
}

var nodeVersion = regexp.MustCompile(`^v(\d+)\.`)

// Node returns the path of the node on PATH and its major version, or an
// error that says what is missing: no node, or one older than MinNode.
func Node() (string, int, error) {
	bin, err := exec.LookPath("node")
	if err != nil {
		return "", 0, fmt.Errorf("no node on PATH (the kit needs Node %d or newer)", MinNode)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", 0, fmt.Errorf("%s --version: %w", bin, err)
	}
	m := nodeVersion.FindSubmatch(bytes.TrimSpace(out))
	if m == nil {
		return "", 0, fmt.Errorf("%s --version: %q is no version", bin, bytes.TrimSpace(out))
	}
	major, _ := strconv.Atoi(string(m[1]))
	if major < MinNode {
		return bin, major, fmt.Errorf("%s is Node %d; the kit needs Node %d or newer", bin, major, MinNode)
	}
	return bin, major, nil
}
