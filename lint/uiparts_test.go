package lint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/jsonschema"
)

// part is what one tool part must become.
type part struct{ path, id, state, becomes string }

// TestUIPartStates: every tool part of a UI history is said to become what
// the runtime's conversion makes of it, part by part, with the runtimes
// that convert it otherwise; the runtime's refusals are findings.
func TestUIPartStates(t *testing.T) {
	const pending = "ui-messages/runtime-pending-and-denial-then-user-message.json"
	const answered = "ui-messages/runtime-answer-then-user-message.json"
	const tanstackStates = "ag-ui/runtime-tanstack-pending-denied-streaming-then-user.json"
	const tanstackAnswered = "ag-ui/runtime-tanstack-answer-then-assistant.json"
	cases := []struct {
		file, runtime string
		parts         []part
		// elsewhere: per part, "runtime=becomes" of the runtimes that differ.
		elsewhere [][]string
		kinds     []string
	}{
		{file: "ui-messages/clean-every-state.json", runtime: "reference",
			parts: []part{
				{"messages[1].parts[1]", "c_out", "output-available", BecomesResult},
				{"messages[1].parts[2]", "c_err", "output-error", BecomesResult},
				{"messages[1].parts[3]", "c_den", "output-denied", BecomesDenial},
				{"messages[1].parts[4]", "c_prov", "output-available", BecomesProvider},
				{"messages[3].parts[1]", "c_yes", "approval-responded", BecomesResolved},
				{"messages[3].parts[2]", "c_no", "approval-responded", BecomesResolved},
				{"messages[3].parts[3]", "c_wait", "approval-requested", BecomesPending},
			},
			elsewhere: [][]string{nil, nil, nil, nil, nil, {"vercel-ai@7.0.173=denial"}, nil}},
		{file: "ui-messages/broken-input-available-then-message.json", runtime: "reference",
			parts: []part{{"messages[1].parts[1]", "c_in", "input-available", BecomesDangling}}, kinds: []string{"dangling"}},
		{file: "ui-messages/broken-input-streaming.json", runtime: "vercel-ai@7.0.173",
			parts: []part{{"messages[1].parts[1]", "c_st", "input-streaming", BecomesDangling}}, kinds: []string{"dangling"}},
		{file: "ui-messages/broken-duplicate-call-id.json", runtime: "reference",
			parts: []part{
				{"messages[1].parts[1]", "call_1", "approval-requested", BecomesDangling},
				{"messages[2].parts[1]", "call_1", "approval-requested", BecomesDuplicate},
			},
			elsewhere: [][]string{nil, nil},
			kinds:     []string{"dangling", "dangling", "duplicate-call"}},
		{file: "ui-messages/broken-denied-stuck-responded.json", runtime: "reference",
			parts:     []part{{"messages[1].parts[1]", "call-B", "approval-responded", BecomesUnresolved}},
			elsewhere: [][]string{{"vercel-ai@7.0.173=denial"}}, kinds: []string{"unresolved-approval"}},
		// vercel/ai #17136: on 7.x the conversion answers the denial itself.
		{file: "ui-messages/broken-denied-stuck-responded.json", runtime: "vercel-ai@7.0.173",
			parts:     []part{{"messages[1].parts[1]", "call-B", "approval-responded", BecomesDenial}},
			elsewhere: [][]string{{"reference=unresolved", "vercel-ai@6.0.326=unresolved"}}},
		// vercel-ai D3: an answer followed by a user message.
		{file: answered, runtime: "reference",
			parts:     []part{{"messages[1].parts[1]", "fl", "approval-responded", BecomesResolved}},
			elsewhere: [][]string{{"vercel-ai@6.0.326=refused", "vercel-ai@7.0.173=refused"}}},
		{file: answered, runtime: "vercel-ai@6.0.326",
			parts: []part{{"messages[1].parts[1]", "fl", "approval-responded", BecomesRefused}}, kinds: []string{"sdk-refusal"},
			elsewhere: [][]string{{"reference=resolved"}}},
		// vercel-ai D7: a new message over a pending approval; and a denial
		// answered before it.
		{file: pending, runtime: "reference",
			parts: []part{
				{"messages[1].parts[1]", "call_A", "approval-requested", BecomesDangling},
				{"messages[1].parts[2]", "call_B", "approval-responded", BecomesResolved},
			}, kinds: []string{"dangling"},
			elsewhere: [][]string{{"vercel-ai@6.0.326=refused", "vercel-ai@7.0.173=superseded"}, {"vercel-ai@6.0.326=refused", "vercel-ai@7.0.173=denial"}}},
		{file: pending, runtime: "vercel-ai@6.0.326",
			parts: []part{
				{"messages[1].parts[1]", "call_A", "approval-requested", BecomesRefused},
				{"messages[1].parts[2]", "call_B", "approval-responded", BecomesRefused},
			}, kinds: []string{"sdk-refusal", "sdk-refusal"}},
		{file: pending, runtime: "vercel-ai@7.0.173",
			parts: []part{
				{"messages[1].parts[1]", "call_A", "approval-requested", BecomesSuperseded},
				{"messages[1].parts[2]", "call_B", "approval-responded", BecomesDenial},
			}},
		{file: "ui-messages/broken-ai-sdk4-call-then-message.json", runtime: "reference",
			parts: []part{{"messages[1].parts[2]", "call_d", "call", BecomesDangling}}, kinds: []string{"dangling"}},
		{file: "ui-messages/clean-ai-sdk3-tool-invocations.json", runtime: "reference",
			parts: []part{{"[1].toolInvocations[0]", "call_o", "result", BecomesResult}}},
		{file: "ag-ui/clean-legacy-parts.json", runtime: "vercel-ai@6.0.326",
			parts: []part{{"messages[1].parts[0]", "call_A", "approval-responded", BecomesResolved}}},
		// TanStack AI 0.33.2 (@tanstack/ai 0.58.0): a pending approval
		// before a user message is asked again, a denial is a result in the
		// conversion, a part whose input is still streaming is left out.
		{file: tanstackStates, runtime: "reference",
			parts: []part{
				{"messages[1].parts[0]", "c_wait", "approval-requested", BecomesDangling},
				{"messages[1].parts[1]", "c_no", "approval-responded", BecomesResolved},
				{"messages[1].parts[2]", "c_st", "input-streaming", BecomesDangling},
			}, kinds: []string{"dangling"},
			elsewhere: [][]string{
				{"tanstack@0.22.1=superseded", "tanstack@0.33.2=pending-approval"},
				{"tanstack@0.22.1=denial", "tanstack@0.33.2=denial"},
				{"tanstack@0.22.1=superseded", "tanstack@0.33.2=superseded"}}},
		{file: tanstackStates, runtime: "tanstack@0.33.2",
			parts: []part{
				{"messages[1].parts[0]", "c_wait", "approval-requested", BecomesPending},
				{"messages[1].parts[1]", "c_no", "approval-responded", BecomesDenial},
				{"messages[1].parts[2]", "c_st", "input-streaming", BecomesSuperseded},
			},
			elsewhere: [][]string{{"reference=dangling", "tanstack@0.22.1=superseded"}, {"reference=resolved"}, {"reference=dangling"}}},
		// 0.22.1 (@tanstack/ai 0.42.0) leaves a pending approval out, its
		// call with it.
		{file: tanstackStates, runtime: "tanstack@0.22.1",
			parts: []part{
				{"messages[1].parts[0]", "c_wait", "approval-requested", BecomesSuperseded},
				{"messages[1].parts[1]", "c_no", "approval-responded", BecomesDenial},
				{"messages[1].parts[2]", "c_st", "input-streaming", BecomesSuperseded},
			},
			elsewhere: [][]string{{"reference=dangling", "tanstack@0.33.2=pending-approval"}, {"reference=resolved"}, {"reference=dangling"}}},
		// An approval with an assistant message after it: the reference
		// finds it unresolved; TanStack AI runs it, its result in the
		// placeholder's place.
		{file: tanstackAnswered, runtime: "reference",
			parts:     []part{{"messages[1].parts[0]", "c_yes", "approval-responded", BecomesUnresolved}},
			elsewhere: [][]string{{"tanstack@0.22.1=resolved", "tanstack@0.33.2=resolved"}}, kinds: []string{"unresolved-approval"}},
		{file: tanstackAnswered, runtime: "tanstack@0.33.2",
			parts:     []part{{"messages[1].parts[0]", "c_yes", "approval-responded", BecomesResolved}},
			elsewhere: [][]string{{"reference=unresolved"}}},
	}
	for _, c := range cases {
		t.Run(c.file+"@"+c.runtime, func(t *testing.T) {
			rt, err := ParseRuntime(c.runtime)
			if err != nil {
				t.Fatal(err)
			}
			res := lintFile(t, filepath.Join("testdata", c.file), Options{Runtime: rt})
			if len(res.Parts) != len(c.parts) {
				for _, p := range res.Parts {
					t.Logf("got %s %s %s -> %s", p.Path, p.ToolCallID, p.State, p.Becomes)
				}
				t.Fatalf("%d parts, want %d", len(res.Parts), len(c.parts))
			}
			runtime := c.runtime
			if strings.HasPrefix(c.file, "ag-ui/") && !strings.HasPrefix(c.runtime, "tanstack@") && c.runtime != "reference" {
				runtime = "reference" // the AI SDK's conversion reads AI SDK UI messages only
				if len(res.Notes) == 0 || !strings.Contains(res.Notes[len(res.Notes)-1].Text, "converts AI SDK UI messages only") {
					t.Errorf("no note that %s does not convert TanStack AI's parts: %+v", c.runtime, res.Notes)
				}
			}
			for i, w := range c.parts {
				p := res.Parts[i]
				if p.Path != w.path || p.ToolCallID != w.id || p.State != w.state || p.Becomes != w.becomes || p.Runtime != runtime {
					t.Errorf("part %d: %s %s %s -> %s (%s), want %s %s %s -> %s", i, p.Path, p.ToolCallID, p.State, p.Becomes, p.Runtime, w.path, w.id, w.state, w.becomes)
				}
				if p.Detail == "" || p.Offset <= 0 {
					t.Errorf("part %d: no detail or offset: %+v", i, p)
				}
				if c.file == "ag-ui/clean-legacy-parts.json" {
					continue // TanStack AI's parts: the AI SDK runtimes do not read them
				}
				var got []string
				for _, e := range p.Elsewhere {
					got = append(got, e.Runtime+"="+e.Becomes)
				}
				var want []string
				if c.elsewhere != nil {
					want = c.elsewhere[i]
				}
				if c.elsewhere != nil && strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("part %d: elsewhere %v, want %v", i, got, want)
				}
			}
			var kinds []string
			for _, f := range res.Findings {
				kinds = append(kinds, f.Kind)
				if f.Kind == KindRefused {
					want := "PRE-10"
					if strings.Contains(f.Detail, "approval-requested") {
						want = "CHAIN-05" // a new message over a pending approval
					}
					if f.Check != want {
						t.Errorf("refusal %q: check %s, want %s", f.Detail, f.Check, want)
					}
					if f.Provider != nil || !strings.Contains(f.Detail, "MissingToolResultsError: Tool result is missing for tool call") || !strings.Contains(f.Detail, c.runtime) {
						t.Errorf("refusal %q (provider %v): want the SDK's error, named, and no provider answer", f.Detail, f.Provider)
					}
				}
				if len(f.Parts) == 0 {
					t.Errorf("finding %s %s names no part", f.Path, f.Kind)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(c.kinds, ",") {
				t.Errorf("findings %v, want %v", kinds, c.kinds)
			}
		})
	}
}

// TestRuntimeFlag: only runtimes whose conversion is on record are taken.
func TestRuntimeFlag(t *testing.T) {
	for _, s := range []string{"", "reference", "vercel-ai@6.0.326", "vercel-ai@7.0.173", "tanstack@0.22.1", "tanstack@0.33.2"} {
		if _, err := ParseRuntime(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"vercel-ai", "vercel-ai@5.0.0", "mastra@1.71.0", "tanstack@0.4.5"} {
		if _, err := ParseRuntime(s); err == nil || !strings.Contains(err.Error(), "vercel-ai@7.0.173") {
			t.Errorf("%q: %v, want an error listing the known runtimes", s, err)
		}
	}
}

// TestUIPartsText: the text report says per part what it becomes, and what
// the other runtimes make of it.
func TestUIPartsText(t *testing.T) {
	path := filepath.Join("testdata", "ui-messages/runtime-pending-and-denial-then-user-message.json")
	rep := &Report{}
	rep.Add(path, lintFile(t, path, Options{}), nil)
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"messages[1].parts[1]: call_A (deleteFile) approval-requested -> dangling (reference)",
		"    vercel-ai@6.0.326: refused: ",
		"    vercel-ai@7.0.173: superseded: ",
		"messages[1].parts[2]: call_B (deleteFile) approval-responded -> resolved (reference)",
		"2 tool parts as reference converts them: 1 dangling, 1 resolved",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestUIPartsJSONSchema: the parts and the refusals validate against the
// schema.
func TestUIPartsJSONSchema(t *testing.T) {
	doc, err := os.ReadFile("../docs/schemas/lint.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := ParseRuntime("vercel-ai@6.0.326")
	rep := &Report{}
	for _, f := range []string{"runtime-pending-and-denial-then-user-message.json", "broken-duplicate-call-id.json", "clean-ai-sdk3-tool-invocations.json", "clean-every-state.json"} {
		path := filepath.Join("testdata", "ui-messages", f)
		rep.Add(path, lintFile(t, path, Options{Runtime: rt}), nil)
	}
	if journal := "../reports/certified/vercel-ai@7.0.173-wire/journal.jsonl"; fileExists(journal) {
		rep.Add(journal, lintFile(t, journal, Options{}), nil) // chat requests among model calls
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(b.Bytes()); err != nil {
		t.Fatalf("lint JSON does not match its schema: %v\n%s", err, b.String())
	}
	if !strings.Contains(b.String(), `"becomes": "refused"`) || !strings.Contains(b.String(), `"kind": "duplicate-call"`) {
		t.Errorf("the report lacks the parts or the findings:\n%s", b.String())
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
