package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The single-pass decoder must accept and reject exactly what the old
// decoder (legacy_test.go) did, with the same DecodeError, for every input:
// these tests run both on a corpus and on systematic damage to it.

const eventsExample = `[{"type":"start-step"},{"type":"text-delta","text":"hi"},
{"type":"tool-call","toolCallId":"c1","toolName":"t","input":{ "a" : [1, 2.5e3, -0, true, null] }},
{"type":"tool-approval-request","approvalId":"a1","toolCallId":"c1","reason":"r","isAutomatic":true},
{"type":"tool-result","toolCallId":"c0","toolName":"t","output":{"type":"error-text","value":"x"}},
{"type":"finish-step","finishReason":"tool-calls"},{"type":"finish","finishReason":"tool-calls"},
{"type":"error","code":"Model","message":"boom"}]`

// messageCorpus holds documents that exercise every field, every part and
// output type, escapes and key orders.
var messageCorpus = []string{
	designExample,
	`[{"id":"m1","content":[{"text":"hi \"there\"\n\u00e9\ud83d\ude00","type":"text","providerOptions":{"x":{"y":1}}}],"role":"user","providerOptions":{}},
{"content":[{"type":"file","mediaType":"image/png","data":"","filename":"a.png"},{"type":"text","text":""}],"role":"user"},
{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":null,"providerExecuted":true,"providerOptions":{"a":[]}},
 {"type":"tool-result","toolCallId":"c","toolName":"t","providerExecuted":true,"output":{"type":"json","value":[1,{"b":"\u0041"}],"providerOptions":{}}},
 {"type":"tool-approval-request","approvalId":"a","toolCallId":"c","isAutomatic":false,"reason":"why"}]},
{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a","approved":true,"reason":"ok","providerExecuted":false,"providerOptions":{}},
 {"type":"tool-result","toolCallId":"d","toolName":"t","output":{"reason":"no","type":"execution-denied","providerOptions":{}}},
 {"type":"tool-result","toolCallId":"e","toolName":"t","output":{"type":"execution-denied"}}]},
{"role":"system","content":"s","id":"x"}]`,
	`  [ ]  `,
	`[{"role":"user","content":[]}]`,
	`[{"role":"assistant","content":[{"type":"reasoning","text":"r"},{"type":"text","text":"t"}]}]`,
	`[{"\u0072ole":"user","content":"escaped key"}]`,
}

// damage returns variants of doc: each byte removed, doubled or replaced,
// and snippets inserted after each structural byte.
func damage(doc string) []string {
	var out []string
	snippets := []string{`"type":"text",`, `"x":1,`, `null,`, `"role":"tool",`, `"approved":"no",`, `{}`, `"`, `,`, `"output":{},`}
	for i := 0; i < len(doc); i++ {
		out = append(out, doc[:i]+doc[i+1:], doc[:i+1]+doc[i:])
		for _, r := range []byte{'x', '1', '"', '{', '}', '[', ']', ' '} {
			if doc[i] != r {
				out = append(out, doc[:i]+string(r)+doc[i+1:])
			}
		}
		if strings.IndexByte("{[,:", doc[i]) >= 0 {
			for _, s := range snippets {
				out = append(out, doc[:i+1]+s+doc[i+1:])
			}
		}
	}
	return out
}

// sameOutcome fails unless both decoders give the same messages or the
// same error.
func sameOutcome[T any](t *testing.T, in string, got T, gotErr error, want T, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("input %q:\nnew decoder: %v\nold decoder: %v", in, gotErr, wantErr)
	}
	if gotErr != nil {
		var g, w *DecodeError
		if !errors.As(gotErr, &g) || !errors.As(wantErr, &w) {
			t.Fatalf("input %q: not a *DecodeError: new %v, old %v", in, gotErr, wantErr)
		}
		if *g != *w {
			t.Fatalf("input %q:\nnew decoder: %#v\nold decoder: %#v", in, *g, *w)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("input %q: decoded differently (-old +new):\n%s", in, diff)
	}
}

func TestDecodeMessagesMatchesOldDecoder(t *testing.T) {
	cases := 0
	for _, doc := range messageCorpus {
		for _, in := range append([]string{doc}, damage(doc)...) {
			got, gotErr := DecodeMessages([]byte(in))
			want, wantErr := legacyDecodeMessagesAt([]byte(in), "messages")
			sameOutcome(t, in, got, gotErr, want, wantErr)
			cases++
		}
	}
	t.Logf("%d documents decoded alike", cases)
}

func TestDecodeEventsMatchesOldDecoder(t *testing.T) {
	for _, in := range append([]string{eventsExample}, damage(eventsExample)...) {
		got, gotErr := DecodeEvents([]byte(in))
		want, wantErr := legacyDecodeEvents([]byte(in))
		sameOutcome(t, in, got, gotErr, want, wantErr)
	}
}

// Errors when several things are wrong: the order of the checks.
func TestDecodeErrorPrecedence(t *testing.T) {
	for _, in := range []string{
		// the role comes after the content: the role's errors first, then the parts'
		`[{"content":[{"type":"tool-approval-response","approvalId":"a","approved":true}],"role":"assistant"}]`,
		`[{"content":[{"type":"text"}],"role":"robot"}]`,
		`[{"content":[{"type":"text","text":"a","text":"b"}],"role":"user","role":"user"}]`,
		`[{"content":[{"type":"text","text":1},{"type":"tool-result"}],"role":"user"}]`,
		`[{"content":[{"type":"text","text":"a"},{"type":"tool-result"}],"role":"user"}]`,
		`[{"content":[{"type":1},{"type":"tool-result"}],"role":"user"}]`,
		`[{"content":[{"text":"a"}],"role":"user"}]`,
		// an output's failure after its part's
		`[{"role":"tool","content":[{"type":"tool-result","toolCallId":"","toolName":"t","output":{"type":"nope"}}]}]`,
		`[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"json","value":1,"value":2}}]}]`,
		`[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":[]}]}]`,
		`[{"role":"tool","content":[{"type":"text","output":{"type":"nope"}}]}]`,
		// unknown keys: the first in document order, duplicates among them
		`[{"role":"user","content":"x","a":1,"b":2,"a":3}]`,
		`[{"role":"tool","content":[{"type":"tool-result","zz":1,"toolCallId":"c","reason":"r"}]}]`,
		`[{"role":"tool","content":[{"reason":"r","type":"tool-result","toolCallId":"c"}]}]`,
		// a syntax error after a semantic one
		`[{"role":"robot","content":"x"},{"role":]`,
		`[{"role":"robot","content":"x"}] x`,
		// mistyped values quoted in the error
		`[{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("long ", 20) + `"}],"id":12345678901234567890123456789012345678901234567890}]`,
		`[{"role":"user","content":{"a":1}}]`,
		`[{"role":"system","content":null}]`,
		`[{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"text","value":{}}}]}]`,
		`[{"role":"user","providerOptions":[],"content":"x"}]`,
		// keys with escapes, and invalid UTF-8
		`[{"role":"user","content":"x","r\u006fle":"user"}]`,
		"[{\"role\":\"user\",\"content\":\"\xff\xfe \\ud800 \\udc00\\ud800\"}]",
		"[{\"role\":\"user\",\"content\":\"x\",\"\xff\":1,\"\xfe\":2}]",
		"\v[]",
		"\u00a0[]",
	} {
		got, gotErr := DecodeMessages([]byte(in))
		want, wantErr := legacyDecodeMessagesAt([]byte(in), "messages")
		sameOutcome(t, in, got, gotErr, want, wantErr)
	}
}

func TestDecodeNestingLimit(t *testing.T) {
	for _, depth := range []int{9995, 9996, 10000} {
		in := `[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}]}]`
		got, gotErr := DecodeMessages([]byte(in))
		want, wantErr := legacyDecodeMessagesAt([]byte(in), "messages")
		sameOutcome(t, in[:80], got, gotErr, want, wantErr)
	}
}

// The values a decode returns are the decoder's own: changing the input
// afterwards changes nothing.
func TestDecodedValuesDoNotAliasTheInput(t *testing.T) {
	in := []byte(`[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"t","input":{"a":1}}]}]`)
	msgs, err := DecodeMessages(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'x'
	}
	p := msgs[0].Content[0]
	if p.ToolCallID != "c" || string(p.Input) != `{"a":1}` {
		t.Fatalf("the decoded part changed with its input: %+v", p)
	}
	if cap(p.Input) != len(p.Input) || cap(msgs[0].Content) != len(msgs[0].Content) {
		t.Fatal("a decoded slice has room to grow into its neighbours")
	}
}

// The single-object decoders agree with the old ones on valid JSON (on
// invalid JSON the syntax error now comes first, as for arrays).
func TestDecodeObjectsMatchOldDecoder(t *testing.T) {
	var msgs []json.RawMessage
	if err := json.Unmarshal([]byte(messageCorpus[1]), &msgs); err != nil {
		t.Fatal(err)
	}
	for _, doc := range msgs {
		for _, in := range append([]string{string(doc)}, damage(string(doc))...) {
			if !json.Valid([]byte(in)) {
				continue
			}
			got, gotErr := DecodeMessage([]byte(in))
			want, wantErr := legacyDecodeMessage([]byte(in), "message", 0)
			sameOutcome(t, in, got, gotErr, want, wantErr)
		}
	}
	var p Part
	if err := json.Unmarshal([]byte(`{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"json","value":1}}`), &p); err != nil || p.Output.Type != OutputJSON {
		t.Fatalf("part: %+v %v", p, err)
	}
	err := json.Unmarshal([]byte(`{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"json"}}`), &p)
	if err == nil || !strings.Contains(err.Error(), "part.output.value: missing field") {
		t.Fatalf("part with a broken output: %v", err)
	}
	var o ToolOutput
	if err := json.Unmarshal([]byte(`{"type":"text","value":3}`), &o); err == nil || !strings.HasPrefix(err.Error(), "output.value: want a string for a text output") {
		t.Fatalf("output: %v", err)
	}
	var e Event
	if err := json.Unmarshal([]byte(`{"type":"finish","finishReason":""}`), &e); err == nil || !strings.HasPrefix(err.Error(), "event.finishReason: must not be empty") {
		t.Fatalf("event: %v", err)
	}
}

func FuzzDecodeMatchesOldDecoder(f *testing.F) {
	for _, doc := range messageCorpus {
		f.Add([]byte(doc))
	}
	f.Add([]byte(eventsExample))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := DecodeMessages(data)
		want, wantErr := legacyDecodeMessagesAt(data, "messages")
		sameOutcome(t, string(data), got, gotErr, want, wantErr)
		evs, evErr := DecodeEvents(data)
		wantEvs, wantEvErr := legacyDecodeEvents(data)
		sameOutcome(t, string(data), evs, evErr, wantEvs, wantEvErr)
	})
}

// legacyDecodePartsAt is DecodePartsAt as it was written on the old decoder.
func legacyDecodePartsAt(data []byte, prefix string, role Role) ([]Part, error) {
	items, err := legacyReadArray(data, prefix)
	if err != nil {
		return nil, err
	}
	parts := make([]Part, 0, len(items))
	for i, raw := range items {
		p, err := legacyDecodePart(raw, fmt.Sprintf("%s[%d]", prefix, i), -1, role)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func TestDecodePartsMatchesOldDecoder(t *testing.T) {
	var msgs []struct{ Content json.RawMessage }
	if err := json.Unmarshal([]byte(designExample), &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Content[0] != '[' {
			continue
		}
		for _, in := range append([]string{string(m.Content)}, damage(string(m.Content))...) {
			for _, role := range []Role{"", RoleAssistant, RoleTool, RoleSystem} {
				got, gotErr := DecodePartsAt([]byte(in), "content", role)
				want, wantErr := legacyDecodePartsAt([]byte(in), "content", role)
				sameOutcome(t, in, got, gotErr, want, wantErr)
				if !json.Valid([]byte(in)) || in[0] != '[' {
					continue
				}
				var items []json.RawMessage
				_ = json.Unmarshal([]byte(in), &items)
				for _, item := range items {
					p, err := DecodePartAt(item, "content[0]", role)
					wp, werr := legacyDecodePart(item, "content[0]", -1, role)
					sameOutcome(t, string(item), p, err, wp, werr)
				}
			}
		}
	}
}
