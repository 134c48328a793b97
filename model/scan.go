package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decoder walks a JSON document once, by hand, for the strict decoders:
// it checks the syntax as encoding/json does and hands the model walk
// (decode.go) typed values, so that no intermediate tree, token or raw copy
// is built per object. Errors are built only when something fails; the
// model walk re-reads the failing object to name the offending field.
type decoder struct {
	data  []byte
	pos   int
	depth int

	// text is a window of data as a string, from textAt: strings without
	// escapes are its substrings, so they cost no allocation of their own.
	// Windows stay small enough to come from the allocator's size classes,
	// so a long conversation costs no more per byte than a short one.
	text   string
	textAt int
	// arena holds copies of raw values (tool inputs, outputs, provider
	// options), each capped so that an append cannot run into the next.
	arena []byte

	// Slabs the decoded parts and outputs are carved from.
	parts   []Part
	outputs []ToolOutput
	// scratch holds the parts of the message being decoded.
	scratch []Part
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// errSyntax is the walk's signal that the document is not valid JSON; the
// entry points then describe the syntax error as encoding/json does.
var errSyntax = errors.New("model: invalid JSON")

// ws skips insignificant space and reports whether there was any.
func (d *decoder) ws() bool {
	start := d.pos
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return d.pos != start
		}
	}
	return d.pos != start
}

// peek returns the byte at the position, or 0 at the end.
func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// consume moves past c if it is next (after space).
func (d *decoder) consume(c byte) bool {
	d.ws()
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// scanString moves past the string at the position (at its opening quote)
// and returns the bounds of its content. plain says the content is the
// string itself: no escapes, no bytes outside ASCII.
func (d *decoder) scanString() (start, end int, plain, ok bool) {
	i := d.pos + 1
	start = i
	plain = true
	data := d.data
	for i < len(data) {
		c := data[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			i++
			continue
		}
		switch {
		case c == '"':
			d.pos = i + 1
			return start, i, plain, true
		case c == '\\':
			plain = false
			if i+1 >= len(data) {
				return 0, 0, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(data[i+2:]) < 0 {
					return 0, 0, false, false
				}
				i += 6
			default:
				return 0, 0, false, false
			}
		case c < 0x20:
			return 0, 0, false, false
		default: // a byte outside ASCII
			plain = false
			i++
		}
	}
	return 0, 0, false, false
}

// hex4 reads four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// readString decodes the string at the position.
func (d *decoder) readString() (string, bool) {
	start, end, plain, ok := d.scanString()
	if !ok {
		return "", false
	}
	if plain {
		return d.substring(start, end), true
	}
	return unquote(d.data[start:end]), true
}

// window is the size of the copies strings and raw values are cut from: the
// largest of the allocator's size classes.
const window = 32 << 10

// substring returns data[start:end] as a string.
func (d *decoder) substring(start, end int) string {
	if start < d.textAt || end > d.textAt+len(d.text) {
		if end-start > window/4 {
			return string(d.data[start:end])
		}
		d.text, d.textAt = string(d.data[start:min(start+window, len(d.data))]), start
	}
	return d.text[start-d.textAt : end-d.textAt]
}

// keep returns a copy of a raw value.
func (d *decoder) keep(b []byte) []byte {
	if len(b) > cap(d.arena)-len(d.arena) {
		if len(b) > window/4 {
			return bytes.Clone(b)
		}
		// Enough for the rest of the document, up to a window.
		d.arena = make([]byte, 0, max(len(b), min(window, len(d.data)-d.pos+len(b))))
	}
	n := len(d.arena)
	d.arena = append(d.arena, b...)
	return d.arena[n:len(d.arena):len(d.arena)]
}

// unquote decodes the content of a JSON string that has escapes or bytes
// outside ASCII, as encoding/json does: invalid UTF-8 and unpaired
// surrogates become U+FFFD. The content has been scanned already.
func unquote(s []byte) string {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			switch s[i+1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if pair := utf16.DecodeRune(r, hex4(s[i+2:])); pair != utf8.RuneError {
							b = utf8.AppendRune(b, pair)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b)
}

// skipValue moves past the value at the position (after space) and reports
// whether it holds insignificant space.
func (d *decoder) skipValue() (spaced, ok bool) {
	if d.pos >= len(d.data) {
		return false, false
	}
	switch c := d.data[d.pos]; c {
	case '"':
		_, _, _, ok := d.scanString()
		return false, ok
	case '{':
		return d.skipContainer('{', '}')
	case '[':
		return d.skipContainer('[', ']')
	case 't':
		return false, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return false, d.literal("null")
	default:
		return false, d.number()
	}
}

// skipContainer moves past an object or an array.
func (d *decoder) skipContainer(open, close byte) (spaced, ok bool) {
	if !d.enter() {
		return false, false
	}
	d.pos++
	spaced = d.ws()
	if d.peek() == close {
		d.pos++
		d.depth--
		return spaced, true
	}
	for {
		if open == '{' {
			if d.peek() != '"' {
				return false, false
			}
			if _, _, _, ok := d.scanString(); !ok {
				return false, false
			}
			spaced = d.ws() || spaced
			if d.peek() != ':' {
				return false, false
			}
			d.pos++
			spaced = d.ws() || spaced
		}
		s, ok := d.skipValue()
		if !ok {
			return false, false
		}
		spaced = d.ws() || s || spaced
		switch d.peek() {
		case ',':
			d.pos++
			spaced = d.ws() || spaced
		case close:
			d.pos++
			d.depth--
			return spaced, true
		default:
			return false, false
		}
	}
}

// enter counts one level of nesting, failing past encoding/json's limit.
func (d *decoder) enter() bool {
	d.depth++
	return d.depth <= maxDepth
}

func (d *decoder) literal(word string) bool {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

// number moves past a JSON number.
func (d *decoder) number() bool {
	data, i := d.data, d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(data, i)
	default:
		return false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return false
		}
		i = j
	}
	d.pos = i
	return true
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// rawValue moves past the value at the position and returns it compacted,
// in memory of its own (not the caller's input).
func (d *decoder) rawValue() (json.RawMessage, bool) {
	start := d.pos
	spaced, ok := d.skipValue()
	if !ok {
		return nil, false
	}
	if spaced {
		var buf bytes.Buffer
		_ = json.Compact(&buf, d.data[start:d.pos]) // the value was just scanned
		return buf.Bytes(), true
	}
	return d.keep(d.data[start:d.pos]), true
}

// key reads the next key of an object whose '{' has been consumed: first
// says no key has been read yet. It returns done at the closing '}', and
// leaves the position at the key's value.
func (d *decoder) key(first bool) (name []byte, at int, plain, done, ok bool) {
	d.ws()
	if !first {
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			d.depth--
			return nil, 0, false, true, true
		default:
			return nil, 0, false, false, false
		}
	} else if d.peek() == '}' {
		d.pos++
		d.depth--
		return nil, 0, false, true, true
	}
	at = d.pos
	if d.peek() != '"' {
		return nil, 0, false, false, false
	}
	start, end, plain, ok := d.scanString()
	if !ok || !d.consume(':') {
		return nil, 0, false, false, false
	}
	d.ws()
	return d.data[start:end], at, plain, false, true
}

// keyName decodes a key returned by key.
func keyName(name []byte, plain bool) string {
	if plain {
		return string(name)
	}
	return unquote(name)
}

// openObject consumes the '{' at the position.
func (d *decoder) openObject() bool {
	d.pos++
	return d.enter()
}

// elem moves to the next element of an array whose '[' has been consumed,
// returning done at the closing ']'.
func (d *decoder) elem(first bool) (done, ok bool) {
	d.ws()
	if d.peek() == ']' && first {
		d.pos++
		d.depth--
		return true, true
	}
	if !first {
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case ']':
			d.pos++
			d.depth--
			return true, true
		default:
			return false, false
		}
	}
	return false, d.pos < len(d.data)
}

// eachKey calls fn for the keys of the (valid) object starting at start, in
// order, with the offset of each key and its value's bytes, until fn
// returns false. It serves the error paths.
func (d *decoder) eachKey(start int, fn func(name string, at int, value []byte) bool) {
	r := &decoder{data: d.data, pos: start}
	r.openObject()
	for first := true; ; first = false {
		name, at, plain, done, ok := r.key(first)
		if done || !ok {
			return
		}
		vstart := r.pos
		if _, ok := r.skipValue(); !ok {
			return
		}
		if !fn(keyName(name, plain), at, d.data[vstart:r.pos]) {
			return
		}
	}
}

// valueOf returns the value of the key name in the (valid) object at start.
func (d *decoder) valueOf(start int, name string) []byte {
	var v []byte
	d.eachKey(start, func(k string, _ int, value []byte) bool {
		if k == name {
			v = value
			return false
		}
		return true
	})
	return v
}

// seenBefore reports whether the key name occurs in the object at start
// before the offset at.
func (d *decoder) seenBefore(start int, name string, at int) bool {
	seen := false
	d.eachKey(start, func(k string, kat int, _ []byte) bool {
		if kat >= at {
			return false
		}
		if k == name {
			seen = true
			return false
		}
		return true
	})
	return seen
}

// syntaxFailure describes why data is not one JSON value, in encoding/json's
// words.
func syntaxFailure(data []byte, path string, index int) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return &DecodeError{Path: path, Message: index, Reason: "invalid JSON: " + syntaxReason(err)}
	}
	if err := expectEOF(dec); err != nil {
		return &DecodeError{Path: path, Message: index, Reason: err.Error()}
	}
	// encoding/json accepts what the walk refused: say so rather than pass.
	return &DecodeError{Path: path, Message: index, Reason: "invalid JSON"}
}

func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func syntaxReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error() + " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}
