package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/record"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
)

// branchJournal records, through the proxy, a conversation and a retry of
// its second request (a branch: the proxy journals it as a conversation
// of its own, c3, whose first request holds the whole history); with
// dangling, the retried request leaves the call without a result.
func branchJournal(t *testing.T, dangling bool) string {
	t.Helper()
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	m, err := simulator.New(simulator.Script{Turns: []simulator.Turn{
		{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)}}}},
		{Reply: simulator.Reply{Text: "Done."}},
		{Reply: simulator.Reply{Text: "Done."}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Add("x", m); err != nil {
		t.Fatal(err)
	}
	var j bytes.Buffer
	journaled := make(chan struct{}, 3)
	p, err := record.New(record.Options{Upstream: sim.URL, Journal: &j, OnExchange: func(record.Entry) { journaled <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	tools := `"tools":[{"type":"function","function":{"name":"deleteFile","parameters":{"type":"object"}}}]`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"deleteFile","arguments":"{\"path\":\"/a\"}"}}]}`
	second := `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"delete /a"},` + call + `,{"role":"tool","tool_call_id":"call_1","content":"{\"deleted\":true}"}]}`
	retry := second
	if dangling {
		retry = `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"delete /a"},` + call + `,{"role":"user","content":"and /b"}]}`
	}
	for _, body := range []string{`{"model":"m",` + tools + `,"messages":[{"role":"user","content":"delete /a"}]}`, second, retry} {
		resp, err := http.Post(srv.URL+"/c/x/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		<-journaled // the exchange is journaled once its answer ends, maybe after the client has it
	}
	path := filepath.Join(t.TempDir(), "branch.jsonl")
	if err := os.WriteFile(path, j.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A branch (a retried request) replays without a divergence that is not
// there: its first request's history is sent as the client sent it.
func TestReplayOfABranch(t *testing.T) {
	path := branchJournal(t, false)
	code, out, errOut := runCLI("replay", path)
	if code != exitOK || !strings.Contains(out, `conversation "c3"`) || !strings.Contains(out, "the conversation starts mid-way") || strings.Contains(out, "divergence") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
}

// A branch that went wrong gives a regression scenario (from its history),
// never an error of the writer; the scenario fails where the recording
// went wrong and passes on the reference.
func TestFromTranscriptOfABranch(t *testing.T) {
	path := branchJournal(t, true)
	dir := t.TempDir()
	code, out, errOut := runCLI("scenario", "from-transcript", path, "--conversation", "c3", "--id", "branch", "--out", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "branch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "the conversation starts mid-way") {
		t.Errorf("the scenario does not say it starts mid-way:\n%s", data)
	}
	if code, out, errOut := runCLI("scenario", "check", filepath.Join(dir, "branch.yaml")); code != exitOK {
		t.Fatalf("scenario check: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCLI("run", "--reference", "--scenarios", dir, "--tags", "@regression"); code != exitOK {
		t.Errorf("on the reference: exit %d\n%s\n%s", code, out, data)
	}
}
