package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference/chatserver"
)

// UIPart is one tool part of a UI message (the AI SDK's tool-NAME and
// dynamic-tool parts, the AI SDK 4 tool-invocation parts, TanStack AI's
// tool-call parts) and what the reference chat server's conversion made of
// it. Lint reports, part by part, what each becomes.
type UIPart struct {
	// Source is the index of the message in the request's array, Part the
	// part's index in the message's parts (or in an AI SDK 3 message's
	// toolInvocations), Field its name in the message ("parts[2]"), Offset
	// where the message starts.
	Source     int
	Part       int
	Field      string
	Offset     int64
	ToolCallID string
	ToolName   string
	// State is the part's state as written ("input-available",
	// "approval-responded", an AI SDK 4 "call", TanStack's "complete").
	State string
	// ApprovalID is the part's approval id; Answered and Approved its
	// answer, when it has one.
	ApprovalID string
	Answered   bool
	Approved   bool
	// Became is what the conversion made of the client's knowledge of the
	// call: a tool result (Denied for a denial's), an approval response, or
	// "" for none.
	Became           model.PartType
	Denied           bool
	ProviderExecuted bool
}

// Path names the part ("messages[1].parts[2]").
func (p UIPart) Path(req *Request) string {
	return req.Path(p.Source) + "." + p.Field
}

// rawToolPart is what a written tool part says of itself.
type rawToolPart struct {
	Type        string `json:"type"`
	State       string `json:"state"`
	ToolCallID  string `json:"toolCallId"`
	ID          string `json:"id"`
	LegacyState string `json:"x-ack-legacy-state"`
	Field       string `json:"x-ack-field"`
	Approval    *struct {
		ID string `json:"id"`
	} `json:"approval"`
	ProviderExecuted bool `json:"providerExecuted"`
}

// recordParts adds the tool parts of element e (one chat message) with the
// conversion's outcomes to the request, matching each outcome to the
// written part it came from.
func recordParts(req *Request, e element, outcomes []chatserver.Outcome) {
	if len(outcomes) == 0 {
		return
	}
	var m struct {
		Parts []rawToolPart `json:"parts"`
	}
	_ = json.Unmarshal(e.raw, &m) // it decoded already
	next := 0
	for _, o := range outcomes {
		p := UIPart{Source: e.index, Part: -1, Field: "parts", Offset: e.offset, ToolCallID: o.ToolCallID, ToolName: o.ToolName, State: string(o.State)}
		for k := next; k < len(m.Parts); k++ {
			r := m.Parts[k]
			if !isToolPart(r.Type) || (r.ToolCallID != o.ToolCallID && r.ID != o.ToolCallID) {
				continue
			}
			p.Part, p.Field, next = k, fmt.Sprintf("parts[%d]", k), k+1
			if r.Field != "" { // a legacy message, rewritten
				p.Field = r.Field
				fmt.Sscanf(r.Field[strings.Index(r.Field, "[")+1:], "%d", &p.Part)
			}
			p.ProviderExecuted = r.ProviderExecuted
			if r.Approval != nil {
				p.ApprovalID = r.Approval.ID
			}
			switch {
			case r.LegacyState != "":
				p.State = r.LegacyState
			case r.State != "":
				p.State = r.State
			}
			break
		}
		if b := o.Became; b != nil {
			p.Became = b.Type
			p.ProviderExecuted = p.ProviderExecuted || b.ProviderExecuted
			switch b.Type {
			case model.PartToolResult:
				p.Denied = b.Output != nil && b.Output.Type == model.OutputExecutionDenied
			case model.PartToolApprovalResponse:
				p.ApprovalID, p.Answered, p.Approved = b.ApprovalID, true, b.Approved
			}
		}
		req.Parts = append(req.Parts, p)
	}
}

func isToolPart(t string) bool {
	return t == "dynamic-tool" || t == "tool-call" || strings.HasPrefix(t, "tool-")
}
