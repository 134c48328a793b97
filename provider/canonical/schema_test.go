package canonical_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/chat/sse"
	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/provider/canonical"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

var docs = filepath.Join("..", "..", "docs")

var schemaNames = []string{"canonical-request", "canonical-response", "canonical-stream-event"}

func readSchema(t *testing.T, name string) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(docs, "schemas", "driver", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Compile(readSchema(t, name))
	if err != nil {
		t.Fatalf("%s.schema.json: %v", name, err)
	}
	return s
}

func fits(t *testing.T, name string, body []byte) {
	t.Helper()
	if err := schema(t, name).Validate(body); err != nil {
		t.Errorf("%s.schema.json refuses %s: %v", name, body, err)
	}
}

// The three schemas define the parts the same way: a definition they share
// is the same in each.
func TestSchemasShareTheirDefinitions(t *testing.T) {
	seen := map[string]string{}
	from := map[string]string{}
	for _, name := range schemaNames {
		var doc struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(readSchema(t, name), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, v := range doc.Defs {
			var b bytes.Buffer
			_ = json.Compact(&b, v)
			if prev, ok := seen[k]; ok && prev != b.String() {
				t.Errorf("$defs/%s differs between %s and %s", k, from[k], name)
			}
			seen[k], from[k] = b.String(), name
		}
	}
}

// recorder keeps every request body and answer of the model client.
type recorder struct {
	mu       sync.Mutex
	requests [][]byte
	answers  [][]byte
	types    []string
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
	r.mu.Lock()
	r.requests = append(r.requests, body)
	r.answers = append(r.answers, answer)
	r.types = append(r.types, resp.Header.Get("Content-Type"))
	r.mu.Unlock()
	return resp, nil
}

// A recorded conversation over HTTP (every part and output type, generate
// and stream, a provider-executed call with its approval) fits the schemas
// both ways, event by event; and so does everything the codec encodes.
func TestExchangesFitTheSchemas(t *testing.T) {
	srv, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rec := &recorder{}
	for _, mode := range []string{"generate", "stream"} {
		sim, err := simulator.New(simulator.Script{Provider: wire.OpenAIResponses, Turns: []simulator.Turn{
			{Reply: simulator.Reply{Text: "Deleting.", ChunkSize: 3, Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}, ToolCalls: []simulator.ToolCall{
				{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
				{ID: "mcp_1", Name: "search", Input: json.RawMessage(`{"q":"x"}`), ProviderExecuted: true, ApprovalID: "appr_h"},
			}, ProviderResults: []simulator.ProviderResult{{ToolCallID: "mcp_0", Name: "search", Output: json.RawMessage(`{"hits":1}`)}}}},
			{Reply: simulator.Reply{Text: "Done."}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		base, err := srv.Add("schema-"+mode, sim)
		if err != nil {
			t.Fatal(err)
		}
		client, err := provider.NewClient(base, "canonical")
		if err != nil {
			t.Fatal(err)
		}
		client.HTTP = &http.Client{Transport: rec}
		call := func(req *llm.Request) (*llm.Response, error) {
			if mode == "generate" {
				return client.Generate(context.Background(), req)
			}
			return llm.Collect(context.Background(), client, req)
		}
		first, err := call(&llm.Request{Messages: []model.Message{model.SystemText("s"), model.UserText("delete a")}, Tools: tools})
		if err != nil {
			t.Fatal(err)
		}
		hostedResp := model.ApprovalResponse("appr_h", true, "")
		hostedResp.ProviderExecuted = true
		text := model.Text("delete a")
		text.ProviderOptions = json.RawMessage(`{"anthropic":{"cacheControl":{"type":"ephemeral"}}}`)
		msgs := []model.Message{
			model.SystemText("s"),
			{Role: model.RoleUser, ID: "m1", Content: []model.Part{text, {Type: model.PartFile, MediaType: "image/png", Data: "aGk=", Filename: "a.png"}}},
			{Role: model.RoleAssistant, Content: append(append([]model.Part{{Type: model.PartReasoning, Text: "r"}}, first.Content...),
				model.ApprovalRequest("appr_1", "call_1"),
				model.ToolCall("call_2", "deleteFile", json.RawMessage(`{}`)), model.ToolCall("call_3", "deleteFile", json.RawMessage(`{}`)),
				model.ToolCall("call_4", "deleteFile", json.RawMessage(`{}`)), model.ToolCall("call_5", "deleteFile", json.RawMessage(`{}`)))},
			{Role: model.RoleTool, Content: []model.Part{
				model.ApprovalResponse("appr_1", false, "no"), hostedResp,
				model.ToolResult("call_1", "deleteFile", model.DeniedOutput("no")),
				model.ToolResult("call_2", "deleteFile", model.ErrorTextOutput("failed")),
				model.ToolResult("call_3", "deleteFile", &model.ToolOutput{Type: model.OutputErrorJSON, Value: json.RawMessage(`{"code":5}`)}),
				model.ToolResult("call_4", "deleteFile", model.TextOutput("gone")),
				model.ToolResult("call_5", "deleteFile", model.JSONOutput(json.RawMessage(`[1]`))),
			}},
		}
		if _, err := call(&llm.Request{Messages: msgs, Tools: tools}); err != nil {
			t.Fatalf("%s: %v (problems %v)", mode, err, sim.Problems())
		}
	}
	if len(rec.requests) != 4 {
		t.Fatalf("%d exchanges recorded", len(rec.requests))
	}
	events := 0
	for i := range rec.requests {
		fits(t, "canonical-request", rec.requests[i])
		if rec.types[i] != "text/event-stream" {
			fits(t, "canonical-response", rec.answers[i])
			continue
		}
		sr := sse.NewReader(bytes.NewReader(rec.answers[i]))
		for {
			ev, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			fits(t, "canonical-stream-event", ev.Data)
			events++
		}
	}
	if events < 8 {
		t.Errorf("only %d stream events recorded", events)
	}

	c := canonical.Codec{}
	body, _ := c.EncodeRequest(&llm.Request{Messages: everything(), Tools: tools}, true)
	fits(t, "canonical-request", body)
	body, _ = c.EncodeResponse(reply())
	fits(t, "canonical-response", body)
}

// The schemas refuse what the decoder refuses (what a schema can say).
func TestSchemasAndDecoderAgree(t *testing.T) {
	c := canonical.Codec{}
	user := `[{"role":"user","content":"hi"}]`
	for _, body := range []string{
		`{}`,
		`{"messages":` + user + `,"temperature":1}`,
		`{"messages":[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":"yes"}]}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":{},"override":true}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"tool-approval-response","approvalId":"a","approved":true}]}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"denied"}}]}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"text","value":{}}}]}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"","toolName":"t","output":{"type":"json","value":1}}]}]}`,
		`{"messages":[{"role":"system","content":[{"type":"text","text":"s"}]}]}`,
		`{"messages":[{"role":"tool","content":"hi"}]}`,
		`{"messages":` + user + `,"stream":"yes"}`,
		`{"messages":` + user + `,"tools":[{"name":"a","parameters":{}}]}`,
		`{"messages":` + user + `,"tools":[{"name":"a","inputSchema":"object"}]}`,
		`{"messages":` + user + `,"options":{"toolChoice":{"type":"any"}}}`,
		`{"messages":` + user + `,"options":{"toolChoice":{"type":"tool"}}}`,
		`{"messages":` + user + `,"options":{"toolChoice":{"type":"auto","toolName":"a"}}}`,
		`{"messages":` + user + `,"options":{"maxOutputTokens":0}}`,
		`{"messages":` + user + `,"options":{"responseFormat":{"type":"xml"}}}`,
		`{"messages":` + user + `,"options":{"maxSteps":3}}`,
	} {
		_, derr := c.DecodeRequest([]byte(body))
		serr := schema(t, "canonical-request").Validate([]byte(body))
		if derr == nil || serr == nil {
			t.Errorf("%s\n  decoder: %v\n  schema:  %v", body, derr, serr)
		}
	}
	for _, body := range []string{
		`{"content":[],"finishReason":"done","usage":{"inputTokens":0,"outputTokens":0}}`,
		`{"content":[],"finishReason":"stop"}`,
		`{"content":[],"finishReason":"stop","usage":{"inputTokens":-1,"outputTokens":0}}`,
		`{"content":[{"type":"tool-approval-response","approvalId":"a","approved":true}],"finishReason":"stop","usage":{"inputTokens":0,"outputTokens":0}}`,
	} {
		_, derr := c.DecodeResponse([]byte(body))
		serr := schema(t, "canonical-response").Validate([]byte(body))
		if derr == nil || serr == nil {
			t.Errorf("%s\n  decoder: %v\n  schema:  %v", body, derr, serr)
		}
	}
}

// The stream example of docs/driver-protocol.md is a stream the client
// reads, every event fitting its schema.
func TestDocStreamExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docs, "driver-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```text\n(data: .*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/driver-protocol.md has no stream example")
	}
	for _, line := range strings.Split(string(m[1]), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			fits(t, "canonical-stream-event", []byte(data))
		}
	}
	var got []llm.StreamEvent
	if err := (canonical.Codec{}).ReadStream(context.Background(), bytes.NewReader(m[1]), func(ev llm.StreamEvent) error {
		got = append(got, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	call := model.ToolCall("call_3", "listFiles", json.RawMessage(`{}`))
	want := []llm.StreamEvent{
		{Type: llm.StreamTextDelta, Text: "Deleting /a; "},
		{Type: llm.StreamTextDelta, Text: "/b stays."},
		{Type: llm.StreamToolInputStart, ToolCallID: "call_3", ToolName: "listFiles"},
		{Type: llm.StreamToolInputDelta, ToolCallID: "call_3", Delta: "{}"},
		{Type: llm.StreamPart, Part: &call},
		{Type: llm.StreamFinish, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 52, OutputTokens: 17}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the example reads as (-want +got):\n%s", d)
	}
}
