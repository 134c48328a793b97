package model

import "sync"

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
	// requestOfCall maps a toolCallId to its first approval request, made
	// on the first RequestForCall.
	requestOfCall     map[string]Loc
	requestOfCallOnce sync.Once
}

// IndexOf indexes the tool parts of msgs. The index refers to msgs; do not
// change msgs while using it.
func IndexOf(msgs []Message) *Index {
	// The maps are made at their size, so that indexing a long
	// conversation costs per part what a short one does.
	var calls, results, requests, responses int
	for _, m := range msgs {
		for _, p := range m.Content {
			switch p.Type {
			case PartToolCall:
				calls++
			case PartToolResult:
				results++
			case PartToolApprovalRequest:
				requests++
			case PartToolApprovalResponse:
				responses++
			}
		}
	}
	ix := &Index{
		Calls:     make(map[string]Loc, calls),
		Results:   make(map[string][]Loc, results),
		Requests:  make(map[string]Loc, requests),
		Responses: make(map[string][]Loc, responses),
		msgs:      msgs,
	}
	// A call's first result and an approval's first response are cut from
	// one array; only a second one for the same id costs an allocation.
	locs := make([]Loc, 0, results+responses)
	first := func(loc Loc) []Loc {
		locs = append(locs, loc)
		return locs[len(locs)-1 : len(locs) : len(locs)]
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
				if prev, seen := ix.Results[p.ToolCallID]; seen {
					ix.Results[p.ToolCallID] = append(prev, loc)
				} else {
					ix.Results[p.ToolCallID] = first(loc)
				}
			case PartToolApprovalRequest:
				if _, seen := ix.Requests[p.ApprovalID]; !seen {
					ix.Requests[p.ApprovalID] = loc
					ix.RequestOrder = append(ix.RequestOrder, p.ApprovalID)
				}
			case PartToolApprovalResponse:
				if prev, seen := ix.Responses[p.ApprovalID]; seen {
					ix.Responses[p.ApprovalID] = append(prev, loc)
				} else {
					ix.Responses[p.ApprovalID] = first(loc)
				}
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
	ix.requestOfCallOnce.Do(func() {
		ix.requestOfCall = make(map[string]Loc, len(ix.RequestOrder))
		for _, id := range ix.RequestOrder {
			loc := ix.Requests[id]
			call := ix.Part(loc).ToolCallID
			if _, seen := ix.requestOfCall[call]; !seen {
				ix.requestOfCall[call] = loc
			}
		}
	})
	loc, ok := ix.requestOfCall[toolCallID]
	if !ok {
		return Part{}, false
	}
	return ix.Part(loc), true
}
