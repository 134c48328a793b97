package transcript

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/wire"
)

func readAll(t *testing.T, input string, opts Options) []*Request {
	t.Helper()
	var out []*Request
	if err := Read(strings.NewReader(input), opts, func(r *Request) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatalf("read: %v", err)
	}
	return out
}

// TestDetect: each format is told apart by content, whatever the order of
// its keys, and plain text messages before the telling one are kept.
func TestDetect(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  Format
	}{
		{"canonical array", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}]}]`, Canonical},
		{"canonical object", `{"mode":"generate","messages":[{"role":"user","content":"hi"}],"toolkit":"provided"}`, Canonical},
		{"chat", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, OpenAIChat},
		{"chat bare array", `[{"role":"developer","content":"be nice"},{"role":"tool","tool_call_id":"c","content":"x"}]`, OpenAIChat},
		{"responses", `{"model":"m","input":[{"role":"user","content":"hi"}]}`, OpenAIResponses},
		{"responses items", `[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]`, OpenAIResponses},
		{"anthropic by blocks", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]}`, AnthropicMessages},
		{"anthropic by max_tokens", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, AnthropicMessages},
		{"ui body", `{"id":"c","messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"hi"}]}],"trigger":"submit-message"}`, UIMessages},
		{"ui array", `[{"id":"u","role":"user","parts":[{"type":"text","text":"hi"}]},{"id":"a","role":"assistant","parts":[{"type":"tool-f","toolCallId":"c","state":"input-available","input":{}}]}]`, UIMessages},
		{"ag-ui", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}],"tools":[],"context":[]}`, AGUI},
		{"ag-ui hint after messages", `{"messages":[{"id":"m","role":"user","content":"hi"}],"threadId":"t","runId":"r"}`, AGUI},
		{"ag-ui tool calls", `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, AGUI},
		{"tanstack parts", `[{"id":"a","role":"assistant","parts":[{"type":"tool-call","id":"c","name":"f","arguments":"{}","state":"input-complete"}]}]`, AGUI},
		{"plain text", `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, Canonical},
		{"journal", `{"call":1,"turn":0,"mode":"generate","prompt":[{"role":"user","content":[{"type":"text","text":"x"}]}],"verdict":"ok"}`, Journal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs := readAll(t, c.input, Options{})
			if len(reqs) != 1 || reqs[0].Format != c.want {
				t.Fatalf("read as %v, want %s", reqs[0].Format, c.want)
			}
			if c.want != Journal && reqs[0].Count == 0 {
				t.Error("no messages")
			}
		})
	}
}

// TestPendingStandIn: a large plain message read before the format is
// known keeps only its role, and still takes its place in the provider's
// view.
func TestPendingStandIn(t *testing.T) {
	big := strings.Repeat("x", minimalLimit*2)
	input := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`, big)
	reqs := readAll(t, input, Options{})
	r := reqs[0]
	if r.Format != OpenAIChat || len(r.View.Entries) != 3 || r.View.Entries[0].Role != "user" || r.ViewSource[2] != 2 {
		t.Fatalf("format %s, view %+v, sources %v", r.Format, r.View.Entries, r.ViewSource)
	}
	kept := readAll(t, input, Options{Keep: true})[0]
	if got := kept.Messages[0].Content[0].Text; got != big {
		t.Errorf("with Keep the text is %d bytes, want %d", len(got), len(big))
	}
	if len(r.Messages) != 0 || r.Count != 3 {
		t.Errorf("without Keep a provider body keeps %d messages of %d, want none", len(r.Messages), r.Count)
	}
}

// TestKeep: with Keep, messages are whole: texts, inputs, outputs, tool
// names of results, tools and the system prompt.
func TestKeep(t *testing.T) {
	input := `{"model":"m","max_tokens":99,"system":"be careful","tools":[{"name":"deleteFile","input_schema":{"type":"object"}}],"messages":[
	{"role":"user","content":"delete /a"},
	{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"deleteFile","input":{"path":"/a"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"deleted\":true}"},{"type":"text","text":"next"}]}],"stream":true}`
	r := readAll(t, input, Options{Keep: true})[0]
	if r.Format != AnthropicMessages || !r.Stream || len(r.Tools) != 1 || r.Tools[0].Name != "deleteFile" {
		t.Fatalf("format %s stream %v tools %+v", r.Format, r.Stream, r.Tools)
	}
	var roles []string
	for _, m := range r.Messages {
		roles = append(roles, string(m.Role))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,user" {
		t.Fatalf("roles %v", roles)
	}
	res := r.Messages[3].Content[0]
	if res.ToolName != "deleteFile" || string(res.Output.Value) != `{"deleted":true}` {
		t.Errorf("result %+v", res)
	}
	if string(r.Messages[2].Content[0].Input) != `{"path":"/a"}` || r.Messages[4].Source != 2 {
		t.Errorf("call %+v, last source %d", r.Messages[2].Content[0], r.Messages[4].Source)
	}
}

// TestJoin: messages a provider's decoder joins stay joined (consecutive
// tool messages of Chat Completions; a Responses run of calls).
func TestJoin(t *testing.T) {
	chat := `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"b","content":"2"}]}`
	r := readAll(t, chat, Options{Keep: true})[0]
	if len(r.Messages) != 2 || len(r.Messages[1].Content) != 2 || fmt.Sprint(r.Messages[1].Sources) != "[1 2]" || len(r.View.Entries) != 3 {
		t.Fatalf("messages %+v, view %+v", r.Messages, r.View)
	}
	resp := `{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"item_reference","id":"x"},{"type":"function_call_output","call_id":"a","output":"1"}]}`
	r = readAll(t, resp, Options{Keep: true})[0]
	if len(r.Messages) != 2 || len(r.Messages[0].Content) != 2 || fmt.Sprint(r.ViewSource) != "[0 1 3]" || !r.Stored || len(r.Notes) != 1 {
		t.Fatalf("messages %+v, sources %v, stored %v, notes %v", r.Messages, r.ViewSource, r.Stored, r.Notes)
	}
}

// TestJournal: a journal is a sequence of entries, each with its prompt,
// its wire body read in the provider's format, and its record.
func TestJournal(t *testing.T) {
	input := `{"scenario":"s","call":1,"turn":0,"mode":"stream","prompt":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"wire":{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true},"tools":["f"],"verdict":"ok","reply":{"text":"hello"},"status":200}
{"conversation":"c2","call":2,"api":"anthropic-messages","wire":{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]},"verdict":"violation","status":400,"errorBody":"{}"}
`
	reqs := readAll(t, input, Options{Keep: true})
	if len(reqs) != 2 {
		t.Fatalf("%d entries", len(reqs))
	}
	a, b := reqs[0], reqs[1]
	if a.Format != Journal || a.Journal.Scenario != "s" || a.Journal.Mode != "stream" || a.Journal.Reply == nil || a.Journal.Reply.Text != "hello" || fmt.Sprint(a.Journal.Tools) != "[f]" {
		t.Fatalf("entry 1: %+v %+v", a, a.Journal)
	}
	if a.Prompt == nil || a.Prompt.Format != Canonical || a.Prompt.Kind != Prompt || a.Wire == nil || a.Wire.Format != OpenAIChat || !a.Wire.Stream {
		t.Fatalf("entry 1 prompt %+v wire %+v", a.Prompt, a.Wire)
	}
	if b.N != 2 || b.Journal.Conversation != "c2" || b.Journal.Status != 400 || b.Wire.Format != AnthropicMessages || b.Prompt != nil {
		t.Fatalf("entry 2: %+v %+v", b, b.Journal)
	}
}

// TestAnswers: UI and AG-UI answers are bound to their calls; a resume
// entry that repeats a tool message's answer is that answer.
func TestAnswers(t *testing.T) {
	ui := `[{"id":"a","role":"assistant","parts":[{"type":"tool-f","toolCallId":"c1","state":"approval-responded","input":{},"approval":{"id":"ap1","approved":false,"reason":"no"}}]}]`
	r := readAll(t, ui, Options{})[0]
	if len(r.Messages) != 2 {
		t.Fatalf("messages %+v", r.Messages)
	}
	resp := r.Messages[1].Content[0]
	if resp.Type != model.PartToolApprovalResponse || resp.ToolCallID != "c1" || resp.Approved {
		t.Fatalf("answer %+v", resp)
	}
	ag := `{"threadId":"t","resume":[{"interruptId":"approval_c1","status":"resolved","payload":{"approved":true}},{"interruptId":"approval_c2","status":"cancelled"}],"messages":[
	{"role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},
	{"role":"tool","toolCallId":"c1","content":"{\"approved\":true,\"pendingExecution\":true}"}]}`
	r = readAll(t, ag, Options{})[0]
	var answers []string
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalResponse {
				answers = append(answers, fmt.Sprintf("%s=%v", p.ToolCallID, p.Approved))
			}
		}
	}
	if strings.Join(answers, " ") != "c1=true c2=false" {
		t.Fatalf("answers %v", answers)
	}
}

// TestErrorsNameTheElement: a decoder's error names the element of the
// transcript and where it starts.
func TestErrorsNameTheElement(t *testing.T) {
	input := "{\"model\":\"m\",\"input\":[\n{\"role\":\"user\",\"content\":\"hi\"},\n{\"type\":\"function_call\",\"name\":\"f\"}]}"
	err := Read(strings.NewReader(input), Options{}, func(*Request) error { return nil })
	var te *Error
	if !errors.As(err, &te) || te.Field != "input[1]" || !strings.Contains(te.Msg, "input[1]: a function_call needs call_id and name") {
		t.Fatalf("err %v", err)
	}
	pos, _ := Locate(strings.NewReader(input), []int64{te.Offset})
	if p := pos[te.Offset]; p.Line != 3 || p.Column != 1 {
		t.Errorf("located at %+v, want line 3 column 1", p)
	}
}

// TestSyntaxErrorPosition: a syntax error is placed on its byte, even
// inside a message the decoder was reading whole.
func TestSyntaxErrorPosition(t *testing.T) {
	input := "{\"messages\":[\n{\"role\":\"user\",\n\"content\":}]}"
	err := Read(strings.NewReader(input), Options{}, func(*Request) error { return nil })
	var te *Error
	if !errors.As(err, &te) || te.Offset != int64(strings.Index(input, "}]")) {
		t.Fatalf("err %v, want a syntax error at byte %d", err, strings.Index(input, "}]"))
	}
}

// TestProfile: conversations without a provider get the one asked for.
func TestProfile(t *testing.T) {
	r := readAll(t, `[{"role":"user","content":"x"}]`, Options{Profile: wire.AnthropicMessages})[0]
	if r.Profile != wire.AnthropicMessages || r.Kind != History {
		t.Fatalf("profile %s kind %s", r.Profile, r.Kind)
	}
	r = readAll(t, `{"model":"m","messages":[{"role":"tool","tool_call_id":"c","content":"x"}]}`, Options{Profile: wire.AnthropicMessages})[0]
	if r.Profile != wire.OpenAIChat || r.Kind != Prompt {
		t.Fatalf("a Chat body read with profile %s kind %s", r.Profile, r.Kind)
	}
}

func TestLocate(t *testing.T) {
	input := "{\n  \"a\": [1,\n    2]\n}"
	pos, err := Locate(strings.NewReader(input), []int64{0, 9, 10, 12, int64(len(input)) + 5})
	if err != nil {
		t.Fatal(err)
	}
	for off, want := range map[int64][2]int{0: {1, 1}, 9: {2, 8}, 10: {2, 9}, 12: {3, 5}} {
		if p := pos[off]; p.Line != want[0] || p.Column != want[1] {
			t.Errorf("offset %d at %d:%d, want %d:%d", off, p.Line, p.Column, want[0], want[1])
		}
	}
	if p := pos[int64(len(input))+5]; p.Line != 0 {
		t.Errorf("an offset past the end located at %+v", p)
	}
}
