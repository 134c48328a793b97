package lint

import (
	"fmt"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/transcript"
)

// What a UI tool part becomes once a chat server converts the history.
const (
	// BecomesResult: a call with its result (output-available, output-error).
	BecomesResult = "result"
	// BecomesDenial: a call with its denial's result.
	BecomesDenial = "denial"
	// BecomesPending: an approval the server waits for; nothing goes to the
	// model (the history ends on it).
	BecomesPending = "pending-approval"
	// BecomesResolved: an answered approval the runtime acts on before it
	// calls the model (a run, or a denial's result).
	BecomesResolved = "resolved"
	// BecomesUnresolved: an answer the conversation went past: the model
	// was called after it without the call's result.
	BecomesUnresolved = "unresolved"
	// BecomesDangling: a call without a result, sent on to the model.
	BecomesDangling = "dangling"
	// BecomesDuplicate: a second part for a call id already used.
	BecomesDuplicate = "duplicate"
	// BecomesSuperseded: removed by the runtime's conversion, call included.
	BecomesSuperseded = "superseded"
	// BecomesRefused: the runtime refuses the history before it calls the
	// provider.
	BecomesRefused = "refused"
	// BecomesProvider: a provider-executed call: the provider answers it.
	BecomesProvider = "provider-executed"
)

// PartVerdict says what one tool part of a UI history becomes.
type PartVerdict struct {
	Request int `json:"request"`
	// Message is the index of the UI message, Part of the part in it; Path
	// names both ("messages[1].parts[2]").
	Message    int    `json:"message"`
	Part       int    `json:"part"`
	Path       string `json:"path"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName,omitempty"`
	// State is the part's state as written.
	State string `json:"state"`
	// Runtime is the conversion applied (--runtime), Becomes what the part
	// becomes there, Detail why, in plain words.
	Runtime string `json:"runtime"`
	Becomes string `json:"becomes"`
	Detail  string `json:"detail"`
	// Elsewhere are the runtimes that convert the part otherwise.
	Elsewhere []RuntimeVerdict `json:"elsewhere,omitempty"`
	Offset    int64            `json:"offset"`
	Line      int              `json:"line,omitempty"`
}

// RuntimeVerdict is what another runtime makes of a part.
type RuntimeVerdict struct {
	Runtime string `json:"runtime"`
	Becomes string `json:"becomes"`
	Detail  string `json:"detail"`
}

// dangling says what becomes of a call without a result.
const dangling = ", which the provider refuses in a prompt (the reference runtime refuses the history first: MissingToolResults)"

// uiContext is what the verdict of a part depends on beyond the part.
type uiContext struct {
	laterUser, laterAssistant, later bool
	duplicateOf                      string
	format                           transcript.Format // the runtimes that read it apply
}

// verdict says what a runtime makes of a part.
func verdict(rt Runtime, p transcript.UIPart, c uiContext) (becomes, detail string) {
	if !rt.reads(c.format) {
		rt = Reference // an SDK's conversion reads its own UI messages only
	}
	if c.duplicateOf != "" {
		return BecomesDuplicate, fmt.Sprintf("call id %s is already used by %s: the history holds one call twice, and the reference chat server refuses it (tool call id %q is used by two calls)", p.ToolCallID, c.duplicateOf, p.ToolCallID)
	}
	switch p.Became {
	case model.PartToolResult:
		if p.ProviderExecuted {
			return BecomesProvider, "a provider-executed call with its result: the provider's own, sent back in the assistant's turn"
		}
		if p.Denied {
			return BecomesDenial, "a call with its denial's result"
		}
		return BecomesResult, "a call with its result"
	case model.PartToolApprovalResponse:
		decision := "approved"
		if !p.Approved {
			decision = "denied"
		}
		switch {
		case p.ProviderExecuted:
			return BecomesProvider, "the provider's own approval, answered (" + decision + "): forwarded to the provider"
		case rt.DeniedRespondedIsResult && !p.Approved:
			return BecomesDenial, "the conversion gives the denied call its denial's result"
		case c.laterAssistant && rt.ResolvesAnswerAnywhere:
			return BecomesResolved, fmt.Sprintf("%s, with an assistant message after the answer: %s's conversion puts the answer's placeholder result next to the call, and the run acts on it before it calls the model (the call's result takes the placeholder's place)", decision, rt)
		case c.laterAssistant:
			return BecomesUnresolved, fmt.Sprintf("%s, but an assistant message comes after the answer: the model was called without the call's result", decision)
		case c.laterUser && rt.RefusesAnswerBeforeUser && (p.Approved || rt.DeniedToo):
			return BecomesRefused, fmt.Sprintf("%s, but a user message follows the answer: %s reads answers only when the last message is a tool message, and throws %s before it calls the provider", decision, rt, missingToolResults(p.ToolCallID))
		case p.Approved:
			return BecomesResolved, "approved: the runtime runs the call and puts its result after it before calling the model"
		}
		return BecomesResolved, "denied: the runtime gives the call its denial's result before calling the model"
	}
	switch {
	case p.ProviderExecuted:
		return BecomesProvider, "a provider-executed call: the provider answers it"
	case p.ApprovalID != "" && !c.later:
		return BecomesPending, "waiting for the user's answer: the history ends on it, and nothing goes to the model until it is answered"
	case p.ApprovalID != "" && c.laterUser && rt.AsksAgainPendingBeforeUser:
		return BecomesPending, fmt.Sprintf("unanswered before a later user message: %s keeps the call, finds it without a result when the run starts, and asks for its approval again without calling the model", rt)
	case p.ApprovalID == "" && rt.dropsIncomplete(p.State):
		return BecomesSuperseded, fmt.Sprintf("state %s: the input is not complete, and %s leaves the part out of the model messages, call included", p.State, rt)
	case p.ApprovalID != "" && c.laterUser && rt.DropsPendingBeforeUser:
		return BecomesSuperseded, fmt.Sprintf("unanswered before a later user message: %s removes it, call included, before the model sees the history", rt)
	case p.ApprovalID != "" && c.laterUser && rt.RefusesPendingBeforeUser:
		return BecomesRefused, fmt.Sprintf("unanswered before a later user message: %s keeps the call and throws %s before it calls the provider", rt, missingToolResults(p.ToolCallID))
	case p.ApprovalID != "":
		return BecomesDangling, "unanswered, and later messages moved the conversation on: a call without a result" + dangling
	}
	return BecomesDangling, fmt.Sprintf("state %s has no output: a call without a result", p.State) + dangling
}

// uiParts gives the verdict of every tool part of a UI history under rt,
// and the history as rt converts it (parts the runtime removes, or refuses,
// taken out; a denial the conversion answers given its result), with the
// findings only the runtime makes (its refusals).
func uiParts(req *transcript.Request, rt Runtime) ([]PartVerdict, []Finding) {
	if len(req.Parts) == 0 {
		return nil, nil
	}
	lastUser, lastAssistant, last := -1, -1, -1
	for _, m := range req.Messages {
		if m.Source < 0 {
			continue
		}
		last = max(last, m.Source)
		switch m.Role {
		case model.RoleUser:
			lastUser = max(lastUser, m.Source)
		case model.RoleAssistant:
			lastAssistant = max(lastAssistant, m.Source)
		}
	}
	if !rt.reads(req.Format) {
		rt = Reference // an SDK's conversion reads its own UI messages only
	}
	first := map[string]string{}
	remove := map[string]bool{}
	denied := map[string]bool{}
	ran := map[string]bool{}
	var out []PartVerdict
	var findings []Finding
	for _, p := range req.Parts {
		c := uiContext{laterUser: lastUser > p.Source, laterAssistant: lastAssistant > p.Source, later: last > p.Source, format: req.Format}
		path := p.Path(req)
		if prev, seen := first[p.ToolCallID]; seen {
			c.duplicateOf = prev
		} else {
			first[p.ToolCallID] = path
		}
		becomes, detail := verdict(rt, p, c)
		v := PartVerdict{Request: req.N, Message: p.Source, Part: p.Part, Path: path, ToolCallID: p.ToolCallID, ToolName: p.ToolName,
			State: p.State, Runtime: rt.String(), Becomes: becomes, Detail: detail, Offset: p.Offset}
		if req.Format == transcript.UIMessages || req.Format == transcript.AGUI {
			for _, other := range Runtimes {
				if other.String() == rt.String() || !other.reads(req.Format) {
					continue
				}
				if b, d := verdict(other, p, c); b != becomes {
					v.Elsewhere = append(v.Elsewhere, RuntimeVerdict{Runtime: other.String(), Becomes: b, Detail: d})
				}
			}
		}
		out = append(out, v)
		switch {
		case becomes == BecomesPending && c.later:
			// Asked again before the model is called: the model never
			// sees the call while it waits.
			remove[p.ToolCallID] = true
		}
		switch becomes {
		case BecomesSuperseded:
			remove[p.ToolCallID] = true
		case BecomesRefused:
			remove[p.ToolCallID] = true
			// An answer the runtime does not find breaks PRE-10 (and PRE-01:
			// the approved call never runs); a new message over a pending
			// approval, CHAIN-05.
			check, also := "PRE-10", []string{"PRE-01"}
			if p.Became != model.PartToolApprovalResponse {
				check, also = "CHAIN-05", []string{"WIRE-01"}
			}
			f := Finding{Check: check, Also: also, Level: level(check), Kind: KindRefused, ProviderIndex: -1,
				IDs: []string{p.ToolCallID}, Parts: []string{path},
				Detail: fmt.Sprintf("%s %s (%s, state %s): %s", path, labelled([]string{p.ToolCallID}, req.Names), rt, p.State, detail)}
			f.at(req, p.Source)
			findings = append(findings, f)
		case BecomesDenial:
			if p.Became == model.PartToolApprovalResponse {
				denied[p.ToolCallID] = true
			}
		case BecomesResolved:
			if p.Became == model.PartToolApprovalResponse && c.laterAssistant && rt.ResolvesAnswerAnywhere {
				ran[p.ToolCallID] = true
			}
		}
	}
	if len(remove) > 0 || len(denied) > 0 || len(ran) > 0 {
		convert(req, remove, denied, ran)
	}
	return out, findings
}

// convert applies a runtime's conversion to the history: calls removed
// (with their approval parts and results), denials answered by a result,
// approvals the runtime acts on wherever they are given the result of the
// run in their place.
func convert(req *transcript.Request, remove, denied, ran map[string]bool) {
	for i := range req.Messages {
		m := &req.Messages[i]
		kept := m.Content[:0:0]
		for _, p := range m.Content {
			if remove[p.ToolCallID] && p.ToolCallID != "" {
				continue
			}
			if p.Type == model.PartToolApprovalResponse && denied[p.ToolCallID] {
				p = model.ToolResult(p.ToolCallID, req.Names[p.ToolCallID], model.DeniedOutput(p.Reason))
			}
			if p.Type == model.PartToolApprovalResponse && ran[p.ToolCallID] {
				p = model.ToolResult(p.ToolCallID, req.Names[p.ToolCallID], model.JSONOutput([]byte(`{"ran":"before the model call"}`)))
			}
			kept = append(kept, p)
		}
		m.Content = kept
	}
}

// partFindings names, in the findings of a UI history, the tool parts of
// the calls involved, and adds a finding for each duplicate part no
// finding covers.
func partFindings(req *transcript.Request, fs []Finding, parts []PartVerdict) []Finding {
	if len(parts) == 0 {
		return fs
	}
	byID := map[string][]string{}
	for _, v := range parts {
		byID[v.ToolCallID] = append(byID[v.ToolCallID], v.Path)
	}
	covered := map[string]bool{}
	for i := range fs {
		f := &fs[i]
		for _, id := range f.IDs {
			f.Parts = append(f.Parts, byID[id]...)
			if f.Kind == "duplicate" {
				covered[id] = true
			}
		}
	}
	for _, v := range parts {
		if v.Becomes != BecomesDuplicate || covered[v.ToolCallID] {
			continue
		}
		covered[v.ToolCallID] = true
		f := Finding{Check: "WIRE-01", Level: level("WIRE-01"), Kind: KindDuplicateCall, ProviderIndex: -1, IDs: []string{v.ToolCallID}, Parts: byID[v.ToolCallID],
			Detail: fmt.Sprintf("%s %s (state %s): %s", v.Path, labelled([]string{v.ToolCallID}, req.Names), v.State, v.Detail)}
		f.at(req, v.Message)
		fs = append(fs, f)
	}
	return fs
}
