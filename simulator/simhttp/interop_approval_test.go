package simhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// approvalScript is a whole approval conversation: the model calls two
// tools; the continuation must carry call_1's result and call_2's denial
// with its reason, and no approval part. With mcp, the model also asks to
// run a hosted MCP tool, whose approval the continuation must forward.
func approvalScript(p wire.Profile, mcp bool) simulator.Script {
	reason := "keep b"
	first := simulator.Reply{Text: "Deleting both.", ChunkSize: 3, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4}, ToolCalls: []simulator.ToolCall{
		{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
		{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)},
	}}
	expect := &simulator.Expect{NoApprovalParts: true, Results: []simulator.ResultExpect{
		{ToolCallID: "call_1", Type: "json", Value: json.RawMessage(`{"deleted":"/a"}`)},
		{ToolCallID: "call_2", Type: "execution-denied", Reason: &reason},
	}}
	second := simulator.Reply{Text: "Deleted a; kept b.", Usage: llm.Usage{InputTokens: 20, OutputTokens: 5}}
	if mcp {
		first.ToolCalls = append(first.ToolCalls, simulator.ToolCall{ID: "mcp_1", Name: "search_docs", Input: json.RawMessage(`{"q":"delete"}`), ProviderExecuted: true, ApprovalID: "mcpr_1"})
		expect.ProviderApprovals = []simulator.ProviderApprovalExpect{{ApprovalID: "mcpr_1", Approved: true}}
		expect.Tools = []string{"docs", "deleteFile"}
		second.ProviderResults = []simulator.ProviderResult{{ToolCallID: "mcp_1", Name: "search_docs", Output: json.RawMessage(`{"hits":1}`), ApprovalID: "mcpr_1"}}
	}
	return simulator.Script{Provider: p, Turns: []simulator.Turn{{Reply: first}, {Expect: expect, Reply: second}}}
}

type approvalCase struct {
	SDK     string `json:"sdk"`
	Format  string `json:"format"`
	BaseURL string `json:"baseURL"`
	Stream  bool   `json:"stream"`
	MCP     bool   `json:"mcp,omitempty"`
	// Warnings are what the SDK warned of during the conversation.
	Warnings []string `json:"warnings,omitempty"`
	Result   *struct {
		First struct {
			Text         string `json:"text"`
			FinishReason string `json:"finishReason"`
			Approvals    []struct {
				ToolCallID string          `json:"toolCallId"`
				ToolName   string          `json:"toolName"`
				Input      json.RawMessage `json:"input"`
			} `json:"approvals"`
		} `json:"first"`
		Second struct {
			Text         string `json:"text"`
			FinishReason string `json:"finishReason"`
		} `json:"second"`
		Executed []string `json:"executed"`
	} `json:"result"`
	Error string `json:"error"`
}

// The Vercel AI SDK (7, and 6 with its own providers) runs a whole
// approval conversation against the simulator in every format, generate
// and stream: it reads the tool calls, asks for approval, and sends a
// continuation the simulator accepts (the approved call's result, the
// denial with its reason, every call answered, as the provider's own rules
// require). AI SDK 7 on Responses also approves a hosted MCP tool (ai 6's
// MCP tool never asks), with the approval request named by item_reference
// as its store default makes it.
func TestAISDKApprovalConversation(t *testing.T) {
	node := nodeBinary(t)
	requireModules(t, "ai-v6", "@ai-sdk/openai-v3", "@ai-sdk/anthropic-v3")
	srv := server(t)
	var cases []approvalCase
	sims := map[string]*simulator.Model{}
	for _, sdk := range []string{"ai7", "ai6"} {
		for _, p := range wire.Profiles {
			for _, stream := range []bool{false, true} {
				for _, mcp := range []bool{false, true} {
					if mcp && (p != wire.OpenAIResponses || sdk != "ai7") {
						continue
					}
					sim, err := simulator.New(approvalScript(p, mcp))
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("approval-%s-%s-%v-%v", sdk, p, stream, mcp)
					base, err := srv.Add(name, sim)
					if err != nil {
						t.Fatal(err)
					}
					sims[base] = sim
					cases = append(cases, approvalCase{SDK: sdk, Format: string(p), BaseURL: base, Stream: stream, MCP: mcp})
				}
			}
		}
	}
	arg, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "approval.mjs", string(arg))
	cmd.Dir = interopDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node approval.mjs: %v\n%s", err, stderr.String())
	}
	var got []approvalCase
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	if len(got) != len(cases) {
		t.Fatalf("%d results for %d cases", len(got), len(cases))
	}
	for _, c := range got {
		name := fmt.Sprintf("AI SDK %s on %s (stream %v, mcp %v)", c.SDK, c.Format, c.Stream, c.MCP)
		sim := sims[c.BaseURL]
		if len(c.Warnings) > 0 {
			t.Logf("%s: the SDK warned: %v", name, c.Warnings)
		}
		if c.Error != "" || c.Result == nil {
			t.Errorf("%s: %s\nsimulator problems: %v\njournal: %s", name, c.Error, sim.Problems(), journalWire(sim))
			continue
		}
		r := c.Result
		if r.First.Text != "Deleting both." || r.First.FinishReason != llm.FinishToolCalls {
			t.Errorf("%s: first turn %q, finish %q", name, r.First.Text, r.First.FinishReason)
		}
		// The SDK lists the provider's approval requests and its own in an
		// order of its choosing.
		got := map[string]string{}
		for _, a := range r.First.Approvals {
			got[a.ToolCallID] = a.ToolName + " " + string(a.Input)
		}
		want := map[string]string{"call_1": `deleteFile {"path":"/a"}`, "call_2": `deleteFile {"path":"/b"}`}
		if c.MCP {
			want["mcpr_1"] = `mcp.search_docs {"q":"delete"}`
		}
		if len(r.First.Approvals) != len(want) || !maps.Equal(got, want) {
			t.Errorf("%s: approval requests %v, want %v", name, got, want)
		}
		if !slices.Equal(r.Executed, []string{"/a"}) {
			t.Errorf("%s: executed %v, want only the approved /a", name, r.Executed)
		}
		if r.Second.Text != "Deleted a; kept b." || r.Second.FinishReason != llm.FinishStop {
			t.Errorf("%s: second turn %q, finish %q", name, r.Second.Text, r.Second.FinishReason)
		}
		if probs := sim.Problems(); len(probs) > 0 {
			t.Errorf("%s: simulator problems %v\njournal: %s", name, probs, journalWire(sim))
		}
	}
}

// journalWire is the wire bodies a simulator received, for a failure
// message.
func journalWire(sim *simulator.Model) string {
	var b strings.Builder
	for _, e := range sim.Journal() {
		fmt.Fprintf(&b, "\n  call %d (%s, %d): %s", e.Call, e.Verdict, e.Status, e.Wire)
		if e.ErrorBody != "" {
			fmt.Fprintf(&b, "\n    answered: %s", e.ErrorBody)
		}
	}
	return b.String()
}
