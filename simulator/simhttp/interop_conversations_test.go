package simhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// conversationScript is an approval conversation as an application runs it
// on a provider client: the model calls deleteFile twice (and, on
// Responses, asks to run a hosted MCP tool); the continuation must carry
// the approved call's result, the denial text of the other, the MCP
// approval, the system prompt however the client sent it, and offer the
// same tools, hosted ones included.
func conversationScript(p wire.Profile, tools []string) simulator.Script {
	denial := "Denied by the user: keep b"
	first := simulator.Reply{Text: "Deleting both.", ChunkSize: 4, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4}, ToolCalls: []simulator.ToolCall{
		{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)},
	}}
	expect := &simulator.Expect{Tools: tools, Contains: []string{"You manage files.", "delete a and b"}, Results: []simulator.ResultExpect{
		{ToolCallID: "call_1", Type: "json", Value: json.RawMessage(`{"deleted":"/a"}`)},
		{ToolCallID: "call_2", Type: "execution-denied", Reason: &denial},
	}}
	second := simulator.Reply{Text: "Deleted a; kept b.", Usage: llm.Usage{InputTokens: 20, OutputTokens: 5}}
	if p == wire.OpenAIResponses {
		first.ToolCalls = append(first.ToolCalls, simulator.ToolCall{ID: "mcp_1", Name: "search_docs", Input: json.RawMessage(`{"q":"delete"}`), ProviderExecuted: true, ApprovalID: "mcpr_1"})
		expect.ProviderApprovals = []simulator.ProviderApprovalExpect{{ApprovalID: "mcpr_1", Approved: true}}
		second.ProviderResults = []simulator.ProviderResult{{ToolCallID: "mcp_1", Name: "search_docs", Output: json.RawMessage(`{"hits":1}`), ApprovalID: "mcpr_1"}}
	}
	return simulator.Script{Provider: p, Turns: []simulator.Turn{{Reply: first}, {Expect: expect, Reply: second}}}
}

type conversationCase struct {
	Case    string `json:"case"`
	BaseURL string `json:"baseURL"`
	Stream  bool   `json:"stream"`
	Result  *struct {
		Approvals []string `json:"approvals"`
		Executed  []string `json:"executed"`
		Text      string   `json:"text"`
	} `json:"result"`
	Error string `json:"error"`
}

// The official OpenAI and Anthropic clients run an approval conversation
// against the simulator with what applications send: developer and system
// prompts in each client's shape, images, tool options, custom and hosted
// tools, a stored Responses conversation continued by previous_response_id
// and one replayed by hand with store off, an MCP approval, thinking and
// cache_control. Every request is accepted as the provider accepts it, and
// every continuation meets the script.
func TestOfficialClientsApprovalConversations(t *testing.T) {
	node := nodeBinary(t)
	srv := server(t)
	profiles := map[string]wire.Profile{
		"openai-chat":               wire.OpenAIChat,
		"openai-responses-chained":  wire.OpenAIResponses,
		"openai-responses-replayed": wire.OpenAIResponses,
		"anthropic-messages":        wire.AnthropicMessages,
	}
	tools := map[string][]string{
		"openai-chat":               {"deleteFile", "shell"},
		"openai-responses-chained":  {"deleteFile", "docs"},
		"openai-responses-replayed": {"deleteFile", "docs"},
		"anthropic-messages":        {"web_search", "deleteFile"},
	}
	var cases []conversationCase
	sims := map[string]*simulator.Model{}
	for _, name := range []string{"openai-chat", "openai-responses-chained", "openai-responses-replayed", "anthropic-messages"} {
		for _, stream := range []bool{false, true} {
			sim, err := simulator.New(conversationScript(profiles[name], tools[name]))
			if err != nil {
				t.Fatal(err)
			}
			base, err := srv.Add(fmt.Sprintf("conv-%s-%v", name, stream), sim)
			if err != nil {
				t.Fatal(err)
			}
			sims[base] = sim
			cases = append(cases, conversationCase{Case: name, BaseURL: base, Stream: stream})
		}
	}
	arg, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "conversations.mjs", string(arg))
	cmd.Dir = interopDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node conversations.mjs: %v\n%s", err, stderr.String())
	}
	var got []conversationCase
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	for _, c := range got {
		name := fmt.Sprintf("%s (stream %v)", c.Case, c.Stream)
		sim := sims[c.BaseURL]
		if c.Error != "" || c.Result == nil {
			t.Errorf("%s: %s\nsimulator problems: %v\njournal: %s", name, c.Error, sim.Problems(), journalWire(sim))
			continue
		}
		want := []string{"call_1", "call_2"}
		if profiles[c.Case] == wire.OpenAIResponses {
			want = append(want, "mcpr_1")
		}
		if !slices.Equal(c.Result.Approvals, want) {
			t.Errorf("%s: the application saw the calls %v, want %v", name, c.Result.Approvals, want)
		}
		if !slices.Equal(c.Result.Executed, []string{"/a"}) {
			t.Errorf("%s: executed %v", name, c.Result.Executed)
		}
		if c.Result.Text != "Deleted a; kept b." {
			t.Errorf("%s: the last reply reads %q", name, c.Result.Text)
		}
		if probs := sim.Problems(); len(probs) > 0 {
			t.Errorf("%s: simulator problems %v\njournal: %s", name, probs, journalWire(sim))
		}
	}
}
