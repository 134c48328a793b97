package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
)

// legacyStates maps the AI SDK 4 tool-invocation states to the states of
// the AI SDK 5 tool parts.
var legacyStates = map[string]string{"partial-call": "input-streaming", "call": "input-available", "result": "output-available"}

// uiPartTypes are the UI part types the decoder reads.
func uiPartType(t string) bool {
	switch {
	case t == "text" || t == "dynamic-tool" || strings.HasPrefix(t, "tool-") || strings.HasPrefix(t, "data-"):
		return true
	}
	return map[string]bool{"step-start": true, "reasoning": true, "file": true, "source-url": true, "source-document": true}[t]
}

// legacyInvocation is an AI SDK 3/4 tool invocation.
type legacyInvocation struct {
	State      string          `json:"state"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
}

// legacyUI rewrites a UI message of an earlier AI SDK version into the
// shape the UI decoder reads: AI SDK 4 tool-invocation parts and AI SDK 3
// toolInvocations become tool-NAME parts in the matching state (args the
// input, result the output); part types that say nothing about tool calls
// and that the decoder does not know are left out, with a note. A message
// already in the current shape is returned as it is.
func (rd *reader) legacyUI(req *Request, e element) element {
	var m map[string]json.RawMessage
	if json.Unmarshal(e.raw, &m) != nil {
		return e // the decoder will say what is wrong
	}
	var parts []json.RawMessage
	if raw, ok := m["parts"]; ok && present(raw) {
		if json.Unmarshal(raw, &parts) != nil {
			return e
		}
	} else if raw, ok := m["toolInvocations"]; ok && present(raw) {
		// AI SDK 3: text in content, calls in toolInvocations.
		var invs []json.RawMessage
		if json.Unmarshal(raw, &invs) != nil {
			return e
		}
		var text string
		if json.Unmarshal(m["content"], &text) == nil && text != "" {
			t, _ := json.Marshal(map[string]string{"type": "text", "text": text})
			parts = append(parts, t)
		}
		for k, inv := range invs {
			field, _ := json.Marshal(fmt.Sprintf("toolInvocations[%d]", k))
			wrapped, _ := json.Marshal(map[string]json.RawMessage{"type": json.RawMessage(`"tool-invocation"`), "toolInvocation": inv, "x-ack-field": field})
			parts = append(parts, wrapped)
		}
		rd.note(req, e, "toolInvocations", e.path()+".toolInvocations", "AI SDK 3 toolInvocations read as tool parts (state partial-call as input-streaming, call as input-available, result as output-available; args the input, result the output)")
		rd.noted["tool-invocation"] = true
	} else {
		return e
	}
	changed := m["parts"] == nil
	for k, raw := range parts {
		var head struct {
			Type       string           `json:"type"`
			Invocation legacyInvocation `json:"toolInvocation"`
			Field      string           `json:"x-ack-field"`
		}
		if json.Unmarshal(raw, &head) != nil {
			continue
		}
		path := fmt.Sprintf("%s.parts[%d]", e.path(), k)
		if head.Type != "tool-invocation" && isToolPart(head.Type) {
			if fixed, ok := rd.unknownState(req, e, path, raw); ok {
				parts[k], raw, changed = fixed, fixed, true
			}
		}
		switch {
		case head.Type == "tool-invocation":
			inv := head.Invocation
			state, ok := legacyStates[inv.State]
			if !ok {
				state = inv.State // the decoder names an unknown state
			}
			field := head.Field
			if field == "" {
				field = fmt.Sprintf("parts[%d]", k)
			}
			p := map[string]any{"type": "tool-" + inv.ToolName, "toolCallId": inv.ToolCallID, "state": state,
				"x-ack-legacy-state": inv.State, "x-ack-field": field}
			if present(inv.Args) {
				p["input"] = inv.Args
			}
			if inv.State == "result" {
				out := inv.Result
				if !present(out) {
					out = json.RawMessage("null")
				}
				p["output"] = out
			}
			parts[k], _ = json.Marshal(p)
			changed = true
			rd.note(req, e, "tool-invocation", path, "AI SDK 4 tool-invocation parts read as tool parts (state partial-call as input-streaming, call as input-available, result as output-available; args the input, result the output)")
		case head.Type == "":
			// the decoder says the type is missing
		case isToolPart(head.Type):
			// Its place, before parts left out move it.
			var p map[string]json.RawMessage
			if json.Unmarshal(raw, &p) == nil {
				p["x-ack-field"], _ = json.Marshal(fmt.Sprintf("parts[%d]", k))
				parts[k], _ = json.Marshal(p)
			}
		case !uiPartType(head.Type):
			parts[k] = nil
			changed = true
			rd.note(req, e, "part:"+head.Type, path, fmt.Sprintf("part type %q says nothing about tool calls: not read", head.Type))
		}
	}
	if !changed {
		return e
	}
	kept := parts[:0]
	for _, p := range parts {
		if p != nil {
			kept = append(kept, p)
		}
	}
	m["parts"], _ = json.Marshal(kept)
	delete(m, "toolInvocations")
	e.raw, _ = json.Marshal(m)
	return e
}

// uiStates are the tool part states of the AI SDK 5 to 7.
var uiStates = map[string]bool{"input-streaming": true, "input-available": true, "approval-requested": true, "approval-responded": true,
	"output-available": true, "output-error": true, "output-denied": true}

// unknownState reads a tool part whose state no AI SDK version this kit
// knows writes: with an output it is read as output-available, with an
// error text as output-error, otherwise as input-available (a call without
// a result), with a note.
func (rd *reader) unknownState(req *Request, e element, path string, raw json.RawMessage) (json.RawMessage, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(raw, &p) != nil {
		return nil, false
	}
	var state string
	if json.Unmarshal(p["state"], &state) != nil || uiStates[state] {
		return nil, false
	}
	read := "input-available"
	switch {
	case present(p["output"]):
		read = "output-available"
	case present(p["errorText"]):
		read = "output-error"
	}
	p["state"], _ = json.Marshal(read)
	p["x-ack-legacy-state"], _ = json.Marshal(state)
	out, _ := json.Marshal(p)
	rd.note(req, e, "state:"+state, path, fmt.Sprintf("state %q is not one the AI SDK writes: read as %s", state, read))
	return out, true
}

// note adds a note to the request once per key.
func (rd *reader) note(req *Request, e element, key, field, text string) {
	if rd.noted == nil {
		rd.noted = map[string]bool{}
	}
	if rd.noted[key] {
		return
	}
	rd.noted[key] = true
	req.Notes = append(req.Notes, Note{Offset: e.offset, Field: field, Text: text + " (first here)"})
}
