package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
)

// background runs a serving command until stop is called; it returns the
// first line of its stdout (the URL), and, from stop, the exit code and
// the rest of the output.
func background(t *testing.T, args ...string) (url string, stop func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errOut strings.Builder
	codes := make(chan int, 1)
	go func() {
		codes <- run(ctx, args, pw, &errOut)
		pw.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	first, ok := <-lines
	if !ok {
		cancel()
		t.Fatalf("%v printed nothing (exit %d): %s", args, <-codes, errOut.String())
	}
	return first, func() (int, string) {
		cancel()
		code := <-codes
		var rest []string
		for l := range lines {
			rest = append(rest, l)
		}
		return code, strings.Join(rest, "\n")
	}
}

// `conformance serve` prints its URL first; `run --target URL` certifies
// what it serves.
func TestServeAndRunOverHTTP(t *testing.T) {
	url, stop := background(t, "serve")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a loopback URL", url)
	}
	code, out, errOut := runCLI("run", "--target", url, "--tags", "@PRE-01,@CHAIN-02")
	if code != exitOK || !strings.Contains(out, "Result: PASS") || !strings.Contains(out, "CHAIN-02") {
		t.Fatalf("run --target: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _ := stop(); code != exitOK {
		t.Fatalf("serve exited %d", code)
	}
	// A mutant served over HTTP is caught there.
	url, stop = background(t, "serve", "--mutant", "late-resolution")
	if code, out, _ := runCLI("run", "--target", url, "--tags", "@PRE-01"); code != exitFail {
		t.Fatalf("a served mutant: exit %d\n%s", code, out)
	}
	stop()
}

// A served target at its bound of requests in flight answers 503; the
// harness sends the call again, with backoff, within the step's timeout:
// a run at a concurrency above the bound passes, /v1/info included.
func TestRunRetriesABusyTarget(t *testing.T) {
	url, stop := background(t, "serve", "--max-in-flight", "1")
	defer stop()
	code, out, errOut := runCLI("run", "--target", url, "--tags", "@PRE-05", "--concurrency", "8")
	if code != exitOK || !strings.Contains(out, "Result: PASS") {
		t.Fatalf("run --target at --concurrency 8 against --max-in-flight 1: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestUnreachableTargetIsAHarnessError(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String()
	l.Close()
	code, _, errOut := runCLI("run", "--target", dead, "--timeout", "2s")
	if code != exitHarness || !strings.Contains(errOut, "connection refused") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, _, _ := runCLI("run", "--target", dead, "--over-http"); code != exitHarness {
		t.Fatalf("--over-http with --target: exit %d", code)
	}
}

const simScript = `provider: openai-chat
turns:
  - reply:
      toolCalls:
        - {id: c1, name: deleteFile, input: {path: /a}}
  - expect:
      results: [{toolCallId: c1, type: json}]
    reply: {text: Deleted.}
`

// `conformance sim` serves a script to anyone's agent and says at the end
// whether the agent followed it.
func TestSim(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(simScript), 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := background(t, "sim", "--script", file)
	client, err := provider.NewClient(base, "openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := client.Generate(ctx, &llm.Request{Messages: []model.Message{model.UserText("delete a")}})
	if err != nil {
		t.Fatal(err)
	}
	hist := []model.Message{model.UserText("delete a"), {Role: model.RoleAssistant, Content: first.Content},
		{Role: model.RoleTool, Content: []model.Part{model.ToolResult("c1", "deleteFile", model.JSONOutput(json.RawMessage(`{"ok":true}`)))}}}
	if _, err := client.Generate(ctx, &llm.Request{Messages: hist}); err != nil {
		t.Fatal(err)
	}
	if code, out := stop(); code != exitOK || !strings.Contains(out, "Result: PASS") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// An agent that stops early leaves a turn: the run fails.
	base, stop = background(t, "sim", "--script", file, "--provider", "anthropic-messages")
	client, _ = provider.NewClient(base, "anthropic-messages")
	if _, err := client.Generate(ctx, &llm.Request{Messages: []model.Message{model.UserText("delete a")}}); err != nil {
		t.Fatal(err)
	}
	if code, out := stop(); code != exitFail || !strings.Contains(out, "left unconsumed") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"sim"}, {"sim", "--script", filepath.Join(dir, "none.yaml")}, {"sim", "--script", file, "--provider", "bard"}} {
		if code, _, _ := runCLI(args...); code != exitHarness {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// A target that answers its info and then hangs costs a few timeouts,
// not one per scenario: the run stops, says why once, and exits 2.
func TestHangingTargetEndsTheRunEarly(t *testing.T) {
	url, stop := background(t, "serve")
	resp, err := http.Get(url + "/v1/info")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := io.ReadAll(resp.Body) // the reference's, valid
	resp.Body.Close()
	stop()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/info" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(info)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go away
		<-r.Context().Done()
	}))
	defer srv.Close()
	code, out, errOut := runCLI("run", "--target", srv.URL, "--timeout", "100ms", "--max-errors", "4")
	if code != exitHarness || !strings.Contains(errOut, "the target stopped working: 4 scenarios in a row could not be run") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "TIMEOUT  4 scenarios, the same way") || !strings.Contains(out, "Result: INTERRUPTED") || strings.Count(out, "POST /v1/agent/turn") > 1 {
		t.Errorf("summary:\n%s", out)
	}
}

// Every serving command takes the bounds that make what it holds bounded
// in total: the body deadline and the requests in flight.
func TestServingCommandsTakeTheTotalBounds(t *testing.T) {
	for _, c := range []string{"run", "serve", "sim", "record"} {
		code, out, errOut := runCLI(c, "-h")
		help := out + errOut
		if code != exitOK || !strings.Contains(help, "-max-in-flight") || !strings.Contains(help, "-body-timeout") || !strings.Contains(help, "-header-timeout") {
			t.Errorf("%s -h: exit %d\n%s", c, code, help)
		}
	}
	if code, _, errOut := runCLI("sim", "--script", "x.yaml", "--max-in-flight", "0"); code != exitHarness || !strings.Contains(errOut, "--max-in-flight: must be positive") {
		t.Errorf("--max-in-flight 0: exit %d %s", code, errOut)
	}
}
