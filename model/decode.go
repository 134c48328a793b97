package model

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// DecodeError is a strict-decoding failure. Path names the offending place,
// for example "messages[2].content[1].approved"; Message is the message index
// (-1 when the error is not inside one message) and Field the field name.
type DecodeError struct {
	Path    string
	Message int
	Field   string
	Reason  string
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// The strict decoders walk the document once (scan.go) and decode each
// field into its typed place as they meet it. What a field may be depends
// on other fields (a part's type, a message's role), which may come later
// in the object, so the walk only records which fields came and which had
// the wrong JSON type; the checks then run, in a fixed order, once the
// object is complete. The first failure in that order is the error:
//
//   - a syntax error anywhere in the document, in encoding/json's words;
//   - then, object by object in document order, an object's own failures
//     (a duplicate key, an unknown field, a missing or mistyped field, a
//     part type its message's role does not allow) before those of the
//     objects nested in it (a message's parts, a tool result's output).
//
// The error is built only then, re-reading the failing object to name the
// field and quote its value.

// DecodeMessages strictly decodes a JSON array of canonical messages.
func DecodeMessages(data []byte) ([]Message, error) {
	return decodeMessagesAt(data, "messages")
}

// DecodeMessagesAt is DecodeMessages with the path prefix used in errors set
// to prefix (for example "history" or "body.messages").
func DecodeMessagesAt(data []byte, prefix string) ([]Message, error) {
	return decodeMessagesAt(data, prefix)
}

func decodeMessagesAt(data []byte, prefix string) ([]Message, error) {
	if err := wantArray(data, prefix); err != nil {
		return nil, err
	}
	d := &decoder{data: data}
	msgs, err := d.messages(prefix)
	if err := d.finish(err, prefix, -1); err != nil {
		return nil, err
	}
	return msgs, nil
}

// DecodeMessage strictly decodes one canonical message.
func DecodeMessage(data []byte) (Message, error) {
	return decodeObject(data, loc{base: "message", item: -1, part: -1, index: 0}, (*decoder).message)
}

// DecodeEvents strictly decodes a JSON array of events.
func DecodeEvents(data []byte) ([]Event, error) {
	if err := wantArray(data, "events"); err != nil {
		return nil, err
	}
	d := &decoder{data: data}
	evs, err := d.events()
	if err := d.finish(err, "events", -1); err != nil {
		return nil, err
	}
	return evs, nil
}

// Messages is a list of messages that decodes strictly from JSON.
type Messages []Message

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (ms *Messages) UnmarshalJSON(data []byte) error {
	m, err := DecodeMessages(data)
	if err != nil {
		return err
	}
	*ms = m
	return nil
}

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (m *Message) UnmarshalJSON(data []byte) error {
	v, err := DecodeMessage(data)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (p *Part) UnmarshalJSON(data []byte) error {
	v, err := decodeObject(data, loc{base: "part", item: -1, part: -1, index: -1}, (*decoder).lonePart)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (o *ToolOutput) UnmarshalJSON(data []byte) error {
	v, err := decodeObject(data, loc{base: "output", item: -1, part: -1, index: -1}, (*decoder).output)
	if err != nil {
		return err
	}
	*o = *v
	return nil
}

// UnmarshalJSON implements json.Unmarshaler with strict decoding.
func (e *Event) UnmarshalJSON(data []byte) error {
	v, err := decodeObject(data, loc{base: "event", item: -1, part: -1, index: -1}, (*decoder).event)
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// wantArray refuses a document that is not an array before it is read.
func wantArray(data []byte, path string) error {
	switch k := jsonKind(data); k {
	case "array":
		return nil
	case "nothing":
		return &DecodeError{Path: path, Message: -1, Reason: "empty input, want an array"}
	default:
		return &DecodeError{Path: path, Message: -1, Reason: "want an array, got " + describe(data)}
	}
}

// decodeObject decodes a document that is one object with walk.
func decodeObject[T any](data []byte, l loc, walk func(*decoder, loc) (T, error)) (T, error) {
	var zero T
	switch jsonKind(data) {
	case "object":
	case "nothing":
		return zero, l.here("invalid JSON: unexpected end of input")
	default:
		return zero, l.here("want an object, got " + describe(data))
	}
	d := &decoder{data: data}
	d.ws()
	if d.peek() != '{' {
		return zero, syntaxFailure(data, l.path(), l.index)
	}
	v, err := walk(d, l)
	if err := d.finish(err, l.path(), l.index); err != nil {
		return zero, err
	}
	return v, nil
}

// finish turns the walk's outcome into the decoder's error: a syntax error
// anywhere in the document comes before any other.
func (d *decoder) finish(err error, path string, index int) error {
	switch {
	case err == errSyntax:
		return syntaxFailure(d.data, path, index)
	case err != nil:
		if !json.Valid(d.data) {
			return syntaxFailure(d.data, path, index)
		}
		return err
	}
	d.ws()
	if d.pos != len(d.data) {
		return syntaxFailure(d.data, path, index)
	}
	return nil
}

// loc is where an object sits, for errors: base[item].content[part].output.
type loc struct {
	base  string
	item  int  // index in the base array, or -1
	part  int  // index in the message's content, or -1
	out   bool // the tool result's output
	index int  // DecodeError.Message
}

func (l loc) path() string {
	var b strings.Builder
	b.WriteString(l.base)
	if l.item >= 0 {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(l.item))
		b.WriteByte(']')
	}
	if l.part >= 0 {
		b.WriteString(".content[")
		b.WriteString(strconv.Itoa(l.part))
		b.WriteByte(']')
	}
	if l.out {
		b.WriteString(".output")
	}
	return b.String()
}

// here is an error about the object itself.
func (l loc) here(reason string) error {
	return &DecodeError{Path: l.path(), Message: l.index, Reason: reason}
}

// fail is an error about one of the object's fields.
func (l loc) fail(field, reason string) error {
	return &DecodeError{Path: l.path() + "." + field, Message: l.index, Field: field, Reason: reason}
}

// fields is what the walk of one object learned, for its checks.
type fields struct {
	start   int    // offset of the object's '{'
	present uint32 // the known fields that came
	bad     uint32 // ... with the wrong JSON type (not decoded)
	unknown bool   // a key outside the object's fields came
	err     error  // the object's first duplicate key
	nested  error  // the first failure of a nested object, reported after the object's own
}

func (fs *fields) has(bit uint32) bool { return fs.present&bit != 0 }

// see records a known key, or a duplicate.
func (fs *fields) see(bit uint32, name []byte, plain bool, l loc) bool {
	if fs.present&bit != 0 {
		if fs.err == nil {
			fs.err = l.fail(keyName(name, plain), "duplicate field")
		}
		return false
	}
	fs.present |= bit
	return true
}

// unknownKey records a key outside the object's fields; a second one may
// be a duplicate of an earlier one.
func (d *decoder) unknownKey(fs *fields, name []byte, plain bool, at int, l loc) {
	if fs.unknown && fs.err == nil {
		k := keyName(name, plain)
		if d.seenBefore(fs.start, k, at) {
			fs.err = l.fail(k, "duplicate field")
		}
	}
	fs.unknown = true
}

// skip moves past a value whose content does not matter.
func (d *decoder) skip() error {
	if _, ok := d.skipValue(); !ok {
		return errSyntax
	}
	return nil
}

// notObject moves past a value that should have been an object.
func (d *decoder) notObject(l loc) error {
	start := d.pos
	if err := d.skip(); err != nil {
		return err
	}
	return l.here("want an object, got " + describe(d.data[start:d.pos]))
}

// only fails on the first key, in document order, that allowed refuses.
func (d *decoder) only(fs *fields, mask uint32, allowed func(string) bool, list string, l loc) error {
	if !fs.unknown && fs.present&^mask == 0 {
		return nil
	}
	var name string
	d.eachKey(fs.start, func(k string, _ int, _ []byte) bool {
		if !allowed(k) {
			name = k
			return false
		}
		return true
	})
	return l.fail(name, "unknown field (allowed: "+list+")")
}

// checkString checks a string field: present if required, a string, and
// not empty if required.
func (d *decoder) checkString(fs *fields, bit uint32, name, value string, required bool, l loc) error {
	switch {
	case !fs.has(bit):
		if required {
			return l.fail(name, "missing field")
		}
	case fs.bad&bit != 0:
		return l.fail(name, "want a string, got "+describe(d.valueOf(fs.start, name)))
	case required && value == "":
		return l.fail(name, "must not be empty")
	}
	return nil
}

// checkPresentString checks a string field that must come but may be empty.
func (d *decoder) checkPresentString(fs *fields, bit uint32, name string, l loc) error {
	if !fs.has(bit) {
		return l.fail(name, "missing field")
	}
	return d.checkString(fs, bit, name, "", false, l)
}

// checkBool checks a boolean field.
func (d *decoder) checkBool(fs *fields, bit uint32, name string, required bool, l loc) error {
	switch {
	case !fs.has(bit):
		if required {
			return l.fail(name, "missing field")
		}
	case fs.bad&bit != 0:
		return l.fail(name, "want a boolean, got "+describe(d.valueOf(fs.start, name)))
	}
	return nil
}

// checkObject checks a field that must be an object when it comes.
func (d *decoder) checkObject(fs *fields, bit uint32, name string, l loc) error {
	if fs.bad&bit != 0 {
		return l.fail(name, "want an object, got "+describe(d.valueOf(fs.start, name)))
	}
	return nil
}

// stringField reads a string field's value, or marks it mistyped.
func (d *decoder) stringField(fs *fields, bit uint32) (string, error) {
	if d.peek() != '"' {
		fs.bad |= bit
		return "", d.skip()
	}
	s, ok := d.readString()
	if !ok {
		return "", errSyntax
	}
	return s, nil
}

// boolean reads a boolean field's value, or marks it mistyped.
func (d *decoder) boolean(fs *fields, bit uint32) (bool, error) {
	switch {
	case d.peek() == 't' && d.literal("true"):
		return true, nil
	case d.peek() == 'f' && d.literal("false"):
		return false, nil
	}
	fs.bad |= bit
	return false, d.skip()
}

// object reads an object field's value as raw JSON, or marks it mistyped.
func (d *decoder) object(fs *fields, bit uint32) (json.RawMessage, error) {
	if d.peek() != '{' {
		fs.bad |= bit
		return nil, d.skip()
	}
	return d.any()
}

// any reads any value as raw JSON.
func (d *decoder) any() (json.RawMessage, error) {
	raw, ok := d.rawValue()
	if !ok {
		return nil, errSyntax
	}
	return raw, nil
}

// Messages.

// keyBytes is a key decoded for lookup; only a key with escapes or bytes
// outside ASCII costs a copy.
func keyBytes(name []byte, plain bool) []byte {
	if plain {
		return name
	}
	return []byte(unquote(name))
}

func describe(raw []byte) string {
	k := jsonKind(raw)
	switch k {
	case "string", "number", "boolean":
		s := string(bytes.TrimSpace(raw))
		if len(s) > 40 {
			s = s[:37] + "..."
		}
		return k + " " + s
	}
	return k
}

// jsonKind names the JSON type of a raw value.
func jsonKind(raw []byte) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}
