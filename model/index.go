package model

// Loc is where a part sits in a conversation.
type Loc struct {
	Message int // index of the message
	Part    int // index of the part in the message's content
}

// Index is a lookup table over a conversation's tool parts.
type Index struct {
	// Calls maps a toolCallId to its first tool-call part.
	Calls map[string]Loc
	// CallOrder lists toolCallIds in the order their calls appear.
	CallOrder []string
	// Results maps a toolCallId to every tool-result part for it.
	Results map[string][]Loc
	// Requests maps an approvalId to its first tool-approval-request part.
	Requests map[string]Loc
	// RequestOrder lists approvalIds in the order their requests appear.
	RequestOrder []string
	// Responses maps an approvalId to every tool-approval-response part for it.
	Responses map[string][]Loc
	// ResponseOrder lists every response's location in order.
	ResponseOrder []Loc

	msgs []Message
}

// IndexOf indexes the tool parts of msgs. The index refers to msgs; do not
// change msgs while using it.
func IndexOf(msgs []Message) *Index {
	ix := &Index{
		Calls:     map[string]Loc{},
		Results:   map[string][]Loc{},
		Requests:  map[string]Loc{},
		Responses: map[string][]Loc{},
		msgs:      msgs,
	}
	for i, m := range msgs {
		for j, p := range m.Content {
			loc := Loc{Message: i, Part: j}
			switch p.Type {
			case PartToolCall:
				if _, seen := ix.Calls[p.ToolCallID]; !seen {
					ix.Calls[p.ToolCallID] = loc
					ix.CallOrder = append(ix.CallOrder, p.ToolCallID)
				}
			case PartToolResult:
				ix.Results[p.ToolCallID] = append(ix.Results[p.ToolCallID], loc)
			case PartToolApprovalRequest:
				if _, seen := ix.Requests[p.ApprovalID]; !seen {
					ix.Requests[p.ApprovalID] = loc
					ix.RequestOrder = append(ix.RequestOrder, p.ApprovalID)
				}
			case PartToolApprovalResponse:
				ix.Responses[p.ApprovalID] = append(ix.Responses[p.ApprovalID], loc)
				ix.ResponseOrder = append(ix.ResponseOrder, loc)
			}
		}
	}
	return ix
}

// Part returns the part at loc.
func (ix *Index) Part(loc Loc) Part { return ix.msgs[loc.Message].Content[loc.Part] }

// Call returns the tool-call part with the given id.
func (ix *Index) Call(toolCallID string) (Part, bool) {
	loc, ok := ix.Calls[toolCallID]
	if !ok {
		return Part{}, false
	}
	return ix.Part(loc), true
}

// Result returns the first tool-result part for the call.
func (ix *Index) Result(toolCallID string) (Part, bool) {
	locs := ix.Results[toolCallID]
	if len(locs) == 0 {
		return Part{}, false
	}
	return ix.Part(locs[0]), true
}

// Request returns the tool-approval-request part with the given id.
func (ix *Index) Request(approvalID string) (Part, bool) {
	loc, ok := ix.Requests[approvalID]
	if !ok {
		return Part{}, false
	}
	return ix.Part(loc), true
}

// RequestForCall returns the first approval request for the call.
func (ix *Index) RequestForCall(toolCallID string) (Part, bool) {
	for _, id := range ix.RequestOrder {
		p := ix.Part(ix.Requests[id])
		if p.ToolCallID == toolCallID {
			return p, true
		}
	}
	return Part{}, false
}
