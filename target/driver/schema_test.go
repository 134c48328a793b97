package driver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider/canonical"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

var docs = filepath.Join("..", "..", "docs")

func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(docs, "schemas", "driver", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatalf("%s.schema.json: %v", name, err)
	}
	return s
}

func fits(t *testing.T, name string, v any) {
	t.Helper()
	body, ok := v.([]byte)
	if !ok {
		var err error
		if body, err = json.Marshal(v); err != nil {
			t.Fatalf("%s: encode %T: %v", name, v, err)
		}
	}
	if err := schema(t, name).Validate(body); err != nil {
		t.Errorf("%s.schema.json refuses %s: %v", name, body, err)
	}
}

// Every message type, as the Go ends encode it, fits its schema.
func TestGoMessagesFitTheSchemas(t *testing.T) {
	info, err := inprocess.New(reference.New(), "reference").Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	fits(t, "info", info)
	msgs, _ := model.EncodeMessages([]model.Message{model.UserText("delete /a")})
	fits(t, "turn-request", target.TurnRequest{Mode: target.Stream, Model: target.ModelEndpoint{BaseURL: "http://127.0.0.1:1/v1", API: "anthropic-messages"},
		Tools: []target.Tool{
			{Name: "deleteFile", Description: "deletes", InputSchema: json.RawMessage(`{"type":"object"}`), Approval: target.ApprovalDynamic,
				ExecuteURL: "http://127.0.0.1:2/v1/cb/t/execute/deleteFile", PolicyURL: "http://127.0.0.1:2/v1/cb/t/policy/deleteFile"},
			{Name: "readFile", Approval: target.ApprovalNever, ExecuteURL: "http://127.0.0.1:2/v1/cb/t/execute/readFile"},
		},
		Toolkit: target.ToolkitProvided, Options: target.Options{Concurrency: 2, MaxSteps: 5}, Messages: msgs})
	fits(t, "turn-request", target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{BaseURL: "http://127.0.0.1:1/v1", API: "openai-chat"},
		Toolkit: target.ToolkitAbsent, Messages: json.RawMessage(`[{"role":"robot"}]`)})
	for _, code := range target.ErrorCodes {
		fits(t, "turn-response", target.TurnResponse{Error: &target.TurnError{Code: code, Message: "m", SDKError: "E: m"}})
	}
	fits(t, "turn-response", target.TurnResponse{FinishReason: "stop", Messages: []model.Message{{Role: model.RoleAssistant, Content: []model.Part{model.Text("ok")}}}})
	fits(t, "session-request", target.SessionConfig{ChatURL: "http://127.0.0.1:3/chat", Protocol: chat.ProtocolAGUI,
		Tools: []target.ClientTool{{Name: "deleteFile", NeedsApproval: true}, {Name: "pick", ClientSide: true}}})
	for protocol, dialects := range chat.Dialects {
		for _, d := range dialects {
			fits(t, "session-request", target.SessionConfig{ChatURL: "http://127.0.0.1:3/chat", Protocol: protocol, Dialect: d})
			withDialect := *info
			withDialect.Features.ClientDialects = map[string]string{protocol: d}
			fits(t, "info", withDialect)
		}
	}
	fits(t, "session-created", driver.SessionCreated{SessionID: "s1"})
	fits(t, "send-request", driver.SendRequest{Text: "hi"})
	fits(t, "approval-request", target.ApprovalAnswer{ApprovalID: "a1", Approved: false, Reason: "no"})
	fits(t, "tool-output-request", driver.ToolOutputRequest{ToolCallID: "c1", Output: json.RawMessage(`{"ok":true}`)})
	fits(t, "action-result", target.ActionResult{})
	fits(t, "action-result", target.ActionResult{Refused: true, Error: "an approval is pending"})
	fits(t, "action-result", target.ActionResult{Queued: true})
	fits(t, "info", target.Info{Name: "chat-only", Version: "1", Roles: []string{target.RoleClient}, Features: target.Features{
		ClientProtocols: []string{chat.ProtocolUIMessageStream}, ClientStates: []chat.ToolState{chat.InputStreaming, chat.OutputAvailable}}})
	fits(t, "info", []byte(`{"name":"chat-only","version":"1","roles":["client"],"features":{"clientProtocols":["ui-message-stream"]}}`))
	fits(t, "wait-request", driver.WaitRequest{Until: target.UntilApprovalRequested, ToolCallID: "c1", OrIdle: true, TimeoutMs: 5000})
	fits(t, "wait-request", driver.WaitRequest{Until: target.UntilIdle})
	yes := true
	fits(t, "client-state", target.ClientState{Busy: true, Error: "x", Messages: []chat.Message{
		{ID: "m1", Role: "user", Parts: []chat.Part{{Type: chat.PartText, Text: "hi"}}},
		{ID: "m2", Role: "assistant", Parts: []chat.Part{{Type: chat.PartToolCall, ToolCallID: "A", ToolName: "deleteFile",
			Input: json.RawMessage(`{"path":"/a"}`), State: chat.ApprovalResponded,
			History:  []chat.ToolState{chat.InputComplete, chat.ApprovalRequested, chat.ApprovalResponded},
			Approval: &chat.Approval{ID: "approval_A", Approved: &yes}}}},
	}, Queued: []chat.Message{{ID: "m3", Role: "user", Parts: []chat.Part{{Type: chat.PartText, Text: "never mind"}}}}})
	fits(t, "execute-callback-result", driver.ExecuteResult{Output: json.RawMessage(`{"ok":true}`)})
	fits(t, "execute-callback-result", driver.ExecuteResult{Error: "disk on fire"})
	no := false
	fits(t, "policy-callback-result", driver.PolicyResult{NeedsApproval: &no})
	fits(t, "policy-callback-result", driver.PolicyResult{Error: "policy failed"})
	rec := httptest.NewRecorder()
	driver.WriteError(rec, http.StatusBadRequest, "BadRequest", "tools[%d].name: missing", 0)
	fits(t, "error", rec.Body.Bytes())
}

// The schemas refuse what the protocol forbids: an agent that leaves out
// its agent features, a client state with an unknown field.
func TestSchemasRefuse(t *testing.T) {
	for _, tc := range []struct{ schema, body string }{
		{"info", `{"name":"a","version":"1","roles":["agent"],"features":{"clientProtocols":["ui-message-stream"]}}`},
		{"info", `{"name":"a","version":"1","roles":["client"],"features":{"clientStates":["thinking"]}}`},
		{"client-state", `{"busy":false,"messages":[],"queued":[{"role":"user"}]}`},
		{"action-result", `{"refused":false,"queued":"yes"}`},
	} {
		if err := schema(t, tc.schema).Validate([]byte(tc.body)); err == nil {
			t.Errorf("%s.schema.json accepts %s", tc.schema, tc.body)
		}
	}
}

// recorder keeps the bodies of the callbacks the driver server makes, and
// of the answers it gets.
type recorder struct {
	mu                sync.Mutex
	requests, answers map[string][][]byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	kind := "execute"
	if strings.Contains(req.URL.Path, "/policy/") {
		kind = "policy"
	}
	r.mu.Lock()
	r.requests[kind] = append(r.requests[kind], body)
	r.answers[kind] = append(r.answers[kind], answer)
	r.mu.Unlock()
	return resp, nil
}

type allow struct{}

func (allow) Execute(context.Context, target.ExecuteRequest) (json.RawMessage, error) {
	return json.RawMessage(`{"ok":true}`), nil
}
func (allow) Policy(context.Context, target.PolicyRequest) (bool, error) { return false, nil }

// The callbacks of a real turn (a dynamic policy, then a tool run) fit
// their schemas both ways.
func TestCallbacksFitTheSchemas(t *testing.T) {
	sim, err := simulator.New(simulator.Script{Turns: []simulator.Turn{
		{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{{ID: "c1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/tmp/a"}`)}}}},
		{Reply: simulator.Reply{Text: "done"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{requests: map[string][][]byte{}, answers: map[string][][]byte{}}
	srv, err := driverserver.NewServer(inprocess.New(reference.New(), "reference"),
		func(target.ModelEndpoint) (llm.Model, error) { return sim, nil },
		driverserver.WithCallbackClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	msgs, _ := model.EncodeMessages([]model.Message{model.UserText("delete /tmp/a")})
	resp, err := ht.Agent().Turn(context.Background(), &target.TurnRequest{Mode: target.Generate,
		Model: target.ModelEndpoint{BaseURL: "http://sim.invalid/v1", API: "openai-chat"}, Toolkit: target.ToolkitProvided,
		Tools: []target.Tool{{Name: "deleteFile", Approval: target.ApprovalDynamic}}, Messages: msgs, Harness: allow{}})
	if err != nil || resp.Error != nil {
		t.Fatalf("turn: %+v %v", resp, err)
	}
	for kind, names := range map[string][2]string{
		"execute": {"execute-callback-request", "execute-callback-result"},
		"policy":  {"policy-callback-request", "policy-callback-result"},
	} {
		if len(rec.requests[kind]) == 0 {
			t.Errorf("the turn made no %s callback", kind)
		}
		for i := range rec.requests[kind] {
			fits(t, names[0], rec.requests[kind][i])
			fits(t, names[1], rec.answers[kind][i])
		}
	}
}

// The examples of docs/driver-protocol.md fit their schemas and decode
// into the Go types, strictly.
func TestDocExamplesFitTheSchemas(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docs, "driver-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1)
	want := []struct {
		schema string
		into   any
	}{
		{"info", &target.Info{}},
		{"turn-request", &target.TurnRequest{}},
		{"turn-response", &target.TurnResponse{}},
		{"turn-response", &target.TurnResponse{}},
		{"canonical-request", &canonical.Request{}},
		{"canonical-response", &canonical.Response{}},
		{"client-state", &target.ClientState{}},
	}
	if len(blocks) != len(want) {
		t.Fatalf("docs/driver-protocol.md has %d JSON examples, the test knows %d: keep them in step", len(blocks), len(want))
	}
	for i, b := range blocks {
		fits(t, want[i].schema, b[1])
		dec := json.NewDecoder(bytes.NewReader(b[1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(want[i].into); err != nil {
			t.Errorf("example %d (%s) does not decode into %T: %v", i+1, want[i].schema, want[i].into, err)
		}
		if r, ok := want[i].into.(*target.TurnResponse); ok {
			if err := r.Validate(); err != nil {
				t.Errorf("example %d: %v", i+1, err)
			}
		}
	}
}

// The schemas the harness enforces are the published ones.
func TestEmbeddedSchemasAreTheDocs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(docs, "schemas", "driver", "*.schema.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%v, %d files", err, len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("schemas", filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("schemas/%s differs from %s (go generate ./target/driver): %v", filepath.Base(f), f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if _, err := driver.Schema(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	embedded, _ := filepath.Glob(filepath.Join("schemas", "*.schema.json"))
	if len(embedded) != len(files) {
		t.Errorf("%d embedded schemas, %d published", len(embedded), len(files))
	}
}
