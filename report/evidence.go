package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// The report treats evidence entries as opaque JSON: whatever their Go
// type, they are marshalled and read back as generic values. The renderers
// below know the usual shapes (the simulator's journal entries, canonical
// messages, the harness's tool runs, the turns) and fall back to compact
// JSON for anything else.

// entry is one evidence entry as JSON.
type entry struct {
	raw    []byte                     // compact JSON
	obj    map[string]any             // the entry as an object (UseNumber), or nil
	fields map[string]json.RawMessage // the object's raw values, in their own key order
	err    error                      // why the entry could not be encoded
}

func decodeEntry(e any) entry {
	raw, err := marshalCompact(e)
	if err != nil {
		return entry{err: err}
	}
	d := entry{raw: raw}
	if len(raw) > 0 && raw[0] == '{' {
		d.obj, _ = decodeGeneric(raw).(map[string]any)
		_ = json.Unmarshal(raw, &d.fields)
	}
	return d
}

// marshalCompact encodes v as compact JSON without HTML escaping.
func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func decodeGeneric(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// compact writes a generic value as one line of JSON.
func compact(v any) string {
	b, err := marshalCompact(v)
	if err != nil {
		return fmt.Sprintf("(unencodable: %v)", err)
	}
	return string(b)
}

// indentRaw pretty-prints raw JSON (two spaces), keeping its key order.
func indentRaw(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// str returns a string field of an object ("" if absent or not a string).
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// num returns a number field as written ("" if absent or not a number).
func num(m map[string]any, key string) string {
	if n, ok := m[key].(json.Number); ok {
		return n.String()
	}
	return ""
}

// quote writes a string as a JSON string: quoted, control characters
// escaped, so that it stays on one line.
func quote(s string) string {
	b, _ := marshalCompact(s)
	return string(b)
}

// clip shortens s to at most n runes, ending in "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// partText summarises one content part of a canonical message on one line.
func partText(p any) string {
	m, ok := p.(map[string]any)
	if !ok {
		return compact(p)
	}
	typ := str(m, "type")
	flag := ""
	if b, _ := m["providerExecuted"].(bool); b {
		flag = " (provider-executed)"
	}
	switch typ {
	case "text", "reasoning":
		return typ + " " + quote(str(m, "text"))
	case "tool-call":
		return fmt.Sprintf("tool-call %s %s %s%s", str(m, "toolCallId"), str(m, "toolName"), compact(m["input"]), flag)
	case "tool-result":
		return fmt.Sprintf("tool-result %s %s %s%s", str(m, "toolCallId"), str(m, "toolName"), compact(m["output"]), flag)
	case "tool-approval-request":
		s := fmt.Sprintf("approval-request %s for %s", str(m, "approvalId"), str(m, "toolCallId"))
		if r := str(m, "reason"); r != "" {
			s += " reason " + quote(r)
		}
		return s
	case "tool-approval-response":
		s := fmt.Sprintf("approval-response %s approved=%s", str(m, "approvalId"), compact(m["approved"]))
		if r := str(m, "reason"); r != "" {
			s += " reason " + quote(r)
		}
		return s + flag
	case "":
		return compact(p)
	}
	rest := map[string]any{}
	for k, v := range m {
		if k != "type" {
			rest[k] = v
		}
	}
	return typ + " " + compact(rest)
}

// line is one line of a readable transcript: a label (a role, "reply",
// "!") and the text.
type line struct {
	Label string
	Text  string
	Bad   bool
}

// messageLines lays out a canonical message: the role, then one line per
// part.
func messageLines(msg any) []line {
	m, ok := msg.(map[string]any)
	if !ok {
		return []line{{Label: "?", Text: compact(msg)}}
	}
	role := str(m, "role")
	switch c := m["content"].(type) {
	case string:
		return []line{{Label: role, Text: "text " + quote(c)}}
	case []any:
		if len(c) == 0 {
			return []line{{Label: role, Text: "(no content)"}}
		}
		out := make([]line, 0, len(c))
		for i, p := range c {
			l := line{Text: partText(p)}
			if i == 0 {
				l.Label = role
			}
			out = append(out, l)
		}
		return out
	}
	return []line{{Label: role, Text: compact(m["content"])}}
}

// modelCall is a readable view of a simulator journal entry.
type modelCall struct {
	Title  string // "#2 generate: violation, HTTP 400"
	Bad    bool   // the call was rejected or broke the script
	Prompt []line // the messages the model received
	Reply  []line // what the model answered
	Issues []line // violations, failed expectations, error bodies
	JSON   []byte // the prompt as raw JSON ("" if the entry has none)
}

func viewModelCall(i int, e any) modelCall {
	d := decodeEntry(e)
	if d.err != nil {
		return modelCall{Title: fmt.Sprintf("#%d (unencodable: %v)", i+1, d.err), Bad: true}
	}
	if d.obj == nil || d.obj["prompt"] == nil {
		return modelCall{Title: fmt.Sprintf("#%d", i+1), Prompt: []line{{Text: string(d.raw)}}}
	}
	m := d.obj
	n := num(m, "call")
	if n == "" {
		n = fmt.Sprint(i + 1)
	}
	title := "#" + n
	if mode := str(m, "mode"); mode != "" {
		title += " " + mode
	}
	if t := num(m, "turn"); t != "" && !strings.HasPrefix(t, "-") {
		title += ", script turn " + t
	}
	verdict := str(m, "verdict")
	if verdict != "" {
		title += ": " + verdict
	}
	status := num(m, "status")
	if status != "" && status != "0" && status != "200" {
		title += ", HTTP " + status
	}
	mc := modelCall{Title: title, Bad: (verdict != "" && verdict != "ok") || (status != "" && status != "0" && status != "200")}
	if msgs, ok := m["prompt"].([]any); ok {
		for _, msg := range msgs {
			mc.Prompt = append(mc.Prompt, messageLines(msg)...)
		}
	}
	mc.JSON = d.fields["prompt"]
	if reply, ok := m["reply"].(map[string]any); ok {
		if t := str(reply, "text"); t != "" {
			mc.Reply = append(mc.Reply, line{Text: "text " + quote(t)})
		}
		if calls, ok := reply["toolCalls"].([]any); ok {
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				mc.Reply = append(mc.Reply, line{Text: fmt.Sprintf("tool-call %s %s %s", str(cm, "id"), str(cm, "name"), compact(cm["input"]))})
			}
		}
		if pr, ok := reply["providerResults"].([]any); ok {
			for _, r := range pr {
				mc.Reply = append(mc.Reply, line{Text: "provider-result " + compact(r)})
			}
		}
		if e, ok := reply["error"]; ok && e != nil {
			mc.Reply = append(mc.Reply, line{Text: "error " + compact(e), Bad: true})
		}
		if f := str(reply, "finishReason"); f != "" {
			mc.Reply = append(mc.Reply, line{Text: "finish " + f})
		}
		if len(mc.Reply) > 0 {
			mc.Reply[0].Label = "reply"
		}
	}
	if vs, ok := m["violations"].([]any); ok {
		for _, v := range vs {
			vm, _ := v.(map[string]any)
			text := str(vm, "text")
			if text == "" {
				text = compact(v)
			}
			ids := ""
			if list, ok := vm["ids"].([]any); ok {
				var parts []string
				for _, id := range list {
					if s, ok := id.(string); ok {
						parts = append(parts, s)
					}
				}
				ids = " " + strings.Join(parts, ",")
			}
			mc.Issues = append(mc.Issues, line{Label: "!", Text: strings.TrimSpace(fmt.Sprintf("%s %s%s: %s", str(vm, "check"), str(vm, "kind"), ids, text)), Bad: true})
		}
	}
	if fs, ok := m["failures"].([]any); ok {
		for _, f := range fs {
			fm, _ := f.(map[string]any)
			text := str(fm, "detail")
			if text == "" {
				text = compact(f)
			} else if c := str(fm, "check"); c != "" {
				text = c + ": " + text
			}
			mc.Issues = append(mc.Issues, line{Label: "!", Text: text, Bad: true})
		}
	}
	if body := str(m, "errorBody"); body != "" && len(mc.Issues) == 0 {
		mc.Issues = append(mc.Issues, line{Label: "!", Text: "HTTP " + status + " " + body, Bad: true})
	}
	return mc
}

// toolRunText summarises a harness tool run on one line.
func toolRunText(e any) string {
	d := decodeEntry(e)
	if d.err != nil {
		return fmt.Sprintf("(unencodable: %v)", d.err)
	}
	m := d.obj
	if m == nil || str(m, "tool") == "" {
		return string(d.raw)
	}
	s := ""
	if t := num(m, "turn"); t != "" {
		s = "turn " + t + ": "
	}
	s += str(m, "tool")
	if id := str(m, "toolCallId"); id != "" {
		s += " " + id
	}
	if in, ok := m["input"]; ok {
		s += " " + compact(in)
	}
	if k, ok := m["known"].(bool); ok && !k {
		s += " (not in the toolkit)"
	}
	return s
}

// turnText summarises a turn (the request sent to the target and its
// answer) on one line.
func turnText(i int, e any) string {
	d := decodeEntry(e)
	if d.err != nil {
		return fmt.Sprintf("(unencodable: %v)", d.err)
	}
	m := d.obj
	if m == nil {
		return string(d.raw)
	}
	n := num(m, "turn")
	if n == "" {
		n = fmt.Sprint(i + 1)
	}
	s := "turn " + n
	if msgs, ok := m["request"].([]any); ok {
		s += fmt.Sprintf(": %d message(s) in", len(msgs))
	}
	resp, _ := m["response"].(map[string]any)
	if msgs, ok := resp["messages"].([]any); ok {
		s += fmt.Sprintf(", %d out", len(msgs))
	}
	if f := str(resp, "finishReason"); f != "" {
		s += ", finish " + f
	}
	if ev, ok := resp["events"].([]any); ok {
		s += fmt.Sprintf(", %d stream event(s)", len(ev))
	}
	if e, ok := resp["error"].(map[string]any); ok {
		msg := str(e, "message")
		if msg == "" {
			msg = compact(e)
		}
		s += ", error " + str(e, "code") + ": " + msg
	} else if e, ok := resp["error"]; ok && e != nil {
		s += ", error " + compact(e)
	}
	if a, b := num(m, "firstModelCall"), num(m, "lastModelCall"); a != "" && b != "" && a != "0" {
		if a == b {
			s += " (model call #" + a + ")"
		} else {
			s += " (model calls #" + a + "-#" + b + ")"
		}
	}
	return s
}

// evidenceText lays out a scenario's evidence as plain text for the
// Markdown report and JUnit: the model calls with their prompts, the tool
// runs and the turns. Lines are cut at lineMax runes and the whole at
// about maxBytes, with a note saying what was left out.
func evidenceText(ev *Evidence, maxBytes int) string {
	if ev == nil {
		return ""
	}
	const lineMax = 240
	var lines []string
	add := func(s string) { lines = append(lines, clip(s, lineMax)) }
	if len(ev.ModelCalls) > 0 {
		add(fmt.Sprintf("Model calls (%d):", len(ev.ModelCalls)))
		for i, e := range ev.ModelCalls {
			mc := viewModelCall(i, e)
			add("  " + mc.Title)
			for _, group := range [][]line{mc.Prompt, mc.Reply, mc.Issues} {
				for _, l := range group {
					add(fmt.Sprintf("    %-10s %s", l.Label, l.Text))
				}
			}
		}
	}
	if len(ev.ToolRuns) > 0 {
		add(fmt.Sprintf("Tool runs (%d):", len(ev.ToolRuns)))
		for _, e := range ev.ToolRuns {
			add("  " + toolRunText(e))
		}
	}
	if len(ev.Turns) > 0 {
		add(fmt.Sprintf("Turns (%d):", len(ev.Turns)))
		for i, e := range ev.Turns {
			add("  " + turnText(i, e))
		}
	}
	return headAndTail(lines, maxBytes)
}

// headAndTail joins lines within maxBytes. When they do not fit it keeps a
// third of the room for the first lines and the rest for the last ones,
// where a scenario's end shows (the last model call, the tool runs, the
// turns), and says how many lines it left out between.
func headAndTail(lines []string, maxBytes int) string {
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	if total <= maxBytes {
		return strings.TrimRight(strings.Join(lines, "\n"), "\n")
	}
	const marker = 80 // room for the line that says what was left out
	head, size := 0, 0
	for head < len(lines) && size+len(lines[head])+1 <= (maxBytes-marker)/3 {
		size += len(lines[head]) + 1
		head++
	}
	head = max(head, 1) // the first line says what follows
	size = len(lines[0]) + 1
	for i := 1; i < head; i++ {
		size += len(lines[i]) + 1
	}
	tail := len(lines)
	for tail > head && size+len(lines[tail-1])+1 <= maxBytes-marker {
		size += len(lines[tail-1]) + 1
		tail--
	}
	out := append([]string{}, lines[:head]...)
	if tail > head {
		out = append(out, fmt.Sprintf("… %d line(s) left out; the whole evidence is in report.json", tail-head))
	}
	out = append(out, lines[tail:]...)
	return strings.Join(out, "\n")
}

// targetFields flattens the target info into label/value pairs in a
// stable order: name, version, sdk, sdkVersion first, then the others
// sorted, nested objects as dotted names (features.denialPolicy).
func targetFields(info any) [][2]string {
	if info == nil {
		return nil
	}
	raw, err := marshalCompact(info)
	if err != nil {
		return [][2]string{{"targetInfo", fmt.Sprintf("(unencodable: %v)", err)}}
	}
	v := decodeGeneric(raw)
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil
		}
		return [][2]string{{"targetInfo", compact(v)}}
	}
	var out [][2]string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		rank := map[string]int{"name": 1, "version": 2, "sdk": 3, "sdkVersion": 4, "roles": 5}
		sort.Slice(keys, func(i, j int) bool {
			ri, rj := rank[keys[i]], rank[keys[j]]
			if ri == 0 {
				ri = 100
			}
			if rj == 0 {
				rj = 100
			}
			if ri != rj {
				return ri < rj
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			switch x := m[k].(type) {
			case map[string]any:
				walk(prefix+k+".", x)
			case string:
				out = append(out, [2]string{prefix + k, x})
			case []any:
				var parts []string
				for _, e := range x {
					if s, ok := e.(string); ok {
						parts = append(parts, s)
					} else {
						parts = append(parts, compact(e))
					}
				}
				out = append(out, [2]string{prefix + k, strings.Join(parts, ", ")})
			default:
				out = append(out, [2]string{prefix + k, compact(x)})
			}
		}
	}
	walk("", m)
	return out
}
