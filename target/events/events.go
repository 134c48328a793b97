// Package events lays a turn's added messages out as its stream events, for
// an adapter whose SDK gives whole events (each model call's final content,
// each step's results) rather than stream parts of its own: the layout
// of driver protocol v1's "Stream events".
package events

import "github.com/approval-conformance-kit/ack/model"

// FromMessages lays a turn's added messages out as its stream events, in
// the order the messages hold them: the results of the answers resolved
// before the first model call, then for each model call (an assistant
// message) a start-step, its text, its calls, its approval requests, the
// results of the tool messages after it, and a finish-step (tool-calls
// when it called tools, else stop); finish, with the turn's reason, last.
func FromMessages(msgs []model.Message, finish string) []model.Event {
	var out []model.Event
	results := func(m model.Message) {
		for _, p := range m.Content {
			if p.Type == model.PartToolResult {
				out = append(out, model.PartEvent(p))
			}
		}
	}
	i := 0
	for ; i < len(msgs) && msgs[i].Role == model.RoleTool; i++ {
		results(msgs[i])
	}
	for ; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != model.RoleAssistant {
			continue
		}
		out = append(out, model.Event{Type: model.EventStartStep})
		calls := false
		for _, p := range m.Content {
			switch p.Type {
			case model.PartText:
				out = append(out, model.Event{Type: model.EventTextDelta, Text: p.Text})
			case model.PartToolCall:
				calls = true
				out = append(out, model.PartEvent(p))
			}
		}
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalRequest {
				out = append(out, model.PartEvent(p))
			}
		}
		for i+1 < len(msgs) && msgs[i+1].Role == model.RoleTool {
			i++
			results(msgs[i])
		}
		reason := "stop"
		if calls {
			reason = "tool-calls"
		}
		out = append(out, model.Event{Type: model.EventFinishStep, FinishReason: reason})
	}
	return append(out, model.Event{Type: model.EventFinish, FinishReason: finish})
}
