package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const designExample = `[
{"role":"system","content":"You are careful."},
{"role":"user","content":[{"type":"text","text":"delete /a"}]},
{"role":"assistant","content":[
  {"type":"text","text":"..."},
  {"type":"tool-call","toolCallId":"call_1","toolName":"deleteFile","input":{"path":"/a"},"providerExecuted":false},
  {"type":"tool-approval-request","approvalId":"appr_1","toolCallId":"call_1","signature":"sig"}]},
{"role":"tool","content":[
  {"type":"tool-approval-response","approvalId":"appr_1","approved":false,"reason":"no","providerExecuted":false},
  {"type":"tool-result","toolCallId":"call_1","toolName":"deleteFile",
   "output":{"type":"execution-denied","reason":"no"}}]},
{"role":"user","content":"plain string"},
{"role":"assistant","content":[
  {"type":"reasoning","text":"hmm"},
  {"type":"tool-call","toolCallId":"c2","toolName":"t","input":[1,2]},
  {"type":"tool-call","toolCallId":"c3","toolName":"mcp.search","input":{},"providerExecuted":true},
  {"type":"tool-approval-request","approvalId":"mcpr_1","toolCallId":"c3"}]},
{"role":"tool","content":[
  {"type":"tool-result","toolCallId":"c2","toolName":"t","output":{"type":"json","value":{"ok":true}}},
  {"type":"tool-approval-response","approvalId":"mcpr_1","approved":true,"providerExecuted":true}]},
{"role":"tool","content":[
  {"type":"tool-result","toolCallId":"x","toolName":"t","output":{"type":"text","value":"hi"}},
  {"type":"tool-result","toolCallId":"y","toolName":"t","output":{"type":"error-text","value":"boom"}},
  {"type":"tool-result","toolCallId":"z","toolName":"t","output":{"type":"error-json","value":{"code":1}}}]}
]`

func TestDecodeDesignExample(t *testing.T) {
	msgs, err := DecodeMessages([]byte(designExample))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got, want := len(msgs), 8; got != want {
		t.Fatalf("got %d messages, want %d", got, want)
	}
	call := msgs[2].Content[1]
	if call.Type != PartToolCall || call.ToolCallID != "call_1" || string(call.Input) != `{"path":"/a"}` {
		t.Errorf("tool call decoded as %+v", call)
	}
	if sig := msgs[2].Content[2].Signature; sig != "sig" {
		t.Errorf("signature = %q", sig)
	}
	resp := msgs[3].Content[0]
	if resp.Approved || resp.Reason != "no" {
		t.Errorf("response decoded as %+v", resp)
	}
	out := msgs[3].Content[1].Output
	if out.Type != OutputExecutionDenied || out.Reason != "no" || !out.IsFailure() {
		t.Errorf("denial output decoded as %+v", out)
	}
	if !msgs[4].StringContent || msgs[4].Content[0].Text != "plain string" {
		t.Errorf("string user content decoded as %+v", msgs[4])
	}
	if got := msgs[7].Content[1].Output.TextValue(); got != "boom" {
		t.Errorf("error-text value = %q", got)
	}
}

func TestRoundTrip(t *testing.T) {
	msgs, err := DecodeMessages([]byte(designExample))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodeMessages(enc)
	if err != nil {
		t.Fatalf("re-decode of %s: %v", enc, err)
	}
	if diff := cmp.Diff(msgs, again); diff != "" {
		t.Errorf("round trip changed the messages (-first +second):\n%s", diff)
	}
	enc2, err := EncodeMessages(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != string(enc2) {
		t.Errorf("encoding is not stable:\n%s\n%s", enc, enc2)
	}
	if !strings.Contains(string(enc), `{"role":"system","content":"You are careful."}`) {
		t.Errorf("system message not encoded with string content: %s", enc)
	}
	if !strings.Contains(string(enc), `{"role":"user","content":"plain string"}`) {
		t.Errorf("string user content not preserved: %s", enc)
	}
}

func TestConstructorsRoundTrip(t *testing.T) {
	msgs := []Message{
		SystemText("sys"),
		UserText("hi"),
		{Role: RoleAssistant, Content: []Part{
			ToolCall("c1", "t", json.RawMessage(`{ "a" : 1 }`)),
			ApprovalRequest("a1", "c1"),
		}},
		{Role: RoleTool, Content: []Part{
			ApprovalResponse("a1", true, ""),
			ToolResult("c1", "t", JSONOutput(json.RawMessage(`{"x": [1, 2]}`))),
			ToolResult("c2", "t", TextOutput("ok")),
			ToolResult("c3", "t", ErrorTextOutput("bad")),
			ToolResult("c4", "t", DeniedOutput("")),
		}},
	}
	enc, err := EncodeMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMessages(enc)
	if err != nil {
		t.Fatalf("decode %s: %v", enc, err)
	}
	if diff := cmp.Diff(msgs, got); diff != "" {
		t.Errorf("constructed messages changed in a round trip (-want +got):\n%s", diff)
	}
}

func TestStrictDecodingErrors(t *testing.T) {
	cases := []struct {
		name, in  string
		path      string
		message   int
		field     string
		reasonHas string
	}{
		{"approved as string", `[{"role":"user","content":"x"},{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":"yes"}]}]`,
			"messages[1].content[0].approved", 1, "approved", `want a boolean, got string "yes"`},
		{"missing approved", `[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a"}]}]`,
			"messages[0].content[0].approved", 0, "approved", "missing field"},
		{"missing approval id", `[{"role":"tool","content":[{"type":"tool-approval-response","approved":true}]}]`,
			"messages[0].content[0].approvalId", 0, "approvalId", "missing field"},
		{"empty approval id", `[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"","approved":true}]}]`,
			"messages[0].content[0].approvalId", 0, "approvalId", "must not be empty"},
		{"missing tool call id", `[{"role":"assistant","content":[{"type":"tool-call","toolName":"t","input":{}}]}]`,
			"messages[0].content[0].toolCallId", 0, "toolCallId", "missing field"},
		{"unknown part type", `[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"assistant","content":[{"type":"tool-approval"}]}]`,
			"messages[2].content[0].type", 2, "type", `unknown part type "tool-approval"`},
		{"unknown field", `[{"role":"assistant","content":[{"type":"text","text":"a","colour":"red"}]}]`,
			"messages[0].content[0].colour", 0, "colour", "unknown field"},
		{"part in wrong role", `[{"role":"assistant","content":[{"type":"tool-approval-response","approvalId":"a","approved":true}]}]`,
			"messages[0].content[0].type", 0, "type", "not allowed in a assistant message"},
		{"unknown role", `[{"role":"robot","content":"x"}]`,
			"messages[0].role", 0, "role", `unknown role "robot"`},
		{"missing content", `[{"role":"user"}]`,
			"messages[0].content", 0, "content", "missing field"},
		{"tool string content", `[{"role":"tool","content":"x"}]`,
			"messages[0].content", 0, "content", "must be an array"},
		{"system parts", `[{"role":"system","content":[]}]`,
			"messages[0].content", 0, "content", "must be a string"},
		{"unknown output type", `[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"weird"}}]}]`,
			"messages[0].content[0].output.type", 0, "type", "unknown output type"},
		{"text output not string", `[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"text","value":3}}]}]`,
			"messages[0].content[0].output.value", 0, "value", "want a string"},
		{"missing output", `[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t"}]}]`,
			"messages[0].content[0].output", 0, "output", "missing field"},
		{"duplicate field", `[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":true,"approved":false}]}]`,
			"messages[0].content[0].approved", 0, "approved", "duplicate field"},
		{"not an array", `{"role":"user"}`, "messages", -1, "", "want an array"},
		{"message not an object", `[1]`, "messages[0]", 0, "", "want an object"},
		{"truncated", `[{"role":"user","content":"x"}`, "messages", -1, "", "invalid JSON"},
		{"trailing data", `[] []`, "messages", -1, "", "unexpected data after"},
		{"empty", ``, "messages", -1, "", "empty input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeMessages([]byte(tc.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError", err)
			}
			if de.Path != tc.path || de.Message != tc.message || de.Field != tc.field || !strings.Contains(de.Reason, tc.reasonHas) {
				t.Errorf("got path=%q message=%d field=%q reason=%q\nwant path=%q message=%d field=%q reason containing %q",
					de.Path, de.Message, de.Field, de.Reason, tc.path, tc.message, tc.field, tc.reasonHas)
			}
			if !strings.HasPrefix(err.Error(), tc.path) {
				t.Errorf("error text %q does not start with the path %q", err, tc.path)
			}
		})
	}
}

func TestEventsRoundTrip(t *testing.T) {
	in := `[{"type":"start-step"},{"type":"text-delta","text":"hi"},
{"type":"tool-call","toolCallId":"c1","toolName":"t","input":{}},
{"type":"tool-approval-request","approvalId":"a1","toolCallId":"c1"},
{"type":"tool-result","toolCallId":"c0","toolName":"t","output":{"type":"json","value":1}},
{"type":"finish-step","finishReason":"tool-calls"},{"type":"finish","finishReason":"tool-calls"},
{"type":"error","code":"Model","message":"boom"}]`
	evs, err := DecodeEvents([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 8 || evs[3].Part.ApprovalID != "a1" || evs[5].FinishReason != "tool-calls" {
		t.Fatalf("decoded %+v", evs)
	}
	enc, err := EncodeEvents(evs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodeEvents(enc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(evs, again); diff != "" {
		t.Errorf("events changed in a round trip:\n%s", diff)
	}
	if _, err := DecodeEvents([]byte(`[{"type":"finish"}]`)); err == nil || !strings.Contains(err.Error(), "events[0].finishReason") {
		t.Errorf("finish without reason: got %v", err)
	}
	if _, err := DecodeEvents([]byte(`[{"type":"nope"}]`)); err == nil || !strings.Contains(err.Error(), "unknown event type") {
		t.Errorf("unknown event: got %v", err)
	}
}

func TestIndex(t *testing.T) {
	msgs, err := DecodeMessages([]byte(designExample))
	if err != nil {
		t.Fatal(err)
	}
	ix := IndexOf(msgs)
	if got := ix.CallOrder; !cmp.Equal(got, []string{"call_1", "c2", "c3"}) {
		t.Errorf("call order %v", got)
	}
	if r, ok := ix.RequestForCall("c3"); !ok || r.ApprovalID != "mcpr_1" {
		t.Errorf("request for c3: %+v %v", r, ok)
	}
	if res, ok := ix.Result("call_1"); !ok || res.Output.Type != OutputExecutionDenied {
		t.Errorf("result for call_1: %+v", res)
	}
	if len(ix.Responses["appr_1"]) != 1 || len(ix.ResponseOrder) != 2 {
		t.Errorf("responses: %v order %v", ix.Responses, ix.ResponseOrder)
	}
}

func TestOutputEqual(t *testing.T) {
	a := JSONOutput(json.RawMessage(`{"a":1,"b":[1,2]}`))
	b := JSONOutput(json.RawMessage(`{ "b":[1,2], "a":1 }`))
	if !a.Equal(b) {
		t.Error("equal JSON values compare unequal")
	}
	if a.Equal(JSONOutput(json.RawMessage(`{"a":2,"b":[1,2]}`))) {
		t.Error("different JSON values compare equal")
	}
	if DeniedOutput("x").Equal(DeniedOutput("y")) {
		t.Error("denials with different reasons compare equal")
	}
}

func FuzzDecodeMessages(f *testing.F) {
	f.Add([]byte(designExample))
	f.Add([]byte(`[{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":"yes"}]}]`))
	f.Add([]byte(`[{"role":"user","content":"x"}]`))
	f.Add([]byte(`[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":null}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, err := DecodeMessages(data)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a *DecodeError: %v", err)
			}
			return
		}
		enc, err := EncodeMessages(msgs)
		if err != nil {
			t.Fatalf("decoded messages do not encode: %v", err)
		}
		again, err := DecodeMessages(enc)
		if err != nil {
			t.Fatalf("encoded messages do not decode: %v\n%s", err, enc)
		}
		enc2, err := EncodeMessages(again)
		if err != nil {
			t.Fatal(err)
		}
		if string(enc) != string(enc2) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, enc2)
		}
	})
}

// A clone is equal to its original and shares nothing it could change.
func TestCloneIsDeepAndIndependent(t *testing.T) {
	msgs, err := DecodeMessages([]byte(designExample))
	if err != nil {
		t.Fatal(err)
	}
	msgs[0].ProviderOptions = json.RawMessage(`{"a":1}`)
	msgs[1].Content[0].ProviderOptions = json.RawMessage(`{}`)
	msgs = append(msgs, Message{Role: RoleUser, Content: []Part{}})
	c := Clone(msgs)
	if diff := cmp.Diff(msgs, c); diff != "" {
		t.Fatalf("clone differs (-original +clone):\n%s", diff)
	}
	c[2].Content[1].Input[2] = 'X'
	c[0].ProviderOptions[2] = 'X'
	c[7].Content[2].Output.Value[0] = 'X'
	c[3].Content[1].Output.Reason = "changed"
	c[2].Content = append(c[2].Content, Text("appended"))
	if string(msgs[2].Content[1].Input) != `{"path":"/a"}` || string(msgs[0].ProviderOptions) != `{"a":1}` ||
		string(msgs[7].Content[2].Output.Value) != `{"code":1}` || msgs[3].Content[1].Output.Reason != "no" || len(msgs[2].Content) != 3 {
		t.Fatalf("changing the clone changed the original: %+v", msgs)
	}
	if Clone(nil) != nil {
		t.Fatal("the clone of nil is not nil")
	}
}

func TestTextValue(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`: "plain", `"a\nb \u00e9 \ud83d\ude00"`: "a\nb é 😀", `""`: "", `"x" `: "x", `3`: "",
	} {
		if got := (&ToolOutput{Type: OutputText, Value: json.RawMessage(raw)}).TextValue(); got != want {
			t.Errorf("TextValue of %s = %q, want %q", raw, got, want)
		}
	}
	if got := (&ToolOutput{Type: OutputJSON, Value: json.RawMessage(`"x"`)}).TextValue(); got != "" {
		t.Errorf("a json output's text value is %q", got)
	}
}

// RequestForCall finds the first request for a call in request order,
// for every call, as a scan of the requests does.
func TestRequestForCall(t *testing.T) {
	msgs := []Message{
		{Role: RoleAssistant, Content: []Part{ToolCall("c1", "t", nil), ToolCall("c2", "t", nil), ApprovalRequest("a2", "c2"), ApprovalRequest("a1", "c1"), ApprovalRequest("a1b", "c1"), ApprovalRequest("a0", "")}},
		{Role: RoleAssistant, Content: []Part{ApprovalRequest("a2", "c9"), ApprovalRequest("a3", "c2")}},
	}
	ix := IndexOf(msgs)
	for call, want := range map[string]string{"c1": "a1", "c2": "a2", "": "a0", "c9": "", "c3": ""} {
		got, ok := ix.RequestForCall(call)
		if ok != (want != "") || got.ApprovalID != want {
			t.Errorf("request for %q: %q %v, want %q", call, got.ApprovalID, ok, want)
		}
	}
}
