// Package jsonschema validates JSON values against JSON Schema documents:
// the tool input schemas a turn carries, and the kit's own schemas
// (scenarios, reports, driver protocol messages).
//
// It is a thin layer over github.com/santhosh-tekuri/jsonschema/v6, which
// implements every draft (2020-12 when a schema names none) and passes the
// official JSON-Schema-Test-Suite. The layer does three things of its own:
// it compiles a schema from bytes, it loads nothing a schema refers to
// outside itself (a "$ref" to a file or a URL is a compile error, so a
// schema from a target can neither read local files nor reach the
// network), and it flattens a validation failure into "path: reason"
// problems, the path in JSON Pointer form. Formats are annotations, as the
// 2020-12 draft makes them by default.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	lib "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer writes the library's messages in English.
var printer = message.NewPrinter(language.English)

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	s *lib.Schema
}

// rootURL is where a compiled document lives as far as the library is
// concerned: an address no loader serves.
const rootURL = "https://schema.ack.invalid/schema.json"

// noLoader refuses every document a schema refers to outside itself.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: only references within the schema are followed", url)
}

// Compile parses and compiles a schema document.
func Compile(doc []byte) (*Schema, error) {
	v, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	switch v.(type) {
	case map[string]any, bool:
	default:
		return nil, errors.New("schema: a schema must be an object or a boolean")
	}
	c := lib.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(rootURL, v); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	s, err := c.Compile(rootURL)
	if err != nil {
		var (
			serr *lib.SchemaValidationError
			verr *lib.ValidationError
		)
		if errors.As(err, &serr) && errors.As(serr.Err, &verr) { // the schema breaks its draft's metaschema
			var probs []string
			leaves(verr, &probs)
			return nil, fmt.Errorf("schema: not a valid schema: %s", strings.Join(probs, "; "))
		}
		return nil, fmt.Errorf("schema: %s", strings.ReplaceAll(err.Error(), rootURL, "schema"))
	}
	return &Schema{s: s}, nil
}

// ValidationError lists why a value does not conform.
type ValidationError struct {
	// Problems are "path: reason" lines, the path in JSON Pointer form
	// ("/messages/2/approved", "/" for the root).
	Problems []string
}

// shownProblems is how many problems Error lists before counting the rest.
const shownProblems = 4

func (e *ValidationError) Error() string {
	if len(e.Problems) <= shownProblems {
		return strings.Join(e.Problems, "; ")
	}
	return fmt.Sprintf("%s (and %d more)", strings.Join(e.Problems[:shownProblems], "; "), len(e.Problems)-shownProblems)
}

// Validate checks a JSON document against the schema.
func (s *Schema) Validate(doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return err
	}
	return s.ValidateValue(v)
}

// ValidateValue checks a decoded value (as produced by encoding/json, with
// UseNumber or plain float64 numbers) against the schema.
func (s *Schema) ValidateValue(v any) error {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var verr *lib.ValidationError
	if !errors.As(err, &verr) {
		return err
	}
	var probs []string
	leaves(verr, &probs)
	if len(probs) == 0 {
		probs = []string{"/: " + verr.Error()}
	}
	return &ValidationError{Problems: probs}
}

// leaves flattens the library's tree of causes into its leaves, one
// problem each, in the order the library found them, without repeats.
func leaves(e *lib.ValidationError, out *[]string) {
	if len(e.Causes) == 0 {
		p := pointer(e.InstanceLocation) + ": " + reason(e.ErrorKind)
		for _, q := range *out {
			if q == p {
				return
			}
		}
		*out = append(*out, p)
		return
	}
	for _, c := range e.Causes {
		leaves(c, out)
	}
}

// reason says what is wrong, naming the offending value where the
// library's own message does not.
func reason(k lib.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		return fmt.Sprintf("%s is not one of %s", short(k.Got), short(k.Want))
	case *kind.Const:
		return fmt.Sprintf("want %s, got %s", short(k.Want), short(k.Got))
	case *kind.Required:
		if len(k.Missing) == 1 {
			return fmt.Sprintf("missing required property %q", k.Missing[0])
		}
		return fmt.Sprintf("missing required properties %s", short(k.Missing))
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return fmt.Sprintf("unknown property %q", k.Properties[0])
		}
		return fmt.Sprintf("unknown properties %s", short(k.Properties))
	}
	return k.LocalizedString(printer)
}

// short writes a value as compact JSON, cut at 80 bytes.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
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
		return nil, errors.New("invalid JSON: data after the value")
	}
	return v, nil
}
