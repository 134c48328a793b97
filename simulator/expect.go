package simulator

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// check returns the expectations the request does not meet. lossy says
// the prompt came over a provider wire, which carries tool outputs as text
// without their types (see checkResult).
func (e *Expect) check(req *llm.Request, lossy bool) []Problem {
	if e == nil {
		return nil
	}
	var out []Problem
	fail := func(format string, args ...any) {
		out = append(out, Problem{Check: e.Check, Detail: fmt.Sprintf(format, args...)})
	}
	ix := model.IndexOf(req.Messages)
	for _, want := range e.Results {
		res, ok := ix.Result(want.ToolCallID)
		if !ok {
			fail("expected a result for %s in the prompt, found none", want.ToolCallID)
			continue
		}
		if lossy {
			out = append(out, checkWireResult(e.Check, want, res.Output)...)
		} else {
			out = append(out, checkResult(e.Check, want, res.Output)...)
		}
	}
	for _, id := range e.NoResults {
		if _, ok := ix.Result(id); ok {
			fail("expected no result for %s in the prompt, found one", id)
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
					fail("expected no approval parts, found tool-approval-request %s at messages[%d].content[%d]", p.ApprovalID, i, j)
				case p.Type == model.PartToolApprovalResponse && !p.ProviderExecuted:
					fail("expected no approval parts, found tool-approval-response %s at messages[%d].content[%d]", p.ApprovalID, i, j)
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
			fail("expected the provider approval response %s (approved: %v, providerExecuted: true) to be forwarded, it was not", want.ApprovalID, want.Approved)
		}
	}
	if e.Messages != nil && len(req.Messages) != *e.Messages {
		fail("expected %d messages in the prompt, got %d", *e.Messages, len(req.Messages))
	}
	if e.LastRole != "" {
		last := ""
		if n := len(req.Messages); n > 0 {
			last = string(req.Messages[n-1].Role)
		}
		if last != e.LastRole {
			fail("expected the last message to be from %q, got %q", e.LastRole, last)
		}
	}
	corpus := Corpus(req.Messages)
	for _, s := range e.Contains {
		if !strings.Contains(corpus, s) {
			fail("expected the prompt to contain %q, it does not", s)
		}
	}
	for _, s := range e.NotContains {
		if strings.Contains(corpus, s) {
			fail("expected the prompt not to contain %q, it does", s)
		}
	}
	if e.Tools != nil {
		got := toolNames(req.Tools)
		want := append([]string(nil), e.Tools...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			fail("expected the tools %v to be offered, got %v", want, got)
		}
	}
	return out
}

func checkResult(check string, want ResultExpect, got *model.ToolOutput) []Problem {
	var out []Problem
	fail := func(format string, args ...any) {
		out = append(out, Problem{Check: check, Detail: fmt.Sprintf(format, args...)})
	}
	if want.Type != "" && string(got.Type) != want.Type {
		fail("expected the result for %s to be of type %s, got %s", want.ToolCallID, want.Type, got.Type)
		return out
	}
	if want.Reason != nil && got.Reason != *want.Reason {
		fail("expected the result for %s to carry the reason %q, got %q", want.ToolCallID, *want.Reason, got.Reason)
	}
	if len(want.Value) > 0 && !model.JSONEqual(want.Value, got.Value) {
		fail("expected the result for %s to have the value %s, got %s", want.ToolCallID, want.Value, got.Value)
	}
	if want.TextContains != "" && !strings.Contains(got.TextValue(), want.TextContains) {
		fail("expected the result for %s to contain %q, got %q", want.ToolCallID, want.TextContains, got.TextValue())
	}
	return out
}

// checkWireResult checks a result that came over a provider wire. The
// providers carry a tool output as text (OpenAI) or text blocks (Anthropic,
// with an is_error flag), so an output's type is not on the wire: a JSON
// output is text that parses as JSON; a denial is text that carries the
// reason; text and error text are told apart only where the wire says so.
// What the wire cannot say is not held against the prompt; the types are
// still checked on the target's own answer (the turn's messages).
func checkWireResult(check string, want ResultExpect, got *model.ToolOutput) []Problem {
	var out []Problem
	fail := func(format string, args ...any) {
		out = append(out, Problem{Check: check, Detail: fmt.Sprintf(format, args...)})
	}
	text := wireText(got)
	switch model.OutputType(want.Type) {
	case model.OutputJSON, model.OutputErrorJSON:
		if !json.Valid([]byte(text)) {
			fail("expected the result for %s to be JSON (type %s), got the text %q", want.ToolCallID, want.Type, clipText(text))
			return out
		}
	case model.OutputExecutionDenied:
		if want.Reason != nil && *want.Reason != "" && !strings.Contains(text, *want.Reason) {
			fail("expected the denial result for %s to carry the reason %q, got %q", want.ToolCallID, *want.Reason, clipText(text))
		}
	}
	if len(want.Value) > 0 && !model.JSONEqual(want.Value, json.RawMessage(text)) {
		fail("expected the result for %s to have the value %s, got %s", want.ToolCallID, want.Value, clipText(text))
	}
	if want.TextContains != "" && !strings.Contains(text, want.TextContains) {
		fail("expected the result for %s to contain %q, got %q", want.ToolCallID, want.TextContains, clipText(text))
	}
	return out
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
