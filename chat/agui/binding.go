package agui

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/approval-conformance-kit/ack/chat"
)

// binding is TanStack AI's "tanstack:interruptBinding" of a tool approval:
// it ties an interrupt to the tool (through hashes of the tool's input and
// approval schemas), to the call, and to the run it interrupted. A client
// (@tanstack/ai-client 0.33) resumes an approval through its approval API
// only when the binding matches its own definition of the tool; without a
// binding the interrupt is a generic one.
type binding struct {
	V                  int             `json:"v"`
	Kind               string          `json:"kind"`
	InterruptID        string          `json:"interruptId"`
	ToolName           string          `json:"toolName"`
	ToolCallID         string          `json:"toolCallId"`
	OriginalArgs       json.RawMessage `json:"originalArgs,omitempty"`
	InputSchemaHash    string          `json:"inputSchemaHash"`
	ApprovalSchemaHash string          `json:"approvalSchemaHash"`
	ResponseSchemaHash string          `json:"responseSchemaHash"`
	InterruptedRunID   string          `json:"interruptedRunId"`
	Generation         int             `json:"generation"`
}

// bindingVersion is the binding format TanStack AI 0.58 writes.
const bindingVersion = 1

// The scripted server's tools have neither an input schema nor an approval
// schema, so every approval has the same response schema and hashes; a
// client binds them when its definition of the tool has none either.
var (
	// approvalResponseSchema is the answer an approval takes: approved true
	// or false, nothing else.
	approvalResponseSchema = map[string]any{"oneOf": []any{decisionSchema(true), decisionSchema(false)}}

	approvalResponseSchemaJSON = mustJSON(approvalResponseSchema)
	responseSchemaHash         = digest(canonicalJSON(approvalResponseSchema))
	approvalSchemaHash         = digest(canonicalJSON(map[string]any{"approve": nil, "reject": nil}))
	// noInputSchemaHash is the hash TanStack AI gives a tool with no input
	// schema: the digest of the text "undefined".
	noInputSchemaHash = digest("undefined")
)

func decisionSchema(approved bool) map[string]any {
	return map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"approved": map[string]any{"const": approved}},
		"required":             []any{"approved"},
		"additionalProperties": false,
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("agui: %v", err)) // a literal of maps, slices and scalars always marshals
	}
	return b
}

// approvalInterrupt is the interrupt of an approval request, as TanStack AI
// 0.58 writes it: a response schema, the legacy metadata (kind, tool name,
// input) and the binding to the interrupted run. The kit adds the approval
// id and signature to the metadata for clients that read them.
func approvalInterrupt(id string, ev chat.Event, runID string) interrupt {
	return interrupt{ID: id, Reason: "tool_call", ToolCallID: ev.ToolCallID,
		Message:        "Approval required to run " + ev.ToolName,
		ResponseSchema: approvalResponseSchemaJSON,
		Metadata: interruptMetadata{Kind: "approval", ToolName: ev.ToolName, Input: ev.Input,
			ApprovalID: ev.Approval.ID, Signature: ev.Approval.Signature,
			Binding: &binding{V: bindingVersion, Kind: "tool-approval", InterruptID: id, ToolName: ev.ToolName, ToolCallID: ev.ToolCallID,
				OriginalArgs: ev.Input, InputSchemaHash: noInputSchemaHash, ApprovalSchemaHash: approvalSchemaHash,
				ResponseSchemaHash: responseSchemaHash, InterruptedRunID: runID, Generation: 0}}}
}

// digest is TanStack AI's default interrupt hash: "sha256:" and the hex
// SHA-256 of the text.
func digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON encodes a value of maps, slices, strings, booleans, float64
// and nil as TanStack AI's canonical interrupt JSON does: object keys sorted
// as JavaScript sorts strings (by UTF-16 code units), no spaces, strings and
// numbers as JSON.stringify writes them.
func canonicalJSON(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case string:
		writeJSString(b, x)
	case float64:
		n, _ := json.Marshal(x) // encoding/json writes float64 as ES6 does
		b.Write(n)
	case int:
		fmt.Fprintf(b, "%d", x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("agui: canonical JSON of %T", v)) // only the literals above are hashed
	}
}

// lessUTF16 orders strings as JavaScript's default sort does.
func lessUTF16(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// writeJSString writes a string as JSON.stringify does: only the quote, the
// backslash and control characters are escaped.
func writeJSString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
