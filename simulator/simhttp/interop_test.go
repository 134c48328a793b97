package simhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// interopDir holds the Node project with the official SDK clients, pinned
// with a lockfile (npm ci --prefix interop).
var interopDir = filepath.Join("..", "..", "interop")

// nodeBinary is Node 22, from the npm package node@22 (the SDKs need it).
func nodeBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(interopDir, "node_modules", ".bin", "node")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("ACK_REQUIRE_INTEROP") == "1" {
			t.Fatalf("ACK_REQUIRE_INTEROP=1 but %s is missing: run npm ci --prefix interop", bin)
		}
		t.Skip("the interop SDKs are not installed (npm ci --prefix interop); set ACK_REQUIRE_INTEROP=1 to require them")
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// requireModules skips the test, with a notice, when an interop package
// is missing (an install from before it was added); ACK_REQUIRE_INTEROP=1
// makes that a failure.
func requireModules(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(interopDir, "node_modules", n, "package.json")); err != nil {
			if os.Getenv("ACK_REQUIRE_INTEROP") == "1" {
				t.Fatalf("ACK_REQUIRE_INTEROP=1 but the interop package %s is missing: run npm ci --prefix interop", n)
			}
			t.Skipf("the interop package %s is not installed (npm ci --prefix interop)", n)
		}
	}
}

type interopCase struct {
	Kind    string `json:"kind,omitempty"`
	Client  string `json:"client"`
	Format  string `json:"format"`
	BaseURL string `json:"baseURL"`
	Stream  bool   `json:"stream"`
	Result  *struct {
		Text      string `json:"text"`
		ToolCalls []struct {
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"toolCalls"`
		FinishReason string `json:"finishReason"`
		Status       int    `json:"status"`
		Message      string `json:"message"`
		Usage        *struct {
			Input  int `json:"input"`
			Output int `json:"output"`
		} `json:"usage"`
	} `json:"result"`
	Error string `json:"error"`
}

// The official OpenAI and Anthropic clients and the AI SDK's providers parse
// the simulator's replies, JSON and streamed, in every format: text, tool
// calls (ids, names, input), finish reasons and usage.
func TestOfficialClientsParseTheReplies(t *testing.T) {
	node := nodeBinary(t)
	srv := server(t)
	var cases []interopCase
	clients := map[wire.Profile][]string{
		wire.OpenAIChat:        {"openai", "ai-sdk"},
		wire.OpenAIResponses:   {"openai", "ai-sdk"},
		wire.AnthropicMessages: {"anthropic", "ai-sdk"},
	}
	for _, p := range wire.Profiles {
		for _, client := range clients[p] {
			for _, stream := range []bool{false, true} {
				sim, err := simulator.New(simulator.Script{Provider: p, Turns: []simulator.Turn{{Reply: simulator.Reply{
					Text: "Déjà vu: deleting «both».", ChunkSize: 4, Usage: llm.Usage{InputTokens: 12, OutputTokens: 7},
					ToolCalls: []simulator.ToolCall{
						{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a/ü"}`)},
						{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)},
					},
				}}}})
				if err != nil {
					t.Fatal(err)
				}
				base, err := srv.Add(fmt.Sprintf("%s-%s-%v", p, client, stream), sim)
				if err != nil {
					t.Fatal(err)
				}
				cases = append(cases, interopCase{Client: client, Format: string(p), BaseURL: base, Stream: stream})
			}
		}
	}
	// A prompt the provider would reject: the clients raise the provider's
	// status and exact message.
	for _, p := range []wire.Profile{wire.OpenAIChat, wire.AnthropicMessages} {
		sim, err := simulator.New(simulator.Script{Provider: p, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "never"}}}})
		if err != nil {
			t.Fatal(err)
		}
		base, err := srv.Add("violation-"+string(p), sim)
		if err != nil {
			t.Fatal(err)
		}
		client := "openai"
		if p == wire.AnthropicMessages {
			client = "anthropic"
		}
		cases = append(cases, interopCase{Kind: "violation", Client: client, Format: string(p), BaseURL: base})
	}
	arg, _ := json.Marshal(cases)
	cmd := exec.Command(node, "run.mjs", string(arg))
	cmd.Dir = interopDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node run.mjs: %v\n%s", err, stderr.String())
	}
	var got []interopCase
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node printed %q: %v", out, err)
	}
	finish := map[string][]string{ // what each client calls a stop for tool calls
		"openai-chat":        {"tool_calls", "tool-calls"},
		"openai-responses":   {"completed", "tool-calls"},
		"anthropic-messages": {"tool_use", "tool-calls"},
	}
	for _, c := range got {
		name := fmt.Sprintf("%s on %s (stream %v)", c.Client, c.Format, c.Stream)
		if c.Error != "" || c.Result == nil {
			t.Errorf("%s: %s", name, c.Error)
			continue
		}
		r := c.Result
		if c.Kind == "violation" {
			msgs := []model.Message{model.UserText("delete a"),
				{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall("call_9", "deleteFile", json.RawMessage(`{}`))}},
				model.UserText("and?")}
			want := wire.CheckMessages(wire.Profile(c.Format), msgs, "req_1")[0]
			if r.Status != want.Status || r.Message != want.Text {
				t.Errorf("%s: the client raised %d %q, want %d %q", name, r.Status, r.Message, want.Status, want.Text)
			}
			continue
		}
		if r.Text != "Déjà vu: deleting «both»." {
			t.Errorf("%s: text %q", name, r.Text)
		}
		if len(r.ToolCalls) != 2 || r.ToolCalls[0].ID != "call_1" || r.ToolCalls[0].Name != "deleteFile" || string(r.ToolCalls[0].Input) != `{"path":"/a/ü"}` || r.ToolCalls[1].ID != "call_2" {
			t.Errorf("%s: tool calls %+v", name, r.ToolCalls)
		}
		if r.FinishReason != finish[c.Format][0] && r.FinishReason != finish[c.Format][1] {
			t.Errorf("%s: finish reason %q", name, r.FinishReason)
		}
		if r.Usage == nil || r.Usage.Input != 12 || r.Usage.Output != 7 {
			t.Errorf("%s: usage %+v", name, r.Usage)
		}
	}
	if len(got) != len(cases) {
		t.Errorf("%d results for %d cases", len(got), len(cases))
	}
}
