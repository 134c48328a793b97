package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ParseScript reads a script file: JSON, or YAML with the same field
// names (docs/sim-script.md). Errors name the file, the line and the
// field: an unknown field lists the fields allowed there, a value of the
// wrong kind says what was wanted. A latency is a Go duration string
// ("150ms") or nanoseconds.
func ParseScript(name string, data []byte) (Script, error) {
	fail := func(line int, format string, args ...any) error {
		if line == 0 {
			return fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
		}
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return Script{}, fail(line, "%s", m[2])
		}
		return Script{}, fail(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return Script{}, fail(extra.Line, "a script file holds one document; found a second")
	}
	lines := map[string]int{}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		if err := checkNode(root.Content[0], reflect.TypeOf(Script{}), "", lines); err != nil {
			return Script{}, fail(err.line, "%s", err.msg)
		}
	}
	var doc any
	if err := root.Decode(&doc); err != nil {
		return Script{}, fail(0, "%v", err)
	}
	doc, err := latencies(doc, "")
	if err != nil {
		return Script{}, fail(0, "%v", err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return Script{}, fail(0, "%v", err)
	}
	jdec := json.NewDecoder(bytes.NewReader(raw))
	jdec.DisallowUnknownFields()
	var s Script
	if len(bytes.TrimSpace(raw)) > 0 && string(raw) != "null" {
		if err := jdec.Decode(&s); err != nil {
			return Script{}, fail(0, "%s", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if len(s.Turns) == 0 {
		return Script{}, fail(lines["turns"], "turns: the script has no turn (a script is \"turns:\", a list of {expect, reply})")
	}
	if err := s.Validate(); err != nil {
		return Script{}, fail(lineOf(err.Error(), lines), "%v", err)
	}
	return s, nil
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// nodeError is a problem at a line of the file.
type nodeError struct {
	line int
	msg  string
}

// renamed are the scenario format's names for fields a script spells
// otherwise, so that an error can say which to use.
var renamed = map[string]string{
	"tool": "name",
	"call": "toolCallId",
}

// checkNode checks a YAML node against the Go type it decodes into: every
// key of a mapping must be a field of the struct (its JSON name), every
// value of the kind the field holds. It records the line of each field's
// path in lines.
func checkNode(n *yaml.Node, t reflect.Type, path string, lines map[string]int) *nodeError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		lines[path] = n.Line
	}
	where := path
	if where == "" {
		where = "the script"
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // left out
	}
	switch {
	case t == reflect.TypeOf(json.RawMessage(nil)):
		return nil // any JSON value
	case t == reflect.TypeOf(time.Duration(0)):
		if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!str") {
			return nil // a string is parsed as a duration later
		}
		return &nodeError{n.Line, fmt.Sprintf("%s: want a duration (\"150ms\") or nanoseconds, not %s", where, kindOf(n))}
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return &nodeError{n.Line, fmt.Sprintf("%s: want a mapping (%s), not %s", where, strings.Join(fieldNames(t), ", "), kindOf(n))}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fieldByName(t, k.Value)
			sub := k.Value
			if path != "" {
				sub = path + "." + k.Value
			}
			if !ok {
				msg := fmt.Sprintf("%s: unknown field %q (allowed: %s)", where, k.Value, strings.Join(fieldNames(t), ", "))
				if use, ok := renamed[k.Value]; ok {
					if _, has := fieldByName(t, use); has {
						msg += fmt.Sprintf("; a script says %q where a scenario says %q", use, k.Value)
					}
				}
				return &nodeError{k.Line, msg}
			}
			if err := checkNode(v, f.Type, sub, lines); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return &nodeError{n.Line, fmt.Sprintf("%s: want a list, not %s", where, kindOf(n))}
		}
		for i, e := range n.Content {
			if err := checkNode(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), lines); err != nil {
				return err
			}
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return &nodeError{n.Line, fmt.Sprintf("%s: want text, not %s", where, kindOf(n))}
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			return &nodeError{n.Line, fmt.Sprintf("%s: want true or false, not %s", where, kindOf(n))}
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			return &nodeError{n.Line, fmt.Sprintf("%s: want a whole number, not %s", where, kindOf(n))}
		}
	}
	return nil
}

// fieldByName finds a struct field by its JSON name.
func fieldByName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// fieldNames lists a struct's JSON field names, in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// lineOf finds the line of the field an error starts with ("turns[1].reply.toolCalls[0].id: missing"):
// the line of that path, or of the nearest enclosing one known.
func lineOf(msg string, lines map[string]int) int {
	path, _, _ := strings.Cut(msg, ": ")
	for path != "" {
		if l, ok := lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// latencies turns "latency" duration strings into nanoseconds, and YAML
// maps into JSON objects.
func latencies(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := path + "." + k
			if k == "latency" {
				if s, ok := e.(string); ok {
					d, err := parseDuration(s)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", strings.TrimPrefix(p, "."), err)
					}
					x[k] = d
					continue
				}
			}
			out, err := latencies(e, p)
			if err != nil {
				return nil, err
			}
			x[k] = out
		}
		return x, nil
	case []any:
		for i, e := range x {
			out, err := latencies(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			x[i] = out
		}
		return x, nil
	}
	return v, nil
}

func parseDuration(s string) (int64, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return int64(d), nil
}
