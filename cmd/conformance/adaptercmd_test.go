package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/adapters/driverkit"
)

// `conformance adapter init DIR` writes a new adapter into a new or empty
// folder, never over one that holds files.
func TestAdapterInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-adapter")
	code, out, errOut := runCLI("adapter", "init", dir)
	if code != exitOK || !strings.Contains(out, "check.sh") || !strings.Contains(out, filepath.Join(dir, "src", "agent.mjs")) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"adapter.mjs", "src/agent.mjs", "example-sdk/index.mjs", "driverkit/index.mjs", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the adapter has no %s: %v", f, err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(dir, "adapter.mjs"))
	if err := os.WriteFile(filepath.Join(dir, "adapter.mjs"), []byte("// mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI("adapter", "init", dir)
	if code != exitHarness || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "not empty") {
		t.Errorf("init over an adapter: exit %d, want %d naming the folder\n%s", code, exitHarness, errOut)
	}
	if mine, _ := os.ReadFile(filepath.Join(dir, "adapter.mjs")); string(mine) != "// mine\n" || len(before) < 100 {
		t.Errorf("init over a folder changed a file in it: %q", mine)
	}
	for _, args := range [][]string{{"adapter"}, {"adapter", "make", dir}, {"adapter", "init"}, {"adapter", "init", dir, dir}, {"adapter", "init", "--bogus", dir}} {
		if code, _, errOut := runCLI(args...); code != exitHarness {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitHarness, errOut)
		}
	}
}

// startAdapter starts the skeleton's adapter under node and returns its URL.
func startAdapter(t *testing.T, dir string) string {
	t.Helper()
	bin, _, err := driverkit.Node()
	if err != nil {
		if os.Getenv("ACK_REQUIRE_NODE") == "1" {
			t.Fatalf("ACK_REQUIRE_NODE=1: %v", err)
		}
		t.Skipf("%v; set ACK_REQUIRE_NODE=1 to require it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "adapter.mjs")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := bufio.NewReader(stdout)
	url, err := lines.ReadString('\n')
	if err != nil {
		t.Fatalf("the adapter printed no URL: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, lines) }()
	return strings.TrimSpace(url)
}

// The skeleton as `adapter init` writes it passes the suite's agent role
// under node, SHOULD checks included: its example SDK is judged by every
// check of the agent role it declares, and fails none.
func TestAdapterSkeletonPassesTheSuite(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCLI("adapter", "init", dir); code != exitOK {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	url := startAdapter(t, dir)
	code, out, errOut := runCLI("run", "--target", url, "--level", "should", "--timeout", time.Minute.String())
	if code != exitOK || !strings.Contains(out, "Result: PASS") {
		t.Fatalf("the skeleton: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, check := range []string{"REQ-01", "REQ-04", "PRE-01", "PRE-02", "PRE-05", "PRE-07", "PRE-11", "PART-01", "DEN-01", "ERR-01", "WIRE-01", "WIRE-04", "SEC-01", "SEC-02"} {
		if !hasRow(out, check) || !(hasRow(out, check, "MUST", "pass") || hasRow(out, check, "SHOULD", "pass")) {
			t.Errorf("%s does not pass on the skeleton:\n%s", check, out)
		}
	}
}

// The suite judges the skeleton: an example SDK that calls the model
// before it resolves the answers fails it.
func TestAdapterSkeletonIsJudged(t *testing.T) {
	dir := t.TempDir()
	if code, out, errOut := runCLI("adapter", "init", dir); code != exitOK {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	sdk := filepath.Join(dir, "example-sdk", "index.mjs")
	src, err := os.ReadFile(sdk)
	if err != nil {
		t.Fatal(err)
	}
	const resolve = "    await this.preResolve();\n"
	if !strings.Contains(string(src), resolve) {
		t.Fatalf("%s no longer pre-resolves with %q: update this test", sdk, resolve)
	}
	if err := os.WriteFile(sdk, []byte(strings.Replace(string(src), resolve, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	url := startAdapter(t, dir)
	code, out, _ := runCLI("run", "--target", url, "--tags", "@PRE-01")
	if code != exitFail || !hasRow(out, "PRE-01", "MUST", "fail") {
		t.Fatalf("an example SDK that skips pre-resolution: exit %d, want %d with PRE-01 failing\n%s", code, exitFail, out)
	}
}
