package simulator

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// check returns the expectations the request does not meet, and those
// that could not be evaluated because what they read is missing (the type
// or the reason of a result the prompt does not hold: that is charged to
// the result's own check, not to theirs). lossy says the prompt came over
// a provider wire, which carries tool outputs as text without their types
// (see checkResult).
func (e *Expect) check(req *llm.Request, lossy bool) (fails, blocked []Problem) {
	if e == nil {
		return nil, nil
	}
	var out []Problem
	fail := func(field, format string, args ...any) {
		out = append(out, Problem{Check: e.checkOf(field), Detail: fmt.Sprintf(format, args...)})
	}
	ix := model.IndexOf(req.Messages)
	for _, want := range e.Results {
		c := e.resultChecks(want)
		res, ok := ix.Result(want.ToolCallID)
		if !ok {
			out = append(out, Problem{Check: c.present, ToolCallID: want.ToolCallID, Detail: fmt.Sprintf("expected a result for %s in the prompt, found none", want.ToolCallID)})
			if want.Type != "" && c.typ != c.present {
				blocked = append(blocked, Problem{Check: c.typ, Detail: fmt.Sprintf("the type of the result for %s: the prompt holds no result for it", want.ToolCallID)})
			}
			if want.Reason != nil && c.reason != c.present {
				blocked = append(blocked, Problem{Check: c.reason, Detail: fmt.Sprintf("the reason of the denial of %s: the prompt holds no result for it", want.ToolCallID)})
			}
			continue
		}
		var f, b []Problem
		if lossy {
			f, b = checkWireResult(c, want, res.Output)
		} else {
			f, b = checkResult(c, want, res.Output)
		}
		out = append(out, f...)
		blocked = append(blocked, b...)
	}
	for _, id := range e.NoResults {
		if _, ok := ix.Result(id); ok {
			fail("noResults", "expected no result for %s in the prompt, found one", id)
		}
	}
	if e.NoApprovalParts {
		for i, m := range req.Messages {
			for j, p := range m.Content {
				switch {
				case p.Type == model.PartToolApprovalRequest && lossy && providerCall(ix, p.ToolCallID):
					// On a provider wire, the approval request of a tool the
					// provider runs is the provider's own item (OpenAI's
					// mcp_approval_request), sent back as it came.
				case p.Type == model.PartToolApprovalRequest:
					fail("noApprovalParts", "expected no approval parts, found tool-approval-request %s at messages[%d].content[%d]", p.ApprovalID, i, j)
				case p.Type == model.PartToolApprovalResponse && !p.ProviderExecuted:
					fail("noApprovalParts", "expected no approval parts, found tool-approval-response %s at messages[%d].content[%d]", p.ApprovalID, i, j)
				}
			}
		}
	}
	for _, want := range e.ProviderApprovals {
		found := false
		for _, loc := range ix.Responses[want.ApprovalID] {
			p := ix.Part(loc)
			if p.ProviderExecuted && p.Approved == want.Approved {
				found = true
			}
		}
		if !found {
			check := e.checkOf("providerApprovals")
			if want.Check != "" {
				check = want.Check
			}
			out = append(out, Problem{Check: check, Detail: fmt.Sprintf("expected the provider approval response %s (approved: %v, providerExecuted: true) to be forwarded, it was not", want.ApprovalID, want.Approved)})
		}
	}
	if e.Messages != nil && len(req.Messages) != *e.Messages {
		fail("messages", "expected %d messages in the prompt, got %d", *e.Messages, len(req.Messages))
	}
	if e.LastRole != "" {
		last := ""
		if n := len(req.Messages); n > 0 {
			last = string(req.Messages[n-1].Role)
		}
		if last != e.LastRole {
			fail("lastRole", "expected the last message to be from %q, got %q", e.LastRole, last)
		}
	}
	corpus := Corpus(req.Messages)
	for _, s := range e.Contains {
		if !strings.Contains(corpus, s) {
			fail("contains", "expected the prompt to contain %q, it does not", s)
		}
	}
	for _, s := range e.NotContains {
		if strings.Contains(corpus, s) {
			fail("notContains", "expected the prompt not to contain %q, it does", s)
		}
	}
	if e.Tools != nil {
		got := toolNames(req.Tools)
		want := append([]string(nil), e.Tools...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			fail("tools", "expected the tools %v to be offered, got %v", want, got)
		}
	}
	return out, blocked
}

// resultCheck says which check each aspect of an expected result is
// charged to: its presence (and its value and text), its type, and its
// denial reason.
type resultCheck struct{ present, typ, reason string }

// resultChecks resolves the checks of an expected result: the item's own
// check, else the field's, else the expectation's; the type and the
// reason default to the item's check.
func (e *Expect) resultChecks(want ResultExpect) resultCheck {
	c := resultCheck{present: want.Check}
	if c.present == "" {
		c.present = e.checkOf("results")
	}
	c.typ, c.reason = want.TypeCheck, want.ReasonCheck
	if c.typ == "" {
		c.typ = c.present
	}
	if c.reason == "" {
		c.reason = c.present
	}
	return c
}

// checkOf is the check an expectation field blames: its own, or the
// expectation's.
func (e *Expect) checkOf(field string) string {
	if c := e.FieldChecks[field]; c != "" {
		return c
	}
	return e.Check
}

func checkResult(c resultCheck, want ResultExpect, got *model.ToolOutput) (fails, blocked []Problem) {
	fail := func(check, format string, args ...any) {
		fails = append(fails, Problem{Check: check, Detail: fmt.Sprintf(format, args...)})
	}
	typeOK := want.Type == "" || string(got.Type) == want.Type
	if !typeOK {
		fail(c.typ, "expected the result for %s to be of type %s, got %s", want.ToolCallID, want.Type, got.Type)
	}
	if want.Reason != nil {
		switch {
		case want.ReasonInText:
			if text := wireText(got); !strings.Contains(text, *want.Reason) {
				fail(c.reason, "expected the result for %s to carry the reason %q in its text, got %q", want.ToolCallID, *want.Reason, clipText(text))
			}
		case typeOK:
			if got.Reason != *want.Reason {
				fail(c.reason, "expected the result for %s to carry the reason %q, got %q", want.ToolCallID, *want.Reason, got.Reason)
			}
		case c.reason != c.typ:
			blocked = append(blocked, Problem{Check: c.reason, Detail: fmt.Sprintf("the reason of the denial of %s: its result is of type %s, not a denial", want.ToolCallID, got.Type)})
		}
	}
	if len(want.Value) > 0 && !valueMatches(want, got) {
		fail(c.present, "expected the result for %s to have the value %s, got %s", want.ToolCallID, want.Value, got.Value)
	}
	if want.TextContains != "" && !strings.Contains(got.TextValue(), want.TextContains) {
		fail(c.present, "expected the result for %s to contain %q, got %q", want.ToolCallID, want.TextContains, got.TextValue())
	}
	if want.Text != nil && got.TextValue() != *want.Text {
		fail(c.present, "expected the result for %s to read exactly %q, got %q", want.ToolCallID, *want.Text, got.TextValue())
	}
	return fails, blocked
}

// valueMatches: the result holds the expected value. When no type is
// expected of the result (results that carry none, such as an SDK's whose
// tool outputs are strings), a text result holds it when its text is that
// JSON, as over a provider wire.
func valueMatches(want ResultExpect, got *model.ToolOutput) bool {
	if model.JSONEqual(want.Value, got.Value) {
		return true
	}
	if want.Type != "" || (got.Type != model.OutputText && got.Type != model.OutputErrorText) {
		return false
	}
	text := []byte(got.TextValue())
	return json.Valid(text) && model.JSONEqual(want.Value, text)
}

// checkWireResult checks a result that came over a provider wire. The
// providers carry a tool output as text (OpenAI) or text blocks (Anthropic,
// with an is_error flag), so an output's type is not on the wire: a JSON
// output is text that parses as JSON; a denial is text that carries the
// reason; text and error text are told apart only where the wire says so.
// What the wire cannot say is not held against the prompt; the types are
// still checked on the target's own answer (the turn's messages).
func checkWireResult(c resultCheck, want ResultExpect, got *model.ToolOutput) (fails, blocked []Problem) {
	fail := func(check, format string, args ...any) {
		fails = append(fails, Problem{Check: check, Detail: fmt.Sprintf(format, args...)})
	}
	text := wireText(got)
	switch model.OutputType(want.Type) {
	case model.OutputJSON, model.OutputErrorJSON:
		if !json.Valid([]byte(text)) {
			fail(c.typ, "expected the result for %s to be JSON (type %s), got the text %q", want.ToolCallID, want.Type, clipText(text))
			return fails, blocked
		}
	case model.OutputExecutionDenied:
		if want.Reason != nil && *want.Reason != "" && !strings.Contains(text, *want.Reason) {
			fail(c.reason, "expected the denial result for %s to carry the reason %q, got %q", want.ToolCallID, *want.Reason, clipText(text))
		}
	default:
		if want.ReasonInText && want.Reason != nil && !strings.Contains(text, *want.Reason) {
			fail(c.reason, "expected the result for %s to carry the reason %q in its text, got %q", want.ToolCallID, *want.Reason, clipText(text))
		}
	}
	if len(want.Value) > 0 && !model.JSONEqual(want.Value, json.RawMessage(text)) {
		fail(c.present, "expected the result for %s to have the value %s, got %s", want.ToolCallID, want.Value, clipText(text))
	}
	if want.TextContains != "" && !strings.Contains(text, want.TextContains) {
		fail(c.present, "expected the result for %s to contain %q, got %q", want.ToolCallID, want.TextContains, clipText(text))
	}
	if want.Text != nil && text != *want.Text {
		fail(c.present, "expected the result for %s to read exactly %q, got %q", want.ToolCallID, *want.Text, clipText(text))
	}
	return fails, blocked
}

// wireText is an output as a provider wire carries it: a text value as is,
// anything else as its JSON, a denial as its reason.
func wireText(o *model.ToolOutput) string {
	switch {
	case o == nil:
		return ""
	case o.Type == model.OutputText || o.Type == model.OutputErrorText:
		return o.TextValue()
	case o.Type == model.OutputExecutionDenied:
		return o.Reason
	}
	return string(o.Value)
}

func clipText(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Corpus returns all the text a model would read in the prompt: message
// text, tool inputs, tool outputs and their reasons, and approval reasons,
// one item per line.
func Corpus(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Content {
			switch p.Type {
			case model.PartText, model.PartReasoning:
				b.WriteString(p.Text)
			case model.PartToolCall:
				b.Write(p.Input)
			case model.PartToolResult:
				if p.Output != nil {
					if s := p.Output.TextValue(); s != "" {
						b.WriteString(s)
					} else {
						b.Write(p.Output.Value)
					}
					b.WriteString("\n")
					b.WriteString(p.Output.Reason)
				}
			case model.PartToolApprovalRequest, model.PartToolApprovalResponse:
				b.WriteString(p.Reason)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// providerCall reports whether the prompt's call with this id is one the
// provider runs.
func providerCall(ix *model.Index, toolCallID string) bool {
	c, ok := ix.Call(toolCallID)
	return ok && c.ProviderExecuted
}
