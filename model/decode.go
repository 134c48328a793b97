package model

import (
	"bytes"
	"encoding/json"
	"fmt"
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

func (d *decoder) messages(base string) ([]Message, error) {
	if !d.consume('[') || !d.enter() {
		return nil, errSyntax
	}
	msgs := make([]Message, 0, 8)
	for i := 0; ; i++ {
		done, ok := d.elem(i == 0)
		if !ok {
			return nil, errSyntax
		}
		if done {
			return msgs, nil
		}
		m, err := d.message(loc{base: base, item: i, part: -1, index: i})
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
}

// The fields of a message.
const (
	mRole uint32 = 1 << iota
	mContent
	mID
	mProviderOptions
)

func messageField(k []byte) uint32 {
	switch string(k) {
	case "role":
		return mRole
	case "content":
		return mContent
	case "id":
		return mID
	case "providerOptions":
		return mProviderOptions
	}
	return 0
}

// content is what the walk of a message's content found.
type content struct {
	text    string // a string content
	isText  bool
	parts   []Part // an array content, up to the first failing part
	failAt  int    // index of the first failing part, or -1
	early   error  // its failure before its role is checked (not an object, duplicate key, type)
	late    error  // its failure after
	hasList bool
}

func (d *decoder) message(l loc) (Message, error) {
	var m Message
	if d.peek() != '{' {
		return m, d.notObject(l)
	}
	fs := fields{start: d.pos}
	if !d.openObject() {
		return m, errSyntax
	}
	c := content{failAt: -1}
	for first := true; ; first = false {
		name, at, plain, done, ok := d.key(first)
		if !ok {
			return m, errSyntax
		}
		if done {
			break
		}
		bit := messageField(keyBytes(name, plain))
		if bit == 0 {
			d.unknownKey(&fs, name, plain, at, l)
			if err := d.skip(); err != nil {
				return m, err
			}
			continue
		}
		if !fs.see(bit, name, plain, l) {
			if err := d.skip(); err != nil {
				return m, err
			}
			continue
		}
		var err error
		switch bit {
		case mRole:
			var s string
			s, err = d.stringField(&fs, bit)
			m.Role = Role(s)
		case mID:
			m.ID, err = d.stringField(&fs, bit)
		case mProviderOptions:
			m.ProviderOptions, err = d.object(&fs, bit)
		case mContent:
			err = d.content(&fs, &c, l)
		}
		if err != nil {
			return m, err
		}
	}
	if err := d.checkMessage(&m, &fs, &c, l); err != nil {
		return Message{}, err
	}
	return m, nil
}

// content reads a message's content: a string or an array of parts.
func (d *decoder) content(fs *fields, c *content, l loc) error {
	switch d.peek() {
	case '"':
		s, ok := d.readString()
		if !ok {
			return errSyntax
		}
		c.text, c.isText = s, true
		return nil
	case '[':
	default:
		fs.bad |= mContent
		return d.skip()
	}
	c.hasList = true
	d.pos++
	if !d.enter() {
		return errSyntax
	}
	d.scratch = d.scratch[:0]
	for j := 0; ; j++ {
		done, ok := d.elem(j == 0)
		if !ok {
			return errSyntax
		}
		if done {
			break
		}
		if c.failAt >= 0 { // past the first failing part only the syntax counts
			if err := d.skip(); err != nil {
				return err
			}
			continue
		}
		pl := l
		pl.part = j
		p, pfs, err := d.partWalk(pl, nil)
		if err == errSyntax {
			return err
		}
		if err == nil {
			err = d.checkPartType(&pfs, p.Type, pl)
		}
		if err != nil {
			c.failAt, c.early = j, err
		} else if err := d.checkPart(&p, &pfs, pl); err != nil {
			c.failAt, c.late = j, err
		}
		d.scratch = append(d.scratch, p)
	}
	c.parts = d.carve(d.scratch)
	return nil
}

// checkMessage runs a message's checks once its object is read.
func (d *decoder) checkMessage(m *Message, fs *fields, c *content, l loc) error {
	if fs.err != nil {
		return fs.err
	}
	if err := d.only(fs, mRole|mContent|mID|mProviderOptions, func(k string) bool { return messageField([]byte(k)) != 0 }, "role, content, id, providerOptions", l); err != nil {
		return err
	}
	if err := d.checkString(fs, mRole, "role", string(m.Role), true, l); err != nil {
		return err
	}
	switch m.Role {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
	default:
		return l.fail("role", fmt.Sprintf("unknown role %q (want system, user, assistant or tool)", m.Role))
	}
	if err := d.checkString(fs, mID, "id", m.ID, false, l); err != nil {
		return err
	}
	if err := d.checkObject(fs, mProviderOptions, "providerOptions", l); err != nil {
		return err
	}
	if !fs.has(mContent) {
		return l.fail("content", "missing field")
	}
	if c.isText {
		if m.Role == RoleTool {
			return l.fail("content", "a tool message's content must be an array of parts, got a string")
		}
		d.scratch = append(d.scratch[:0], Text(c.text))
		m.Content = d.carve(d.scratch)
		m.StringContent = true
		return nil
	}
	if m.Role == RoleSystem {
		return l.fail("content", "a system message's content must be a string, got "+jsonKind(d.valueOf(fs.start, "content")))
	}
	if !c.hasList {
		return l.fail("content", "want an array, got "+describe(d.valueOf(fs.start, "content")))
	}
	for j, p := range c.parts {
		if j == c.failAt && c.early != nil {
			return c.early
		}
		if _, known := infoOf(p.Type); known && !allowedIn(m.Role, p.Type) {
			pl := l
			pl.part = j
			return pl.fail("type", fmt.Sprintf("part type %q is not allowed in a %s message", p.Type, m.Role))
		}
		if j == c.failAt {
			return c.late
		}
	}
	m.Content = c.parts
	return nil
}

// allowedIn says which part types a role's content may hold.
func allowedIn(role Role, t PartType) bool {
	switch role {
	case RoleUser:
		return t == PartText || t == PartFile
	case RoleAssistant:
		return t != PartToolApprovalResponse
	case RoleTool:
		return t == PartToolResult || t == PartToolApprovalResponse
	}
	return false
}

// carve copies parts into memory of their own, cut from a slab.
func (d *decoder) carve(ps []Part) []Part {
	n := len(ps)
	if n == 0 {
		return []Part{}
	}
	if len(d.parts) < n {
		// Enough for the rest of the document, within the allocator's
		// size classes.
		size := max(n, min(128, (len(d.data)-d.pos)/64))
		d.parts = make([]Part, size)
	}
	out := d.parts[:n:n]
	d.parts = d.parts[n:]
	copy(out, ps)
	return out
}

// newOutput returns a zero output cut from a slab.
func (d *decoder) newOutput() *ToolOutput {
	if len(d.outputs) == 0 {
		size := 1 + (len(d.data)-d.pos)/512
		if size > 128 {
			size = 128
		}
		d.outputs = make([]ToolOutput, size)
	}
	o := &d.outputs[0]
	d.outputs = d.outputs[1:]
	return o
}

// Parts.

// The fields of a part, and of an event (which is a part or has a few
// fields of its own).
const (
	pType uint32 = 1 << iota
	pText
	pMediaType
	pData
	pFilename
	pToolCallID
	pToolName
	pInput
	pProviderExecuted
	pOutput
	pApprovalID
	pApproved
	pReason
	pSignature
	pIsAutomatic
	pProviderOptions
	pFinishReason // events only
	pCode         // events only
	pMessage      // events only
	pEditedInput
)

// partField returns a key's field; the events' own fields only in events.
func partField(k []byte, events bool) uint32 {
	switch string(k) {
	case "type":
		return pType
	case "text":
		return pText
	case "mediaType":
		return pMediaType
	case "data":
		return pData
	case "filename":
		return pFilename
	case "toolCallId":
		return pToolCallID
	case "toolName":
		return pToolName
	case "input":
		return pInput
	case "providerExecuted":
		return pProviderExecuted
	case "output":
		return pOutput
	case "approvalId":
		return pApprovalID
	case "approved":
		return pApproved
	case "reason":
		return pReason
	case "signature":
		return pSignature
	case "isAutomatic":
		return pIsAutomatic
	case "providerOptions":
		return pProviderOptions
	case "editedInput":
		return pEditedInput
	}
	if events {
		switch string(k) {
		case "finishReason":
			return pFinishReason
		case "code":
			return pCode
		case "message":
			return pMessage
		}
	}
	return 0
}

// partFields lists each part type's fields, in the order errors name them.
var partFields = map[PartType][]string{
	PartText:                 {"type", "text", "providerOptions"},
	PartReasoning:            {"type", "text", "providerOptions"},
	PartFile:                 {"type", "mediaType", "data", "filename", "providerOptions"},
	PartToolCall:             {"type", "toolCallId", "toolName", "input", "providerExecuted", "providerOptions"},
	PartToolResult:           {"type", "toolCallId", "toolName", "output", "providerExecuted", "providerOptions"},
	PartToolApprovalRequest:  {"type", "approvalId", "toolCallId", "signature", "reason", "isAutomatic", "providerOptions"},
	PartToolApprovalResponse: {"type", "approvalId", "approved", "reason", "editedInput", "providerExecuted", "providerOptions"},
}

// partInfo is a part type's fields as a mask and as the list errors give.
type partInfo struct {
	mask uint32
	list string
}

var partInfos = func() [len(partTypes)]partInfo {
	var infos [len(partTypes)]partInfo
	for i, t := range partTypes {
		var mask uint32
		for _, n := range partFields[t] {
			mask |= partField([]byte(n), false)
		}
		infos[i] = partInfo{mask: mask, list: strings.Join(partFields[t], ", ")}
	}
	return infos
}()

var partTypes = [...]PartType{PartText, PartReasoning, PartFile, PartToolCall, PartToolResult, PartToolApprovalRequest, PartToolApprovalResponse}

// infoOf returns a part type's fields, and false for an unknown type.
func infoOf(t PartType) (partInfo, bool) {
	for i, known := range partTypes {
		if t == known {
			return partInfos[i], true
		}
	}
	return partInfo{}, false
}

func knownPartTypes() string {
	return "text, reasoning, file, tool-call, tool-result, tool-approval-request, tool-approval-response"
}

// eventText holds an event's own fields.
type eventText struct {
	finishReason, code, message string
}

// partWalk reads a part (or, with ev, an event) object. The error is the
// object's own: not an object, a duplicate key, or the syntax.
func (d *decoder) partWalk(l loc, ev *eventText) (Part, fields, error) {
	var p Part
	fs := fields{start: d.pos}
	if d.peek() != '{' {
		return p, fs, d.notObject(l)
	}
	if !d.openObject() {
		return p, fs, errSyntax
	}
	events := ev != nil
	for first := true; ; first = false {
		name, at, plain, done, ok := d.key(first)
		if !ok {
			return p, fs, errSyntax
		}
		if done {
			break
		}
		bit := partField(keyBytes(name, plain), events)
		if bit == 0 {
			d.unknownKey(&fs, name, plain, at, l)
			if err := d.skip(); err != nil {
				return p, fs, err
			}
			continue
		}
		if !fs.see(bit, name, plain, l) {
			if err := d.skip(); err != nil {
				return p, fs, err
			}
			continue
		}
		var err error
		switch bit {
		case pProviderExecuted:
			p.ProviderExecuted, err = d.boolean(&fs, bit)
		case pApproved:
			p.Approved, err = d.boolean(&fs, bit)
		case pIsAutomatic:
			p.IsAutomatic, err = d.boolean(&fs, bit)
		case pInput:
			p.Input, err = d.any()
		case pEditedInput:
			p.EditedInput, err = d.any()
		case pProviderOptions:
			p.ProviderOptions, err = d.object(&fs, bit)
		case pOutput:
			if d.peek() != '{' {
				fs.bad |= bit
				err = d.skip()
				break
			}
			ol := l
			ol.out = true
			var oerr error
			p.Output, oerr = d.output(ol)
			if oerr == errSyntax {
				return p, fs, oerr
			}
			if oerr != nil && fs.nested == nil {
				fs.nested = oerr
			}
		default:
			var s string
			s, err = d.stringField(&fs, bit)
			switch bit {
			case pType:
				p.Type = PartType(s)
			case pText:
				p.Text = s
			case pMediaType:
				p.MediaType = s
			case pData:
				p.Data = s
			case pFilename:
				p.Filename = s
			case pToolCallID:
				p.ToolCallID = s
			case pToolName:
				p.ToolName = s
			case pApprovalID:
				p.ApprovalID = s
			case pReason:
				p.Reason = s
			case pSignature:
				p.Signature = s
			case pFinishReason:
				ev.finishReason = s
			case pCode:
				ev.code = s
			case pMessage:
				ev.message = s
			}
		}
		if err != nil {
			return p, fs, err
		}
	}
	return p, fs, fs.err
}

// checkPartType checks a part's type field.
func (d *decoder) checkPartType(fs *fields, typ PartType, l loc) error {
	return d.checkString(fs, pType, "type", string(typ), true, l)
}

// checkPart runs a part's checks after its type's, then its output's.
func (d *decoder) checkPart(p *Part, fs *fields, l loc) error {
	info, known := infoOf(p.Type)
	if !known {
		return l.fail("type", fmt.Sprintf("unknown part type %q (want one of %s)", p.Type, knownPartTypes()))
	}
	allowed := func(k string) bool { return partField([]byte(k), false)&info.mask != 0 }
	if err := d.only(fs, info.mask, allowed, info.list, l); err != nil {
		return err
	}
	if err := d.checkObject(fs, pProviderOptions, "providerOptions", l); err != nil {
		return err
	}
	var errs [5]error
	switch p.Type {
	case PartText, PartReasoning:
		errs[0] = d.checkPresentString(fs, pText, "text", l)
	case PartFile:
		errs[0] = d.checkString(fs, pMediaType, "mediaType", p.MediaType, true, l)
		errs[1] = d.checkPresentString(fs, pData, "data", l)
		errs[2] = d.checkString(fs, pFilename, "filename", p.Filename, false, l)
	case PartToolCall:
		errs[0] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[1] = d.checkString(fs, pToolName, "toolName", p.ToolName, true, l)
		if !fs.has(pInput) {
			errs[2] = l.fail("input", "missing field")
		}
		errs[3] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
	case PartToolResult:
		errs[0] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[1] = d.checkString(fs, pToolName, "toolName", p.ToolName, true, l)
		errs[2] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
		switch {
		case !fs.has(pOutput):
			errs[3] = l.fail("output", "missing field")
		case fs.bad&pOutput != 0:
			ol := l
			ol.out = true
			errs[3] = ol.here("want an object, got " + describe(d.valueOf(fs.start, "output")))
		default:
			errs[3] = fs.nested
		}
	case PartToolApprovalRequest:
		errs[0] = d.checkString(fs, pApprovalID, "approvalId", p.ApprovalID, true, l)
		errs[1] = d.checkString(fs, pToolCallID, "toolCallId", p.ToolCallID, true, l)
		errs[2] = d.checkString(fs, pSignature, "signature", p.Signature, false, l)
		errs[3] = d.checkString(fs, pReason, "reason", p.Reason, false, l)
		errs[4] = d.checkBool(fs, pIsAutomatic, "isAutomatic", false, l)
	case PartToolApprovalResponse:
		errs[0] = d.checkString(fs, pApprovalID, "approvalId", p.ApprovalID, true, l)
		errs[1] = d.checkBool(fs, pApproved, "approved", true, l)
		errs[2] = d.checkString(fs, pReason, "reason", p.Reason, false, l)
		errs[3] = d.checkBool(fs, pProviderExecuted, "providerExecuted", false, l)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// lonePart decodes a part outside a message (no role to check).
func (d *decoder) lonePart(l loc) (Part, error) { return d.partIn(l, "") }

// Tool outputs.

// The fields of a tool output.
const (
	oType uint32 = 1 << iota
	oValue
	oReason
	oProviderOptions
)

func outputField(k []byte) uint32 {
	switch string(k) {
	case "type":
		return oType
	case "value":
		return oValue
	case "reason":
		return oReason
	case "providerOptions":
		return oProviderOptions
	}
	return 0
}

// output reads a tool output (at its '{') and checks it.
func (d *decoder) output(l loc) (*ToolOutput, error) {
	o := d.newOutput()
	fs := fields{start: d.pos}
	if !d.openObject() {
		return nil, errSyntax
	}
	for first := true; ; first = false {
		name, at, plain, done, ok := d.key(first)
		if !ok {
			return nil, errSyntax
		}
		if done {
			break
		}
		bit := outputField(keyBytes(name, plain))
		if bit == 0 {
			d.unknownKey(&fs, name, plain, at, l)
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		if !fs.see(bit, name, plain, l) {
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		var err error
		switch bit {
		case oType:
			var s string
			s, err = d.stringField(&fs, bit)
			o.Type = OutputType(s)
		case oValue:
			o.Value, err = d.any()
		case oReason:
			o.Reason, err = d.stringField(&fs, bit)
		case oProviderOptions:
			o.ProviderOptions, err = d.object(&fs, bit)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := d.checkOutput(o, &fs, l); err != nil {
		return nil, err
	}
	return o, nil
}

func (d *decoder) checkOutput(o *ToolOutput, fs *fields, l loc) error {
	if fs.err != nil {
		return fs.err
	}
	if err := d.checkString(fs, oType, "type", string(o.Type), true, l); err != nil {
		return err
	}
	allowed := func(mask uint32) func(string) bool {
		return func(k string) bool { return outputField([]byte(k))&mask != 0 }
	}
	switch o.Type {
	case OutputJSON, OutputErrorJSON, OutputText, OutputErrorText:
		mask := oType | oValue | oProviderOptions
		if err := d.only(fs, mask, allowed(mask), "type, value, providerOptions", l); err != nil {
			return err
		}
		if !fs.has(oValue) {
			return l.fail("value", "missing field")
		}
		if (o.Type == OutputText || o.Type == OutputErrorText) && o.Value[0] != '"' {
			return l.fail("value", fmt.Sprintf("want a string for a %s output, got %s", o.Type, jsonKind(o.Value)))
		}
	case OutputExecutionDenied:
		mask := oType | oReason | oProviderOptions
		if err := d.only(fs, mask, allowed(mask), "type, reason, providerOptions", l); err != nil {
			return err
		}
		if err := d.checkString(fs, oReason, "reason", o.Reason, false, l); err != nil {
			return err
		}
	default:
		return l.fail("type", fmt.Sprintf("unknown output type %q (want json, text, error-text, error-json or execution-denied)", o.Type))
	}
	return d.checkObject(fs, oProviderOptions, "providerOptions", l)
}

// Events.

func (d *decoder) events() ([]Event, error) {
	if !d.consume('[') || !d.enter() {
		return nil, errSyntax
	}
	evs := make([]Event, 0, 8)
	for i := 0; ; i++ {
		done, ok := d.elem(i == 0)
		if !ok {
			return nil, errSyntax
		}
		if done {
			return evs, nil
		}
		e, err := d.event(loc{base: "events", item: i, part: -1, index: i})
		if err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
}

func (d *decoder) event(l loc) (Event, error) {
	var ev eventText
	p, fs, err := d.partWalk(l, &ev)
	if err != nil {
		return Event{}, err
	}
	if err := d.checkPartType(&fs, p.Type, l); err != nil {
		return Event{}, err
	}
	e := Event{Type: EventType(p.Type)}
	only := func(list string, mask uint32) error {
		return d.only(&fs, mask, func(k string) bool { return partField([]byte(k), true)&mask != 0 }, list, l)
	}
	switch e.Type {
	case EventToolCall, EventToolApprovalRequest, EventToolResult:
		if err := d.checkPart(&p, &fs, l); err != nil {
			return Event{}, err
		}
		e.Part = &p
	case EventStartStep:
		err = only("type", pType)
	case EventTextDelta:
		if err = only("type, text", pType|pText); err == nil {
			err = d.checkPresentString(&fs, pText, "text", l)
			e.Text = p.Text
		}
	case EventFinishStep, EventFinish:
		if err = only("type, finishReason", pType|pFinishReason); err == nil {
			err = d.checkString(&fs, pFinishReason, "finishReason", ev.finishReason, true, l)
			e.FinishReason = ev.finishReason
		}
	case EventError:
		if err = only("type, code, message", pType|pCode|pMessage); err == nil {
			if err = d.checkString(&fs, pCode, "code", ev.code, false, l); err == nil {
				err = d.checkString(&fs, pMessage, "message", ev.message, false, l)
			}
			e.Code, e.Message = ev.code, ev.message
		}
	default:
		return Event{}, l.fail("type", fmt.Sprintf("unknown event type %q", p.Type))
	}
	if err != nil {
		return Event{}, err
	}
	return e, nil
}

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
