package provider_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"

	_ "github.com/approval-conformance-kit/ack/provider/anthropic"
	_ "github.com/approval-conformance-kit/ack/provider/openaichat"
	_ "github.com/approval-conformance-kit/ack/provider/openairesponses"
)

func codecs(t *testing.T) []provider.Codec {
	t.Helper()
	var out []provider.Codec
	for _, p := range wire.Profiles {
		c, err := provider.Lookup(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

var tools = []llm.ToolDef{
	{Name: "deleteFile", Description: "Deletes a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "listFiles", InputSchema: json.RawMessage(`{"type":"object"}`)},
}

// conversation is a prompt every wire carries without loss: text, calls
// with their input, JSON and text results.
func conversation() []model.Message {
	return []model.Message{
		model.SystemText("Be careful — «ü»."),
		model.UserText("delete a and b, then list"),
		{Role: model.RoleAssistant, Content: []model.Part{
			model.Text("Deleting both."),
			model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a/ü"}`)),
			model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b","n":[1,2.5,null]}`)),
		}},
		{Role: model.RoleTool, Content: []model.Part{
			model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`))),
			model.ToolResult("call_2", "deleteFile", model.TextOutput("gone, as asked")),
		}},
		{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall("call_3", "listFiles", json.RawMessage(`{}`))}},
		{Role: model.RoleTool, Content: []model.Part{model.ToolResult("call_3", "listFiles", model.JSONOutput(json.RawMessage(`["c","d"]`)))}},
		{Role: model.RoleAssistant, Content: []model.Part{model.Text("Done: c and d are left.")}},
		model.UserText("thanks"),
	}
}

// A prompt the client encodes is the prompt the server decodes, in every
// format, generate and stream.
func TestRequestRoundTrip(t *testing.T) {
	for _, c := range codecs(t) {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", c.Profile(), stream), func(t *testing.T) {
				want := &llm.Request{Messages: conversation(), Tools: tools}
				body, err := c.EncodeRequest(want, stream)
				if err != nil {
					t.Fatal(err)
				}
				d, err := c.DecodeRequest(body)
				if err != nil {
					t.Fatalf("decode %s: %v", body, err)
				}
				if d.Stream != stream {
					t.Errorf("stream = %v, want %v", d.Stream, stream)
				}
				if stream && !d.IncludeUsage {
					t.Error("a stream the client asked for carries no usage")
				}
				ignoreStringContent := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".StringContent" }, cmp.Ignore())
				if diff := cmp.Diff(want.Messages, d.Request.Messages, ignoreStringContent); diff != "" {
					t.Errorf("messages (-sent +decoded):\n%s", diff)
				}
				if diff := cmp.Diff(want.Tools, d.Request.Tools); diff != "" {
					t.Errorf("tools (-sent +decoded):\n%s", diff)
				}
				if vs := wire.Check(d.View, "req_1"); len(vs) > 0 {
					t.Errorf("a valid prompt broke the rules: %v", vs)
				}
			})
		}
	}
}

// What the wires cannot carry: approval parts never reach the provider; a
// denial reaches it as its reason (Anthropic marks it an error).
func TestRequestLosses(t *testing.T) {
	msgs := []model.Message{
		model.UserText("delete a and b"),
		{Role: model.RoleAssistant, Content: []model.Part{
			model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
			model.ApprovalRequest("appr_1", "call_1"),
			model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b"}`)),
			model.ApprovalRequest("appr_2", "call_2"),
		}},
		{Role: model.RoleTool, Content: []model.Part{
			model.ApprovalResponse("appr_1", true, "fine"),
			model.ApprovalResponse("appr_2", false, "keep b"),
			model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))),
			model.ToolResult("call_2", "deleteFile", model.DeniedOutput("keep b")),
		}},
	}
	for _, c := range codecs(t) {
		body, err := c.EncodeRequest(&llm.Request{Messages: msgs}, false)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(body, []byte("appr_")) || bytes.Contains(body, []byte("fine")) {
			t.Errorf("%s: approval parts reached the wire: %s", c.Profile(), body)
		}
		d, err := c.DecodeRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		denial := model.TextOutput("keep b")
		if c.Profile() == wire.AnthropicMessages {
			denial = model.ErrorTextOutput("keep b")
		}
		want := []model.Message{
			model.UserText("delete a and b"),
			{Role: model.RoleAssistant, Content: []model.Part{
				model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
				model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b"}`)),
			}},
			{Role: model.RoleTool, Content: []model.Part{
				model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))),
				model.ToolResult("call_2", "deleteFile", denial),
			}},
		}
		if diff := cmp.Diff(want, d.Request.Messages); diff != "" {
			t.Errorf("%s (-want +decoded):\n%s", c.Profile(), diff)
		}
	}
}

// The view a server decodes from the wire breaks exactly the rules the
// canonical prompt breaks in-process, with the same provider answer: the
// simulator gives one verdict whichever way a prompt arrives.
func TestDecodedViewChecksAsCanonical(t *testing.T) {
	call := func(id string) model.Part { return model.ToolCall(id, "deleteFile", json.RawMessage(`{}`)) }
	result := func(id string) model.Part {
		return model.ToolResult(id, "deleteFile", model.JSONOutput(json.RawMessage(`{"ok":true}`)))
	}
	asst := func(parts ...model.Part) model.Message {
		return model.Message{Role: model.RoleAssistant, Content: parts}
	}
	tool := func(parts ...model.Part) model.Message { return model.Message{Role: model.RoleTool, Content: parts} }
	prompts := map[string][]model.Message{
		"valid":              {model.UserText("go"), asst(call("c1"), call("c2")), tool(result("c1"), result("c2"))},
		"dangling then user": {model.SystemText("s"), model.UserText("go"), asst(call("c1")), model.UserText("and?")},
		"dangling at end":    {model.UserText("go"), asst(model.Text("x"), call("c1"), call("c2")), tool(result("c2"))},
		"orphan":             {model.UserText("go"), tool(result("c9"))},
		"misplaced":          {model.UserText("go"), asst(call("c1")), model.UserText("wait"), tool(result("c1"))},
		"duplicate":          {model.UserText("go"), asst(call("c1")), tool(result("c1"), result("c1"))},
		"second step":        {model.UserText("go"), asst(call("c1")), tool(result("c1")), asst(call("c2")), model.UserText("no")},
	}
	for _, c := range codecs(t) {
		for name, msgs := range prompts {
			want := wire.CheckMessages(c.Profile(), msgs, "req_1")
			body, err := c.EncodeRequest(&llm.Request{Messages: msgs}, false)
			if err != nil {
				t.Fatal(err)
			}
			d, err := c.DecodeRequest(body)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Profile(), name, err)
			}
			got := wire.Check(d.View, "req_1")
			if name == "valid" && len(want) > 0 {
				t.Fatalf("%s: the valid prompt breaks the rules in-process: %v", c.Profile(), want)
			}
			// Responses pairs calls and outputs anywhere in the input, and
			// Anthropic takes a result anywhere in the next user message.
			lenient := name == "misplaced" && c.Profile() != wire.OpenAIChat
			if name != "valid" && !lenient && len(want) == 0 {
				t.Errorf("%s %s: in-process finds nothing", c.Profile(), name)
			}
			type verdict struct {
				Kind          wire.Kind
				IDs           []string
				Status        int
				Text, Body    string
				ProviderIndex int
			}
			strip := func(vs []wire.Violation) []verdict {
				var out []verdict
				for _, v := range vs {
					out = append(out, verdict{v.Kind, v.IDs, v.Status, v.Text, v.Body, v.ProviderIndex})
				}
				return out
			}
			if diff := cmp.Diff(strip(want), strip(got)); diff != "" {
				t.Errorf("%s %s: violations (-in-process +over the wire):\n%s\nbody: %s", c.Profile(), name, diff, body)
			}
		}
	}
}

func replies() map[string]*llm.Response {
	return map[string]*llm.Response{
		"text": {Content: []model.Part{model.Text("Hello — «ü» 👋")}, FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 3, OutputTokens: 2}},
		"calls": {Content: []model.Part{
			model.Text("Deleting both."),
			model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a/ü"}`)),
			model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b","deep":{"x":[1,{"y":null}]}}`)),
		}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 12, OutputTokens: 7}},
		"only a call": {Content: []model.Part{model.ToolCall("call_1", "listFiles", json.RawMessage(`{}`))}, FinishReason: llm.FinishToolCalls},
		"length":      {Content: []model.Part{model.Text("cut sho")}, FinishReason: llm.FinishLength, Usage: llm.Usage{InputTokens: 1, OutputTokens: 100}},
	}
}

// A reply the server encodes is the reply the client decodes.
func TestResponseRoundTrip(t *testing.T) {
	for _, c := range codecs(t) {
		for name, want := range replies() {
			body, err := c.EncodeResponse(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.DecodeResponse(body)
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", c.Profile(), name, err, body)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s (-encoded +decoded):\n%s\n%s", c.Profile(), name, diff, body)
			}
		}
	}
}

// streamEvents is a reply as the simulator streams it, in chunks.
func streamEvents(resp *llm.Response, chunk int) []llm.StreamEvent {
	r := simulator.Reply{FinishReason: resp.FinishReason, Usage: resp.Usage, ChunkSize: chunk}
	for _, p := range resp.Content {
		switch p.Type {
		case model.PartText:
			r.Text += p.Text
		case model.PartToolCall:
			r.ToolCalls = append(r.ToolCalls, simulator.ToolCall{ID: p.ToolCallID, Name: p.ToolName, Input: p.Input})
		}
	}
	return r.StreamEvents()
}

// readAll reads a stream back and checks the order of its events: a call's
// input starts, then its deltas, then its part; the finish comes last.
func readAll(t *testing.T, c provider.Codec, stream []byte) (*llm.Response, []llm.StreamEvent) {
	t.Helper()
	var evs []llm.StreamEvent
	err := c.ReadStream(context.Background(), bytes.NewReader(stream), func(ev llm.StreamEvent) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatalf("%s: read the stream: %v\n%s", c.Profile(), err, stream)
	}
	resp := &llm.Response{}
	started, inputs := map[string]bool{}, map[string]string{}
	for i, ev := range evs {
		switch ev.Type {
		case llm.StreamTextDelta:
			if n := len(resp.Content); n > 0 && resp.Content[n-1].Type == model.PartText {
				resp.Content[n-1].Text += ev.Text
			} else {
				resp.Content = append(resp.Content, model.Text(ev.Text))
			}
		case llm.StreamToolInputStart:
			started[ev.ToolCallID] = true
		case llm.StreamToolInputDelta:
			if !started[ev.ToolCallID] {
				t.Errorf("%s: input for %s before its start", c.Profile(), ev.ToolCallID)
			}
			inputs[ev.ToolCallID] += ev.Delta
		case llm.StreamPart:
			if ev.Part.Type == model.PartToolCall {
				if !started[ev.Part.ToolCallID] {
					t.Errorf("%s: the part of %s before its start", c.Profile(), ev.Part.ToolCallID)
				}
				if got := inputs[ev.Part.ToolCallID]; !model.JSONEqual(json.RawMessage(got), ev.Part.Input) {
					t.Errorf("%s: the deltas of %s join to %s, its part has %s", c.Profile(), ev.Part.ToolCallID, got, ev.Part.Input)
				}
			}
			resp.Content = append(resp.Content, ev.Part.Clone())
		case llm.StreamFinish:
			if i != len(evs)-1 {
				t.Errorf("%s: the finish is event %d of %d", c.Profile(), i, len(evs))
			}
			resp.FinishReason, resp.Usage = ev.FinishReason, ev.Usage
		}
	}
	return resp, evs
}

// A reply the server streams is the reply the client reads, whatever the
// chunking.
func TestStreamRoundTrip(t *testing.T) {
	for _, c := range codecs(t) {
		for name, want := range replies() {
			for _, chunk := range []int{0, 1, 4} {
				var buf bytes.Buffer
				flushes := 0
				w := c.NewStreamWriter(&buf, func() { flushes++ }, true)
				for _, ev := range streamEvents(want, chunk) {
					if err := w.Write(ev); err != nil {
						t.Fatal(err)
					}
				}
				if flushes == 0 {
					t.Errorf("%s: the stream was never flushed", c.Profile())
				}
				got, _ := readAll(t, c, buf.Bytes())
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s %s chunk %d (-streamed +read):\n%s\n%s", c.Profile(), name, chunk, diff, buf.Bytes())
				}
			}
		}
	}
}

// OpenAI Chat sends the usage chunk only when the client asks for it.
func TestChatStreamUsageOnlyWhenAsked(t *testing.T) {
	c, _ := provider.Lookup(wire.OpenAIChat)
	want := replies()["calls"]
	for _, include := range []bool{false, true} {
		var buf bytes.Buffer
		w := c.NewStreamWriter(&buf, nil, include)
		for _, ev := range streamEvents(want, 0) {
			if err := w.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
		if got := bytes.Contains(buf.Bytes(), []byte(`"usage"`)); got != include {
			t.Errorf("include_usage %v: usage sent %v\n%s", include, got, buf.Bytes())
		}
		if !bytes.HasSuffix(buf.Bytes(), []byte("data: [DONE]\n\n")) {
			t.Errorf("the stream does not end with [DONE]:\n%s", buf.Bytes())
		}
		got, _ := readAll(t, c, buf.Bytes())
		if include && got.Usage != want.Usage || !include && got.Usage != (llm.Usage{}) {
			t.Errorf("include_usage %v: usage read %+v", include, got.Usage)
		}
	}
}

// The HTTP client against a server of each format: the server decodes what
// the client sent; the client decodes what the server answered, JSON and
// streamed; a non-2xx answer is an *llm.APIError with the status and the
// exact body.
func TestClientOverHTTP(t *testing.T) {
	for _, c := range codecs(t) {
		t.Run(string(c.Profile()), func(t *testing.T) {
			want := replies()["calls"]
			sent := &llm.Request{Messages: conversation(), Tools: tools}
			var failWith []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1"+c.Path() || r.Method != http.MethodPost || r.Header.Get("X-Api-Key") != "k" {
					http.Error(w, "wrong route or header", http.StatusTeapot)
					return
				}
				if failWith != nil {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write(failWith)
					return
				}
				body, _ := io.ReadAll(r.Body)
				d, err := c.DecodeRequest(body)
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				if diff := cmp.Diff(sent.Messages, d.Request.Messages, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".StringContent" }, cmp.Ignore())); diff != "" {
					t.Errorf("the server decoded (-sent +decoded):\n%s", diff)
				}
				if !d.Stream {
					out, _ := c.EncodeResponse(want)
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(out)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				sw := c.NewStreamWriter(w, w.(http.Flusher).Flush, d.IncludeUsage)
				for _, ev := range streamEvents(want, 3) {
					if sw.Write(ev) != nil {
						return
					}
				}
			}))
			defer srv.Close()
			client := &provider.Client{BaseURL: srv.URL + "/v1", Codec: c, Header: http.Header{"X-Api-Key": {"k"}}}
			ctx := context.Background()
			got, err := client.Generate(ctx, sent)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("generate (-sent +read):\n%s", diff)
			}
			got, err = llm.Collect(ctx, client, sent)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stream (-sent +read):\n%s", diff)
			}

			failWith = c.ErrorBody(400, "invalid_request_error", "no, thanks")
			for _, stream := range []bool{false, true} {
				if stream {
					err = client.Stream(ctx, sent, func(llm.StreamEvent) error { return nil })
				} else {
					_, err = client.Generate(ctx, sent)
				}
				var apiErr *llm.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("stream %v: err = %v, want an *llm.APIError", stream, err)
				}
				if apiErr.Status != 400 || apiErr.Type != "invalid_request_error" || apiErr.Message != "no, thanks" || !bytes.Equal(apiErr.Body, failWith) {
					t.Errorf("stream %v: %+v", stream, apiErr)
				}
			}
		})
	}
}

// The error envelopes are the providers' own, field for field.
func TestErrorBodies(t *testing.T) {
	want := map[wire.Profile]string{
		wire.OpenAIChat:        `{"error":{"message":"bad \"x\"","type":"invalid_request_error","param":null,"code":null}}`,
		wire.OpenAIResponses:   `{"error":{"message":"bad \"x\"","type":"invalid_request_error","param":null,"code":null}}`,
		wire.AnthropicMessages: `{"type":"error","error":{"type":"invalid_request_error","message":"bad \"x\""}}`,
	}
	for _, c := range codecs(t) {
		if got := string(c.ErrorBody(400, "", `bad "x"`)); got != want[c.Profile()] {
			t.Errorf("%s: %s\nwant %s", c.Profile(), got, want[c.Profile()])
		}
	}
}

// A body that does not decode is an error naming the JSON field.
func TestDecodeErrorsNameTheField(t *testing.T) {
	cases := map[wire.Profile]map[string]string{
		wire.OpenAIChat: {
			`{}`: "messages: missing",
			`{"messages":[{"role":"user","content":5}]}`:                                                             "messages[0].content",
			`{"messages":[{"role":"user","content":"x"},{"role":"robot","content":"x"}]}`:                            "messages[1].role",
			`{"messages":[{"role":"tool","content":"x"}]}`:                                                           "messages[0].tool_call_id",
			`{"messages":[{"role":"assistant","tool_calls":[{"function":{"name":"n","arguments":"{}"}}]}]}`:          "messages[0].tool_calls[0].id",
			`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":"{x"}}]}]}`: "messages[0].tool_calls[0].function.arguments",
			`{"messages":[],"tools":[{"type":"function","function":{}}]}`:                                            "tools[0].function.name",
			`{"messages":[],"tools":[{"type":"custom","custom":{"description":"d"}}]}`:                               "tools[0].custom.name",
			`{"messages":[],"tools":[{"type":"retrieval"}]}`:                                                         "tools[0].type",
			`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"input":"ls"}}]}]}`:  "messages[0].tool_calls[0].custom.name",
			`{"messages":[{"role":5}]}`: "messages.role",
		},
		wire.OpenAIResponses: {
			`{}`:                           "input: missing",
			`{"input":[{"type":"bogus"}]}`: "input[0].type",
			`{"input":[{"role":"user","content":"x"},{"type":"function_call","call_id":"c"}]}`: "input[1]",
			`{"input":[{"type":"function_call","call_id":"c","name":"n","arguments":"{"}]}`:    "input[0].arguments",
			`{"input":[{"type":"function_call_output","output":"x"}]}`:                         "input[0].call_id",
			`{"input":[{"type":"mcp_approval_response","approval_request_id":"a"}]}`:           "input[0]",
			`{"input":[{"role":"robot","content":"x"}]}`:                                       "input[0].role",
			`{"input":[],"tools":[{"type":"function"}]}`:                                       "tools[0].name",
			`{"input":[],"tools":[{"type":"custom"}]}`:                                         "tools[0].name",
			`{"input":[],"tools":[{"type":"mcp","server_url":"https://x"}]}`:                   "tools[0].server_label",
			`{"input":[{"type":"custom_tool_call","call_id":"c","name":"n"}]}`:                 "input[0].input",
			`{"input":[{"type":"function_call_output","call_id":"c","output":5}]}`:             "input[0].output",
			`{"input":[{"type":"function_call_output","call_id":"c"}]}`:                        "Missing required parameter: 'input[0].output'.",
			`{"input":[{"type":"function_call_output","call_id":"c","output":null}]}`:          "Missing required parameter: 'input[0].output'.",
			`{"input":"hi","instructions":["x"]}`:                                              "instructions",
			`{"input":"hi","conversation":"conv_1"}`:                                           "conversation",
		},
		wire.AnthropicMessages: {
			`{}`: "messages: missing",
			`{"messages":[{"role":"robot","content":"x"}]}`:                                            "messages[0].role",
			`{"messages":[],"tools":[{"type":"custom","input_schema":{}}]}`:                            "tools[0].name",
			`{"messages":[{"role":"user","content":5}]}`:                                               "messages[0].content",
			`{"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`:                        "messages[0].content[0].tool_use_id",
			`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`:                               "messages[0].content[0].text",
			`{"messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"n"}]}]}`:       "messages[0].content[0]",
			`{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"n"}]}]}`:           "messages[0].content[0]",
			`{"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t"}]}]}`: "messages[0].content[0]",
			`{"messages":[],"tools":[{"input_schema":{}}]}`:                                            "tools[0].name",
		},
	}
	for _, c := range codecs(t) {
		for body, field := range cases[c.Profile()] {
			_, err := c.DecodeRequest([]byte(body))
			if err == nil || !strings.Contains(err.Error(), field) {
				t.Errorf("%s %s: err = %v, want it to name %s", c.Profile(), body, err, field)
			}
		}
	}
}
