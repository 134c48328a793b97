package lint

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/transcript"
)

func lintFile(t *testing.T, path string, opts Options) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Read(f, opts)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

// TestCleanTranscripts: every clean conversation of every format passes,
// read in the format its directory names, told apart by content.
func TestCleanTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/clean-*")
	if len(files) < 25 {
		t.Fatalf("found %d clean transcripts, want at least 25", len(files))
	}
	formats := map[transcript.Format]int{}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			res := lintFile(t, path, Options{})
			want := transcript.Format(filepath.Base(filepath.Dir(path)))
			if res.Format != want {
				t.Errorf("read as %s, want %s", res.Format, want)
			}
			formats[res.Format]++
			for _, f := range res.Findings {
				t.Errorf("unexpected finding: %s %s %s: %s", f.Path, f.Check, f.Kind, f.Detail)
			}
			if res.Messages == 0 {
				t.Errorf("no messages read")
			}
		})
	}
	for _, f := range transcript.Formats {
		if formats[f] == 0 {
			t.Errorf("no clean transcript in the %s format", f)
		}
	}
}

// want is a finding a broken transcript must produce.
type want struct {
	check, kind, path string
	ids               []string
	// provider is part of the provider's exact message ("" when the
	// provider accepts the prompt).
	provider string
	// detail is part of the plain-words detail.
	detail string
}

// TestBrokenTranscripts: the failure patterns seen in the wild are caught,
// each with its check, its message, its ids and the provider's exact error.
func TestBrokenTranscripts(t *testing.T) {
	const danglingChat = "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
	cases := map[string][]want{
		// vercel/ai #14428: a denied call's result is dropped.
		"openai-chat/broken-dangling-after-denial.json": {{check: "WIRE-01", kind: "dangling", path: "messages[2]", ids: []string{"call_B"}, provider: danglingChat + "call_B", detail: "call_B (sendEmail) has no result"}},
		// vercel/ai #12709: a new message while an approval is pending.
		"openai-chat/broken-new-message-while-pending.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_WdnUUKXK"}, provider: danglingChat + "call_WdnUUKXK", detail: "has no result"}},
		"openai-chat/broken-results-split.json": {
			{check: "WIRE-02", kind: "misplaced", path: "messages[1]", ids: []string{"call_B"}, provider: danglingChat + "call_B", detail: "the result comes later"},
			{check: "WIRE-02", kind: "misplaced", path: "messages[4]", ids: []string{"call_B"}, provider: "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", detail: "out of place"},
		},
		"openai-chat/broken-duplicate-results.json": {{check: "WIRE-01", kind: "duplicate", path: "messages[3]", ids: []string{"call_E"}, provider: "Messages with role 'tool'", detail: "second tool result for call_E"}},
		"openai-chat/broken-orphan-result.json":     {{check: "WIRE-01", kind: "orphan", path: "messages[2]", ids: []string{"call_uelfkqtH"}, provider: "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", detail: "answers no tool call"}},
		// TanStack AI 0.5: the approval placeholder reaches the model, then the result too.
		"openai-chat/broken-approval-placeholder.json": {
			{check: "PRE-01", kind: "approval-placeholder", path: "messages[2]", ids: []string{"call_A"}, detail: "approval placeholder"},
			{check: "WIRE-01", kind: "duplicate", path: "messages[3]", ids: []string{"call_A"}, provider: "Messages with role 'tool'"},
		},
		"openai-responses/broken-dangling.json":         {{check: "WIRE-01", kind: "dangling", path: "input[2]", ids: []string{"call_B"}, provider: "No tool output found for function call call_B."}},
		"openai-responses/broken-missing-denial.json":   {{check: "WIRE-01", kind: "dangling", path: "input[2]", ids: []string{"call_no"}, provider: "No tool output found for function call call_no."}},
		"openai-responses/broken-orphan-output.json":    {{check: "WIRE-01", kind: "orphan", path: "input[2]", ids: []string{"call_uelfkqtHfJDC4Btqeoozq82e"}, provider: "No tool call found for function call output with call_id call_uelfkqtHfJDC4Btqeoozq82e."}},
		"openai-responses/broken-duplicate-output.json": {{check: "WIRE-01", kind: "duplicate", path: "input[3]", ids: []string{"call_D"}, provider: "No tool call found for function call output with call_id call_D."}},
		// cloudflare/agents #955: a denial leaves no tool_result, and the user goes on.
		"anthropic-messages/broken-dangling-after-denial.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"toolu_01WQfwh7MJKmV9YfsFiJ4zxx"},
			provider: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01WQfwh7MJKmV9YfsFiJ4zxx. Each `tool_use` block must have a corresponding `tool_result` block in the next message."}},
		"anthropic-messages/broken-result-in-later-message.json": {
			{check: "WIRE-02", kind: "misplaced", path: "messages[1]", ids: []string{"toolu_L"}, provider: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_L."},
			{check: "WIRE-02", kind: "misplaced", path: "messages[4]", ids: []string{"toolu_L"}, provider: "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_L."},
		},
		"anthropic-messages/broken-results-split.json": {
			{check: "WIRE-02", kind: "misplaced", path: "messages[1]", ids: []string{"toolu_B"}, provider: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_B."},
			{check: "WIRE-02", kind: "misplaced", path: "messages[4]", ids: []string{"toolu_B"}, provider: "messages.4.content.0: unexpected `tool_use_id`"},
		},
		"anthropic-messages/broken-orphan-result.json":    {{check: "WIRE-01", kind: "orphan", path: "messages[2]", ids: []string{"toolu_019ETtGZEhTBXgWPVsdVnXMh"}, provider: "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_019ETtGZEhTBXgWPVsdVnXMh."}},
		"anthropic-messages/broken-duplicate-result.json": {{check: "WIRE-01", kind: "duplicate", path: "messages[2]", ids: []string{"toolu_D"}, provider: "messages.2.content.1: unexpected `tool_use_id`"}},
		"canonical/broken-approved-never-run.json":        {{check: "PRE-01", kind: "unresolved-approval", path: "[2]", ids: []string{"call_1", "ap_1"}, provider: danglingChat + "call_1", detail: "was approved (approval ap_1) but never ran"}},
		"canonical/broken-denied-no-result.json":          {{check: "PRE-02", kind: "unresolved-approval", path: "[2]", ids: []string{"call_m", "ap_m"}, provider: danglingChat + "call_m", detail: "was denied (approval ap_m) but got no denial result"}},
		"canonical/broken-orphan-approval.json":           {{check: "PRE-04", kind: "orphan-approval", path: "[2]", ids: []string{"ap_forged"}, detail: "answers no approval request"}},
		"canonical/broken-duplicate-approval.json":        {{check: "PRE-11", kind: "duplicate-approval", path: "[2]", ids: []string{"call_1", "ap_1"}, detail: "answered twice"}},
		"canonical/broken-conflicting-approval.json":      {{check: "PRE-11", kind: "conflicting-approval", path: "[2]", ids: []string{"call_1", "ap_1"}, detail: "both approved and denied"}},
		"canonical/broken-pending-then-new-message.json":  {{check: "WIRE-01", kind: "dangling", path: "[1]", ids: []string{"call_1"}, provider: danglingChat + "call_1", detail: "no answer to its approval"}},
		"canonical/broken-duplicate-results.json":         {{check: "WIRE-01", kind: "duplicate", path: "[5]", ids: []string{"call_E"}}},
		"canonical/broken-result-after-user-message.json": {
			{check: "WIRE-02", kind: "misplaced", path: "[1]", ids: []string{"call_1"}, provider: danglingChat + "call_1"},
			{check: "WIRE-02", kind: "misplaced", path: "[3]", ids: []string{"call_1"}},
		},
		"ui-messages/broken-pending-then-new-message.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_u"}, provider: danglingChat + "call_u", detail: "a new message moved the conversation on"}},
		// vercel/ai #17136, cloudflare/agents #955: a denial stuck in approval-responded.
		"ui-messages/broken-denied-stuck-responded.json": {{check: "PRE-02", kind: "unresolved-approval", path: "messages[1]", ids: []string{"call-B", "aitxt-B"}, provider: danglingChat + "call-B"}},
		// TanStack AI #532: a continuation duplicates the tool part.
		"ui-messages/broken-duplicated-tool-part.json":         {{check: "WIRE-01", kind: "duplicate", path: "messages[2]", ids: []string{"call_1"}}},
		"ui-messages/broken-input-available-then-message.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"c_in"}, provider: danglingChat + "c_in", detail: "no output"}},
		"ui-messages/broken-input-streaming.json":              {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"c_st"}, provider: danglingChat + "c_st"}},
		"ui-messages/broken-duplicate-call-id.json": {
			{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_1"}, provider: danglingChat + "call_1"},
			{check: "WIRE-01", kind: "dangling", path: "messages[2]", ids: []string{"call_1"}, provider: danglingChat + "call_1"},
			{check: "WIRE-01", kind: "duplicate-call", path: "messages[2]", ids: []string{"call_1"}, detail: "already used by messages[1].parts[1]"},
		},
		// AI SDK 4: a tool-invocation left in state call, and the user goes on.
		"ui-messages/broken-ai-sdk4-call-then-message.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_d"}, provider: danglingChat + "call_d"}},
		// LangChain: a HITL interrupt answered with a new message, in a LangGraph state.
		"langchain/broken-tool-call-without-tool-message.json": {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_7Qk"}, provider: danglingChat + "call_7Qk"}},
		"langchain/broken-orphan-tool-message-js.json":         {{check: "WIRE-01", kind: "orphan", path: "[3]", ids: []string{"toolu_01Z"}, provider: "Messages with role 'tool' must be a response"}},
		// Gemini: one of two parallel calls left without its functionResponse.
		"gemini/broken-missing-function-response.json": {{check: "WIRE-01", kind: "dangling", path: "contents[1]", ids: []string{"fc_b"}, provider: danglingChat + "fc_b"}},
		// AG-UI event logs: a result twice and a result for no call; a call the next run forgets.
		"ag-ui-events/broken-duplicate-and-orphan-results.jsonl": {
			{check: "WIRE-01", kind: "duplicate", path: "events[6]", ids: []string{"call_A"}},
			{check: "WIRE-01", kind: "orphan", path: "events[6]", ids: []string{"call_ghost"}, provider: "Messages with role 'tool' must be a response"},
		},
		"ag-ui-events/broken-call-never-answered.jsonl": {{check: "WIRE-01", kind: "dangling", path: "events[1]", ids: []string{"call_S"}, provider: danglingChat + "call_S"}},
		// AI SDK 4 model messages: one call's error kept, the other's result lost.
		"canonical/broken-ai-sdk4-error-then-missing.json": {{check: "WIRE-01", kind: "dangling", path: "[1]", ids: []string{"call_b"}, provider: danglingChat + "call_b"}},
		// The same, pasted as the event stream was received.
		"ag-ui-events/broken-sse-call-never-answered.sse": {{check: "WIRE-01", kind: "dangling", path: "events[1]", ids: []string{"call_A"}, provider: danglingChat + "call_A"}},
		"ag-ui/broken-pending-then-new-message.json":      {{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_A"}, provider: danglingChat + "call_A"}},
		"ag-ui/broken-orphan-tool-message.json":           {{check: "WIRE-01", kind: "orphan", path: "messages[1]", ids: []string{"call_ghost"}}},
		"ag-ui/broken-duplicate-results.json":             {{check: "WIRE-01", kind: "duplicate", path: "messages[3]", ids: []string{"call_A"}}},
		// A journal of conformance record in front of the simulator: a denied
		// call's result dropped, in each wire format.
		"journal/broken-recorded.jsonl": {
			{check: "WIRE-01", kind: "dangling", path: "messages[2]", ids: []string{"call_b"}, provider: danglingChat + "call_b"},
			{check: "WIRE-01", kind: "dangling", path: "input[4]", ids: []string{"call_b"}, provider: "No tool output found for function call call_b."},
			{check: "WIRE-01", kind: "dangling", path: "messages[1]", ids: []string{"call_b"}, provider: "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_b."},
		},
		// The late-resolution mutant's own journal: the model got a dangling call.
		"journal/broken-late-resolution.jsonl": {
			{check: "WIRE-01", kind: "dangling", path: "prompt[1]", ids: []string{"r1", "x1", "r2", "x2"}, provider: danglingChat + "r1, x1, r2, x2"},
			{check: "WIRE-01", kind: "dangling", path: "prompt[1]", ids: []string{"call_1"}, provider: danglingChat + "call_1"},
		},
	}
	files, _ := filepath.Glob("testdata/*/broken-*")
	if len(files) != len(cases) {
		t.Errorf("%d broken transcripts, %d cases: every broken file needs its expectations", len(files), len(cases))
	}
	for name, wants := range cases {
		t.Run(name, func(t *testing.T) {
			res := lintFile(t, filepath.Join("testdata", name), Options{})
			if len(res.Findings) != len(wants) {
				for _, f := range res.Findings {
					t.Logf("got %s %s %s %v: %s", f.Path, f.Check, f.Kind, f.IDs, f.Detail)
				}
				t.Fatalf("%d findings, want %d", len(res.Findings), len(wants))
			}
			for i, w := range wants {
				f := res.Findings[i]
				if f.Check != w.check || f.Kind != w.kind || f.Path != w.path || strings.Join(f.IDs, ",") != strings.Join(w.ids, ",") {
					t.Errorf("finding %d: %s %s %s %v, want %s %s %s %v", i, f.Path, f.Check, f.Kind, f.IDs, w.path, w.check, w.kind, w.ids)
				}
				if !strings.Contains(f.Detail, w.detail) {
					t.Errorf("finding %d: detail %q does not say %q", i, f.Detail, w.detail)
				}
				switch {
				case w.provider == "" && f.Provider != nil && f.Check[:3] != "WIR":
					t.Errorf("finding %d: a provider error %q for a prompt the provider accepts", i, f.Provider.Message)
				case w.provider != "" && f.Provider == nil:
					t.Errorf("finding %d: no provider error, want %q", i, w.provider)
				case w.provider != "" && !strings.Contains(f.Provider.Message, w.provider):
					t.Errorf("finding %d: provider says %q, want %q", i, f.Provider.Message, w.provider)
				}
				if f.Provider != nil && (f.Provider.Status != 400 || !strings.Contains(f.Provider.Body, jsonText(f.Provider.Message))) {
					t.Errorf("finding %d: provider body %q does not carry its message with HTTP 400", i, f.Provider.Body)
				}
				if f.Level != "must" {
					t.Errorf("finding %d: level %q, want must", i, f.Level)
				}
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestFormatFlag: forcing the format reads the same; forcing a wrong one
// is an error naming the message.
func TestFormatFlag(t *testing.T) {
	path := "testdata/openai-chat/broken-dangling-after-denial.json"
	auto := lintFile(t, path, Options{})
	forced := lintFile(t, path, Options{Format: transcript.OpenAIChat})
	if len(auto.Findings) != 1 || len(forced.Findings) != 1 || auto.Findings[0].Provider.Body != forced.Findings[0].Provider.Body {
		t.Fatalf("auto %+v, forced %+v", auto.Findings, forced.Findings)
	}
	f, _ := os.Open(path)
	defer f.Close()
	_, err := Read(f, Options{Format: transcript.AnthropicMessages})
	var te *transcript.Error
	// Anthropic takes system messages within the conversation (a beta the
	// AI SDK uses); the Chat tool message is what it refuses.
	if !errors.As(err, &te) || !strings.Contains(te.Error(), `messages[3].role: unknown role "tool"`) {
		t.Fatalf("read as Anthropic: %v, want the role of messages[3] refused", err)
	}
}

// TestProfileFlag: a conversation with no provider of its own is checked
// with the rules asked for.
func TestProfileFlag(t *testing.T) {
	res := lintFile(t, "testdata/canonical/broken-pending-then-new-message.json", Options{Profile: "anthropic-messages"})
	if len(res.Findings) != 1 || res.Findings[0].Provider == nil || !strings.HasPrefix(res.Findings[0].Provider.Message, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: call_1.") {
		t.Fatalf("findings %+v", res.Findings)
	}
}

// TestUnreadable: bad input is an error naming the place and the field.
func TestUnreadable(t *testing.T) {
	cases := []struct{ name, input, field, msg string }{
		{"empty", "", "", "empty"},
		{"not json", "{\"messages\":[\n {\"role\":\"user\" \"content\":\"x\"}]}", "", "not valid JSON"},
		{"truncated", `{"messages":[{"role":"user","content":"a"}`, "", "ends in the middle"},
		{"scalar", `42`, "", "want a JSON object or array"},
		{"missing call id", `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, "messages[1]", "messages[1].tool_calls[0].id: missing"},
		{"canonical output", `[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"f","input":{}}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"f","output":{"type":"json"}}]}]`, "[1]", "[1].content[0].output.value"},
		// A state the AI SDK does not write is read with a note (TestUnknownUIState); a part without its call id cannot be paired.
		{"ui call id", `{"id":"c","messages":[{"id":"a","role":"assistant","parts":[{"type":"tool-f","state":"input-available","input":{}}]}]}`, "messages[0]", "toolCallId: missing"},
		{"mixed formats", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":"x"}]}]}`, "messages[1]", "Anthropic"},
		{"no messages", `{"model":"m"}`, "", "no messages"},
		{"journal without prompt", `{"call":1,"verdict":"ok"}`, "", "its prompt, its wire body or its chat request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.input), Options{})
			var te *transcript.Error
			if !errors.As(err, &te) {
				t.Fatalf("err %v, want a *transcript.Error", err)
			}
			if te.Field != c.field || !strings.Contains(te.Error(), c.msg) {
				t.Errorf("error %q (field %q), want field %q and %q", te.Error(), te.Field, c.field, c.msg)
			}
			if te.Offset < 0 || te.Offset > int64(len(c.input)) {
				t.Errorf("offset %d outside the input", te.Offset)
			}
		})
	}
}

// TestReportJSONSchema: --format json output validates against
// docs/schemas/lint.schema.json, findings, notes and errors alike.
func TestReportJSONSchema(t *testing.T) {
	doc, err := os.ReadFile("../docs/schemas/lint.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{}
	for _, path := range []string{"testdata/openai-chat/broken-results-split.json", "testdata/canonical/broken-approved-never-run.json",
		"testdata/journal/broken-late-resolution.jsonl", "testdata/openai-responses/clean-stored-response.json"} {
		rep.Add(path, lintFile(t, path, Options{}), nil)
	}
	_, err = Read(strings.NewReader("{"), Options{})
	rep.Add("bad.json", nil, err)
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(b.Bytes()); err != nil {
		t.Fatalf("lint JSON does not match its schema: %v\n%s", err, b.String())
	}
	if rep.ExitCode() != 2 || rep.Findings != 5 {
		t.Errorf("exit %d with %d findings, want 2 with 5", rep.ExitCode(), rep.Findings)
	}
	var bad bytes.Buffer
	bad.WriteString(`{"version":1,"files":[{"file":"x","error":{"message":"m","offset":0},"findings":[]}],"findings":0,"unreadable":1}`)
	if schema.Validate(bad.Bytes()) == nil {
		t.Error("the schema accepts a file with both findings and an error")
	}
}

// TestReportText: the text report says where, which check, what, and the
// provider's exact answer.
func TestReportText(t *testing.T) {
	path := "testdata/anthropic-messages/broken-dangling-after-denial.json"
	rep := &Report{}
	rep.Add(path, lintFile(t, path, Options{}), nil)
	f, _ := os.Open(path)
	defer f.Close()
	pos, err := transcript.Locate(f, rep.Files[0].Offsets())
	if err != nil {
		t.Fatal(err)
	}
	rep.Files[0].Place(pos)
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		path + ":10:5: messages[1]: WIRE-01 MUST dangling: tool call toolu_01WQfwh7MJKmV9YfsFiJ4zxx (deleteFile) has no result",
		"anthropic-messages answers HTTP 400 invalid_request_error: messages.1: `tool_use` ids were found without `tool_result` blocks immediately after",
		`body: {"type":"error","error":{"type":"invalid_request_error","message":"messages.1:`,
		path + ": 1 finding",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q:\n%s", s, out)
		}
	}
}

// TestCertifiedJournals: every certification's journal (model calls, and
// the chat requests of the client scenarios) is read, and the chat
// requests of a client that sends a message over a pending approval are
// found to leave the call dangling.
func TestCertifiedJournals(t *testing.T) {
	files, _ := filepath.Glob("../reports/certified/*/journal.jsonl")
	if len(files) == 0 {
		t.Skip("no certified journal in this tree")
	}
	for _, path := range files {
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			continue // a certification whose scenarios made no model call
		}
		res := lintFile(t, path, Options{})
		if res.Format != transcript.Journal || res.Requests == 0 {
			t.Errorf("%s: read as %s with %d requests", path, res.Format, res.Requests)
		}
	}
	res := lintFile(t, "../reports/certified/vercel-ai@7.0.173-wire/journal.jsonl", Options{})
	found := false
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Scenario, "chained_continuation.feature: a new message while an approval is pending") && f.Kind == "dangling" && len(f.Parts) > 0 {
			found = true
		}
	}
	if !found {
		t.Error("the chat request that sends a message over a pending approval (certified CHAIN-05) is not found dangling")
	}
}

// TestUnknownUIState: a tool part in a state no AI SDK version writes is
// read (with an output as output-available, else as a call without a
// result), with a note, not refused.
func TestUnknownUIState(t *testing.T) {
	in := `{"messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"x"}]},{"id":"a","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c1","state":"output-streaming","input":{},"output":{"partial":1}},{"type":"tool-x","toolCallId":"c2","state":"queued","input":{}}]},{"id":"u2","role":"user","parts":[{"type":"text","text":"y"}]}]}`
	res, err := Read(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Parts) != 2 || res.Parts[0].Becomes != BecomesResult || res.Parts[1].Becomes != BecomesDangling || res.Parts[1].State != "queued" {
		t.Fatalf("parts %+v", res.Parts)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[1].Text, `state "queued" is not one the AI SDK writes: read as input-available`) {
		t.Errorf("notes %+v", res.Notes)
	}
	if len(res.Findings) != 1 || res.Findings[0].IDs[0] != "c2" {
		t.Errorf("findings %+v, want c2 dangling", res.Findings)
	}
}
