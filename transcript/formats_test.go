package transcript

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

// readOne reads one input whole and returns its requests.
func readOne(t *testing.T, in string, opts Options) []*Request {
	t.Helper()
	var out []*Request
	if err := Read(strings.NewReader(in), opts, func(r *Request) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatalf("%v\n%s", err, in)
	}
	return out
}

// calls lists "call:ID" and "result:ID" of the messages, in order.
func calls(req *Request) string {
	var out []string
	for _, m := range req.Messages {
		for _, p := range m.Content {
			switch p.Type {
			case model.PartToolCall:
				out = append(out, "call:"+p.ToolCallID)
			case model.PartToolResult:
				out = append(out, "result:"+p.ToolCallID)
			case model.PartToolApprovalRequest:
				out = append(out, "request:"+p.ToolCallID)
			}
		}
	}
	return strings.Join(out, " ")
}

// TestFormatsByContent: every format people record is told by its content
// and read into calls and results.
func TestFormatsByContent(t *testing.T) {
	cases := []struct {
		name, in string
		format   Format
		calls    string
		notes    int
	}{
		{"AI SDK 4 model messages", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"x","args":{}}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"x","result":1,"isError":false}]}]`,
			Canonical, "call:c1 result:c1", 1},
		{"AI SDK 4 UI messages", `{"messages":[{"id":"a","role":"assistant","content":"","parts":[{"type":"tool-invocation","toolInvocation":{"state":"result","toolCallId":"c1","toolName":"x","args":{},"result":2}}]}]}`,
			UIMessages, "call:c1 result:c1", 1},
		{"AI SDK 3 UI messages", `[{"id":"a","role":"assistant","content":"","toolInvocations":[{"state":"call","toolCallId":"c1","toolName":"x","args":{}}]}]`,
			UIMessages, "call:c1", 1},
		{"LangChain messages_to_dict", `[{"type":"ai","data":{"content":"","tool_calls":[{"name":"x","args":{},"id":"c1"}]}},{"type":"tool","data":{"content":"ok","tool_call_id":"c1"}}]`,
			LangChain, "call:c1 result:c1", 0},
		{"LangChain model_dump", `{"messages":[{"type":"human","content":"hi"},{"type":"ai","content":"","tool_calls":[{"name":"x","args":{},"id":"c1","type":"tool_call"}]}]}`,
			LangChain, "call:c1", 0},
		{"LangChain role dicts", `[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"name":"x","args":{"a":1},"id":"c1"}]},{"role":"tool","content":"ok","tool_call_id":"c1"}]`,
			LangChain, "call:c1 result:c1", 0},
		{"LangChain JS", `[{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"content":"","tool_calls":[{"name":"x","args":{},"id":"c1"}]}}]`,
			LangChain, "call:c1", 0},
		{"Gemini contents alone", `[{"role":"model","parts":[{"functionCall":{"name":"x","args":{}}},{"functionCall":{"name":"x","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"x","response":{}}}]}]`,
			Gemini, "call:x#1 call:x#2 result:x#1", 2},
		{"AG-UI events, one per line", "{\"type\":\"RUN_STARTED\"}\n{\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"x\"}\n{\"type\":\"RUN_FINISHED\",\"outcome\":{\"type\":\"interrupt\",\"interrupts\":[{\"id\":\"approval_c1\",\"reason\":\"tool_call\"}]}}\n",
			AGUIEvents, "call:c1 request:c1", 0},
		{"AG-UI events as received", "data: {\"type\":\"RUN_STARTED\"}\n\nevent: x\ndata: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"x\"}\n\ndata: {\"type\":\"TOOL_CALL_RESULT\",\"toolCallId\":\"c1\",\"content\":\"1\"}\n\ndata: [DONE]\n\n",
			AGUIEvents, "call:c1 result:c1", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs := readOne(t, c.in, Options{})
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Format != c.format || calls(r) != c.calls || len(r.Notes) != c.notes {
				t.Errorf("read as %s: %q, %d notes %v; want %s: %q, %d notes", r.Format, calls(r), len(r.Notes), r.Notes, c.format, c.calls, c.notes)
			}
		})
	}
}

// TestUnreadableFormats: what cannot be read at all is an error naming
// the field.
func TestUnreadableFormats(t *testing.T) {
	cases := []struct{ in, field string }{
		{`[{"type":"tool","data":{"content":"ok"}}]`, "[0].tool_call_id"},
		{`[{"role":"assistant","content":"","tool_calls":[{"name":"x","args":{}}]}]`, "[0].tool_calls[0].id"},
		{`{"contents":[{"role":"user","parts":[{"functionResponse":{"response":{}}}]}]}`, "contents[0].parts[0].functionResponse.name"},
		{"{\"type\":\"TOOL_CALL_START\"}\n", "events[0].toolCallId"},
	}
	for _, c := range cases {
		err := Read(strings.NewReader(c.in), Options{}, func(*Request) error { return nil })
		var te *Error
		if !errors.As(err, &te) || !strings.Contains(te.Error(), c.field) {
			t.Errorf("%s: %v, want an error naming %s", c.in, err, c.field)
		}
	}
}

// TestSSEKeepsOffsets: the framing of an event stream is blanked byte for
// byte, so positions are the file's own.
func TestSSEKeepsOffsets(t *testing.T) {
	in := "event: a\r\ndata: {\"type\":\"RUN_STARTED\"}\r\n\r\n: comment\ndata: [DONE]\n"
	out, err := io.ReadAll(newSSEReader(bufio.NewReader(strings.NewReader(in))))
	if err != nil {
		t.Fatal(err)
	}
	want := "        \r\n      {\"type\":\"RUN_STARTED\"}\r\n\r\n         \n            \n"
	if string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	// Read a byte at a time, the same.
	r := newSSEReader(bufio.NewReader(strings.NewReader(in)))
	var b strings.Builder
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		b.Write(one[:n])
		if err != nil {
			break
		}
	}
	if b.String() != want {
		t.Errorf("byte by byte: got %q, want %q", b.String(), want)
	}
}
