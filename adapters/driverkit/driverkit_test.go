package driverkit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// node returns the node binary, skipping the test with a notice when
// there is none of MinNode or newer; ACK_REQUIRE_NODE=1 makes that a
// failure (CI, where Node is installed).
func node(t *testing.T) string {
	t.Helper()
	bin, _, err := Node()
	if err != nil {
		if os.Getenv("ACK_REQUIRE_NODE") == "1" {
			t.Fatalf("ACK_REQUIRE_NODE=1: %v", err)
		}
		t.Skipf("%v; set ACK_REQUIRE_NODE=1 to require it", err)
	}
	return bin
}

// The library's own tests (test/*.test.mjs), under node's test runner.
func TestLibrary(t *testing.T) {
	bin := node(t)
	tests, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	if err != nil || len(tests) < 5 {
		t.Fatalf("the library's tests: %v %v", tests, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--test", "--test-reporter=dot"}, tests...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

// The skeleton holds the template and the whole library, and check.sh is
// executable.
func TestSkeleton(t *testing.T) {
	files, err := Skeleton()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	modes := map[string]os.FileMode{}
	for _, f := range files {
		paths = append(paths, f.Path)
		modes[f.Path] = f.Mode
	}
	libs, _ := filepath.Glob("*.mjs")
	want := []string{"README.md", "adapter.mjs", "check.sh", "package.json", "src/agent.mjs", "src/model.mjs", "example-sdk/index.mjs", LibraryDir + "/README.md"}
	for _, l := range libs {
		want = append(want, LibraryDir+"/"+l)
	}
	for _, w := range want {
		if !slices.Contains(paths, w) {
			t.Errorf("the skeleton has no %s (it has %v)", w, paths)
		}
	}
	if modes["check.sh"] != 0o755 {
		t.Errorf("check.sh: mode %v, want 0755", modes["check.sh"])
	}
	for _, p := range paths {
		if strings.Contains(p, "test/") || strings.Contains(p, "testdata/") || strings.HasSuffix(p, ".go") {
			t.Errorf("the skeleton holds %s, which is the kit's own", p)
		}
	}
}

// WriteSkeleton writes into a new or empty folder, never over anything.
func TestWriteSkeleton(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-adapter")
	written, err := WriteSkeleton(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "check.sh")); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("check.sh: %v %v", info, err)
	}
	if _, err := os.Stat(filepath.Join(dir, LibraryDir, "index.mjs")); err != nil {
		t.Error(err)
	}
	if len(written) < 10 {
		t.Errorf("wrote %v", written)
	}
	_, err = WriteSkeleton(dir)
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a second write into %s: %v, want ErrNotEmpty naming the folder", dir, err)
	}
	empty := t.TempDir()
	if _, err := WriteSkeleton(empty); err != nil {
		t.Errorf("an empty folder: %v", err)
	}
}

// The skeleton's modules load under node: every import resolves.
func TestSkeletonLoads(t *testing.T) {
	bin := node(t)
	dir := t.TempDir()
	if _, err := WriteSkeleton(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script := `await import("./src/agent.mjs"); await import("./src/model.mjs"); await import("./driverkit/index.mjs");`
	cmd := exec.CommandContext(ctx, bin, "--input-type=module", "-e", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
