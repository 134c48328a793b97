package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
)

// item is one thing a provider's wire carries: a text, a call or a result.
type item struct {
	role, kind, id, name, text string
}

func (it item) String() string {
	switch it.kind {
	case "call":
		return fmt.Sprintf("%s tool call %s %s %s", it.role, it.id, it.name, clip(it.text, 200))
	case "result":
		return fmt.Sprintf("tool result for %s: %s", it.id, clip(it.text, 200))
	}
	return fmt.Sprintf("%s text %q", it.role, clip(it.text, 200))
}

// itemsOf lays a prompt out as a wire carries it: approval parts and
// reasoning left out, texts of one message joined, outputs as text.
func itemsOf(msgs []model.Message) []item {
	var out []item
	for _, m := range msgs {
		role := string(m.Role)
		for _, p := range m.Content {
			switch p.Type {
			case model.PartText:
				if n := len(out); n > 0 && out[n-1].kind == "text" && out[n-1].role == role {
					out[n-1].text += p.Text
					continue
				}
				if p.Text != "" {
					out = append(out, item{role: role, kind: "text", text: p.Text})
				}
			case model.PartToolCall:
				out = append(out, item{role: role, kind: "call", id: p.ToolCallID, name: p.ToolName, text: canonicalJSON(p.Input)})
			case model.PartToolResult:
				out = append(out, item{role: "tool", kind: "result", id: p.ToolCallID, text: outputText(p.Output)})
			}
		}
	}
	return out
}

// outputText is an output as a wire carries it, with JSON in one form and
// a JSON string read as its text (a wire cannot tell them apart).
func outputText(o *model.ToolOutput) string {
	s := provider.OutputText(o)
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	if str, ok := v.(string); ok {
		return str
	}
	return canonicalJSON([]byte(s))
}

// canonicalJSON writes a JSON value with its keys sorted.
func canonicalJSON(raw []byte) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // decoded JSON always marshals
	return string(b)
}

// diffPrompts says where two prompts first differ ("" when they do not):
// "at item N" or "in length".
func diffPrompts(recorded, replayed []model.Message) string {
	r, p := itemsOf(recorded), itemsOf(replayed)
	for i := 0; i < min(len(r), len(p)); i++ {
		if r[i] != p[i] {
			return fmt.Sprintf("at item %d of %d (recorded) and %d (replayed)", i+1, len(r), len(p))
		}
	}
	if len(r) != len(p) {
		return fmt.Sprintf("in length: %d item(s) recorded, %d replayed", len(r), len(p))
	}
	return ""
}

// around shows a side of a difference: its first item that differs from
// the other side, with the item before it for context.
func around(side, other []item) string {
	i := 0
	for i < min(len(side), len(other)) && side[i] == other[i] {
		i++
	}
	var parts []string
	if i > 0 {
		parts = append(parts, fmt.Sprintf("#%d %s", i, side[i-1]))
	}
	if i < len(side) {
		parts = append(parts, fmt.Sprintf("#%d %s", i+1, side[i]))
	} else {
		parts = append(parts, fmt.Sprintf("(the prompt ends after %d item(s))", len(side)))
	}
	return strings.Join(parts, " | ")
}
