package model

import "fmt"

// DecodePartAt strictly decodes one content part of a message with the
// given role: an unknown type, a type the role does not allow, an unknown
// field or a missing id is a *DecodeError whose path starts with path (for
// example "content[2]"). An empty role allows every part type.
func DecodePartAt(data []byte, path string, role Role) (Part, error) {
	l := loc{base: path, item: -1, part: -1, index: -1}
	return decodeObject(data, l, func(d *decoder, l loc) (Part, error) { return d.partIn(l, role) })
}

// DecodePartsAt strictly decodes a JSON array of content parts of a message
// with the given role; errors name prefix[i] and the field.
func DecodePartsAt(data []byte, prefix string, role Role) ([]Part, error) {
	if err := wantArray(data, prefix); err != nil {
		return nil, err
	}
	d := &decoder{data: data}
	parts, err := d.partList(prefix, role)
	if err := d.finish(err, prefix, -1); err != nil {
		return nil, err
	}
	return parts, nil
}

// partIn decodes a part of a message with the given role ("" for any).
func (d *decoder) partIn(l loc, role Role) (Part, error) {
	p, fs, err := d.partWalk(l, nil)
	if err == nil {
		err = d.checkPartType(&fs, p.Type, l)
	}
	if err == nil && role != "" {
		if _, known := infoOf(p.Type); known && !allowedIn(role, p.Type) {
			err = l.fail("type", fmt.Sprintf("part type %q is not allowed in a %s message", p.Type, role))
		}
	}
	if err == nil {
		err = d.checkPart(&p, &fs, l)
	}
	return p, err
}

// partList decodes an array of parts named prefix[i].
func (d *decoder) partList(prefix string, role Role) ([]Part, error) {
	if !d.consume('[') || !d.enter() {
		return nil, errSyntax
	}
	d.scratch = d.scratch[:0]
	for i := 0; ; i++ {
		done, ok := d.elem(i == 0)
		if !ok {
			return nil, errSyntax
		}
		if done {
			return d.carve(d.scratch), nil
		}
		p, err := d.partIn(loc{base: prefix, item: i, part: -1, index: -1}, role)
		if err != nil {
			return nil, err
		}
		d.scratch = append(d.scratch, p)
	}
}
