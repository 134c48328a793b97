package regression_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/record"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/regression"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// tools is the harness of the recorded conversations: each call returns
// what it deleted.
type tools struct{}

func (tools) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	var in struct{ Path string }
	_ = json.Unmarshal(req.Input, &in)
	return json.Marshal(map[string]string{"deleted": in.Path})
}

func (tools) Policy(context.Context, target.PolicyRequest) (bool, error) { return true, nil }

type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// recordConversation runs a two-turn approval conversation on an agent
// whose model sits behind conformance record, and returns the journal:
// the model asks for two deletions, the user approves them, but for the
// call deny names.
func recordConversation(t *testing.T, agent target.Target, p wire.Profile, deny string) []byte {
	t.Helper()
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	m, _ := simulator.New(simulator.Script{Provider: p, Turns: []simulator.Turn{
		{Reply: simulator.Reply{Text: "Deleting both.", ToolCalls: []simulator.ToolCall{
			{ID: "call_a", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
			{ID: "call_b", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)}}}},
		{Reply: simulator.Reply{Text: "Done."}, Optional: true},
	}})
	if _, err := sim.Add("staging", m); err != nil {
		t.Fatal(err)
	}
	journal := &buffer{}
	proxy, err := record.New(record.Options{Upstream: sim.URL, Journal: journal})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	specs := []target.Tool{{Name: "deleteFile", Approval: target.ApprovalAlways, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
	turn := func(msgs []model.Message) *target.TurnResponse {
		raw, _ := model.EncodeMessages(msgs)
		// The agent calls its model through the recording proxy.
		resp, err := agent.Agent().Turn(context.Background(), &target.TurnRequest{Mode: target.Generate,
			Model: target.ModelEndpoint{API: string(p), BaseURL: srv.URL + "/c/staging/v1"}, Tools: specs, Toolkit: target.ToolkitProvided, Messages: raw, Harness: tools{}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	history := []model.Message{model.UserText("delete /a and /b")}
	first := turn(history)
	history = append(history, first.Messages...)
	answers := model.Message{Role: model.RoleTool}
	for _, m := range first.Messages {
		for _, part := range m.Content {
			if part.Type == model.PartToolApprovalRequest {
				ok := part.ToolCallID != deny
				reason := ""
				if !ok {
					reason = "keep it"
				}
				answers.Content = append(answers.Content, model.ApprovalResponse(part.ApprovalID, ok, reason))
			}
		}
	}
	if len(answers.Content) != 2 {
		t.Fatalf("the agent asked %d approvals: %+v", len(answers.Content), first)
	}
	turn(append(history, answers))
	return journal.b.Bytes()
}

// scenarioOf writes the regression scenario of a transcript.
func scenarioOf(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	res, err := lint.Read(bytes.NewReader(data), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	convs, err := transcript.ReadConversations(bytes.NewReader(data), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found []lint.Finding
	var conv *transcript.Conversation
	for _, c := range convs {
		for _, f := range res.Findings {
			if len(convs) == 1 || f.Conversation == c.ID || f.Scenario == c.ID {
				found, conv = append(found, f), c
			}
		}
		if conv != nil {
			break
		}
	}
	if conv == nil {
		t.Fatalf("%s: lint finds nothing", name)
	}
	out, err := regression.Scenario(regression.Source{File: name, Conversation: conv, Findings: found, Single: len(convs) == 1}, regression.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// verdict runs one scenario file against a target and returns the verdict
// of each mode.
func verdict(t *testing.T, yaml []byte, tgt target.Target) []report.Verdict {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "regression.yaml"), yaml, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Target: tgt, NoFeatures: true, NoScenarios: true, ExtraScenarios: []fs.FS{os.DirFS(dir)}}
	if _, overHTTP := tgt.(*httptarget.Target); overHTTP {
		wiring, err := httptarget.NewWiring("")
		if err != nil {
			t.Fatal(err)
		}
		defer wiring.Close()
		opts.Wiring = wiring
	}
	run, err := runner.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []report.Verdict
	for _, s := range run.Scenarios {
		out = append(out, s.Verdict)
	}
	return out
}

// mutant serves the mutant by its own program (the kit built with its
// change) for the test's time.
func mutant(t *testing.T, b *mutants.Builder, name string) target.Target {
	t.Helper()
	m, err := mutants.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ht, stop, err := b.Target(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return ht
}

// TestFromRecording: a conversation recorded in front of a buggy agent
// becomes a scenario that the scenario loader accepts, that fails on that
// agent and passes on the reference.
func TestFromRecording(t *testing.T) {
	cases := []struct {
		mutant  string
		profile wire.Profile
		deny    string
		checks  string
		asserts []string
	}{
		// Approvals resolved after the model call: both calls dangle.
		{"late-resolution", wire.OpenAIChat, "", "checks: [REQ-01, PRE-01, WIRE-01]", []string{"results: [{call: call_a}, {call: call_b}]", "approve: true"}},
		// A partly denied step loses the results after the denial.
		{"lost-results-on-partial-denial", wire.AnthropicMessages, "call_a", "checks: [REQ-01, PRE-01, PRE-02, WIRE-01]", []string{"results: [{call: call_b}]", "{call: call_a, approve: false, reason: keep it}"}},
		{"late-resolution", wire.OpenAIResponses, "call_b", "checks: [REQ-01, PRE-01, WIRE-01]", []string{"results: [{call: call_a}, {call: call_b}]"}},
	}
	b, err := mutants.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range cases {
		t.Run(c.mutant+"/"+string(c.profile), func(t *testing.T) {
			tgt := mutant(t, b, c.mutant)
			journal := recordConversation(t, tgt, c.profile, c.deny)
			yaml := scenarioOf(t, "staging.jsonl", journal)
			f, err := scenario.Parse("regression.yaml", yaml)
			if err != nil {
				t.Fatalf("%v\n%s", err, yaml)
			}
			if _, err := scenario.Compile(f); err != nil {
				t.Fatal(err)
			}
			for _, s := range append([]string{c.checks, "provider: " + string(c.profile), "modes: [generate]"}, c.asserts...) {
				if !strings.Contains(string(yaml), s) {
					t.Errorf("the scenario lacks %q:\n%s", s, yaml)
				}
			}
			if got := verdict(t, yaml, tgt); len(got) != 1 || got[0] != report.Fail {
				t.Errorf("on %s: %v, want fail\n%s", c.mutant, got, yaml)
			}
			if got := verdict(t, yaml, inprocess.New(reference.New(), "reference")); len(got) != 1 || got[0] != report.Pass {
				t.Errorf("on the reference: %v, want pass\n%s", got, yaml)
			}
		})
	}
}

// TestFromTestdata: every broken transcript of lint's testdata gives a
// scenario the loader and the compiler accept, and the reference passes
// it; a clean one gives none.
func TestFromTestdata(t *testing.T) {
	files, _ := filepath.Glob("../lint/testdata/*/broken-*")
	if len(files) < 20 {
		t.Fatalf("%d broken transcripts", len(files))
	}
	ref := inprocess.New(reference.New(), "reference")
	doc, err := os.ReadFile("../docs/schemas/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			yaml := scenarioOf(t, filepath.Base(path), data)
			var v any
			if err := yamlv3.Unmarshal(yaml, &v); err != nil {
				t.Fatal(err)
			}
			asJSON, _ := json.Marshal(v)
			if err := schema.Validate(asJSON); err != nil {
				t.Errorf("the scenario does not match docs/schemas/scenario.schema.json: %v\n%s", err, yaml)
			}
			if got := verdict(t, yaml, ref); len(got) == 0 {
				t.Fatalf("no scenario ran\n%s", yaml)
			} else {
				for _, v := range got {
					if v != report.Pass {
						t.Errorf("the reference: %v\n%s", got, yaml)
						break
					}
				}
			}
		})
	}
	data, _ := os.ReadFile("../lint/testdata/openai-chat/clean-approved.json")
	convs, _ := transcript.ReadConversations(bytes.NewReader(data), transcript.Options{})
	if _, err := regression.Scenario(regression.Source{File: "clean.json", Conversation: convs[0], Single: true}, regression.Options{}); err != regression.ErrNothingWrong {
		t.Errorf("a clean transcript: %v, want ErrNothingWrong", err)
	}
}
