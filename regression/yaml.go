package regression

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/scenario"
)

// yaml writes the plan in the scenario format, and checks that the
// scenario loader and compiler accept it.
func (p *plan) yaml() ([]byte, error) {
	doc := mapping()
	doc.HeadComment = strings.Join(p.header, "\n")
	set(doc, "id", str(p.id))
	set(doc, "title", str(p.title))
	set(doc, "description", str(p.description))
	set(doc, "checks", flowStrings(p.checks))
	if len(p.modes) > 0 {
		set(doc, "modes", flowStrings(p.modes))
	}
	set(doc, "provider", str(p.provider))
	set(doc, "tags", flowStrings(p.tags))
	tools := seq()
	for _, t := range p.tools {
		n := mapping()
		set(n, "name", str(t.name))
		if t.provider {
			set(n, "provider", boolean(true))
		} else {
			set(n, "approval", str("always"))
		}
		if len(t.inputSchema) > 0 {
			set(n, "inputSchema", flowJSON(t.inputSchema))
		}
		if len(t.returns) > 0 && !t.provider {
			set(n, "returns", flowJSON(t.returns))
		}
		tools.Content = append(tools.Content, n)
	}
	set(doc, "tools", tools)
	if len(p.history) > 0 {
		raw, err := model.EncodeMessages(p.history)
		if err != nil {
			return nil, fmt.Errorf("regression: the history: %w", err)
		}
		h := flowJSON(raw)
		h.Style = 0
		for _, m := range h.Content {
			m.Style = yaml.FlowStyle
		}
		set(doc, "history", h)
	}
	turns := seq()
	for _, t := range p.turns {
		turns.Content = append(turns.Content, t.node())
	}
	set(doc, "turns", turns)

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("regression: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("regression: %w", err)
	}
	f, err := scenario.Parse(p.id+".yaml", b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("regression: the scenario written does not load (a bug of the writer): %w\n%s", err, b.String())
	}
	if _, err := scenario.Compile(f); err != nil {
		return nil, fmt.Errorf("regression: the scenario written does not compile (a bug of the writer): %w\n%s", err, b.String())
	}
	return b.Bytes(), nil
}

func (t turn) node() *yaml.Node {
	n := mapping()
	n.HeadComment = strings.Join(t.comments, "\n")
	replies := seq()
	for _, r := range t.model {
		replies.Content = append(replies.Content, r.node())
	}
	set(n, "model", replies)
	switch {
	case t.say != "":
		set(n, "say", str(t.say))
	case len(t.approve) > 0:
		set(n, "approve", flowStrings(t.approve))
	case len(t.deny) > 0:
		set(n, "deny", flowStrings(t.deny))
	case len(t.answers) > 0:
		as := seq()
		for _, a := range t.answers {
			m := mapping()
			m.Style = yaml.FlowStyle
			set(m, "call", str(a.Call))
			set(m, "approve", boolean(a.Approve))
			if a.Reason != "" {
				set(m, "reason", str(a.Reason))
			}
			as.Content = append(as.Content, m)
		}
		set(n, "answers", as)
	case t.approveTwice != "":
		set(n, "approveTwice", str(t.approveTwice))
	case t.conflict != "":
		set(n, "conflict", str(t.conflict))
	case t.orphan != nil:
		m := mapping()
		m.Style = yaml.FlowStyle
		set(m, "call", str(t.orphan.call))
		set(m, "approvalId", str(t.orphan.approvalID))
		set(n, "orphan", m)
	}
	if t.reason != "" && (len(t.approve) > 0 || len(t.deny) > 0) {
		set(n, "reason", str(t.reason))
	}
	if t.then != "" && len(t.approve)+len(t.deny)+len(t.answers) > 0 {
		set(n, "then", str(t.then))
	}
	if len(t.expect) > 0 {
		set(n, "expect", expectNode(t.expect))
	}
	return n
}

func (r reply) node() *yaml.Node {
	n := mapping()
	n.HeadComment = r.comment
	if r.errStatus > 0 {
		e := mapping()
		e.Style = yaml.FlowStyle
		set(e, "status", integer(r.errStatus))
		set(e, "message", str(r.errMsg))
		set(n, "error", e)
	} else {
		if r.text != "" {
			set(n, "text", str(r.text))
		}
		if len(r.toolCalls) > 0 {
			calls := seq()
			for _, c := range r.toolCalls {
				m := mapping()
				m.Style = yaml.FlowStyle
				set(m, "id", str(c.id))
				set(m, "tool", str(c.tool))
				if len(c.input) > 0 {
					set(m, "input", flowJSON(c.input))
				}
				if c.approvalID != "" {
					set(m, "approvalId", str(c.approvalID))
				}
				calls.Content = append(calls.Content, m)
			}
			set(n, "toolCalls", calls)
		}
	}
	if r.optional {
		set(n, "optional", boolean(true))
	}
	if len(r.expect) > 0 {
		set(n, "expect", expectNode(r.expect))
	}
	return n
}

// expectNode writes expectations: maps and lists of maps in flow style.
func expectNode(list []kv) *yaml.Node {
	n := mapping()
	for _, e := range list {
		raw, _ := json.Marshal(e.value) // plain data always marshals (maps in key order)
		v := flowJSON(raw)
		set(n, e.key, v)
	}
	return n
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func seq() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

func integer(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(i)}
}

func set(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, str(key), v) }

func flowStrings(ss []string) *yaml.Node {
	n := seq()
	n.Style = yaml.FlowStyle
	for _, s := range ss {
		n.Content = append(n.Content, str(s))
	}
	return n
}

// flowJSON turns a JSON value into a YAML node in flow style.
func flowJSON(raw json.RawMessage) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 {
		return str(string(raw))
	}
	n := doc.Content[0]
	plainScalars(n)
	n.Style = yaml.FlowStyle
	return n
}

// plainScalars lets the writer quote only the scalars that need it.
func plainScalars(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		n.Style = 0
	}
	for _, c := range n.Content {
		plainScalars(c)
	}
}
