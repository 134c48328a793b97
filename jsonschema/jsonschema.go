// Package jsonschema validates JSON values against JSON Schema documents.
//
// It implements the part of JSON Schema (draft 2020-12) that tool input
// schemas and the kit's own schemas use: type, enum, const, properties,
// required, additionalProperties, patternProperties, propertyNames, items,
// prefixItems, minItems, maxItems, uniqueItems, minLength, maxLength,
// pattern, format (not enforced), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, minProperties, maxProperties, allOf, anyOf,
// oneOf, not, if/then/else, and $ref to "#", "#/$defs/..." or
// "#/definitions/...". Unknown keywords are ignored, as the specification
// requires. Errors name the JSON path of the offending value.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Schema is a compiled schema.
type Schema struct {
	root any
	mu   sync.Mutex
	res  map[string]*regexp.Regexp
}

// Compile parses a schema document.
func Compile(doc []byte) (*Schema, error) {
	v, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	switch v.(type) {
	case map[string]any, bool:
	default:
		return nil, fmt.Errorf("schema: a schema must be an object or a boolean")
	}
	s := &Schema{root: v, res: map[string]*regexp.Regexp{}}
	if err := s.precompile(v, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

// ValidationError lists why a value does not conform.
type ValidationError struct {
	// Problems are "path: reason" lines, the path in JSON Pointer form
	// ("/messages/2/approved", "" for the root).
	Problems []string
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%s (and %d more)", e.Problems[0], len(e.Problems)-1)
}

// Validate checks a JSON document against the schema.
func (s *Schema) Validate(doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return err
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a decoded value (as produced by encoding/json with
// UseNumber, or plain float64 numbers) against the schema.
func (s *Schema) ValidateValue(v any) error {
	var probs []string
	s.validate(s.root, v, "", &probs, 0)
	if len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

// Validate compiles schema and validates doc against it.
func Validate(schema, doc []byte) error {
	s, err := Compile(schema)
	if err != nil {
		return err
	}
	return s.Validate(doc)
}

func decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON: data after the value")
	}
	return v, nil
}

// precompile checks the regular expressions and references of the schema.
func (s *Schema) precompile(node any, at string) error {
	m, ok := node.(map[string]any)
	if !ok {
		if arr, ok := node.([]any); ok {
			for i, x := range arr {
				if err := s.precompile(x, fmt.Sprintf("%s/%d", at, i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if p, ok := m["pattern"].(string); ok {
		if _, err := s.regex(p); err != nil {
			return fmt.Errorf("schema %s/pattern: %w", at, err)
		}
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		for p := range pp {
			if _, err := s.regex(p); err != nil {
				return fmt.Errorf("schema %s/patternProperties: %w", at, err)
			}
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		if _, err := s.resolve(ref); err != nil {
			return fmt.Errorf("schema %s/$ref: %w", at, err)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "enum" || k == "const" || k == "default" || k == "examples" {
			continue
		}
		if err := s.precompile(m[k], at+"/"+k); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) regex(p string) (*regexp.Regexp, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if re, ok := s.res[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, err
	}
	s.res[p] = re
	return re, nil
}

func (s *Schema) resolve(ref string) (any, error) {
	if ref == "#" {
		return s.root, nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("only local references are supported, got %q", ref)
	}
	node := s.root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			next, ok := n[tok]
			if !ok {
				return nil, fmt.Errorf("reference %q: no %q", ref, tok)
			}
			node = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, fmt.Errorf("reference %q: no index %q", ref, tok)
			}
			node = n[i]
		default:
			return nil, fmt.Errorf("reference %q: cannot descend into %q", ref, tok)
		}
	}
	return node, nil
}

const maxDepth = 200

func (s *Schema) validate(schema, v any, path string, probs *[]string, depth int) {
	fail := func(format string, args ...any) {
		p := path
		if p == "" {
			p = "/"
		}
		*probs = append(*probs, p+": "+fmt.Sprintf(format, args...))
	}
	if depth > maxDepth {
		fail("schema nesting too deep (a reference cycle?)")
		return
	}
	switch sc := schema.(type) {
	case bool:
		if !sc {
			fail("no value is allowed here")
		}
		return
	case map[string]any:
		s.validateObject(sc, v, path, probs, depth, fail)
	}
}

func (s *Schema) validateObject(sc map[string]any, v any, path string, probs *[]string, depth int, fail func(string, ...any)) {
	if ref, ok := sc["$ref"].(string); ok {
		if target, err := s.resolve(ref); err == nil {
			s.validate(target, v, path, probs, depth+1)
		}
	}
	if t, ok := sc["type"]; ok && !typeMatches(t, v) {
		fail("want %s, got %s", typeNames(t), kindOf(v))
		return
	}
	if enum, ok := sc["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if equal(e, v) {
				found = true
				break
			}
		}
		if !found {
			fail("%s is not one of %s", short(v), short(enum))
		}
	}
	if c, ok := sc["const"]; ok && !equal(c, v) {
		fail("want %s, got %s", short(c), short(v))
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if min, ok := num(sc["minLength"]); ok && float64(n) < min {
			fail("string shorter than %v characters", min)
		}
		if max, ok := num(sc["maxLength"]); ok && float64(n) > max {
			fail("string longer than %v characters", max)
		}
		if p, ok := sc["pattern"].(string); ok {
			if re, err := s.regex(p); err == nil && !re.MatchString(x) {
				fail("%s does not match the pattern %q", short(x), p)
			}
		}
	case json.Number, float64:
		f, _ := num(x)
		if min, ok := num(sc["minimum"]); ok && f < min {
			fail("%v is less than the minimum %v", f, min)
		}
		if max, ok := num(sc["maximum"]); ok && f > max {
			fail("%v is more than the maximum %v", f, max)
		}
		if min, ok := num(sc["exclusiveMinimum"]); ok && f <= min {
			fail("%v is not more than %v", f, min)
		}
		if max, ok := num(sc["exclusiveMaximum"]); ok && f >= max {
			fail("%v is not less than %v", f, max)
		}
		if m, ok := num(sc["multipleOf"]); ok && m > 0 {
			if q := f / m; math.Abs(q-math.Round(q)) > 1e-9 {
				fail("%v is not a multiple of %v", f, m)
			}
		}
	case []any:
		if min, ok := num(sc["minItems"]); ok && float64(len(x)) < min {
			fail("fewer than %v items", min)
		}
		if max, ok := num(sc["maxItems"]); ok && float64(len(x)) > max {
			fail("more than %v items", max)
		}
		if u, ok := sc["uniqueItems"].(bool); ok && u {
			for i := range x {
				for j := i + 1; j < len(x); j++ {
					if equal(x[i], x[j]) {
						fail("items %d and %d are equal", i, j)
					}
				}
			}
		}
		start := 0
		if prefix, ok := sc["prefixItems"].([]any); ok {
			for i := 0; i < len(prefix) && i < len(x); i++ {
				s.validate(prefix[i], x[i], fmt.Sprintf("%s/%d", path, i), probs, depth+1)
			}
			start = len(prefix)
		}
		if items, ok := sc["items"]; ok {
			for i := start; i < len(x); i++ {
				s.validate(items, x[i], fmt.Sprintf("%s/%d", path, i), probs, depth+1)
			}
		}
	case map[string]any:
		if min, ok := num(sc["minProperties"]); ok && float64(len(x)) < min {
			fail("fewer than %v properties", min)
		}
		if max, ok := num(sc["maxProperties"]); ok && float64(len(x)) > max {
			fail("more than %v properties", max)
		}
		if req, ok := sc["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					if _, has := x[name]; !has {
						fail("missing required property %q", name)
					}
				}
			}
		}
		props, _ := sc["properties"].(map[string]any)
		patterns, _ := sc["patternProperties"].(map[string]any)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child := path + "/" + escape(k)
			matched := false
			if ps, ok := props[k]; ok {
				matched = true
				s.validate(ps, x[k], child, probs, depth+1)
			}
			for p, ps := range patterns {
				if re, err := s.regex(p); err == nil && re.MatchString(k) {
					matched = true
					s.validate(ps, x[k], child, probs, depth+1)
				}
			}
			if names, ok := sc["propertyNames"]; ok {
				s.validate(names, k, child, probs, depth+1)
			}
			if !matched {
				if ap, ok := sc["additionalProperties"]; ok {
					if b, isBool := ap.(bool); isBool && !b {
						fail("unknown property %q", k)
					} else if !isBool {
						s.validate(ap, x[k], child, probs, depth+1)
					}
				}
			}
		}
	}
	if all, ok := sc["allOf"].([]any); ok {
		for _, sub := range all {
			s.validate(sub, v, path, probs, depth+1)
		}
	}
	if any_, ok := sc["anyOf"].([]any); ok {
		ok := false
		var first []string
		for _, sub := range any_ {
			var p []string
			s.validate(sub, v, path, &p, depth+1)
			if len(p) == 0 {
				ok = true
				break
			}
			if first == nil {
				first = p
			}
		}
		if !ok {
			fail("matches none of the allowed forms (first: %s)", strings.Join(first, "; "))
		}
	}
	if one, ok := sc["oneOf"].([]any); ok {
		n := 0
		var best []string
		for _, sub := range one {
			var p []string
			s.validate(sub, v, path, &p, depth+1)
			if len(p) == 0 {
				n++
			} else if best == nil || len(p) < len(best) {
				best = p
			}
		}
		switch {
		case n == 0:
			fail("matches none of the allowed forms (closest: %s)", strings.Join(best, "; "))
		case n > 1:
			fail("matches %d of the forms, want exactly one", n)
		}
	}
	if not, ok := sc["not"]; ok {
		var p []string
		s.validate(not, v, path, &p, depth+1)
		if len(p) == 0 {
			fail("matches a form that is not allowed")
		}
	}
	if cond, ok := sc["if"]; ok {
		var p []string
		s.validate(cond, v, path, &p, depth+1)
		if len(p) == 0 {
			if then, ok := sc["then"]; ok {
				s.validate(then, v, path, probs, depth+1)
			}
		} else if els, ok := sc["else"]; ok {
			s.validate(els, v, path, probs, depth+1)
		}
	}
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func typeMatches(t, v any) bool {
	switch tt := t.(type) {
	case string:
		return isType(tt, v)
	case []any:
		for _, x := range tt {
			if s, ok := x.(string); ok && isType(s, v) {
				return true
			}
		}
		return false
	}
	return true
}

func isType(t string, v any) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := num(v)
		return ok
	case "integer":
		f, ok := num(v)
		return ok && f == math.Trunc(f)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func typeNames(t any) string {
	switch tt := t.(type) {
	case string:
		return tt
	case []any:
		var names []string
		for _, x := range tt {
			names = append(names, fmt.Sprint(x))
		}
		return strings.Join(names, " or ")
	}
	return fmt.Sprint(t)
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string " + short(x)
	case json.Number, float64:
		return "number " + short(x)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func equal(a, b any) bool {
	if fa, ok := num(a); ok {
		fb, ok := num(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
