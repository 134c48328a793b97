package simhttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// A prompt with a dangling call, as each provider's clients send it, gets
// the provider's exact 400 body (research/anchors.md §5) over the wire, and
// the simulator journals it and blames WIRE-01.
func TestDanglingCallGetsTheAnchorBody(t *testing.T) {
	srv := server(t)
	for _, c := range []struct {
		profile wire.Profile
		path    string
		body    string
		want    string
	}{
		{wire.OpenAIChat, "/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":"delete a"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_mjLuNyXNHoUIXHiBtXhaWdxN","type":"function","function":{"name":"deleteFile","arguments":"{}"}}]},{"role":"user","content":"and?"}]}`,
			`{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_mjLuNyXNHoUIXHiBtXhaWdxN","type":"invalid_request_error","param":"messages.[2].role","code":null}}`},
		{wire.OpenAIResponses, "/responses",
			`{"model":"m","input":[{"role":"user","content":"delete a"},{"type":"function_call","call_id":"call_WdnUUKXKvwy3jksn4I9ERdRT","name":"deleteFile","arguments":"{}"},{"role":"user","content":"and?"}]}`,
			`{"error":{"message":"No tool output found for function call call_WdnUUKXKvwy3jksn4I9ERdRT.","type":"invalid_request_error","param":"input","code":null}}`},
		{wire.AnthropicMessages, "/messages",
			`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"delete a"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01WQfwh7MJKmV9YfsFiJ4zxx","name":"deleteFile","input":{}}]},{"role":"user","content":"and?"}]}`,
			"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01WQfwh7MJKmV9YfsFiJ4zxx. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\"},\"request_id\":\"req_sim_1\"}"},
	} {
		sim, err := simulator.New(simulator.Script{Provider: c.profile, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "never"}}}})
		if err != nil {
			t.Fatal(err)
		}
		base, err := srv.Add("anchor-"+string(c.profile), sim)
		if err != nil {
			t.Fatal(err)
		}
		status, body := post(t, base+c.path, c.body)
		if status != http.StatusBadRequest || body != c.want {
			t.Errorf("%s: %d %s\nwant 400 %s", c.profile, status, body, c.want)
		}
		j := sim.Journal()
		if len(j) != 1 || j[0].Verdict != simulator.VerdictViolation || j[0].ErrorBody != c.want || string(j[0].Wire) != c.body {
			t.Errorf("%s: journal %+v", c.profile, j)
		}
		if p := sim.Problems(); len(p) != 2 || p[0].Check != "WIRE-01" { // the violation, and the turn it left
			t.Errorf("%s: problems %v", c.profile, p)
		}
	}
}

// OpenAI Chat streams end with a usage chunk only when the request asks
// (stream_options.include_usage), as OpenAI's do.
func TestChatUsageChunkOnlyWhenAsked(t *testing.T) {
	srv := server(t)
	for _, ask := range []bool{false, true} {
		sim, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "hi", Usage: llm.Usage{InputTokens: 2, OutputTokens: 1}}}}})
		name := "usage-no"
		opts := ``
		if ask {
			name, opts = "usage-yes", `,"stream_options":{"include_usage":true}`
		}
		base, _ := srv.Add(name, sim)
		status, body := post(t, base+"/chat/completions", `{"model":"m","stream":true`+opts+`,"messages":[{"role":"user","content":"hi"}]}`)
		if status != 200 || !strings.HasSuffix(body, "data: [DONE]\n\n") {
			t.Fatalf("ask %v: %d %s", ask, status, body)
		}
		usage := regexp.MustCompile(`"choices":\[\],"usage":\{"prompt_tokens":2,"completion_tokens":1,"total_tokens":3\}`)
		if got := usage.MatchString(body); got != ask {
			t.Errorf("include_usage %v: usage chunk sent %v\n%s", ask, got, body)
		}
	}
}

// A Responses conversation keeps what it answered: a later request finds
// the items by item_reference and the response by previous_response_id;
// another conversation's items are not found.
func TestResponsesStoreOverHTTP(t *testing.T) {
	srv := server(t)
	turns := []simulator.Turn{
		{Reply: simulator.Reply{Text: "Deleting.", ToolCalls: []simulator.ToolCall{{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)}}}},
		{Expect: &simulator.Expect{Messages: ptr(3), Contains: []string{"Deleting.", "gone"}}, Reply: simulator.Reply{Text: "Done."}},
		{Expect: &simulator.Expect{Messages: ptr(5), Contains: []string{"Deleting.", "Done.", "again"}}, Reply: simulator.Reply{Text: "Again."}},
	}
	sim, _ := simulator.New(simulator.Script{Provider: wire.OpenAIResponses, Turns: turns})
	other, _ := simulator.New(simulator.Script{Provider: wire.OpenAIResponses, Turns: turns})
	base, _ := srv.Add("stored", sim)
	otherBase, _ := srv.Add("stored-other", other)

	status, body := post(t, base+"/responses", `{"model":"m","stream":true,"input":"delete a"}`)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	msgID := regexp.MustCompile(`"id":"(msg_[^"]+)"`).FindStringSubmatch(body)
	if msgID == nil {
		t.Fatalf("no message id in %s", body)
	}
	// The AI SDK's continuation: the text by reference, the call whole.
	second := `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"delete a"}]},{"type":"item_reference","id":"` + msgID[1] + `"},` +
		`{"type":"function_call","call_id":"call_1","name":"deleteFile","arguments":"{\"path\":\"/a\"}"},{"type":"function_call_output","call_id":"call_1","output":"gone"}]}`
	if status, body := post(t, otherBase+"/responses", second); status != 404 || !strings.Contains(body, "Item with id '"+msgID[1]+"' not found.") {
		t.Errorf("another conversation's item: %d %s", status, body)
	}
	status, body = post(t, base+"/responses", second)
	if status != 200 || !strings.Contains(body, `"text":"Done."`) {
		t.Fatalf("%d %s\nproblems %v", status, body, sim.Problems())
	}
	respID := regexp.MustCompile(`^\{"id":"(resp_[^"]+)"`).FindStringSubmatch(body)
	if respID == nil {
		t.Fatalf("no response id in %s", body)
	}
	// Chained: only the new message is sent.
	status, body = post(t, base+"/responses", `{"model":"m","previous_response_id":"`+respID[1]+`","input":[{"role":"user","content":"again"}]}`)
	if status != 200 || !strings.Contains(body, `"text":"Again."`) {
		t.Fatalf("%d %s\nproblems %v", status, body, sim.Problems())
	}
	if p := sim.Problems(); len(p) > 0 {
		t.Errorf("problems %v", p)
	}
	if j := sim.Journal(); len(j) != 3 || !strings.Contains(string(j[2].Wire), "previous_response_id") {
		t.Errorf("the journal keeps the bodies as sent: %+v", j)
	}
	// The other conversation only journaled the refused reference.
	if j := other.Journal(); len(j) != 1 || j[0].Verdict != simulator.VerdictRefused || j[0].Status != 404 {
		t.Errorf("the other conversation's journal: %+v", j)
	}
}

// A Responses reply names the MCP server its provider-executed call
// belongs to, as the request declared it, not a fixed label.
func TestResponsesNameTheRequestsMCPServer(t *testing.T) {
	srv := server(t)
	sim, err := simulator.New(simulator.Script{Provider: wire.OpenAIResponses, Turns: []simulator.Turn{
		{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{{ID: "mcp_1", Name: "web_search", Input: json.RawMessage(`{"q":"x"}`), ProviderExecuted: true, ApprovalID: "mcpr_1"}}}},
		{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{{ID: "mcp_2", Name: "web_search", Input: json.RawMessage(`{"q":"y"}`), ProviderExecuted: true, ApprovalID: "mcpr_2"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := srv.Add("labels", sim)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m","input":"search","tools":[{"type":"mcp","server_label":"ack-web_search","server_url":"https://example.invalid"}]%s}`
	for _, stream := range []string{"", `,"stream":true`} {
		status, out := post(t, base+"/responses", fmt.Sprintf(body, stream))
		if status != 200 || !strings.Contains(out, `"server_label":"ack-web_search"`) || strings.Contains(out, `"server_label":"ack"`) {
			t.Errorf("stream %q: %d %s", stream, status, out)
		}
	}
}
