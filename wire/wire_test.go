package wire

import (
	"encoding/json"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

func user(s string) model.Message { return model.UserText(s) }

func assistant(ids ...string) model.Message {
	m := model.Message{Role: model.RoleAssistant}
	for _, id := range ids {
		m.Content = append(m.Content, model.ToolCall(id, "t", json.RawMessage(`{}`)))
	}
	return m
}

func results(ids ...string) model.Message {
	m := model.Message{Role: model.RoleTool}
	for _, id := range ids {
		m.Content = append(m.Content, model.ToolResult(id, "t", model.TextOutput("ok")))
	}
	return m
}

func TestWellFormedPromptsPass(t *testing.T) {
	prompt := []model.Message{
		model.SystemText("s"), user("hi"),
		assistant("c1", "c2"), results("c1"), results("c2"),
		{Role: model.RoleAssistant, Content: []model.Part{model.Text("done")}},
		user("again"),
		assistant("c3"), results("c3"),
	}
	for _, p := range Profiles {
		if v := CheckMessages(p, prompt, "req_1"); len(v) != 0 {
			t.Errorf("%s: well-formed prompt has violations: %v", p, v)
		}
	}
}

func TestApprovalPartsAndProviderExecutedAreIgnored(t *testing.T) {
	pe := model.ToolCall("mcp_1", "mcp.search", json.RawMessage(`{}`))
	pe.ProviderExecuted = true
	prompt := []model.Message{
		user("hi"),
		{Role: model.RoleAssistant, Content: []model.Part{
			model.ToolCall("c1", "t", nil), model.ApprovalRequest("a1", "c1"), pe, model.ApprovalRequest("a2", "mcp_1"),
		}},
		{Role: model.RoleTool, Content: []model.Part{
			model.ApprovalResponse("a1", true, ""),
			{Type: model.PartToolApprovalResponse, ApprovalID: "a2", Approved: true, ProviderExecuted: true},
		}},
		results("c1"),
	}
	for _, p := range Profiles {
		if v := CheckMessages(p, prompt, "req_1"); len(v) != 0 {
			t.Errorf("%s: violations %v", p, v)
		}
	}
}

func TestOpenAIChatDangling(t *testing.T) {
	prompt := []model.Message{user("hi"), assistant("call_1", "call_2"), results("call_2"), user("next")}
	v := CheckMessages(OpenAIChat, prompt, "")
	if len(v) != 1 {
		t.Fatalf("got %d violations %v, want 1", len(v), v)
	}
	got := v[0]
	want := `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1","type":"invalid_request_error","param":"messages.[3].role","code":null}}`
	if got.Body != want {
		t.Errorf("body\n got %s\nwant %s", got.Body, want)
	}
	if got.Check != "WIRE-01" || got.Kind != Dangling || got.Message != 1 || got.ProviderIndex != 1 || got.IDs[0] != "call_1" || got.Status != 400 {
		t.Errorf("violation %+v", got)
	}
}

func TestOpenAIChatDanglingAtEnd(t *testing.T) {
	v := CheckMessages(OpenAIChat, []model.Message{user("hi"), assistant("call_1")}, "")
	if len(v) != 1 || v[0].Kind != Dangling {
		t.Fatalf("got %v", v)
	}
	want := `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1","type":"invalid_request_error","param":"messages","code":null}}`
	if v[0].Body != want {
		t.Errorf("body\n got %s\nwant %s", v[0].Body, want)
	}
}

func TestOpenAIChatMisplacedResult(t *testing.T) {
	// The result exists, but a user message sits between the call and it.
	prompt := []model.Message{user("hi"), assistant("call_1"), user("hurry"), results("call_1")}
	v := CheckMessages(OpenAIChat, prompt, "")
	if len(v) != 2 {
		t.Fatalf("got %v, want the call and the result flagged", v)
	}
	if v[0].Check != "WIRE-02" || v[0].Kind != Misplaced || v[0].Message != 1 {
		t.Errorf("first violation %+v", v[0])
	}
	if v[1].Check != "WIRE-02" || v[1].Kind != Misplaced || v[1].Message != 3 || v[1].Text != openAIOrphanText {
		t.Errorf("second violation %+v", v[1])
	}
}

func TestOpenAIChatOrphanAndDuplicate(t *testing.T) {
	v := CheckMessages(OpenAIChat, []model.Message{user("hi"), results("ghost")}, "")
	if len(v) != 1 || v[0].Kind != Orphan || v[0].Check != "WIRE-01" {
		t.Fatalf("orphan: got %v", v)
	}
	want := `{"error":{"message":"Messages with role 'tool' must be a response to a preceding message with 'tool_calls'","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
	if v[0].Body != want {
		t.Errorf("orphan body\n got %s\nwant %s", v[0].Body, want)
	}
	v = CheckMessages(OpenAIChat, []model.Message{user("hi"), assistant("c1"), results("c1", "c1")}, "")
	if len(v) != 1 || v[0].Kind != Duplicate || v[0].Check != "WIRE-01" || !v[0].Inferred || v[0].ProviderIndex != 3 {
		t.Fatalf("duplicate: got %+v", v)
	}
}

func TestResponses(t *testing.T) {
	v := CheckMessages(OpenAIResponses, []model.Message{user("hi"), assistant("call_W")}, "")
	want := `{"error":{"message":"No tool output found for function call call_W.","type":"invalid_request_error","param":"input","code":null}}`
	if len(v) != 1 || v[0].Body != want || v[0].Kind != Dangling {
		t.Fatalf("dangling: got %+v", v)
	}
	v = CheckMessages(OpenAIResponses, []model.Message{user("hi"), results("call_u")}, "")
	want = `{"error":{"message":"No tool call found for function call output with call_id call_u.","type":"invalid_request_error","param":"input","code":null}}`
	if len(v) != 1 || v[0].Body != want || v[0].Kind != Orphan || v[0].ProviderIndex != 1 {
		t.Fatalf("orphan: got %+v", v)
	}
	// Responses pairs by call_id: an output later in the input is fine.
	if v := CheckMessages(OpenAIResponses, []model.Message{user("hi"), assistant("c1"), user("x"), results("c1")}, ""); len(v) != 0 {
		t.Errorf("non-adjacent output flagged: %v", v)
	}
}

func TestAnthropic(t *testing.T) {
	prompt := []model.Message{
		model.SystemText("sys"), // not in the messages array
		user("hi"), assistant("toolu_1", "toolu_2"), results("toolu_1"),
	}
	v := CheckMessages(AnthropicMessages, prompt, "req_42")
	want := "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\"},\"request_id\":\"req_42\"}"
	if len(v) != 1 || v[0].Body != want || v[0].Message != 2 || v[0].ProviderIndex != 1 {
		t.Fatalf("dangling: got %+v\nwant body %s", v, want)
	}
	// A tool message merged with a following user message is one user turn;
	// a result in a later turn is unexpected there.
	prompt = []model.Message{user("hi"), assistant("toolu_1"), user("wait"), {Role: model.RoleAssistant, Content: []model.Part{model.Text("ok")}}, results("toolu_1")}
	v = CheckMessages(AnthropicMessages, prompt, "")
	if len(v) != 2 || v[0].Kind != Misplaced || v[1].Kind != Misplaced {
		t.Fatalf("misplaced: got %+v", v)
	}
	wantText := "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	if v[1].Text != wantText {
		t.Errorf("unexpected text\n got %s\nwant %s", v[1].Text, wantText)
	}
	// Block index counts the blocks of a merged user message.
	prompt = []model.Message{user("hi"), assistant("toolu_1"), results("toolu_1"), {Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a", true, ""), model.ToolResult("toolu_x", "t", model.TextOutput("?"))}}}
	v = CheckMessages(AnthropicMessages, prompt, "")
	if len(v) != 1 || v[0].Kind != Orphan || v[0].Message != 3 {
		t.Fatalf("orphan: got %+v", v)
	}
	if want := "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."; v[0].Text != want {
		t.Errorf("orphan text\n got %s\nwant %s", v[0].Text, want)
	}
}

func TestParseProfile(t *testing.T) {
	if p, err := ParseProfile(""); err != nil || p != OpenAIChat {
		t.Errorf("default profile: %v %v", p, err)
	}
	if _, err := ParseProfile("gemini"); err == nil {
		t.Error("unknown profile accepted")
	}
}

// A local result for a call the provider ran (a denial the SDK's UI
// conversion wrote for a provider-executed call) is left out of a Responses
// request, as the OpenAI Responses clients leave it out: no orphan output.
func TestResponsesLeavesOutResultsOfProviderCalls(t *testing.T) {
	denied := &model.ToolOutput{Type: model.OutputExecutionDenied}
	msgs := []model.Message{
		{Role: model.RoleUser, Content: []model.Part{{Type: model.PartText, Text: "search"}}},
		{Role: model.RoleAssistant, Content: []model.Part{{Type: model.PartToolCall, ToolCallID: "mcp_1", ToolName: "search", Input: []byte(`{}`), ProviderExecuted: true}}},
		{Role: model.RoleTool, Content: []model.Part{{Type: model.PartToolResult, ToolCallID: "mcp_1", ToolName: "search", Output: denied}}},
	}
	if vs := CheckMessages(OpenAIResponses, msgs, "req_1"); len(vs) != 0 {
		t.Errorf("a local result for a provider-run call was refused: %v", vs)
	}
	// A result for a call that is not in the history at all is still an orphan.
	msgs[1].Content[0].ToolCallID = "mcp_2"
	if vs := CheckMessages(OpenAIResponses, msgs, "req_1"); len(vs) == 0 {
		t.Error("an orphan function_call_output was accepted")
	}
}
