package canonical_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/provider/canonical"
)

// everything is a prompt with every part, output and field the canonical
// model has: what a provider wire drops (approval parts, result types,
// provider-executed parts, reasoning, files, ids, provider options) must
// come through.
func everything() []model.Message {
	asked := model.ApprovalRequest("appr_1", "call_1")
	asked.Signature, asked.Reason = "sig-1", "deleting needs a yes"
	auto := model.ApprovalRequest("appr_2", "call_2")
	auto.IsAutomatic = true
	hosted := model.ToolCall("mcp_1", "search", json.RawMessage(`{"q":"x"}`))
	hosted.ProviderExecuted = true
	hostedReq := model.ApprovalRequest("appr_h", "mcp_1")
	hostedResp := model.ApprovalResponse("appr_h", true, "")
	hostedResp.ProviderExecuted = true
	hostedRes := model.ToolResult("mcp_0", "search", model.JSONOutput(json.RawMessage(`{"hits":2}`)))
	hostedRes.ProviderExecuted = true
	text := model.Text("with options")
	text.ProviderOptions = json.RawMessage(`{"anthropic":{"cacheControl":{"type":"ephemeral"}}}`)
	denied := model.DeniedOutput("keep b")
	denied.ProviderOptions = json.RawMessage(`{"x":{"y":1}}`)
	return []model.Message{
		model.SystemText("Be careful — «ü»."),
		{Role: model.RoleUser, ID: "m1", Content: []model.Part{text, {Type: model.PartFile, MediaType: "image/png", Data: "aGk=", Filename: "a.png"}}},
		{Role: model.RoleAssistant, ProviderOptions: json.RawMessage(`{"openai":{"itemId":"msg_1"}}`), Content: []model.Part{
			{Type: model.PartReasoning, Text: "the user wants both gone"},
			model.Text("Deleting both."),
			hostedRes,
			model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a/ü"}`)), asked,
			model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b"}`)), auto,
			model.ToolCall("call_3", "deleteFile", json.RawMessage(`{"path":"/c"}`)),
			hosted, hostedReq,
		}},
		{Role: model.RoleTool, Content: []model.Part{
			model.ApprovalResponse("appr_1", true, ""),
			model.ApprovalResponse("appr_2", false, "keep b"),
			hostedResp,
			model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`))),
			model.ToolResult("call_2", "deleteFile", denied),
			model.ToolResult("call_3", "deleteFile", model.ErrorTextOutput("keep b")),
			model.ToolResult("call_4", "deleteFile", &model.ToolOutput{Type: model.OutputErrorJSON, Value: json.RawMessage(`{"code":5}`)}),
			model.ToolResult("call_5", "deleteFile", model.TextOutput("gone")),
			model.ToolResult("call_6", "deleteFile", model.DeniedOutput("")),
		}},
		{Role: model.RoleUser, StringContent: true, Content: []model.Part{model.Text("thanks")}},
	}
}

var tools = []llm.ToolDef{
	{Name: "deleteFile", Description: "Deletes a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
	{Name: "search", ProviderExecuted: true, ServerLabel: "docs"},
}

// The request carries the prompt whole: what the client encodes is what the
// server decodes, part for part.
func TestRequestIsLossless(t *testing.T) {
	c := canonical.Codec{}
	for _, stream := range []bool{false, true} {
		want := &llm.Request{Messages: everything(), Tools: tools}
		body, err := c.EncodeRequest(want, stream)
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.DecodeRequest(body)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		if d.Stream != stream || !d.Lossless || !d.IncludeUsage || len(d.View.Entries) != 0 {
			t.Errorf("decoded stream %v lossless %v usage %v view %+v", d.Stream, d.Lossless, d.IncludeUsage, d.View)
		}
		if diff := cmp.Diff(want, d.Request); diff != "" {
			t.Errorf("stream %v: the prompt changed (-sent +decoded):\n%s", stream, diff)
		}
	}
}

func reply() *llm.Response {
	call := model.ToolCall("mcp_9", "search", json.RawMessage(`{"q":"y"}`))
	call.ProviderExecuted = true
	req := model.ApprovalRequest("appr_9", "mcp_9") // its call says who runs it
	res := model.ToolResult("mcp_8", "search", model.JSONOutput(json.RawMessage(`{"hits":0}`)))
	res.ProviderExecuted = true
	return &llm.Response{Content: []model.Part{
		{Type: model.PartReasoning, Text: "think"},
		model.Text("Déjà vu."),
		model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
		res, call, req,
	}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 12, OutputTokens: 7}}
}

// A whole reply and a streamed one come back as they were sent.
func TestReplyRoundTrip(t *testing.T) {
	c := canonical.Codec{}
	want := reply()
	body, err := c.EncodeResponse(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.DecodeResponse(body)
	if err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reply (-sent +read):\n%s", diff)
	}
	empty, err := c.EncodeResponse(&llm.Response{})
	if err != nil || string(empty) != `{"content":[],"finishReason":"stop","usage":{"inputTokens":0,"outputTokens":0}}` {
		t.Errorf("an empty reply encodes as %s (%v)", empty, err)
	}

	events := []llm.StreamEvent{
		{Type: llm.StreamReasoningDelta, Text: "thi"},
		{Type: llm.StreamTextDelta, Text: "Déjà "},
		{Type: llm.StreamTextDelta, Text: ""},
		{Type: llm.StreamToolInputStart, ToolCallID: "call_1", ToolName: "deleteFile"},
		{Type: llm.StreamToolInputDelta, ToolCallID: "call_1", Delta: `{"path":`},
		{Type: llm.StreamToolInputDelta, ToolCallID: "call_1", Delta: `"/a"}`},
	}
	for i := range want.Content {
		events = append(events, llm.StreamEvent{Type: llm.StreamPart, Part: &want.Content[i]})
	}
	events = append(events, llm.StreamEvent{Type: llm.StreamFinish, FinishReason: llm.FinishToolCalls, Usage: want.Usage})
	var buf bytes.Buffer
	flushes := 0
	sw := c.NewStreamWriter(&buf, func() { flushes++ }, true)
	for _, ev := range events {
		if err := sw.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	if flushes != len(events) {
		t.Errorf("%d flushes for %d events", flushes, len(events))
	}
	var read []llm.StreamEvent
	if err := c.ReadStream(context.Background(), &buf, func(ev llm.StreamEvent) error { read = append(read, ev); return nil }); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(events, read); diff != "" {
		t.Errorf("stream (-sent +read):\n%s", diff)
	}
	if err := c.ReadStream(context.Background(), strings.NewReader("data: {\"type\":\"text-delta\",\"text\":\"a\"}\n\n"), func(llm.StreamEvent) error { return nil }); err == nil || !strings.Contains(err.Error(), "ended before its finish") {
		t.Errorf("a stream cut before its finish: %v", err)
	}
}

// Decoding is strict: every malformed request, reply or event is an error
// naming the field at fault.
func TestStrictDecoding(t *testing.T) {
	c := canonical.Codec{}
	user := `[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ body, want string }{
		{`{}`, "messages: missing field"},
		{`[]`, "body: want an object, got array"},
		{`{"messages":` + user + `,"temperature":1}`, "temperature: unknown field"},
		{`{"messages":` + user + `,"messages":[]}`, "messages: duplicate field"},
		{`{"messages":` + user + `} {}`, "unexpected data after the JSON object"},
		{`{"messages":{"role":"user"}}`, "messages: want an array"},
		{`{"messages":[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":"yes"}]}]}`, "messages[0].content[0].approved: want a boolean"},
		{`{"messages":[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":{},"override":true}]}]}`, "messages[0].content[0].override: unknown field"},
		{`{"messages":[{"role":"user","content":[{"type":"tool-approval-response","approvalId":"a","approved":true}]}]}`, "messages[0].content[0].type: part type \"tool-approval-response\" is not allowed in a user message"},
		{`{"messages":[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"denied"}}]}]}`, "messages[0].content[0].output.type: unknown output type"},
		{`{"messages":` + user + `,"stream":"yes"}`, "stream: want a boolean, got string"},
		{`{"messages":` + user + `,"tools":{}}`, "tools: want an array, got object"},
		{`{"messages":` + user + `,"tools":[{"name":"a","parameters":{}}]}`, "tools[0].parameters: unknown field"},
		{`{"messages":` + user + `,"tools":[{"description":"d"}]}`, "tools[0].name: missing field"},
		{`{"messages":` + user + `,"tools":[{"name":"a"},{"name":"a"}]}`, "tools[1].name: the tool \"a\" is defined twice"},
		{`{"messages":` + user + `,"tools":[{"name":"a","inputSchema":"object"}]}`, "tools[0].inputSchema: want a JSON Schema object, got string"},
		{`{"messages":` + user + `,"tools":[{"name":"a","providerExecuted":1}]}`, "tools[0].providerExecuted: want a boolean, got number"},
		{`{"messages":` + user + `,"options":{"toolChoice":{"type":"any"}}}`, "options.toolChoice.type: unknown tool choice \"any\""},
		{`{"messages":` + user + `,"options":{"toolChoice":{"type":"tool"}}}`, "options.toolChoice.toolName: missing field"},
		{`{"messages":` + user + `,"options":{"toolChoice":{"type":"auto","toolName":"a"}}}`, "options.toolChoice.toolName: only a tool choice of type tool names a tool"},
		{`{"messages":` + user + `,"options":{"maxOutputTokens":1.5}}`, "options.maxOutputTokens: want an integer"},
		{`{"messages":` + user + `,"options":{"maxOutputTokens":0}}`, "options.maxOutputTokens: must be at least 1"},
		{`{"messages":` + user + `,"options":{"temperature":"hot"}}`, "options.temperature: want a number, got string"},
		{`{"messages":` + user + `,"options":{"stopSequences":"x"}}`, "options.stopSequences: want an array of strings"},
		{`{"messages":` + user + `,"options":{"responseFormat":{"type":"xml"}}}`, "options.responseFormat.type: unknown response format"},
		{`{"messages":` + user + `,"options":{"providerOptions":[]}}`, "options.providerOptions: want an object, got array"},
		{`{"messages":` + user + `,"options":{"maxSteps":3}}`, "options.maxSteps: unknown field"},
	} {
		_, err := c.DecodeRequest([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n  got  %v\n  want %q", tc.body, err, tc.want)
		}
	}
	full := `{"messages":` + user + `,"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"}}],"stream":false,"options":{` +
		`"toolChoice":{"type":"tool","toolName":"a"},"maxOutputTokens":64,"temperature":0.2,"topP":1,"topK":3,"presencePenalty":0,"frequencyPenalty":0,` +
		`"stopSequences":["END"],"seed":7,"responseFormat":{"type":"json","schema":{"type":"object"},"name":"n","description":"d"},"reasoning":"low","providerOptions":{"openai":{"store":false}}}}`
	if _, err := c.DecodeRequest([]byte(full)); err != nil {
		t.Errorf("every option set: %v", err)
	}

	for _, tc := range []struct{ body, want string }{
		{`{"finishReason":"stop","usage":{"inputTokens":0,"outputTokens":0}}`, "content: missing field"},
		{`{"content":[],"finishReason":"done","usage":{"inputTokens":0,"outputTokens":0}}`, "finishReason: unknown finish reason \"done\""},
		{`{"content":[],"finishReason":"stop"}`, "usage: missing field"},
		{`{"content":[],"finishReason":"stop","usage":{"inputTokens":-1,"outputTokens":0}}`, "usage.inputTokens: want a count of tokens"},
		{`{"content":[],"finishReason":"stop","usage":{"inputTokens":1,"outputTokens":0,"totalTokens":1}}`, "usage.totalTokens: unknown field"},
		{`{"content":[{"type":"tool-approval-response","approvalId":"a","approved":true}],"finishReason":"stop","usage":{"inputTokens":0,"outputTokens":0}}`, "content[0].type: part type \"tool-approval-response\" is not allowed in a assistant message"},
		{`{"content":[],"finishReason":"stop","usage":{"inputTokens":0,"outputTokens":0},"id":"x"}`, "id: unknown field"},
	} {
		_, err := c.DecodeResponse([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("reply %s\n  got  %v\n  want %q", tc.body, err, tc.want)
		}
	}

	for _, tc := range []struct{ data, want string }{
		{`{"type":"text-start"}`, "event 1.type: unknown event type \"text-start\""},
		{`{"type":"text-delta"}`, "event 1.text: missing field"},
		{`{"type":"text-delta","text":"a","id":"t1"}`, "event 1.id: unknown field"},
		{`{"type":"tool-input-start","toolCallId":"c"}`, "event 1.toolName: missing field"},
		{`{"type":"tool-input-delta","toolCallId":"c","delta":5}`, "event 1.delta: want a string"},
		{`{"type":"tool-call","toolCallId":"c","toolName":"t"}`, "event 1.input: missing field"},
		{`{"type":"finish","finishReason":"stop"}`, "event 1.usage: missing field"},
		{`not json`, "event 1: invalid JSON"},
	} {
		err := c.ReadStream(context.Background(), strings.NewReader("data: "+tc.data+"\n\n"), func(llm.StreamEvent) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("event %s\n  got  %v\n  want %q", tc.data, err, tc.want)
		}
	}
}

// The canonical API is found by its name, beside the provider formats.
func TestRegistered(t *testing.T) {
	c, err := provider.Lookup(provider.Canonical)
	if err != nil || c.Path() != "/canonical" {
		t.Fatalf("lookup: %v %v", c, err)
	}
	client, err := provider.NewClient("http://127.0.0.1:1/v1/", "canonical")
	if err != nil || client.Codec.Profile() != provider.Canonical || client.BaseURL != "http://127.0.0.1:1/v1" {
		t.Fatalf("client: %+v %v", client, err)
	}
	if _, err := provider.NewClient("http://127.0.0.1:1/v1", "canonicle"); err == nil {
		t.Error("an unknown API makes a client")
	}
}
