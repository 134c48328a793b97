package transcript

import (
	"bytes"
	"encoding/json"
	"errors"

	"strconv"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
)

// maxRepairs bounds the fields a message may have left out.
const maxRepairs = 256

// lenientMessage decodes a model message (the kit's canonical model: the
// AI SDK 5+ model messages) leniently: the field names of AI SDK 4 (a tool
// call's args, a tool result's result and isError) are read as their
// successors, and fields or part types the model does not know, which say
// nothing about pairing, are left out, each kind with a note. What still
// does not decode is an error.
func (rd *reader) lenientMessage(req *Request, e element) (model.Message, error) {
	m, err := model.DecodeMessage(e.raw)
	if err == nil {
		return m, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(e.raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return m, err
	}
	if legacyModel(v) {
		rd.note(req, e, "ai-sdk-4", e.path(), "AI SDK 4 tool parts read: a tool call's args as its input, a tool result's result as its output (isError an error output)")
	}
	for range maxRepairs {
		raw, _ := json.Marshal(v)
		m, err = model.DecodeMessage(raw)
		if err == nil {
			return m, nil
		}
		var de *model.DecodeError
		if !errors.As(err, &de) {
			return m, err
		}
		path := strings.TrimPrefix(de.Path, "message")
		switch {
		case strings.HasPrefix(de.Reason, "unknown field"):
			if !drop(&v, path) {
				return m, err
			}
			rd.note(req, e, "field:"+lastSegment(path), e.path()+path, "a field this format does not know, which says nothing about pairing: not read")
		case strings.HasPrefix(de.Reason, "unknown part type") && strings.HasSuffix(path, ".type"):
			part := strings.TrimSuffix(path, ".type")
			if !drop(&v, part) {
				return m, err
			}
			rd.note(req, e, "part:"+de.Reason, e.path()+part, de.Reason+": a part that says nothing about tool calls, not read")
		case strings.HasPrefix(de.Reason, "unknown output type") && strings.HasSuffix(path, ".output.type"):
			// A newer output type (the AI SDK's content parts): its value is
			// read as JSON; pairing does not depend on it.
			if !setAt(&v, splitPath(path), "json") {
				return m, err
			}
			rd.note(req, e, "output:"+de.Reason, e.path()+path, de.Reason+": the output's value read as JSON")
		default:
			return m, err
		}
	}
	return m, err
}

// legacyModel renames the AI SDK 4 fields of a model message's tool parts
// in place, and reports whether it did.
func legacyModel(v any) bool {
	msg, _ := v.(map[string]any)
	parts, _ := msg["content"].([]any)
	changed := false
	for _, p := range parts {
		part, _ := p.(map[string]any)
		switch part["type"] {
		case "tool-call":
			if args, ok := part["args"]; ok {
				if _, has := part["input"]; !has {
					if s, isString := args.(string); isString && json.Valid([]byte(s)) {
						var in any
						_ = json.Unmarshal([]byte(s), &in)
						args = in
					}
					part["input"] = args
				}
				delete(part, "args")
				changed = true
			}
		case "tool-result":
			if res, ok := part["result"]; ok {
				if _, has := part["output"]; !has {
					isErr, _ := part["isError"].(bool)
					out := map[string]any{"type": "json", "value": res}
					if s, isString := res.(string); isString {
						out["type"] = "text"
						out["value"] = s
						if isErr {
							out["type"] = "error-text"
						}
					} else if isErr {
						out["type"] = "error-json"
					}
					part["output"] = out
				}
				delete(part, "result")
				delete(part, "isError")
				delete(part, "experimental_content")
				changed = true
			}
		}
	}
	return changed
}

// drop removes the value at path (".content[0].args") from v.
func drop(v *any, path string) bool {
	segs := splitPath(path)
	if len(segs) == 0 {
		return false
	}
	cur := *v
	for _, s := range segs[:len(segs)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(c) {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	last := segs[len(segs)-1]
	switch c := cur.(type) {
	case map[string]any:
		if _, ok := c[last]; !ok {
			return false
		}
		delete(c, last)
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(c) {
			return false
		}
		// The parent holds the array: rebuild it without element i.
		parent := segs[:len(segs)-1]
		kept := append(append([]any{}, c[:i]...), c[i+1:]...)
		return setAt(v, parent, kept)
	}
	return false
}

// setAt puts val at the path segs of v.
func setAt(v *any, segs []string, val any) bool {
	if len(segs) == 0 {
		*v = val
		return true
	}
	cur := *v
	for _, s := range segs[:len(segs)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(c) {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	last := segs[len(segs)-1]
	switch c := cur.(type) {
	case map[string]any:
		c[last] = val
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(c) {
			return false
		}
		c[i] = val
		return true
	}
	return false
}

// splitPath splits ".content[0].args" into content, 0, args.
func splitPath(path string) []string {
	var out []string
	for _, s := range strings.Split(strings.ReplaceAll(path, "[", ".["), ".") {
		if s == "" {
			continue
		}
		out = append(out, strings.Trim(s, "[]"))
	}
	return out
}

func lastSegment(path string) string {
	segs := splitPath(path)
	if len(segs) == 0 {
		return path
	}
	return segs[len(segs)-1]
}
