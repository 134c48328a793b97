package steps

import (
	"encoding/json"
	"testing"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/model"
)

// The harness's client applies a stream as a conforming client does: a
// continuation writes into the message it continues, a part's state never
// moves back, and the continuation is due once every call is complete.
func TestServerClientAppliesStreams(t *testing.T) {
	sw := &serverWorld{protocol: chat.ProtocolUIMessageStream, thread: newThread("c")}
	sw.messages = []chat.Message{{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{{Type: chat.PartText, Text: "go"}}}}
	for _, ev := range []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "a1"},
		{Type: chat.EventToolCallStart, ToolCallID: "c1", ToolName: "t"},
		{Type: chat.EventToolCallArgs, ToolCallID: "c1", Delta: `{"x":`},
		{Type: chat.EventToolCallArgs, ToolCallID: "c1", Delta: `1}`},
		{Type: chat.EventToolCallEnd, ToolCallID: "c1"},
		{Type: chat.EventApprovalRequested, ToolCallID: "c1", Approval: &chat.Approval{ID: "ap1", InterruptID: "int1"}},
		{Type: chat.EventToolCallStart, ToolCallID: "c1", ToolName: "t"}, // a repeated start changes nothing
	} {
		sw.apply(ev)
	}
	p := sw.find("c1")
	if p == nil || p.State != chat.ApprovalRequested || string(p.Input) != `{"x":1}` || p.Approval.ID != "ap1" {
		t.Fatalf("part %+v", p)
	}
	if sw.complete() {
		t.Fatal("complete before the answer")
	}
	if _, ok := sw.asked["c1"]; !ok {
		t.Fatal("no snapshot of the history when the approval was asked")
	}
	sw.answerPart(p, false, "no")
	if !sw.complete() || len(sw.resume) != 0 {
		t.Fatalf("after the answer: complete %v, resume %v (the UI message stream has none)", sw.complete(), sw.resume)
	}
	sw.cur = -1
	sw.apply(chat.Event{Type: chat.EventMessageStart, MessageID: "a1"})
	sw.apply(chat.Event{Type: chat.EventToolDenied, ToolCallID: "c1"})
	sw.apply(chat.Event{Type: chat.EventTextDelta, Delta: "ok"})
	if len(sw.messages) != 2 || p.State != chat.OutputDenied {
		t.Fatalf("messages %d, state %s", len(sw.messages), p.State)
	}
	want := []chat.ToolState{chat.InputStreaming, chat.InputComplete, chat.ApprovalRequested, chat.ApprovalResponded, chat.OutputDenied}
	if len(p.History) != len(want) {
		t.Fatalf("history %v, want %v", p.History, want)
	}
	// The client's history in the canonical model holds the denial with
	// the user's reason.
	hist := uiHistory(sw.messages)
	res, ok := model.IndexOf(hist).Result("c1")
	if !ok || res.Output.Type != model.OutputExecutionDenied || res.Output.Reason != "no" {
		t.Fatalf("history %+v", hist)
	}

	// AG-UI's interrupt form answers with a resume entry naming the
	// interrupt, beside the part.
	ag := &serverWorld{protocol: chat.ProtocolAGUI, thread: newThread("c")}
	ag.apply(chat.Event{Type: chat.EventApprovalRequested, ToolCallID: "c2", ToolName: "t", Approval: &chat.Approval{ID: "ap2", InterruptID: "int2"}})
	ag.answerPart(ag.find("c2"), true, "")
	if len(ag.resume) != 1 || ag.resume[0].InterruptID != "int2" || !ag.resume[0].Approved {
		t.Fatalf("resume %+v", ag.resume)
	}
}

// A stream's outcomes become the turn's messages: a result, a denial, an
// error, each typed.
func TestStreamMessages(t *testing.T) {
	msgs := streamMessages([]chat.Event{
		{Type: chat.EventTextDelta, Delta: "hi"},
		{Type: chat.EventToolCallStart, ToolCallID: "a", ToolName: "t"},
		{Type: chat.EventToolCallEnd, ToolCallID: "a", Input: json.RawMessage(`{}`)},
		{Type: chat.EventToolResult, ToolCallID: "a", Output: json.RawMessage(`{"ok":true}`)},
		{Type: chat.EventToolDenied, ToolCallID: "b", ToolName: "t"},
		{Type: chat.EventToolError, ToolCallID: "c", ToolName: "t", ErrorText: "boom"},
	})
	ix := model.IndexOf(msgs)
	for id, typ := range map[string]model.OutputType{"a": model.OutputJSON, "b": model.OutputExecutionDenied, "c": model.OutputErrorText} {
		r, ok := ix.Result(id)
		if !ok || r.Output.Type != typ {
			t.Errorf("%s: %+v, want %s", id, r, typ)
		}
	}
}

// A dialect whose requests carry no denial reason is found out.
func TestCarriesReasons(t *testing.T) {
	ui, _ := protocols.Lookup(chat.ProtocolUIMessageStream)
	ag, _ := protocols.Lookup(chat.ProtocolAGUI)
	old, _ := protocols.LookupDialect(chat.ProtocolAGUILegacy, chat.DialectTanStackAI05)
	if !carriesReasons(ui) || !carriesReasons(ag) || carriesReasons(old) {
		t.Errorf("carriesReasons: ui-message-stream %v, ag-ui %v, tanstack-ai-0.5 %v", carriesReasons(ui), carriesReasons(ag), carriesReasons(old))
	}
}
