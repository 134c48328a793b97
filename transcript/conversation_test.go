package transcript

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func conversations(t *testing.T, path string) []*Conversation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := ReadConversations(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// describe lays out the turns: say, answers (! for an assumed one), calls.
func describe(c *Conversation) string {
	var out []string
	for _, t := range c.Turns {
		var parts []string
		if t.Say != "" {
			parts = append(parts, fmt.Sprintf("say %q", t.Say))
		}
		for _, a := range t.Answers {
			s := a.Call + "=deny"
			if a.Approve {
				s = a.Call + "=approve"
			}
			if a.Reason != "" {
				s += "(" + a.Reason + ")"
			}
			if !a.Known {
				s += "!"
			}
			parts = append(parts, s)
		}
		if t.Then != "" {
			parts = append(parts, fmt.Sprintf("then %q", t.Then))
		}
		for _, id := range t.Abandoned {
			parts = append(parts, "abandon "+id)
		}
		parts = append(parts, fmt.Sprintf("calls %v", t.Calls))
		out = append(out, strings.Join(parts, " "))
	}
	return strings.Join(out, "; ")
}

func TestRebuild(t *testing.T) {
	cases := map[string]string{
		// A Chat body: its last call is the request itself.
		"../lint/testdata/openai-chat/clean-multi-turn.json": `say "delete /a" calls [0]; call_1=approve calls [1]; say "and /b, then email dave" calls [2]; call_2=approve calls [3]; call_3=approve calls [4]; say "ok thanks" calls [5]`,
		// A wire denial is only text: the default text reads as a denial.
		"../lint/testdata/openai-chat/clean-denied.json": `say "delete /etc/hosts" calls [0]; call_Xo3vQ2=deny calls [1]; say "now email bob that it stays" calls [2]; call_Kq81=approve calls [3]`,
		// The dangling call of the request: its answer is not shown.
		"../lint/testdata/openai-chat/broken-dangling-after-denial.json": `say "delete /a and email bob" calls [0]; call_A=approve call_B=approve! calls [1]`,
		// An agent's input: the answers at its end are the last action.
		"../lint/testdata/canonical/clean-batch-mixed.json":                 `say "clean up" calls [0]; c3=approve a1? calls [1]`,
		"../lint/testdata/canonical/clean-denied-pending-with-note.json":    `say "send the report to bob" calls [0]; call_m=deny(no emails please) then "and tell me why it failed" calls [1]`,
		"../lint/testdata/ui-messages/broken-pending-then-new-message.json": `say "delete /a" calls [0]; say "wait, what's the weather?" abandon call_u calls [1]`,
		"../lint/testdata/ui-messages/clean-batch.json":                     `say "email bob and carol" calls [0]; call-A=approve call-B=deny(no emails) calls [1]`,
		"../lint/testdata/anthropic-messages/clean-batch.json":              `say "delete /a /b /c" calls [0]; toolu_a=approve toolu_b=deny toolu_c=approve then "also, be quick" calls [1]`,
	}
	cases["../lint/testdata/canonical/clean-batch-mixed.json"] = `say "clean up" calls [0]; c3=approve c1=approve c2=deny(keep it) calls [1]`
	for path, want := range cases {
		t.Run(path, func(t *testing.T) {
			cs := conversations(t, path)
			if len(cs) != 1 {
				t.Fatalf("%d conversations", len(cs))
			}
			if got := describe(cs[0]); got != want {
				t.Errorf("turns\n got %s\nwant %s\nnotes %v", got, want, cs[0].Notes)
			}
		})
	}
}

// TestRebuildJournal: a report's journal is one conversation per scenario,
// with the recorded replies and the refusal.
func TestRebuildJournal(t *testing.T) {
	cs := conversations(t, "../lint/testdata/journal/broken-late-resolution.jsonl")
	if len(cs) != 2 {
		t.Fatalf("%d conversations", len(cs))
	}
	c := cs[1]
	if !strings.HasPrefix(c.ID, "pre_resolution.feature: an approved call runs before the model is called") || len(c.Calls) != 2 {
		t.Fatalf("conversation %s with %d calls", c.ID, len(c.Calls))
	}
	first, second := c.Calls[0], c.Calls[1]
	if first.Reply == nil || len(first.Reply.ToolCalls) != 1 || first.Reply.ToolCalls[0].ID != "call_1" || first.Lossy {
		t.Fatalf("first call %+v", first)
	}
	if second.Reply != nil || second.Status != 400 || !strings.Contains(second.ErrorBody, "did not have response messages: call_1") {
		t.Fatalf("second call %+v", second)
	}
	if got := describe(c); got != `say "delete /a" calls [0]; call_1=approve! calls [1]` {
		t.Errorf("turns %s", got)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "call_1 (deleteFile) has no result when model call 2 is made") {
		t.Errorf("notes %v", c.Notes)
	}
	var names []string
	for _, tool := range c.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "deleteFile,readFile" {
		t.Errorf("tools %v", names)
	}
}

// TestRebuildRecorded: a journal of conformance record: conversations by
// id, prompts read from the wire (lossy), the profile from the body.
func TestRebuildRecorded(t *testing.T) {
	cs := conversations(t, "../lint/testdata/journal/clean-recorded.jsonl")
	if len(cs) != 3 {
		t.Fatalf("%d conversations", len(cs))
	}
	for i, p := range []string{"openai-chat", "openai-responses", "anthropic-messages"} {
		c := cs[i]
		if string(c.Profile) != p || len(c.Calls) != 2 || !c.Calls[1].Lossy || c.Calls[1].Reply == nil || c.Calls[1].Reply.Text != "Deleted /a; /b stays." {
			t.Fatalf("conversation %d: %s, %+v", i, c.Profile, c.Calls)
		}
		want := `say "delete /a and /b" calls [0]; call_a=approve call_b=approve calls [1]`
		if p == "anthropic-messages" { // is_error marks the denial
			want = `say "delete /a and /b" calls [0]; call_a=approve call_b=deny(keep /b) calls [1]`
		}
		if got := describe(c); got != want {
			t.Errorf("%s: turns %s", p, got)
		}
		if len(c.History) != 1 || c.Outputs["call_b"] == nil {
			t.Errorf("%s: history %v outputs %v", p, c.History, c.Outputs)
		}
	}
}
