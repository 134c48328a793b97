package model

import (
	"fmt"
)

// Decoding a message: its role, its content (a string or parts) and the
// parts each role may hold.

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
