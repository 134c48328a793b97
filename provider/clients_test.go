package provider_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

// The request bodies below hold every message, content part, input item,
// tool and request field the official clients send (openai 7.57.0,
// @anthropic-ai/sdk 1.12.0, and the AI SDK's providers, @ai-sdk/openai
// 4.0.118 and 3.0.141, @ai-sdk/anthropic 4.0.105 and 3.0.140), in one
// approval conversation per format. Each is accepted as the provider
// accepts it, read into the prompt the conversation means, and breaks no
// provider rule.

const chatBody = `{"model":"m",
 "messages":[
  {"role":"developer","content":"You manage files.","name":"ops"},
  {"role":"system","content":[{"type":"text","text":"Be brief.","prompt_cache_breakpoint":{"type":"ephemeral"}}]},
  {"role":"user","name":"u","content":[{"type":"text","text":"delete a"},
    {"type":"image_url","image_url":{"url":"data:image/png;base64,AA","detail":"low"}},
    {"type":"input_audio","input_audio":{"data":"AA","format":"wav"}},
    {"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,AA"}}]},
  {"role":"assistant","content":null,"refusal":null,"annotations":[],"audio":null,"tool_calls":[
    {"id":"call_1","type":"function","function":{"name":"deleteFile","arguments":"{\"path\":\"/a\"}"}},
    {"id":"call_2","type":"custom","custom":{"name":"shell","input":"rm b"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"{\"deleted\":\"/a\"}"},
  {"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"Tool call execution denied."}]},
  {"role":"assistant","content":[{"type":"text","text":"Done."},{"type":"refusal","refusal":""}]},
  {"role":"user","content":"thanks"}],
 "tools":[{"type":"function","function":{"name":"deleteFile","description":"d","parameters":{"type":"object"},"strict":true}},
  {"type":"custom","custom":{"name":"shell","description":"s","format":{"type":"text"}}}],
 "tool_choice":{"type":"function","function":{"name":"deleteFile"}},"parallel_tool_calls":false,"store":true,"metadata":{"a":"b"},
 "max_completion_tokens":10,"max_tokens":10,"reasoning_effort":"low","service_tier":"auto","user":"u","safety_identifier":"s",
 "prompt_cache_key":"k","prompt_cache_retention":"24h","seed":1,"stop":["x"],"temperature":0,"top_p":1,"frequency_penalty":0,
 "presence_penalty":0,"logit_bias":{},"logprobs":false,"top_logprobs":0,"n":1,"modalities":["text"],
 "prediction":{"type":"content","content":"x"},"response_format":{"type":"json_object"},"verbosity":"low",
 "web_search_options":{},"stream":true,"stream_options":{"include_usage":true}}`

const responsesBody = `{"model":"m","instructions":"You manage files.","store":false,"include":["reasoning.encrypted_content"],
 "parallel_tool_calls":true,"tool_choice":"auto","metadata":{},"max_output_tokens":5,
 "text":{"format":{"type":"text"},"verbosity":"low"},"reasoning":{"effort":"low","summary":"auto"},"truncation":"auto",
 "service_tier":"auto","prompt_cache_key":"k","safety_identifier":"s","user":"u","top_logprobs":0,"max_tool_calls":3,
 "background":false,"stream":true,"stream_options":{"include_obfuscation":false},"temperature":1,"top_p":1,
 "tools":[{"type":"function","name":"deleteFile","parameters":{"type":"object"},"strict":false},
  {"type":"custom","name":"shell","format":{"type":"text"}},
  {"type":"mcp","server_label":"docs","server_url":"https://mcp.example","require_approval":"always"},
  {"type":"web_search"},{"type":"file_search","vector_store_ids":["v"]},{"type":"code_interpreter","container":{"type":"auto"}},
  {"type":"image_generation"},{"type":"local_shell"},{"type":"shell"},{"type":"apply_patch"},
  {"type":"computer_use_preview","display_width":1,"display_height":1,"environment":"browser"}],
 "input":[
  {"role":"developer","content":"Be brief."},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"delete a"},
    {"type":"input_image","image_url":"data:image/png;base64,AA","detail":"low"},
    {"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,AA"}]},
  {"type":"reasoning","id":"rs_1","encrypted_content":"enc","summary":[{"type":"summary_text","text":"thinking"}]},
  {"type":"message","role":"assistant","id":"msg_1","status":"completed","content":[{"type":"output_text","text":"Deleting.","annotations":[]}]},
  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"deleteFile","arguments":"{\"path\":\"/a\"}","status":"completed"},
  {"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"shell","input":"rm b"},
  {"type":"mcp_list_tools","id":"mcpl_1","server_label":"docs","tools":[]},
  {"type":"mcp_approval_request","id":"mcpr_1","server_label":"docs","name":"search","arguments":"{}"},
  {"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"q"}},
  {"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"{\"deleted\":\"/a\"}"},{"type":"input_image","image_url":"data:image/png;base64,AA"}]},
  {"type":"custom_tool_call_output","call_id":"call_2","output":"Tool call execution denied."},
  {"type":"mcp_approval_response","approval_request_id":"mcpr_1","approve":true},
  {"type":"mcp_call","id":"mcp_1","server_label":"docs","name":"search","arguments":"{}","output":"ok"},
  {"type":"local_shell_call","id":"lsc_1","call_id":"call_3","status":"completed","action":{"type":"exec","command":["ls"],"env":{}}},
  {"type":"local_shell_call_output","call_id":"call_3","output":"a"},
  {"type":"compaction","id":"cmp_1","encrypted_content":"x"},
  {"role":"assistant","content":"Done."},
  {"role":"user","content":"thanks"}]}`

const anthropicBody = `{"model":"m","max_tokens":10,
 "system":[{"type":"text","text":"You manage files.","cache_control":{"type":"ephemeral","ttl":"5m"}}],
 "tools":[{"name":"deleteFile","description":"d","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},
  {"type":"custom","name":"shell","input_schema":{"type":"object"}},
  {"type":"web_search_20250305","name":"web_search","max_uses":1},{"type":"bash_20250124","name":"bash"},
  {"type":"computer_toolset_20260801"}],
 "tool_choice":{"type":"auto","disable_parallel_tool_use":true},"thinking":{"type":"enabled","budget_tokens":1024},
 "metadata":{"user_id":"u"},"stop_sequences":["x"],"temperature":1,"top_p":1,"top_k":5,"service_tier":"auto",
 "container":null,"mcp_servers":[{"type":"url","url":"https://mcp.example","name":"docs"}],"stream":true,
 "messages":[
  {"role":"user","content":[{"type":"text","text":"delete a"},
    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}},
    {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"AA"},"title":"t","citations":{"enabled":true}}]},
  {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig"},{"type":"redacted_thinking","data":"x"},
    {"type":"text","text":"Deleting.","citations":null},
    {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
    {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
    {"type":"mcp_tool_use","id":"mcptoolu_1","name":"search","server_name":"docs","input":{}},
    {"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"ok"}]},
    {"type":"tool_use","id":"toolu_1","name":"deleteFile","input":{"path":"/a"},"cache_control":{"type":"ephemeral"}},
    {"type":"tool_use","id":"toolu_2","name":"deleteFile","input":{"path":"/b"}}]},
  {"role":"user","content":[
    {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"{\"deleted\":\"/a\"}"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]},
    {"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":"Tool call execution denied.","cache_control":{"type":"ephemeral"}},
    {"type":"text","text":"go on"}]},
  {"role":"assistant","content":"Done."},
  {"role":"system","content":[{"type":"text","text":"Mid-conversation system."}]},
  {"role":"user","content":"thanks"}]}`

func call(id, name, input string) model.Part { return model.ToolCall(id, name, json.RawMessage(input)) }

func result(id, name string, out *model.ToolOutput) model.Part {
	return model.ToolResult(id, name, out)
}

func tool(parts ...model.Part) model.Message {
	return model.Message{Role: model.RoleTool, Content: parts}
}

func assistant(parts ...model.Part) model.Message {
	return model.Message{Role: model.RoleAssistant, Content: parts}
}

func TestClientRequestsAreRead(t *testing.T) {
	mcpCall := call("mcpr_1", "search", `{}`)
	mcpCall.ProviderExecuted = true
	mcpReq := model.ApprovalRequest("mcpr_1", "mcpr_1")
	mcpReq.ProviderExecuted = true
	mcpResp := model.ApprovalResponse("mcpr_1", true, "")
	mcpResp.ProviderExecuted = true
	denied := "Tool call execution denied."
	for _, c := range []struct {
		profile wire.Profile
		body    string
		want    []model.Message
		tools   []llm.ToolDef
	}{
		{wire.OpenAIChat, chatBody, []model.Message{
			model.SystemText("You manage files."), model.SystemText("Be brief."), model.UserText("delete a"),
			assistant(call("call_1", "deleteFile", `{"path":"/a"}`), call("call_2", "shell", `"rm b"`)),
			tool(result("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))), result("call_2", "shell", model.TextOutput(denied))),
			assistant(model.Text("Done.")), model.UserText("thanks"),
		}, []llm.ToolDef{{Name: "deleteFile", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "shell", Description: "s"}}},
		{wire.OpenAIResponses, responsesBody, []model.Message{
			model.SystemText("You manage files."), model.SystemText("Be brief."), model.UserText("delete a"),
			assistant(model.Text("Deleting."), call("call_1", "deleteFile", `{"path":"/a"}`), call("call_2", "shell", `"rm b"`), mcpCall, mcpReq),
			tool(result("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))), result("call_2", "shell", model.TextOutput(denied)), mcpResp),
			assistant(model.Text("Done.")), model.UserText("thanks"),
		}, []llm.ToolDef{{Name: "deleteFile", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "shell"},
			{Name: "docs", ProviderExecuted: true, ServerLabel: "docs"}, {Name: "web_search", ProviderExecuted: true}, {Name: "file_search", ProviderExecuted: true},
			{Name: "code_interpreter", ProviderExecuted: true}, {Name: "image_generation", ProviderExecuted: true}, {Name: "local_shell", ProviderExecuted: true},
			{Name: "shell", ProviderExecuted: true}, {Name: "apply_patch", ProviderExecuted: true}, {Name: "computer_use_preview", ProviderExecuted: true}}},
		{wire.AnthropicMessages, anthropicBody, []model.Message{
			model.SystemText("You manage files."), model.UserText("delete a"),
			assistant(model.Text("Deleting."), call("toolu_1", "deleteFile", `{"path":"/a"}`), call("toolu_2", "deleteFile", `{"path":"/b"}`)),
			tool(result("toolu_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))), result("toolu_2", "deleteFile", model.ErrorTextOutput(denied))),
			model.UserText("go on"), assistant(model.Text("Done.")), model.SystemText("Mid-conversation system."), model.UserText("thanks"),
		}, []llm.ToolDef{{Name: "deleteFile", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "shell", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "web_search", ProviderExecuted: true}, {Name: "bash", ProviderExecuted: true}, {Name: "computer_toolset_20260801", ProviderExecuted: true}}},
	} {
		codec, err := provider.Lookup(c.profile)
		if err != nil {
			t.Fatal(err)
		}
		d, err := codec.DecodeRequest([]byte(c.body))
		if err != nil {
			t.Errorf("%s: the request is refused: %v", c.profile, err)
			continue
		}
		// Compare JSON by meaning, and content by parts (a string content
		// and one text part are the same prompt).
		if diff := cmp.Diff(c.want, d.Request.Messages, cmp.Comparer(func(a, b json.RawMessage) bool { return model.JSONEqual(a, b) }),
			cmpopts.IgnoreFields(model.Message{}, "StringContent")); diff != "" {
			t.Errorf("%s: prompt (-want +got):\n%s", c.profile, diff)
		}
		if diff := cmp.Diff(c.tools, d.Request.Tools, cmp.Comparer(func(a, b json.RawMessage) bool { return model.JSONEqual(a, b) })); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", c.profile, diff)
		}
		if !d.Stream {
			t.Errorf("%s: stream not read", c.profile)
		}
		if vs := wire.Check(d.View, "req_1"); len(vs) > 0 {
			t.Errorf("%s: a valid conversation breaks the provider's rules: %v", c.profile, vs)
		}
	}
}

// What the providers refuse, the simulator refuses with their answer: a
// function_call_output without its output (what a denial path of the AI
// SDK once sent, vercel/ai#14428).
func TestMissingOutputIsTheProvidersError(t *testing.T) {
	codec, _ := provider.Lookup(wire.OpenAIResponses)
	_, err := codec.DecodeRequest([]byte(`{"model":"m","input":[{"role":"user","content":"x"},{"type":"function_call","call_id":"c","name":"n","arguments":"{}"},{"type":"function_call_output","call_id":"c"}]}`))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want the provider's answer", err)
	}
	want := `{"error":{"message":"Missing required parameter: 'input[2].output'.","type":"invalid_request_error","param":"input[2].output","code":"missing_required_parameter"}}`
	if apiErr.Status != 400 || string(apiErr.Body) != want {
		t.Errorf("%d %s\nwant 400 %s", apiErr.Status, apiErr.Body, want)
	}
}

// A custom tool call pairs with its output as a function call does; no
// provider text is on record for it, so the violation says it is inferred.
func TestCustomToolCallsPair(t *testing.T) {
	codec, _ := provider.Lookup(wire.OpenAIResponses)
	d, err := codec.DecodeRequest([]byte(`{"model":"m","input":[{"role":"user","content":"x"},{"type":"custom_tool_call","call_id":"c1","name":"shell","input":"ls"},{"role":"user","content":"and?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	vs := wire.Check(d.View, "req_1")
	if len(vs) != 1 || vs[0].Kind != wire.Dangling || vs[0].IDs[0] != "c1" || !vs[0].Inferred || vs[0].ProviderIndex != 1 {
		t.Errorf("violations %+v", vs)
	}
}
