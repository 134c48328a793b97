package wire

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/model"
)

// randomConversation builds a prompt of up to n messages from a small pool
// of ids, so that calls go unanswered, results stray, answer twice or come
// in the wrong place, in every role and with every part type.
func randomConversation(r *rand.Rand, n int) []model.Message {
	roles := []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool}
	id := func() string { return fmt.Sprintf("c%d", r.Intn(6)) }
	var msgs []model.Message
	for i := r.Intn(n + 1); i > 0; i-- {
		m := model.Message{Role: roles[r.Intn(len(roles))]}
		for j := r.Intn(4); j > 0; j-- {
			var p model.Part
			switch r.Intn(6) {
			case 0:
				p = model.Text("t")
			case 1:
				p = model.ToolCall(id(), "t", json.RawMessage(`{}`))
			case 2:
				p = model.ToolResult(id(), "t", model.TextOutput("ok"))
			case 3:
				p = model.ApprovalRequest("a", id())
			case 4:
				p = model.ApprovalResponse("a", true, "")
			case 5:
				p = model.Part{Type: model.PartReasoning, Text: "r"}
			}
			p.ProviderExecuted = r.Intn(5) == 0
			m.Content = append(m.Content, p)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// The views and the violations are those of the checker before it was made
// linear (legacy_test.go), on prompts with every kind of fault.
func TestCheckMatchesOldChecker(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	violations := 0
	for i := 0; i < 20000; i++ {
		msgs := randomConversation(r, 10)
		for _, p := range Profiles {
			view, want := ViewOf(p, msgs), legacyViewOf(p, msgs)
			if diff := cmp.Diff(want, view); diff != "" {
				t.Fatalf("%s view of %+v (-old +new):\n%s", p, msgs, diff)
			}
			got, wantVs := Check(view, "req_1"), legacyCheck(want, "req_1")
			if diff := cmp.Diff(wantVs, got); diff != "" {
				t.Fatalf("%s violations of %+v (-old +new):\n%s", p, msgs, diff)
			}
			if diff := cmp.Diff(wantVs, CheckMessages(p, msgs, "req_1")); diff != "" {
				t.Fatalf("%s violations of %+v, with a reused layout (-old +new):\n%s", p, msgs, diff)
			}
			violations += len(got)
		}
	}
	if violations == 0 {
		t.Fatal("the random prompts broke no rule: the comparison proves nothing")
	}
}

// An entry with more calls than a scan handles well uses a map: the same
// violations.
func TestCheckManyCallsInOneMessage(t *testing.T) {
	var ids []string
	for i := 0; i < 3*manyIDs; i++ {
		ids = append(ids, fmt.Sprintf("c%d", i))
	}
	msgs := []model.Message{user("go"), assistant(ids...), results(ids[1:]...), results(ids[0], ids[5])}
	for _, p := range Profiles {
		got, want := CheckMessages(p, msgs, "r"), legacyCheck(legacyViewOf(p, msgs), "r")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s (-old +new):\n%s", p, diff)
		}
		if len(got) == 0 {
			t.Fatalf("%s: no violation for a result out of place", p)
		}
	}
}

// Views as the provider wires decode them hold entries no canonical prompt
// lays out (system messages among Anthropic's, custom tool calls): the
// rules agree with the old ones on those too.
func TestCheckRandomViewsMatchOldChecker(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	roles := []string{"system", "user", "assistant", "tool", "message", "function_call", "function_call_output",
		"custom_tool_call", "custom_tool_call_output", "mcp_approval_response"}
	id := func() string { return fmt.Sprintf("c%d", r.Intn(6)) }
	violations := 0
	for i := 0; i < 20000; i++ {
		for _, p := range Profiles {
			v := View{Profile: p}
			for e := r.Intn(9); e > 0; e-- {
				entry := Entry{Role: roles[r.Intn(len(roles))], Canonical: r.Intn(5) - 1}
				for c := r.Intn(3); c > 0; c-- {
					entry.Calls = append(entry.Calls, id())
				}
				for c := r.Intn(3); c > 0; c-- {
					entry.Results = append(entry.Results, Result{ID: id(), Block: r.Intn(3), Canonical: r.Intn(5) - 1})
				}
				v.Entries = append(v.Entries, entry)
			}
			got, want := Check(v, "req_1"), legacyCheck(v, "req_1")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s violations of %+v (-old +new):\n%s", p, v, diff)
			}
			violations += len(got)
		}
	}
	if violations == 0 {
		t.Fatal("the random views broke no rule: the comparison proves nothing")
	}
}
