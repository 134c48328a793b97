package protocols

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/agui"
)

func ptr[T any](v T) *T { return &v }

func TestLookup(t *testing.T) {
	for _, name := range chat.Protocols {
		c, err := Lookup(name)
		if err != nil || c.Name() != name {
			t.Fatalf("Lookup(%q) = %v, %v", name, c, err)
		}
	}
	if _, err := Lookup("grpc"); err == nil || !strings.Contains(err.Error(), "ui-message-stream") {
		t.Fatalf("unknown protocol error = %v, want the known list", err)
	}
	if len(All()) != len(chat.Protocols) {
		t.Fatal("All misses a protocol")
	}
	for protocol, dialects := range chat.Dialects {
		if chat.DefaultDialect(protocol) != dialects[0] {
			t.Errorf("%s: default dialect %q, want the first listed", protocol, chat.DefaultDialect(protocol))
		}
		for _, d := range dialects {
			c, err := LookupDialect(protocol, d)
			if err != nil || c.Name() != protocol || dialectOf(c) != d {
				t.Errorf("LookupDialect(%q, %q) = %v, %v", protocol, d, c, err)
			}
		}
	}
	if _, err := LookupDialect(chat.ProtocolAGUILegacy, "tanstack-ai-9"); err == nil || !strings.Contains(err.Error(), chat.DialectTanStackAI05) {
		t.Errorf("unknown dialect error = %v, want the known list", err)
	}
	if _, err := LookupDialect(chat.ProtocolUIMessageStream, "x"); err == nil || !strings.Contains(err.Error(), "no dialects") {
		t.Errorf("dialect of a protocol without dialects: err = %v", err)
	}
	if n := len(AllDialects()); n != 5 {
		t.Errorf("AllDialects has %d codecs, want 5", n)
	}
}

// dialectOf names a codec's dialect, resolved.
func dialectOf(c chat.Codec) string {
	if a, ok := c.(agui.Codec); ok {
		if a.Dialect == "" {
			return chat.DefaultDialect(c.Name())
		}
		return a.Dialect
	}
	return ""
}

// label names a codec in test output: its protocol and dialect.
func label(c chat.Codec) string {
	if d := dialectOf(c); d != "" {
		return c.Name() + "@" + d
	}
	return c.Name()
}

// stream is a server's events for one turn: text, a streamed call that
// needs approval, a call with a result, one with an error, one denied.
func stream(interrupt bool) []chat.Event {
	approval := &chat.Approval{ID: "approval_call_A", Signature: "sig-1"}
	if interrupt {
		approval.InterruptID = "approval_call_A"
	}
	return []chat.Event{
		{Type: chat.EventRunStarted},
		{Type: chat.EventMessageStart, MessageID: "msg-1"},
		{Type: chat.EventTextDelta, Delta: "Deleting "},
		{Type: chat.EventTextDelta, Delta: "«ä» now"},
		{Type: chat.EventToolCallStart, ToolCallID: "call_B", ToolName: "lookup"},
		{Type: chat.EventToolCallArgs, ToolCallID: "call_B", Delta: `{"q":`},
		{Type: chat.EventToolCallArgs, ToolCallID: "call_B", Delta: `"x"}`},
		{Type: chat.EventToolCallEnd, ToolCallID: "call_B", ToolName: "lookup", Input: json.RawMessage(`{"q":"x"}`)},
		{Type: chat.EventToolResult, ToolCallID: "call_B", Output: json.RawMessage(`{"found":[1,2]}`)},
		{Type: chat.EventToolCallStart, ToolCallID: "call_C", ToolName: "fail"},
		{Type: chat.EventToolCallEnd, ToolCallID: "call_C", ToolName: "fail", Input: json.RawMessage(`{}`)},
		{Type: chat.EventToolError, ToolCallID: "call_C", ErrorText: "disk full"},
		{Type: chat.EventToolDenied, ToolCallID: "call_D"},
		{Type: chat.EventToolCallStart, ToolCallID: "call_A", ToolName: "dangerous"},
		{Type: chat.EventToolCallEnd, ToolCallID: "call_A", ToolName: "dangerous", Input: json.RawMessage(`{"target":"a"}`)},
		{Type: chat.EventApprovalRequested, ToolCallID: "call_A", ToolName: "dangerous", Input: json.RawMessage(`{"target":"a"}`), Approval: approval},
		{Type: chat.EventFinish, FinishReason: "tool_calls"},
	}
}

func roundTrip(t *testing.T, c chat.Codec, in []chat.Event) ([]chat.Event, string) {
	t.Helper()
	var buf bytes.Buffer
	flushes := 0
	w := c.NewWriter(&buf, func() { flushes++ }, &chat.Request{ThreadID: "t1", RunID: "r1"})
	for _, ev := range in {
		if err := w.Write(ev); err != nil {
			t.Fatalf("%s: Write(%s): %v", c.Name(), ev.Type, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: Close: %v", c.Name(), err)
	}
	if flushes == 0 {
		t.Fatalf("%s: the writer never flushed", c.Name())
	}
	var out []chat.Event
	if err := c.ReadEvents(context.Background(), bytes.NewReader(buf.Bytes()), func(ev chat.Event) error {
		out = append(out, ev)
		return nil
	}); err != nil {
		t.Fatalf("%s: ReadEvents: %v\n%s", c.Name(), err, buf.String())
	}
	return out, buf.String()
}

// withoutType drops events of the given types.
func withoutType(evs []chat.Event, types ...chat.EventType) []chat.Event {
	var out []chat.Event
next:
	for _, ev := range evs {
		for _, t := range types {
			if ev.Type == t {
				continue next
			}
		}
		out = append(out, ev)
	}
	return out
}

func TestEventsRoundTrip(t *testing.T) {
	norm := func(r json.RawMessage) string {
		var v any
		if json.Unmarshal(r, &v) != nil {
			return string(r)
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	cmpJSON := cmp.Comparer(func(a, b json.RawMessage) bool { return norm(a) == norm(b) })
	for _, c := range AllDialects() {
		t.Run(label(c), func(t *testing.T) {
			interrupt := c.Name() == chat.ProtocolAGUI
			in := stream(interrupt)
			got, wire := roundTrip(t, c, in)
			want := in
			switch c.Name() {
			case chat.ProtocolAGUI:
				// Interrupts travel in RUN_FINISHED: the approval comes right
				// before the finish, which it already does here.
			case chat.ProtocolUIMessageStream:
				// No run-started chunk; tool names ride only on the start and
				// input-available chunks; the approval request carries ids only.
				want = withoutType(in, chat.EventRunStarted)
				for i := range want {
					if want[i].Type == chat.EventApprovalRequested {
						want[i].ToolName, want[i].Input = "", nil
					}
				}
			}
			if d := cmp.Diff(want, got, cmpJSON); d != "" {
				t.Fatalf("events changed in transit (-want +got):\n%s\nwire:\n%s", d, wire)
			}
		})
	}
}

func TestWireShapes(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		want     []string
		not      []string
	}{
		{chat.ProtocolAGUILegacy,
			[]string{`"type":"RUN_STARTED","threadId":"t1","runId":"r1"`, `"type":"CUSTOM"`, `"name":"approval-requested"`, `"approval":{"id":"approval_call_A","needsApproval":true,"signature":"sig-1"}`, `"type":"TEXT_MESSAGE_START","messageId":"msg-1","role":"assistant"`, `"type":"TOOL_CALL_START"`, `"toolCallName":"lookup","parentMessageId":"msg-1"`, `"type":"RUN_FINISHED"`},
			[]string{`"outcome"`}},
		{chat.ProtocolAGUI,
			[]string{`"outcome":{"type":"interrupt","interrupts":[{"id":"approval_call_A","reason":"tool_call"`,
				`"metadata":{"kind":"approval","toolName":"dangerous","input":{"target":"a"},"approvalId":"approval_call_A","signature":"sig-1",`,
				// The binding as @tanstack/ai 0.58 writes it for a tool with no
				// input or approval schema (hashes computed by that release).
				`"tanstack:interruptBinding":{"v":1,"kind":"tool-approval","interruptId":"approval_call_A","toolName":"dangerous","toolCallId":"call_A","originalArgs":{"target":"a"},` +
					`"inputSchemaHash":"sha256:eb045d78d273107348b0300c01d29b7552d622abbc6faf81b3ec55359aa9950c",` +
					`"approvalSchemaHash":"sha256:22f76d9a1c618a3cfaa891208a14f6e5e6ab1be4ff1c38cc8a8cd1e8fd0c0e4e",` +
					`"responseSchemaHash":"sha256:ed82fe780755de70bdc8e477ffff9696d7dd16dd9b328a62a9d2d85525ba6b96",` +
					`"interruptedRunId":"r1","generation":0}`,
				`"responseSchema":{"oneOf":[{"additionalProperties":false,"properties":{"approved":{"const":true}},"required":["approved"],"type":"object"},`},
			[]string{`"name":"approval-requested"`}},
		{chat.ProtocolUIMessageStream,
			[]string{`{"type":"start","messageId":"msg-1"}`, `{"type":"text-start","id":"text-1"}`, `{"type":"tool-input-delta","toolCallId":"call_B","inputTextDelta":"{\"q\":"}`, `{"type":"tool-approval-request","toolCallId":"call_A","approvalId":"approval_call_A","signature":"sig-1"}`, `{"type":"tool-output-denied","toolCallId":"call_D"}`, `{"type":"finish","finishReason":"tool_calls"}`, "data: [DONE]\n\n"},
			nil},
		{chat.ProtocolAGUILegacy + "@" + chat.DialectTanStackAI05,
			[]string{`"type":"CUSTOM","name":"approval-requested","data":{"toolCallId":"call_A","toolName":"dangerous","input":{"target":"a"},"approval":{"id":"approval_call_A","needsApproval":true,"signature":"sig-1"}}`,
				`{"type":"TOOL_CALL_START","toolCallId":"call_B","toolName":"lookup"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_B","toolName":"lookup","input":{"q":"x"}}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_B","result":"{\"found\":[1,2]}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_C","result":"{\"error\":\"disk full\"}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_D","result":"{\"error\":\"User declined tool execution\"}"}`},
			[]string{`"value"`, `"toolCallName"`, `TOOL_CALL_RESULT`, `tool-output-denied`}},
		{chat.ProtocolAGUILegacy + "@" + chat.DialectTanStackAI06,
			[]string{`"type":"CUSTOM","name":"approval-requested","value":{"toolCallId":"call_A"`,
				`{"type":"TOOL_CALL_START","toolCallId":"call_B","toolName":"lookup"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_B","result":"{\"found\":[1,2]}"}`,
				`{"type":"TOOL_CALL_END","toolCallId":"call_D","result":"{\"error\":\"User declined tool execution\"}"}`},
			[]string{`"data"`, `"toolCallName"`, `TOOL_CALL_RESULT`}},
	} {
		protocol, dialect, _ := strings.Cut(tc.protocol, "@")
		c, _ := LookupDialect(protocol, dialect)
		_, wire := roundTrip(t, c, stream(tc.protocol == chat.ProtocolAGUI))
		for _, s := range tc.want {
			if !strings.Contains(wire, s) {
				t.Errorf("%s: the stream lacks %s\n%s", tc.protocol, s, wire)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(wire, s) {
				t.Errorf("%s: the stream has %s", tc.protocol, s)
			}
		}
	}
	ui, _ := Lookup(chat.ProtocolUIMessageStream)
	if ui.ResponseHeaders()["X-Vercel-AI-UI-Message-Stream"] != "v1" {
		t.Error("the UI message stream must send its protocol header")
	}
	for _, c := range All() {
		if c.ResponseHeaders()["Content-Type"] != "text/event-stream" {
			t.Errorf("%s: content type %q", c.Name(), c.ResponseHeaders()["Content-Type"])
		}
	}
}

func TestWriterRefusesEventsAfterTheEnd(t *testing.T) {
	for _, c := range All() {
		var buf bytes.Buffer
		w := c.NewWriter(&buf, nil, nil)
		if err := w.Write(chat.Event{Type: chat.EventFinish}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(chat.Event{Type: chat.EventTextDelta, Delta: "late"}); err == nil {
			t.Errorf("%s: an event after finish was written", c.Name())
		}
		if err := w.Write(chat.Event{Type: "bogus"}); err == nil {
			t.Errorf("%s: an unknown event type was written", c.Name())
		}
		w = c.NewWriter(&buf, nil, nil)
		if err := w.Write(chat.Event{Type: chat.EventApprovalRequested, ToolCallID: "x"}); err == nil {
			t.Errorf("%s: an approval request without an id was written", c.Name())
		}
	}
}

// An unfinished interrupt stream is finished on Close with its interrupts.
func TestInterruptsFlushOnClose(t *testing.T) {
	c, _ := Lookup(chat.ProtocolAGUI)
	in := []chat.Event{{Type: chat.EventApprovalRequested, ToolCallID: "A", ToolName: "t", Approval: &chat.Approval{ID: "approval_A"}}}
	got, _ := roundTrip(t, c, in)
	var approvals int
	for _, ev := range got {
		if ev.Type == chat.EventApprovalRequested {
			approvals++
			if ev.Approval.InterruptID != "approval_A" {
				t.Fatalf("interrupt id = %q", ev.Approval.InterruptID)
			}
		}
	}
	if approvals != 1 || got[len(got)-1].Type != chat.EventFinish {
		t.Fatalf("got %+v", got)
	}
}

func conversation() *chat.Request {
	return &chat.Request{
		ThreadID: "t1", RunID: "r2", ParentRunID: "r1",
		Messages: []chat.Message{
			{ID: "u1", Role: chat.RoleUser, Parts: []chat.Part{{Type: chat.PartText, Text: "clean «ü» up"}}},
			{ID: "a1", Role: chat.RoleAssistant, Parts: []chat.Part{
				{Type: chat.PartText, Text: "On it."},
				{Type: chat.PartToolCall, ToolCallID: "A", ToolName: "delete", Input: json.RawMessage(`{"path":"/a"}`), State: chat.ApprovalResponded,
					Approval: &chat.Approval{ID: "approval_A", Approved: ptr(true), Signature: "s-A", InterruptID: "approval_A"}},
				{Type: chat.PartToolCall, ToolCallID: "B", ToolName: "delete", Input: json.RawMessage(`{"path":"/b"}`), State: chat.ApprovalResponded,
					Approval: &chat.Approval{ID: "approval_B", Approved: ptr(false), Reason: "not that one", InterruptID: "approval_B"}},
				{Type: chat.PartToolCall, ToolCallID: "C", ToolName: "list", Input: json.RawMessage(`{}`), State: chat.OutputAvailable, Output: json.RawMessage(`["x"]`)},
				{Type: chat.PartToolCall, ToolCallID: "D", ToolName: "list", Input: json.RawMessage(`{}`), State: chat.OutputError, ErrorText: "boom"},
				{Type: chat.PartToolCall, ToolCallID: "E", ToolName: "delete", Input: json.RawMessage(`{}`), State: chat.OutputDenied,
					Approval: &chat.Approval{ID: "approval_E", Approved: ptr(false)}},
				{Type: chat.PartToolCall, ToolCallID: "F", ToolName: "search", Input: json.RawMessage(`{"q":1}`), State: chat.ApprovalRequested, ProviderExecuted: true,
					Approval: &chat.Approval{ID: "approval_F"}},
			}},
		},
		Resume: []chat.Resume{{InterruptID: "approval_A", Approved: true}, {InterruptID: "approval_B", Approved: false, Reason: "not that one"}},
	}
}

func TestRequestRoundTrip(t *testing.T) {
	for _, c := range AllDialects() {
		t.Run(label(c), func(t *testing.T) {
			in := conversation()
			body, err := c.EncodeRequest(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.DecodeRequest(body)
			if err != nil {
				t.Fatalf("DecodeRequest: %v\n%s", err, body)
			}
			want := conversation()
			if c.Name() == chat.ProtocolUIMessageStream {
				// The UI message stream has no runs and no interrupts.
				want.RunID, want.ParentRunID, want.Resume = "", "", nil
				for i := range want.Messages[1].Parts {
					if a := want.Messages[1].Parts[i].Approval; a != nil {
						a.InterruptID = ""
					}
				}
			}
			if d := dialectOf(c); d == chat.DialectTanStackAI05 || d == chat.DialectTanStackAI06 {
				// {messages, data}: no thread, no runs, no resume entries, no
				// denial reasons; a denial stays approval-responded, and an
				// approval request of a provider-executed call is a plain one.
				want.ThreadID, want.RunID, want.ParentRunID, want.Resume = "", "", "", nil
				for i := range want.Messages[1].Parts {
					p := &want.Messages[1].Parts[i]
					p.ProviderExecuted = false
					if p.State == chat.OutputDenied {
						p.State = chat.ApprovalResponded
					}
					if a := p.Approval; a != nil {
						a.InterruptID, a.Reason = "", ""
					}
				}
			}
			opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(chat.Part{}, "InputText")}
			if d := cmp.Diff(want, got, opts...); d != "" {
				t.Fatalf("request changed in transit (-want +got):\n%s\n%s", d, body)
			}
		})
	}
}

// A request as TanStack AI's client 0.33 sends it: no parts, tool messages
// for outcomes, and resume entries.
func TestDecodeTanStackRequest(t *testing.T) {
	body := `{"threadId":"t","runId":"run-2","parentRunId":"run-1",
 "resume":[{"interruptId":"approval_call_A","payload":{"approved":true},"status":"resolved"},{"interruptId":"approval_call_B","status":"cancelled"}],
 "state":{},
 "messages":[{"id":"m1","role":"user","content":"delete a","metadata":{"tanstack":{"createdAt":"x"}}},
             {"id":"m2","role":"assistant","toolCalls":[{"id":"call_A","type":"function","function":{"name":"dangerous","arguments":"{\"target\":\"a\"}"}},{"id":"call_C","type":"function","function":{"name":"read","arguments":"{}"}}]},
             {"role":"tool","id":"tool-call_A","toolCallId":"call_A","content":"{\"approved\":true,\"pendingExecution\":true,\"message\":\"User approved this action\"}"},
             {"role":"tool","id":"tool-call_C","toolCallId":"call_C","content":"{\"text\":\"hi\"}"}],
 "tools":[{"name":"dangerous"}],"context":[],"forwardedProps":{},"data":{}}`
	c, _ := Lookup(chat.ProtocolAGUI)
	req, err := c.DecodeRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if req.ParentRunID != "run-1" || len(req.Resume) != 2 || !req.Resume[0].Approved || req.Resume[1].Approved {
		t.Fatalf("resume = %+v", req)
	}
	if len(req.Messages) != 2 || req.Messages[0].Parts[0].Text != "delete a" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	a, cc := req.Messages[1].Parts[0], req.Messages[1].Parts[1]
	if a.State != chat.ApprovalResponded || a.Approval == nil || !*a.Approval.Approved || string(a.Input) != `{"target":"a"}` {
		t.Fatalf("call_A = %+v", a)
	}
	if cc.State != chat.OutputAvailable || string(cc.Output) != `{"text":"hi"}` {
		t.Fatalf("call_C = %+v", cc)
	}
}

// Streams as TanStack AI 0.42 and 0.58 servers write them.
func TestReadTanStackStreams(t *testing.T) {
	legacy := `data: {"type":"TOOL_CALL_END","timestamp":1,"model":"test-model","toolCallId":"call_A","toolCallName":"dangerous","toolName":"dangerous"}

data: {"type":"RUN_FINISHED","timestamp":2,"model":"test-model","runId":"r1","threadId":"t","finishReason":"tool_calls"}

data: {"type":"CUSTOM","timestamp":3,"model":"test-model","name":"approval-requested","value":{"toolCallId":"call_A","toolName":"dangerous","input":{"target":"a"},"approval":{"id":"approval_call_A","needsApproval":true}}}

`
	current := `data: {"type":"MESSAGES_SNAPSHOT","messages":[{"id":"m1","role":"user","content":"delete a"},{"id":"m2","role":"assistant","toolCalls":[{"id":"call_A","type":"function","function":{"name":"dangerous","arguments":"{\"target\":\"a\"}"}}]}]}

data: {"type":"RUN_FINISHED","outcome":{"type":"interrupt","interrupts":[{"id":"approval_call_A","reason":"tool_call","message":"Approval required to run dangerous","toolCallId":"call_A","responseSchema":{"oneOf":[]},"metadata":{"kind":"approval","toolName":"dangerous","input":{"target":"a"},"tanstack:interruptBinding":{"v":1}}}]},"metadata":{"tanstack":{"model":"test-model","finishReason":"tool_calls"}}}

`
	for _, tc := range []struct {
		protocol, body string
		want           []chat.EventType
		interruptID    string
	}{
		{chat.ProtocolAGUILegacy, legacy, []chat.EventType{chat.EventToolCallEnd, chat.EventFinish, chat.EventApprovalRequested}, ""},
		{chat.ProtocolAGUI, current, []chat.EventType{chat.EventMessageStart, chat.EventToolCallStart, chat.EventToolCallEnd, chat.EventApprovalRequested, chat.EventFinish}, "approval_call_A"},
	} {
		c, _ := Lookup(tc.protocol)
		var got []chat.Event
		if err := c.ReadEvents(context.Background(), strings.NewReader(tc.body), func(ev chat.Event) error { got = append(got, ev); return nil }); err != nil {
			t.Fatalf("%s: %v", tc.protocol, err)
		}
		var types []chat.EventType
		for _, ev := range got {
			types = append(types, ev.Type)
			if ev.Type == chat.EventApprovalRequested {
				if ev.ToolCallID != "call_A" || ev.ToolName != "dangerous" || ev.Approval.ID != "approval_call_A" || ev.Approval.InterruptID != tc.interruptID || string(ev.Input) != `{"target":"a"}` {
					t.Errorf("%s: approval = %+v %+v", tc.protocol, ev, ev.Approval)
				}
			}
			if ev.Type == chat.EventFinish && ev.FinishReason != "tool_calls" {
				t.Errorf("%s: finish reason %q", tc.protocol, ev.FinishReason)
			}
		}
		if d := cmp.Diff(tc.want, types); d != "" {
			t.Errorf("%s: event types (-want +got):\n%s", tc.protocol, d)
		}
	}
}

// A stream and a request as TanStack AI 0.5.1's server and client 0.4.5
// write them (a continuation: the approved call's result, a denial, text).
func TestTanStack05Dialect(t *testing.T) {
	c, _ := LookupDialect(chat.ProtocolAGUILegacy, chat.DialectTanStackAI05)
	body := `data: {"type":"TOOL_CALL_END","timestamp":1,"model":"m","toolCallId":"call_A","toolName":"dangerous","result":"{\"deleted\":\"a\"}"}

data: {"type":"TOOL_CALL_END","timestamp":2,"model":"m","toolCallId":"call_B","toolName":"dangerous","result":"{\"error\":\"User declined tool execution\"}"}

data: {"type":"TEXT_MESSAGE_CONTENT","timestamp":3,"model":"m","messageId":"x1","delta":"Done."}

data: {"type":"TOOL_CALL_START","timestamp":4,"model":"m","toolCallId":"call_C","toolName":"dangerous","index":0}

data: {"type":"TOOL_CALL_END","timestamp":5,"model":"m","toolCallId":"call_C","toolName":"dangerous","input":{"target":"c"}}

data: {"type":"RUN_FINISHED","timestamp":6,"model":"m","runId":"r","finishReason":"tool_calls"}

data: {"type":"CUSTOM","timestamp":7,"model":"m","name":"approval-requested","data":{"toolCallId":"call_C","toolName":"dangerous","input":{"target":"c"},"approval":{"id":"approval_call_C","needsApproval":true}}}

data: {"type":"RUN_ERROR","timestamp":8,"runId":"r","error":{"message":"model down"}}

`
	var got []chat.Event
	if err := c.ReadEvents(context.Background(), strings.NewReader(body), func(ev chat.Event) error { got = append(got, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []chat.Event{
		{Type: chat.EventToolResult, ToolCallID: "call_A", ToolName: "dangerous", Output: json.RawMessage(`{"deleted":"a"}`)},
		{Type: chat.EventToolDenied, ToolCallID: "call_B", ToolName: "dangerous"},
		{Type: chat.EventMessageStart, MessageID: "x1"},
		{Type: chat.EventTextDelta, Delta: "Done."},
		{Type: chat.EventToolCallStart, ToolCallID: "call_C", ToolName: "dangerous"},
		{Type: chat.EventToolCallEnd, ToolCallID: "call_C", ToolName: "dangerous", Input: json.RawMessage(`{"target":"c"}`)},
		{Type: chat.EventFinish, FinishReason: "tool_calls"},
		{Type: chat.EventApprovalRequested, ToolCallID: "call_C", ToolName: "dangerous", Input: json.RawMessage(`{"target":"c"}`), Approval: &chat.Approval{ID: "approval_call_C"}},
		{Type: chat.EventError, ErrorText: "model down"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}

	req, err := c.DecodeRequest([]byte(`{"messages":[
 {"id":"u1","role":"user","parts":[{"type":"text","content":"delete a and b"}],"createdAt":"2026-01-01T00:00:00.000Z"},
 {"id":"a1","role":"assistant","parts":[
   {"type":"tool-call","id":"call_A","name":"dangerous","arguments":"{\"target\":\"a\"}","state":"approval-responded","approval":{"id":"approval_call_A","needsApproval":true,"approved":true}},
   {"type":"tool-call","id":"call_B","name":"dangerous","arguments":"{\"target\":\"b\"}","state":"approval-responded","approval":{"id":"approval_call_B","needsApproval":true,"approved":false}},
   {"type":"tool-call","id":"call_P","name":"pick","arguments":"{}","state":"input-complete","output":{"color":"red"}}]},
 {"id":"a2","role":"assistant","parts":[{"type":"tool-result","toolCallId":"call_A","content":"{\"deleted\":\"a\"}","state":"complete"},{"type":"text","content":"Done."}]}],
 "data":{"conversationId":"chat-1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 3 || req.Messages[0].Parts[0].Text != "delete a and b" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	a, b, p := req.Messages[1].Parts[0], req.Messages[1].Parts[1], req.Messages[1].Parts[2]
	if a.State != chat.OutputAvailable || string(a.Output) != `{"deleted":"a"}` || a.Approval == nil || !*a.Approval.Approved {
		t.Errorf("call_A = %+v", a)
	}
	if b.State != chat.ApprovalResponded || *b.Approval.Approved || string(b.Input) != `{"target":"b"}` {
		t.Errorf("call_B = %+v", b)
	}
	if p.State != chat.OutputAvailable || string(p.Output) != `{"color":"red"}` {
		t.Errorf("call_P = %+v", p)
	}
}

// A request as @tanstack/ai-client 0.7.14 (server 0.13) posts it, read in
// the 0.42 dialect whose events that server writes: UIMessages without
// AG-UI content keep their text in their parts.
func TestDecode042DialectReadsUIMessageBodies(t *testing.T) {
	c, _ := LookupDialect(chat.ProtocolAGUILegacy, chat.DialectTanStackAI042)
	req, err := c.DecodeRequest([]byte(`{"messages":[
 {"id":"u1","role":"user","parts":[{"type":"text","content":"delete a"}]},
 {"id":"a1","role":"assistant","parts":[{"type":"tool-call","id":"call_A","name":"dangerous","arguments":"{}","state":"approval-responded","approval":{"id":"approval_call_A","needsApproval":true,"approved":true}}]},
 {"id":"u2","role":"user","parts":[{"type":"text","content":"and b"}]}],
 "data":{"conversationId":"c"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 3 || req.Messages[0].Parts[0].Text != "delete a" || req.Messages[2].Parts[0].Text != "and b" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	if a := req.Messages[1].Parts[0]; a.Approval == nil || !*a.Approval.Approved {
		t.Fatalf("call_A = %+v", a)
	}
}

// A stream as the AI SDK's toUIMessageStreamResponse writes it, with chunks
// this kit ignores.
func TestReadVercelStream(t *testing.T) {
	body := strings.Join([]string{
		`data: {"type":"start","messageId":"m1"}`,
		`data: {"type":"start-step"}`,
		`data: {"type":"tool-input-available","toolCallId":"call_1","toolName":"deleteFile","input":{"path":"/a"}}`,
		`data: {"type":"tool-approval-request","approvalId":"aitxt-1","toolCallId":"call_1"}`,
		`data: {"type":"tool-output-available","toolCallId":"call_2","output":1,"preliminary":true}`,
		`data: {"type":"finish-step"}`,
		`data: {"type":"finish","finishReason":"tool-calls"}`,
		`data: [DONE]`,
		`data: {"type":"text-delta","delta":"after done"}`,
	}, "\n\n") + "\n\n"
	c, _ := Lookup(chat.ProtocolUIMessageStream)
	var types []chat.EventType
	if err := c.ReadEvents(context.Background(), strings.NewReader(body), func(ev chat.Event) error { types = append(types, ev.Type); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []chat.EventType{chat.EventMessageStart, chat.EventToolCallStart, chat.EventToolCallEnd, chat.EventApprovalRequested, chat.EventFinish}
	if d := cmp.Diff(want, types); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestBadInputNamesTheField(t *testing.T) {
	cases := []struct {
		protocol, body, want string
	}{
		{chat.ProtocolAGUI, `{"messages":[{"role":"robot"}]}`, "messages[0].role"},
		{chat.ProtocolAGUI, `{"threadId":"t"}`, "messages: missing"},
		{chat.ProtocolAGUI, `{"messages":[{"role":"assistant","toolCalls":[{"id":"x","function":{"name":"n","arguments":"{nope"}}]}]}`, "messages[0].toolCalls[0].function.arguments"},
		{chat.ProtocolAGUI, `{"messages":[{"role":"assistant","parts":[{"type":"tool-call","id":"x","name":"n","state":"sleeping"}]}]}`, "messages[0].parts[0].state"},
		{chat.ProtocolAGUI, `{"messages":[],"resume":[{"interruptId":"i","status":"resolved","payload":{}}]}`, "resume[0].payload.approved"},
		{chat.ProtocolAGUI, `{"messages":[],"resume":[{"interruptId":"i","status":"maybe"}]}`, "resume[0].status"},
		{chat.ProtocolAGUI, `{"messages":[{"role":"tool","content":"x"}]}`, "messages[0].toolCallId"},
		{chat.ProtocolAGUI, `[1]`, "request body"},
		{chat.ProtocolUIMessageStream, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-x","state":"input-available"}]}]}`, "messages[0].parts[0].toolCallId"},
		{chat.ProtocolUIMessageStream, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c","state":"done"}]}]}`, "messages[0].parts[0].state"},
		{chat.ProtocolUIMessageStream, `{"messages":[{"id":"1","role":"user","parts":[{"type":"video"}]}]}`, "messages[0].parts[0].type"},
		{chat.ProtocolUIMessageStream, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"dynamic-tool","toolCallId":"c","state":"input-available"}]}]}`, "messages[0].parts[0].toolName"},
		{chat.ProtocolUIMessageStream, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c","state":"approval-requested","approval":{}}]}]}`, "messages[0].parts[0].approval.id"},
	}
	old := chat.ProtocolAGUILegacy + "@" + chat.DialectTanStackAI05
	cases = append(cases, []struct{ protocol, body, want string }{
		{old, `{"messages":[{"id":"1","role":"robot","parts":[]}]}`, "messages[0].role"},
		{old, `{"data":{}}`, "messages: missing"},
		{old, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-call","id":"c","state":"input-complete"}]}]}`, "messages[0].parts[0].name"},
		{old, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-call","id":"c","name":"n","arguments":"{x","state":"input-complete"}]}]}`, "messages[0].parts[0].arguments"},
		{old, `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-result","toolCallId":"ghost","content":"1"}]}]}`, "messages[0].parts[0].toolCallId"},
	}...)
	for _, tc := range cases {
		protocol, dialect, _ := strings.Cut(tc.protocol, "@")
		c, _ := LookupDialect(protocol, dialect)
		_, err := c.DecodeRequest([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want it to name %s", tc.protocol, tc.body, err, tc.want)
		}
	}
	streams := []struct{ protocol, body, want string }{
		{chat.ProtocolAGUI, "data: {nope\n\n", "event 1"},
		{chat.ProtocolAGUI, "data: {\"type\":\"RUN_STARTED\"}\n\ndata: {}\n\n", "event 2: type: missing"},
		{chat.ProtocolAGUI, "data: {\"type\":\"TOOL_CALL_START\"}\n\n", "toolCallId: missing"},
		{chat.ProtocolAGUILegacy, "data: {\"type\":\"CUSTOM\",\"name\":\"approval-requested\",\"value\":{\"toolCallId\":\"a\",\"approval\":{}}}\n\n", "value.approval.id"},
		{chat.ProtocolUIMessageStream, "data: {\"type\":\"tool-approval-request\",\"toolCallId\":\"a\"}\n\n", "chunk 1 (tool-approval-request): approvalId: missing"},
		{old, "data: {\"type\":\"CUSTOM\",\"name\":\"approval-requested\",\"data\":{\"toolCallId\":\"a\",\"approval\":{}}}\n\n", "data.approval.id"},
		{old, "data: {\"type\":\"RUN_ERROR\",\"error\":\"flat\"}\n\n", "error: want {message}"},
	}
	for _, tc := range streams {
		protocol, dialect, _ := strings.Cut(tc.protocol, "@")
		c, _ := LookupDialect(protocol, dialect)
		err := c.ReadEvents(context.Background(), strings.NewReader(tc.body), func(chat.Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: err = %v, want %q", tc.protocol, tc.body, err, tc.want)
		}
	}
}

func TestReadStopsWhenYieldFails(t *testing.T) {
	for _, c := range All() {
		var buf bytes.Buffer
		w := c.NewWriter(&buf, nil, nil)
		_ = w.Write(chat.Event{Type: chat.EventTextDelta, Delta: "a"})
		_ = w.Close()
		stop := bytes.ErrTooLarge
		err := c.ReadEvents(context.Background(), &buf, func(chat.Event) error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("%s: err = %v, want the yield error", c.Name(), err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := c.ReadEvents(ctx, strings.NewReader("data: {}\n\n"), func(chat.Event) error { return nil }); err == nil {
			t.Errorf("%s: a cancelled read succeeded", c.Name())
		}
	}
}

func FuzzDecodeRequest(f *testing.F) {
	for _, c := range AllDialects() {
		b, _ := c.EncodeRequest(conversation())
		f.Add(label(c), string(b))
	}
	f.Fuzz(func(t *testing.T, name, body string) {
		protocol, dialect, _ := strings.Cut(name, "@")
		c, err := LookupDialect(protocol, dialect)
		if err != nil {
			return
		}
		req, err := c.DecodeRequest([]byte(body))
		if err != nil {
			return
		}
		if _, err := c.EncodeRequest(req); err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
	})
}

// The UI message stream frames the model's output in a step, as the AI
// SDK's server does; outcomes of calls answered by the request that come
// before any new output come before the step.
func TestUIStreamSteps(t *testing.T) {
	c, _ := Lookup(chat.ProtocolUIMessageStream)
	_, wire := roundTrip(t, c, []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "msg-1"},
		{Type: chat.EventToolResult, ToolCallID: "call_A", Output: json.RawMessage(`{"ok":true}`)},
		{Type: chat.EventToolDenied, ToolCallID: "call_B"},
		{Type: chat.EventTextDelta, Delta: "Deleted a, kept b."},
		{Type: chat.EventFinish, FinishReason: "stop"},
	})
	var types []string
	for _, line := range strings.Split(wire, "\n") {
		var ch struct{ Type string }
		if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &ch) == nil {
			types = append(types, ch.Type)
		}
	}
	want := []string{"start", "tool-output-available", "tool-output-denied", "start-step", "text-start", "text-delta", "text-end", "finish-step", "finish"}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("chunk order (-want +got):\n%s\n%s", d, wire)
	}
	// A stream closed without a finish still closes its step first.
	var buf bytes.Buffer
	w := c.NewWriter(&buf, func() {}, nil)
	_ = w.Write(chat.Event{Type: chat.EventTextDelta, Delta: "hi"})
	_ = w.Close()
	if s := buf.String(); !strings.Contains(s, `{"type":"finish-step"}`) || strings.Index(s, "finish-step") > strings.Index(s, `"finish"}`) {
		t.Errorf("unfinished stream: %s", s)
	}
}
