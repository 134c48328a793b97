package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/internal/benchcall"
)

func TestCall(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"call"}, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	var call struct{ Request, Reply, Path string }
	if err := json.Unmarshal(out.Bytes(), &call); err != nil || !strings.Contains(call.Reply, benchcall.Reply.Text) || call.Path != "/chat/completions" {
		t.Fatalf("%v: %s", err, out.String())
	}
	if err := run([]string{"nope"}, strings.NewReader(""), io.Discard); err == nil {
		t.Fatal("an unknown server was served")
	}
}

// Both servers answer the call, the simulator past the end of one
// conversation's script, until standard input closes.
func TestServe(t *testing.T) {
	var call bytes.Buffer
	if err := run([]string{"call"}, strings.NewReader(""), &call); err != nil {
		t.Fatal(err)
	}
	var c struct{ Request, Path string }
	_ = json.Unmarshal(call.Bytes(), &c)
	for _, server := range []string{"simulator", "net-http"} {
		stdinR, stdinW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- run([]string{server}, stdinR, outW) }()
		url, err := bufio.NewReader(outR).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < benchcall.TurnsPerConversation+3; i++ {
			resp, err := http.Post(strings.TrimSpace(url)+c.Path, "application/json", strings.NewReader(c.Request))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), benchcall.Reply.Text) {
				t.Fatalf("%s call %d: %d %s", server, i, resp.StatusCode, body)
			}
		}
		stdinW.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
