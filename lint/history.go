package lint

import (
	"fmt"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// call is what a history says of one tool call.
type call struct {
	id, name         string
	msg              int // canonical index of the assistant message making it
	providerExecuted bool
	results          int
	answered         bool
	approved         bool
	approvalID       string
	answerMsg        int // canonical index of the first answer
}

// history lints an agent's input: answers are matched with their requests,
// answers after the last assistant message are resolved as pre-resolution
// would, and the prompt that results is checked with the provider's rules.
func history(req *transcript.Request) []Finding {
	msgs := req.Messages
	calls := map[string]*call{}
	var order []*call
	requests := map[string]string{} // approval id -> call id
	requested := map[string]bool{}  // call ids with an approval request
	lastAssistant := -1
	var out []Finding
	nm := req.Names
	for i, m := range msgs {
		if m.Role == model.RoleAssistant {
			lastAssistant = i
		}
		for _, p := range m.Content {
			switch p.Type {
			case model.PartToolCall:
				if _, seen := calls[p.ToolCallID]; !seen {
					c := &call{id: p.ToolCallID, name: p.ToolName, msg: i, providerExecuted: p.ProviderExecuted}
					calls[p.ToolCallID] = c
					order = append(order, c)
				}
			case model.PartToolResult:
				if c := calls[p.ToolCallID]; c != nil {
					c.results++
				}
			case model.PartToolApprovalRequest:
				requested[p.ToolCallID] = true
				if _, seen := requests[p.ApprovalID]; !seen {
					requests[p.ApprovalID] = p.ToolCallID
				}
			case model.PartToolApprovalResponse:
				id := p.ToolCallID // an answer bound to its call (UI messages, AG-UI)
				if id == "" {
					id = requests[p.ApprovalID]
				}
				c := calls[id]
				if c == nil {
					f := Finding{Check: "PRE-04", Level: level("PRE-04"), Kind: KindOrphanApproval, ProviderIndex: -1, IDs: []string{p.ApprovalID},
						Detail: fmt.Sprintf("approval response %s answers no approval request made before it; it must never lead to a tool running", p.ApprovalID)}
					f.at(req, m.Source)
					out = append(out, f)
					continue
				}
				if c.answered {
					f := Finding{Check: "PRE-11", Level: level("PRE-11"), ProviderIndex: -1, IDs: []string{c.id, p.ApprovalID}}
					if c.approved == p.Approved {
						f.Kind = KindDuplicateApproval
						f.Detail = fmt.Sprintf("call %s is answered twice (approval %s): the call must run at most once and get exactly one result", labelled([]string{c.id}, nm), p.ApprovalID)
					} else {
						f.Kind = KindConflictingApproval
						f.Detail = fmt.Sprintf("call %s is both approved and denied (approval %s): at most one run and exactly one result may follow", labelled([]string{c.id}, nm), p.ApprovalID)
					}
					f.at(req, m.Source)
					out = append(out, f)
					continue
				}
				c.answered, c.approved, c.approvalID, c.answerMsg = true, p.Approved, p.ApprovalID, i
			}
		}
	}

	// The prompt: approval parts stripped (the views leave them out), and a
	// result, right after its call, for each answered call still to be
	// resolved. Answers before the last assistant message whose calls have
	// no result were never acted on.
	pending := map[int][]model.Part{} // canonical index of the call's message -> results to add
	unresolved := map[string]*Finding{}
	for _, c := range order {
		if c.providerExecuted || !c.answered || c.results > 0 {
			continue
		}
		if c.answerMsg > lastAssistant {
			out := model.DeniedOutput("")
			if c.approved {
				out = model.JSONOutput([]byte("null"))
			}
			pending[c.msg] = append(pending[c.msg], model.ToolResult(c.id, c.name, out))
			continue
		}
		f := Finding{Check: "PRE-01", Also: []string{"WIRE-01"}, Kind: KindUnresolved, ProviderIndex: -1, IDs: []string{c.id, c.approvalID}}
		if c.approved {
			f.Detail = fmt.Sprintf("call %s was approved (approval %s) but never ran: it has no result, and the conversation went on after the answer, so the model was called without it", labelled([]string{c.id}, nm), c.approvalID)
		} else {
			f.Check = "PRE-02"
			f.Detail = fmt.Sprintf("call %s was denied (approval %s) but got no denial result, and the conversation went on after the answer, so the model was called without it", labelled([]string{c.id}, nm), c.approvalID)
		}
		f.Level = level(f.Check)
		f.at(req, msgs[c.answerMsg].Source)
		unresolved[c.id] = &f
	}
	// Calls waiting for their approval's answer at the very end of the
	// history are pending: nothing goes to the model until they are
	// answered.
	waits := map[string]bool{}
	for _, c := range order {
		if (requested[c.id] || req.Waiting[c.id]) && !c.answered && c.results == 0 && !c.providerExecuted && onlyToolAfter(msgs, c.msg) {
			waits[c.id] = true
		}
	}
	prompt := make([]model.Message, 0, len(msgs)+len(pending))
	source := make([]int, 0, len(msgs)+len(pending))
	for i, m := range msgs {
		if len(waits) > 0 && m.Role == model.RoleAssistant {
			m.Message = withoutCalls(m.Message, waits)
		}
		if m.Role == model.RoleTool {
			// A provider-executed call's result (a UI part's output) is the
			// provider's own: it goes back in the assistant's turn, not as a
			// tool message of the client's.
			m.Message = withoutProviderResults(m.Message, calls)
		}
		prompt = append(prompt, m.Message)
		source = append(source, m.Source)
		if rs := pending[i]; len(rs) > 0 {
			prompt = append(prompt, model.Message{Role: model.RoleTool, Content: rs})
			source = append(source, m.Source)
		}
	}
	view := wire.ViewOf(req.Profile, prompt)
	for k, v := range wire.Check(view, "") {
		src := -1
		if v.Message >= 0 && v.Message < len(source) {
			src = source[v.Message]
		}
		covered := v.Kind == wire.Dangling
		for _, id := range v.IDs {
			if f := unresolved[id]; f != nil {
				f.Provider = &ProviderError{Profile: req.Profile, Status: v.Status, Type: v.ErrorType, Message: v.Text, Body: v.Body, Inferred: v.Inferred}
				f.ProviderIndex, f.order = v.ProviderIndex, k+1
			} else {
				covered = false
			}
		}
		if covered {
			continue // said by the unresolved answers, with this error
		}
		f := wireFinding(req, view, v, src, nm)
		f.order = k + 1
		if v.Kind == wire.Dangling {
			f.Detail += waiting(calls, requested, v.IDs)
		}
		out = append(out, f)
	}
	for _, c := range order {
		if f := unresolved[c.id]; f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// waiting adds why a dangling call of a history has no result.
func waiting(calls map[string]*call, requested map[string]bool, ids []string) string {
	for _, id := range ids {
		if c := calls[id]; c != nil && !c.answered && requested[id] {
			return " (no answer to its approval and no result: a new message moved the conversation on)"
		}
	}
	for _, id := range ids {
		if c := calls[id]; c != nil && !c.answered {
			return " (no output and no approval to wait for: the call was never run, or its output never recorded)"
		}
	}
	return ""
}

// onlyToolAfter reports whether every message after message i is a tool
// message.
func onlyToolAfter(msgs []transcript.Message, i int) bool {
	for _, m := range msgs[i+1:] {
		if m.Role != model.RoleTool {
			return false
		}
	}
	return true
}

// withoutCalls is m without the calls (and approval requests) of ids.
func withoutCalls(m model.Message, ids map[string]bool) model.Message {
	out := model.Message{Role: m.Role, Content: make([]model.Part, 0, len(m.Content))}
	for _, p := range m.Content {
		if (p.Type == model.PartToolCall || p.Type == model.PartToolApprovalRequest) && ids[p.ToolCallID] {
			continue
		}
		out.Content = append(out.Content, p)
	}
	return out
}

// withoutProviderResults is m without the results of provider-executed
// calls.
func withoutProviderResults(m model.Message, calls map[string]*call) model.Message {
	keep := true
	for _, p := range m.Content {
		if c := calls[p.ToolCallID]; p.Type == model.PartToolResult && c != nil && c.providerExecuted {
			keep = false
		}
	}
	if keep {
		return m
	}
	out := model.Message{Role: m.Role}
	for _, p := range m.Content {
		if c := calls[p.ToolCallID]; p.Type == model.PartToolResult && c != nil && c.providerExecuted {
			continue
		}
		out.Content = append(out.Content, p)
	}
	return out
}
