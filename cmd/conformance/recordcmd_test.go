package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
)

// lines passes each line written to it on a channel.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line)
			return len(p), nil
		}
		l.ch <- strings.TrimRight(line, "\n")
	}
}

// TestRecordCommand: the proxy's URL is the first line; a refused request
// never reaches the simulator; the journal holds it; Ctrl-C ends the
// command with exit 1, for a request broke a rule.
func TestRecordCommand(t *testing.T) {
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	m, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "hi"}}}})
	if _, err := sim.Add("x", m); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	out := &lines{ch: make(chan string, 10)}
	errs := &lines{ch: make(chan string, 100)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"record", "--upstream", sim.URL, "--journal", journal, "--refuse"}, out, errs)
	}()
	url := <-out.ch
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", url)
	}
	dangling := `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`
	resp, err := http.Post(url+"/c/x/v1/chat/completions", "application/json", strings.NewReader(dangling))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	clean := `{"model":"m","messages":[{"role":"user","content":"x"}]}`
	resp, err = http.Post(url+"/c/x/v1/chat/completions", "application/json", strings.NewReader(clean))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var logged []string
	for len(logged) == 0 || !strings.Contains(logged[len(logged)-1], "HTTP 200") { // up to the second exchange
		logged = append(logged, <-errs.ch)
	}
	cancel()
	code := <-done
	if code != exitFail || m.Calls() != 1 {
		t.Fatalf("exit %d, simulator calls %d; log %q", code, m.Calls(), logged)
	}
	all := strings.Join(logged, "\n")
	if !strings.Contains(all, "call 1 openai-chat generate: HTTP 400 refused") || !strings.Contains(all, "messages[1] WIRE-01 dangling [call_9]") || !strings.Contains(all, "HTTP 200 ok") {
		t.Fatalf("log:\n%s", all)
	}
	if summary := <-out.ch; summary != "2 exchange(s) recorded in "+journal+", 1 with findings" {
		t.Fatalf("summary %q", summary)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Verdict string }
	if err := json.Unmarshal(bytes.SplitN(data, []byte("\n"), 2)[0], &first); err != nil || first.Verdict != "refused" {
		t.Fatalf("journal %s", data)
	}
	code, _, errOut := runCLI("record")
	if code != exitHarness || !strings.Contains(errOut, "--upstream URL is required") {
		t.Fatalf("no upstream: exit %d %s", code, errOut)
	}
}

// A password in the upstream URL never reaches the terminal.
func TestRecordRedactsTheUpstreamPassword(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	out := &lines{ch: make(chan string, 10)}
	errs := &lines{ch: make(chan string, 100)}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"record", "--upstream", "http://user:s3cret@127.0.0.1:1/v1", "--journal", journal}, out, errs)
	}()
	<-out.ch
	start := <-errs.ch
	cancel()
	<-done
	if strings.Contains(start, "s3cret") || !strings.Contains(start, "http://user:xxxxx@127.0.0.1:1/v1") {
		t.Errorf("the start line: %s", start)
	}
}
