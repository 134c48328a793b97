package simhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

func server(t *testing.T) *simhttp.Server {
	t.Helper()
	s, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func script(p wire.Profile) simulator.Script {
	return simulator.Script{Provider: p, Turns: []simulator.Turn{
		{Reply: simulator.Reply{Text: "Déjà vu — deleting «both».", ChunkSize: 5, Usage: llm.Usage{InputTokens: 12, OutputTokens: 7}, ToolCalls: []simulator.ToolCall{
			{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a/ü"}`)},
			{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b","n":[1,2]}`)},
		}}},
		{Expect: &simulator.Expect{Results: []simulator.ResultExpect{
			{ToolCallID: "call_1", Type: "json", Value: json.RawMessage(`{"deleted":true}`)},
			{ToolCallID: "call_2", Type: "execution-denied", Reason: ptr("keep b")},
		}}, Reply: simulator.Reply{Text: "Done."}},
	}}
}

func ptr[T any](v T) *T { return &v }

func history(resp *llm.Response) []model.Message {
	asst := model.Message{Role: model.RoleAssistant, Content: resp.Content}
	return []model.Message{
		model.SystemText("be careful"),
		model.UserText("delete a and b"),
		asst,
		{Role: model.RoleTool, Content: []model.Part{
			model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`))),
			model.ToolResult("call_2", "deleteFile", model.DeniedOutput("keep b")),
		}},
	}
}

var tools = []llm.ToolDef{{Name: "deleteFile", Description: "Deletes a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}

// Every format, generate and stream: the client reads what the simulator
// replied, and the simulator reads the prompt the client sent (its script's
// expectations hold).
func TestRoundTrip(t *testing.T) {
	srv := server(t)
	for _, p := range wire.Profiles {
		for _, mode := range []string{"generate", "stream"} {
			t.Run(string(p)+"/"+mode, func(t *testing.T) {
				sim, err := simulator.New(script(p))
				if err != nil {
					t.Fatal(err)
				}
				base, err := srv.Add(string(p)+"-"+mode, sim)
				if err != nil {
					t.Fatal(err)
				}
				client, err := provider.NewClient(base, string(p))
				if err != nil {
					t.Fatal(err)
				}
				call := func(req *llm.Request) (*llm.Response, error) {
					if mode == "generate" {
						return client.Generate(context.Background(), req)
					}
					return llm.Collect(context.Background(), client, req)
				}
				ctx := context.Background()
				_ = ctx
				first, err := call(&llm.Request{Messages: []model.Message{model.SystemText("be careful"), model.UserText("delete a and b")}, Tools: tools})
				if err != nil {
					t.Fatal(err)
				}
				want := []model.Part{
					model.Text("Déjà vu — deleting «both»."),
					model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a/ü"}`)),
					model.ToolCall("call_2", "deleteFile", json.RawMessage(`{"path":"/b","n":[1,2]}`)),
				}
				if d := cmp.Diff(want, first.Content); d != "" {
					t.Fatalf("reply content (-want +got):\n%s", d)
				}
				if first.FinishReason != llm.FinishToolCalls || first.Usage.InputTokens != 12 || first.Usage.OutputTokens != 7 {
					t.Fatalf("finish %q usage %+v", first.FinishReason, first.Usage)
				}
				second, err := call(&llm.Request{Messages: history(first), Tools: tools})
				if err != nil {
					t.Fatalf("second call: %v\nproblems: %v", err, sim.Problems())
				}
				if second.FinishReason != llm.FinishStop || len(second.Content) != 1 || second.Content[0].Text != "Done." {
					t.Fatalf("second reply %+v", second)
				}
				if p := sim.Problems(); len(p) > 0 {
					t.Fatalf("problems: %v", p)
				}
				j := sim.Journal()
				if len(j) != 2 || len(j[1].Wire) == 0 || j[1].Mode != mode {
					t.Fatalf("journal %+v", j)
				}
				// Exactly once: a third call is past the script.
				if _, err := call(&llm.Request{Messages: history(first), Tools: tools}); err == nil {
					t.Fatal("a call past the end of the script succeeded")
				}
			})
		}
	}
}

// A prompt with a dangling call gets the provider's exact 400 body.
func TestViolationGetsTheProvidersBody(t *testing.T) {
	srv := server(t)
	for _, p := range wire.Profiles {
		sim, err := simulator.New(simulator.Script{Provider: p, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "never"}}}})
		if err != nil {
			t.Fatal(err)
		}
		base, _ := srv.Add("dangling-"+string(p), sim)
		client, _ := provider.NewClient(base, string(p))
		msgs := []model.Message{
			model.UserText("delete a"),
			{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall("call_9", "deleteFile", json.RawMessage(`{}`))}},
			model.UserText("and?"),
		}
		_, err = client.Generate(context.Background(), &llm.Request{Messages: msgs, Tools: tools})
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("%s: err = %v, want an API error", p, err)
		}
		vs := wire.CheckMessages(p, msgs, "req_1")
		if len(vs) == 0 {
			t.Fatalf("%s: the in-process check finds nothing", p)
		}
		if apiErr.Status != vs[0].Status || apiErr.Message != vs[0].Text {
			t.Errorf("%s: got %d %q, want %d %q", p, apiErr.Status, apiErr.Message, vs[0].Status, vs[0].Text)
		}
		if !strings.Contains(string(apiErr.Body), "call_9") {
			t.Errorf("%s: the body does not name the call: %s", p, apiErr.Body)
		}
		if probs := sim.Problems(); len(probs) == 0 || probs[0].Check != "WIRE-01" {
			t.Errorf("%s: problems %v", p, probs)
		}
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestBadRequests(t *testing.T) {
	srv := server(t)
	sim, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "x"}}}})
	other, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "y"}}}})
	base, _ := srv.Add("one", sim)
	otherBase, _ := srv.Add("two", other)
	if _, err := srv.Add("one", sim); err == nil {
		t.Error("a name was served twice")
	}
	cases := []struct {
		url, body string
		status    int
		want      string
	}{
		{srv.URL + "/nowhere", "{}", 404, "no endpoint"},
		{srv.URL + "/c/three/v1/chat/completions", `{"messages":[]}`, 404, `no conversation \"three\"`},
		{base + "/messages", `{"messages":[]}`, 404, "speaks openai-chat"},
		{base + "/chat/completions", `{`, 400, "does not decode"},
		{base + "/chat/completions", `{"messages":[{"role":"robot"}]}`, 400, "messages[0].role"},
		{base + "/chat/completions", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":"{nope"}}]}]}`, 400, "messages[0].tool_calls[0].function.arguments"},
		{base + "/chat/completions", `{"messages":[{"role":"user","content":"` + strings.Repeat("x", limits.DefaultRequestBytes) + `"}]}`, 413, "larger than 16777216 bytes (the limit, --max-request-bytes)"},
	}
	for _, c := range cases {
		status, body := post(t, c.url, c.body)
		if status != c.status || !strings.Contains(body, c.want) || !json.Valid([]byte(body)) {
			t.Errorf("POST %s: %d %.200s, want %d with %q", c.url, status, body, c.status, c.want)
		}
	}
	// The conversations are isolated: each consumed its own script only.
	if status, body := post(t, otherBase+"/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`); status != 200 || !strings.Contains(body, `"y"`) {
		t.Errorf("conversation two: %d %s", status, body)
	}
	// The three requests that did not decode are journaled as refused
	// model calls of their conversation; nothing else reached it.
	if sim.Calls() != 3 || other.Calls() != 1 {
		t.Errorf("calls: one %d, two %d", sim.Calls(), other.Calls())
	}
	for _, e := range sim.Journal() {
		if e.Verdict != simulator.VerdictRefused || e.Status != 400 || len(e.Wire) == 0 || e.ErrorBody == "" {
			t.Errorf("a request that does not decode is journaled as refused, with its body and answer: %+v", e)
		}
	}
}

// A gated reply streams its events, then holds the end of the stream
// until the gate opens.
func TestGateHoldsTheEndOfTheStream(t *testing.T) {
	srv := server(t)
	gate := make(chan struct{})
	sim, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "hello", Gate: gate}}}})
	base, _ := srv.Add("gated", sim)
	client, _ := provider.NewClient(base, "openai-chat")
	got := make(chan llm.StreamEvent, 16)
	done := make(chan error, 1)
	go func() {
		done <- client.Stream(context.Background(), &llm.Request{Messages: []model.Message{model.UserText("hi")}}, func(ev llm.StreamEvent) error {
			got <- ev
			return nil
		})
	}()
	if ev := <-got; ev.Type != llm.StreamTextDelta || ev.Text != "hello" {
		t.Fatalf("first event %+v", ev)
	}
	select {
	case ev := <-got:
		t.Fatalf("the stream went on before the gate opened: %+v", ev)
	case err := <-done:
		t.Fatalf("the stream ended before the gate opened: %v", err)
	default:
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ev := <-got; ev.Type != llm.StreamFinish || ev.FinishReason != llm.FinishStop {
		t.Fatalf("last event %+v", ev)
	}
}

// The wire shapes official clients parse: spot checks of each format.
func TestWireShapes(t *testing.T) {
	srv := server(t)
	for _, c := range []struct {
		profile wire.Profile
		path    string
		body    string
		want    []string
	}{
		{wire.OpenAIChat, "/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`,
			[]string{`"object":"chat.completion.chunk"`, `"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"deleteFile","arguments":""}}]`, `"finish_reason":"tool_calls"`, `"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}`, "data: [DONE]"}},
		{wire.AnthropicMessages, "/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			[]string{"event: message_start", `"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_1","name":"deleteFile","input":{}}`, `"delta":{"partial_json":`, `"stop_reason":"tool_use"`, "event: message_stop"}},
		{wire.OpenAIResponses, "/responses", `{"model":"m","stream":true,"input":[{"role":"user","content":"hi"}]}`,
			[]string{"event: response.created", `"type":"response.output_item.added"`, `"type":"function_call"`, `"call_id":"call_1"`, "response.function_call_arguments.delta", "event: response.completed", `"sequence_number":`}},
	} {
		sim, _ := simulator.New(script(c.profile))
		base, _ := srv.Add("shape-"+string(c.profile), sim)
		resp, err := http.Post(base+c.path, "application/json", bytes.NewReader([]byte(c.body)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("%s: content type %q", c.profile, resp.Header.Get("Content-Type"))
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: the stream lacks %s\n%s", c.profile, w, b)
			}
		}
	}
}
