package chatsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/uistream"
)

func no() *bool { v := false; return &v }

// continuation is a request answering call A (approved) and B (denied) of
// the assistant message a1, which it continues.
func continuation() *chat.Request {
	return &chat.Request{Messages: []chat.Message{
		{ID: "u1", Role: "user", Parts: []chat.Part{{Type: "text", Text: "delete a and b"}}},
		{ID: "a1", Role: "assistant", Parts: []chat.Part{
			{Type: "tool-call", ToolCallID: "A", ToolName: "deleteFile", State: chat.ApprovalResponded, Approval: &chat.Approval{ID: "approval_A", Approved: yes()}},
			{Type: "tool-call", ToolCallID: "B", ToolName: "deleteFile", State: chat.ApprovalResponded, Approval: &chat.Approval{ID: "approval_B", Approved: no()}},
			{Type: "tool-call", ToolCallID: "C", ToolName: "deleteFile", State: chat.OutputAvailable, Approval: &chat.Approval{ID: "approval_C", Approved: yes()}},
		}},
	}}
}

func applied(b Behaviour, req *chat.Request, events []chat.Event) []chat.Event {
	rec := Request{Decoded: req}
	analyze(&rec, req, chat.ProtocolUIMessageStream, nil)
	return b.apply(&rec, events)
}

func TestConformingContinuation(t *testing.T) {
	text := []chat.Event{{Type: chat.EventMessageStart, MessageID: "msg-text"}, {Type: chat.EventTextDelta, Delta: "done"}, {Type: chat.EventFinish}}
	got := applied(Conforming(chat.ProtocolUIMessageStream), continuation(), text)
	want := []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "a1"},
		{Type: chat.EventToolResult, ToolCallID: "A", Output: ReportedOutput},
		{Type: chat.EventToolDenied, ToolCallID: "B"},
		{Type: chat.EventTextDelta, Delta: "done"},
		{Type: chat.EventFinish},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a continuation answered with text (-want +got):\n%s", d)
	}

	// What the script reports itself is not reported again, and keeps its place.
	scripted := []chat.Event{{Type: chat.EventMessageStart, MessageID: "m2"}, {Type: chat.EventTextDelta, Delta: "a:"},
		{Type: chat.EventToolResult, ToolCallID: "A", Output: json.RawMessage(`{"deleted":"a"}`)}, {Type: chat.EventFinish}}
	got = applied(Conforming(chat.ProtocolUIMessageStream), continuation(), scripted)
	want = []chat.Event{{Type: chat.EventMessageStart, MessageID: "a1"}, {Type: chat.EventToolDenied, ToolCallID: "B"}, {Type: chat.EventTextDelta, Delta: "a:"},
		{Type: chat.EventToolResult, ToolCallID: "A", Output: json.RawMessage(`{"deleted":"a"}`)}, {Type: chat.EventFinish}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a continuation whose script reports A (-want +got):\n%s", d)
	}

	// A new user message continues nothing: the script goes as written.
	fresh := continuation()
	fresh.Messages = append(fresh.Messages, chat.Message{ID: "u2", Role: "user", Parts: []chat.Part{{Type: "text", Text: "and c"}}})
	if got := applied(Conforming(chat.ProtocolUIMessageStream), fresh, text); got[0].MessageID != "msg-text" {
		t.Errorf("a new user message got the message id %q", got[0].MessageID)
	}

	// A server that models another behaviour streams the script as written.
	if d := cmp.Diff(text, applied(Behaviour{}, continuation(), text)); d != "" {
		t.Errorf("Behaviour{} changed the script (-want +got):\n%s", d)
	}
	// A script without a message start gets one, with the continued id.
	if got := applied(Behaviour{ReuseMessageID: true}, continuation(), text[1:]); got[0].Type != chat.EventMessageStart || got[0].MessageID != "a1" {
		t.Errorf("no message start: %+v", got[0])
	}
}

// Over HTTP, in the UI message stream: the continued message's id, the
// answered calls' outcomes, then the step; the journal keeps what was
// streamed.
func TestConformingUIStreamOverHTTP(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conv := NewConversation(uistream.Codec{})
	if !conv.Behaviour().ReuseMessageID || !conv.Behaviour().ReportAnswered {
		t.Fatalf("a UI message stream conversation is not conforming by default: %+v", conv.Behaviour())
	}
	url := srv.Mount(conv)
	if _, err := conv.Append(Turn{Events: []chat.Event{{Type: chat.EventMessageStart, MessageID: "msg-text"}, {Type: chat.EventTextDelta, Delta: "done"}, {Type: chat.EventFinish, FinishReason: "stop"}}}); err != nil {
		t.Fatal(err)
	}
	body, err := uistream.Codec{}.EncodeRequest(continuation())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	order := []string{`{"type":"start","messageId":"a1"}`, `{"type":"tool-output-available","toolCallId":"A","output":{"ok":true}}`,
		`{"type":"tool-output-denied","toolCallId":"B"}`, `{"type":"start-step"}`, `"delta":"done"`, `{"type":"finish-step"}`, `{"type":"finish","finishReason":"stop"}`}
	at := 0
	for _, s := range order {
		i := strings.Index(string(wire[at:]), s)
		if i < 0 {
			t.Fatalf("the stream lacks %s after byte %d:\n%s", s, at, wire)
		}
		at += i + len(s)
	}
	if r := conv.Requests(); len(r) != 1 || len(r[0].Streamed) != 5 {
		t.Errorf("the journal does not keep what was streamed: %+v", r)
	}
}
