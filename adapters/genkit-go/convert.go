package genkitgo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/firebase/genkit/go/ai"
)

// Conversion between the kit's messages and Genkit's: the history, restarts and responds a turn resumes with, and the messages a turn answers with.

// messageToKit is a Genkit message in the canonical model.
func messageToKit(msg *ai.Message) (*model.Message, error) {
	var out model.Message
	switch msg.Role {
	case ai.RoleSystem:
		return ptr(model.SystemText(msg.Text())), nil
	case ai.RoleUser:
		out.Role = model.RoleUser
	case ai.RoleModel:
		out.Role = model.RoleAssistant
	case ai.RoleTool:
		out.Role = model.RoleTool
	default:
		return nil, fmt.Errorf("role %q", msg.Role)
	}
	for j, p := range msg.Content {
		switch {
		case p.IsToolRequest():
			input, err := json.Marshal(p.ToolRequest.Input)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			out.Content = append(out.Content, model.ToolCall(p.ToolRequest.Ref, p.ToolRequest.Name, input))
		case p.IsToolResponse():
			o, err := outputOf(p.ToolResponse.Output)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			out.Content = append(out.Content, model.ToolResult(p.ToolResponse.Ref, p.ToolResponse.Name, o))
		case p.IsReasoning():
			out.Content = append(out.Content, model.Part{Type: model.PartReasoning, Text: p.Text})
		case p.IsText():
			out.Content = append(out.Content, model.Text(p.Text))
		}
	}
	if len(out.Content) == 0 {
		return nil, nil
	}
	return &out, nil
}

func ptr[T any](v T) *T { return &v }

// outputOf is a tool output as canonical: the adapter's denial and error
// outputs ({"error": "..."}) are error-text, anything else JSON.
func outputOf(v any) (*model.ToolOutput, error) {
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if s, ok := m["error"].(string); ok {
			return model.ErrorTextOutput(s), nil
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return model.JSONOutput(raw), nil
}

// toGenkit lays the conversation out as Genkit's messages, and the answers
// that follow its last assistant message as restarts (approved) and
// responses (denied) of that message's interrupted requests. An approval
// request marks its call's request as interrupted (Genkit's "interrupt"
// metadata), as Genkit left it.
func toGenkit(msgs []model.Message) (history []*ai.Message, restarts, responds []*ai.Part, given map[string]bool, err error) {
	given = map[string]bool{}
	last := -1
	for i, m := range msgs {
		if m.Role == model.RoleAssistant {
			last = i
		}
	}
	interrupted := map[string]bool{}
	calls := map[string]*ai.Part{}
	lastCalls := map[string]bool{}
	for i, m := range msgs {
		var gm *ai.Message
		switch m.Role {
		case model.RoleSystem:
			gm = ai.NewSystemTextMessage(textOf(m))
		case model.RoleUser:
			gm = &ai.Message{Role: ai.RoleUser}
		case model.RoleAssistant:
			gm = &ai.Message{Role: ai.RoleModel}
		case model.RoleTool:
			gm = &ai.Message{Role: ai.RoleTool}
		}
		if m.Role != model.RoleSystem {
			for j, p := range m.Content {
				switch p.Type {
				case model.PartText:
					gm.Content = append(gm.Content, ai.NewTextPart(p.Text))
				case model.PartReasoning:
					gm.Content = append(gm.Content, ai.NewReasoningPart(p.Text, nil))
				case model.PartToolCall:
					var input any
					if len(p.Input) > 0 {
						if err := json.Unmarshal(p.Input, &input); err != nil {
							return nil, nil, nil, nil, fmt.Errorf("messages[%d].content[%d].input: %w", i, j, err)
						}
					}
					part := ai.NewToolRequestPart(&ai.ToolRequest{Name: p.ToolName, Ref: p.ToolCallID, Input: input})
					calls[p.ToolCallID] = part
					if i == last {
						lastCalls[p.ToolCallID] = true
					}
					gm.Content = append(gm.Content, part)
				case model.PartToolApprovalRequest:
					part, ok := calls[p.ToolCallID]
					if !ok {
						return nil, nil, nil, nil, notExpressible{fmt.Sprintf("messages[%d].content[%d]: an approval request for a call the message does not hold (%s)", i, j, p.ToolCallID)}
					}
					if i == last {
						if part.Metadata == nil {
							part.Metadata = map[string]any{}
						}
						part.Metadata["interrupt"] = map[string]any{"message": "Tool not in approved list: " + part.ToolRequest.Name}
						interrupted[p.ApprovalID] = true
					}
				case model.PartToolResult:
					var out any = map[string]any{}
					if p.Output != nil {
						out = toolOutput(p.Output)
					}
					if call, ok := calls[p.ToolCallID]; ok && i > last && lastCalls[p.ToolCallID] && call.ToolRequest.Name == p.ToolName {
						given[p.ToolCallID] = true
						if _, waits := call.Metadata["interrupt"]; waits {
							// A result the application gives an interrupted
							// call: Genkit's answer to an interrupt with an
							// output.
							responds = append(responds, respondWith(call, out))
							continue
						}
						// The result of a call that ran beside the interrupted
						// ones: Genkit keeps it on the request, as pending output.
						if call.Metadata == nil {
							call.Metadata = map[string]any{}
						}
						call.Metadata["pendingOutput"] = out
						continue
					}
					gm.Content = append(gm.Content, ai.NewToolResponsePart(&ai.ToolResponse{Name: p.ToolName, Ref: p.ToolCallID, Output: out}))
				case model.PartToolApprovalResponse:
					if i < last {
						continue // an answer Genkit resolved before: history
					}
					call, ok := calls[p.ApprovalID]
					if !ok || !interrupted[p.ApprovalID] {
						return nil, nil, nil, nil, notExpressible{fmt.Sprintf("messages[%d].content[%d]: an answer to %q, which is no interrupted request of the last model message: Genkit builds an answer from its interrupted request", i, j, p.ApprovalID)}
					}
					if p.Approved {
						restarts = append(restarts, restart(call))
					} else {
						responds = append(responds, respond(call, p.Reason))
					}
				default:
					return nil, nil, nil, nil, notExpressible{fmt.Sprintf("messages[%d].content[%d]: a %s part has no place in Genkit's messages", i, j, p.Type)}
				}
			}
		}
		if len(gm.Content) > 0 {
			history = append(history, gm)
		}
	}
	if (len(restarts) > 0 || len(responds) > 0) && len(history) > 0 && history[len(history)-1].Role != ai.RoleModel {
		return nil, nil, nil, nil, notExpressible{"answers to interrupts with more messages after the model's: Genkit resumes from the model message that holds the interrupts"}
	}
	return history, restarts, responds, given, nil
}

func textOf(m model.Message) string {
	var b strings.Builder
	for _, p := range m.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// toolOutput is a canonical tool output as the value Genkit keeps.
func toolOutput(o *model.ToolOutput) any {
	switch o.Type {
	case model.OutputErrorText, model.OutputText:
		if s := o.TextValue(); s != "" || o.Type == model.OutputText {
			if o.Type == model.OutputErrorText {
				return map[string]any{"error": s}
			}
			return s
		}
	case model.OutputExecutionDenied:
		return denial(o.Reason)
	}
	var v any
	if err := json.Unmarshal(o.Value, &v); err != nil {
		return string(o.Value)
	}
	if o.Type == model.OutputErrorJSON {
		return map[string]any{"error": string(o.Value)}
	}
	return v
}

// denial is the output the application answers a denied interrupt with.
func denial(reason string) map[string]any {
	text := "denied"
	if reason != "" {
		text += ": " + reason
	}
	return map[string]any{"error": text}
}

// restart approves an interrupted request, as ToolApproval's
// documentation says: a restart carrying {"toolApproved": true}.
func restart(call *ai.Part) *ai.Part {
	meta := map[string]any{"resumed": map[string]any{"toolApproved": true}}
	p := ai.NewToolRequestPart(&ai.ToolRequest{Name: call.ToolRequest.Name, Ref: call.ToolRequest.Ref, Input: call.ToolRequest.Input})
	p.Metadata = meta
	return p
}

// respond denies an interrupted request: a response with the denial
// output.
func respond(call *ai.Part, reason string) *ai.Part { return respondWith(call, denial(reason)) }

// respondWith answers an interrupted request with an output, as the
// tool's Respond does.
func respondWith(call *ai.Part, output any) *ai.Part {
	p := ai.NewToolResponsePart(&ai.ToolResponse{Name: call.ToolRequest.Name, Ref: call.ToolRequest.Ref, Output: output})
	p.Metadata = map[string]any{"interruptResponse": true}
	return p
}

// answer lays the messages Genkit added to the conversation out as the
// turn's answer: model messages are assistant messages, with an approval
// request (its id the call's ref) after each interrupted request; tool
// messages are tool messages.
func answer(all []*ai.Message, n int, given map[string]bool) ([]model.Message, error) {
	var out []model.Message
	if n > len(all) {
		n = len(all)
	}
	for i, msg := range all[n:] {
		cm, err := messageToKit(msg)
		if err != nil {
			return nil, fmt.Errorf("history[%d]: %w", n+i, err)
		}
		if cm == nil {
			continue
		}
		if msg.Role == ai.RoleTool {
			// The results the conversation already held (given back to
			// Genkit as pending outputs or answers to interrupts) are not
			// the turn's.
			kept := cm.Content[:0]
			for _, p := range cm.Content {
				if !(p.Type == model.PartToolResult && given[p.ToolCallID]) {
					kept = append(kept, p)
				}
			}
			if cm.Content = kept; len(kept) == 0 {
				continue
			}
		}
		if msg.Role == ai.RoleModel {
			var ran []model.Part
			for _, gp := range msg.Content {
				if gp.IsInterrupt() && gp.ToolRequest != nil {
					cm.Content = append(cm.Content, model.ApprovalRequest(gp.ToolRequest.Ref, gp.ToolRequest.Ref))
				}
				if v, ok := gp.Metadata["pendingOutput"]; ok && gp.ToolRequest != nil {
					o, err := outputOf(v)
					if err != nil {
						return nil, err
					}
					ran = append(ran, model.ToolResult(gp.ToolRequest.Ref, gp.ToolRequest.Name, o))
				}
			}
			if len(ran) > 0 {
				// Calls that ran beside the interrupted ones: Genkit keeps
				// their outputs on the requests (pendingOutput) until resume.
				out = append(out, *cm, model.Message{Role: model.RoleTool, Content: ran})
				continue
			}
		}
		out = append(out, *cm)
	}
	return out, nil
}
