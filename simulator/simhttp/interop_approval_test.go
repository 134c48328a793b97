package simhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// with its reason, and no approval part.
func approvalScript(p wire.Profile) simulator.Script {
	reason := "keep b"
	return simulator.Script{Provider: p, Turns: []simulator.Turn{
		{Reply: simulator.Reply{Text: "Deleting both.", ChunkSize: 3, Usage: llm.Usage{InputTokens: 9, OutputTokens: 4}, ToolCalls: []simulator.ToolCall{
			{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
			{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)},
		}}},
		{Expect: &simulator.Expect{NoApprovalParts: true, Results: []simulator.ResultExpect{
			{ToolCallID: "call_1", Type: "json", Value: json.RawMessage(`{"deleted":"/a"}`)},
			{ToolCallID: "call_2", Type: "execution-denied", Reason: &reason},
		}}, Reply: simulator.Reply{Text: "Deleted a; kept b.", Usage: llm.Usage{InputTokens: 20, OutputTokens: 5}}},
	}}
}

type approvalCase struct {
	Format  string `json:"format"`
	BaseURL string `json:"baseURL"`
	Stream  bool   `json:"stream"`
	Result  *struct {
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

// The Vercel AI SDK runs a whole approval conversation against the
// simulator in every format, generate and stream: it reads the tool calls,
// asks for approval, and sends a continuation the simulator accepts (the
// approved call's result, the denial with its reason, every call
// answered, as the provider's own rules require).
func TestAISDKApprovalConversation(t *testing.T) {
	node := nodeBinary(t)
	srv := server(t)
	var cases []approvalCase
	sims := map[string]*simulator.Model{}
	for _, p := range wire.Profiles {
		for _, stream := range []bool{false, true} {
			sim, err := simulator.New(approvalScript(p))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("approval-%s-%v", p, stream)
			base, err := srv.Add(name, sim)
			if err != nil {
				t.Fatal(err)
			}
			sims[base] = sim
			cases = append(cases, approvalCase{Format: string(p), BaseURL: base, Stream: stream})
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
		name := fmt.Sprintf("AI SDK on %s (stream %v)", c.Format, c.Stream)
		sim := sims[c.BaseURL]
		if c.Error != "" || c.Result == nil {
			t.Errorf("%s: %s\nsimulator problems: %v\njournal: %s", name, c.Error, sim.Problems(), journalWire(sim))
			continue
		}
		r := c.Result
		if r.First.Text != "Deleting both." || r.First.FinishReason != llm.FinishToolCalls {
			t.Errorf("%s: first turn %q, finish %q", name, r.First.Text, r.First.FinishReason)
		}
		if len(r.First.Approvals) != 2 || r.First.Approvals[0].ToolCallID != "call_1" || r.First.Approvals[1].ToolCallID != "call_2" ||
			r.First.Approvals[0].ToolName != "deleteFile" || string(r.First.Approvals[1].Input) != `{"path":"/b"}` {
			t.Errorf("%s: approval requests %+v", name, r.First.Approvals)
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
