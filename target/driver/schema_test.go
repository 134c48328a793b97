package driver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	fits(t, "chat-created", driver.ChatCreated{ChatID: "c1", ChatURL: "http://127.0.0.1:4/api/chat"})
	fits(t, "policy-callback-result", driver.PolicyResult{Decision: target.DecisionDenied, Reason: "disabled"})
	fits(t, "info", target.Info{Name: "server-only", Version: "1", Roles: []string{target.RoleServer}, Features: target.Features{
		ServerProtocols: []string{chat.ProtocolAGUI}, ServerDialects: map[string]string{chat.ProtocolAGUILegacy: chat.DialectTanStackAI05}, AutoPolicies: true}})
	for _, protocol := range chat.Protocols {
		fits(t, "chat-request", target.ChatConfig{Conversation: "c", Protocol: protocol, Model: target.ModelEndpoint{BaseURL: "http://127.0.0.1:5/s", API: target.APIOpenAIChat},
			Tools: []target.Tool{{Name: "deleteFile", Approval: target.ApprovalAlways, ExecuteURL: "http://127.0.0.1:6/x"}}})
	}
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

// docExample is an example of the docs: the schema the comment before it
// names, and its body.
type docExample struct {
	where  string // file:line
	schema string
	sse    bool // a text/event-stream whose data lines are the examples
	body   []byte
}

// docExamples reads the examples of a doc.
func docExamples(t *testing.T, name string) []docExample {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(docs, name))
	if err != nil {
		t.Fatal(err)
	}
	examples, problems := parseExamples(name, string(doc))
	for _, p := range problems {
		t.Error(p)
	}
	return examples
}

// parseExamples finds the examples of a doc. Every JSON block must be
// preceded by a comment naming its schema ("<!-- schema: turn-response -->");
// a text block is an example when such a comment names it, with " (sse)"
// for a stream of server-sent events.
func parseExamples(name, doc string) (examples []docExample, problems []string) {
	annotation := regexp.MustCompile(`^<!-- schema: ([a-z-]+)( \(sse\))? -->$`)
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		fence := lines[i]
		if fence != "```json" && fence != "```text" {
			continue
		}
		var m []string
		if i > 0 {
			m = annotation.FindStringSubmatch(lines[i-1])
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		body := strings.Join(lines[start:i], "\n")
		where := fmt.Sprintf("%s:%d", name, start)
		switch {
		case m == nil && fence == "```json":
			problems = append(problems, where+": a JSON example with no <!-- schema: NAME --> comment before it")
		case m != nil:
			examples = append(examples, docExample{where: where, schema: m[1], sse: m[2] != "", body: []byte(body)})
		}
	}
	return examples, problems
}

// strictly decodes body into v, refusing unknown fields.
func strictly(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// exampleProblems validates one example against its schema and decodes
// it, strictly, into the Go type the harness reads it with; it returns
// what is wrong.
func exampleProblems(ex docExample) []string {
	var out []string
	valid := func(schemaName string, body []byte) {
		doc, err := os.ReadFile(filepath.Join(docs, "schemas", "driver", schemaName+".schema.json"))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: no schema %s: %v", ex.where, schemaName, err))
			return
		}
		s, err := jsonschema.Compile(doc)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %s.schema.json: %v", ex.where, schemaName, err))
			return
		}
		if err := s.Validate(body); err != nil {
			out = append(out, fmt.Sprintf("%s: %s.schema.json refuses the example: %v", ex.where, schemaName, err))
		}
	}
	decodes := func(err error) {
		if err != nil {
			out = append(out, fmt.Sprintf("%s: the %s example does not decode: %v", ex.where, ex.schema, err))
		}
	}
	if ex.sse {
		n := 0
		for _, line := range strings.Split(string(ex.body), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				if line != "" {
					out = append(out, fmt.Sprintf("%s: %q is not a data line", ex.where, line))
				}
				continue
			}
			n++
			valid(ex.schema, []byte(data))
			if ex.schema == "canonical-stream-event" {
				_, err := canonical.DecodeEvent([]byte(data), "event")
				decodes(err)
			}
		}
		if n == 0 {
			out = append(out, ex.where+": a stream example with no data line")
		}
		return out
	}
	switch ex.schema {
	case "messages":
		valid("turn-response", []byte(`{"finishReason":"stop","messages":`+string(ex.body)+`}`))
		_, err := model.DecodeMessages(ex.body)
		decodes(err)
		return out
	case "events":
		valid("turn-response", []byte(`{"finishReason":"stop","events":`+string(ex.body)+`}`))
		_, err := model.DecodeEvents(ex.body)
		decodes(err)
		return out
	}
	valid(ex.schema, ex.body)
	into := map[string]func() any{
		"info":                     func() any { return &target.Info{} },
		"turn-request":             func() any { return &target.TurnRequest{} },
		"turn-response":            func() any { return &target.TurnResponse{} },
		"canonical-request":        func() any { return &canonical.Request{} },
		"canonical-response":       func() any { return &canonical.Response{} },
		"client-state":             func() any { return &target.ClientState{} },
		"session-request":          func() any { return &target.SessionConfig{} },
		"action-result":            func() any { return &target.ActionResult{} },
		"chat-request":             func() any { return &target.ChatConfig{} },
		"chat-created":             func() any { return &driver.ChatCreated{} },
		"approval-request":         func() any { return &target.ApprovalAnswer{} },
		"wait-request":             func() any { return &driver.WaitRequest{} },
		"execute-callback-request": func() any { return &target.ExecuteRequest{} },
		"execute-callback-result":  func() any { return &driver.ExecuteResult{} },
		"policy-callback-request":  func() any { return &target.PolicyRequest{} },
		"policy-callback-result":   func() any { return &driver.PolicyResult{} },
		"error":                    func() any { return &driver.Error{} },
	}[ex.schema]
	if into == nil {
		return append(out, fmt.Sprintf("%s: the test does not know the Go type of a %s example", ex.where, ex.schema))
	}
	v := into()
	decodes(strictly(ex.body, v))
	switch v := v.(type) {
	case *target.TurnResponse:
		decodes(v.Validate())
	case *target.TurnRequest:
		_, err := model.DecodeMessages(v.Messages)
		decodes(err)
	}
	return out
}

// The examples of docs/driver-protocol.md and docs/adapter-guide.md fit
// the schemas their comments name and decode, strictly, into the Go types.
func TestDocExamplesFitTheSchemas(t *testing.T) {
	for _, name := range []string{"driver-protocol.md", "adapter-guide.md"} {
		examples := docExamples(t, name)
		if len(examples) == 0 {
			t.Errorf("%s has no example the test could check", name)
		}
		for _, ex := range examples {
			for _, p := range exampleProblems(ex) {
				t.Error(p)
			}
		}
	}
}

// The doc test refuses a wrong example: one its schema refuses, one the
// strict decoder refuses, one with a field the Go type lacks.
func TestDocExampleCheckCanFail(t *testing.T) {
	for _, ex := range []docExample{
		{where: "bad:1", schema: "turn-response", body: []byte(`{"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","output":{"type":"json","value":1}}]}],"finishReason":"stop"}`)},
		{where: "bad:2", schema: "messages", body: []byte(`[{"role":"user","content":[{"type":"text","text":"x","extra":1}]}]`)},
		{where: "bad:3", schema: "events", body: []byte(`[{"type":"finish"}]`)},
		{where: "bad:4", schema: "info", body: []byte(`{"name":"x","version":"1","roles":["agent"],"features":{"modes":["generate"],"dynamicPolicy":true,"concurrency":true,"providerExecuted":true,"toolkitErrors":true,"denialPolicy":"independent","toolErrors":"result","bogus":1}}`)},
		{where: "bad:5", schema: "canonical-stream-event", sse: true, body: []byte("data: {\"type\":\"text-delta\"}\n")},
	} {
		if len(exampleProblems(ex)) == 0 {
			t.Errorf("%s: a wrong %s example passed", ex.where, ex.schema)
		}
	}
	doc := "<!-- schema: info -->\n```json\n{}\n```\n\n```json\n{\"a\": 1}\n```\n"
	if examples, problems := parseExamples("doc.md", doc); len(examples) != 1 || len(problems) != 1 || !strings.Contains(problems[0], "doc.md:6") {
		t.Errorf("an unnamed JSON example: %d example(s), problems %v", len(examples), problems)
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
