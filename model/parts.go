package model

import "fmt"

// DecodePartAt strictly decodes one content part of a message with the
// given role: an unknown type, a type the role does not allow, an unknown
// field or a missing id is a *DecodeError whose path starts with path (for
// example "content[2]"). An empty role allows every part type.
func DecodePartAt(data []byte, path string, role Role) (Part, error) {
	return decodePart(data, path, -1, role)
}

// DecodePartsAt strictly decodes a JSON array of content parts of a message
// with the given role; errors name prefix[i] and the field.
func DecodePartsAt(data []byte, prefix string, role Role) ([]Part, error) {
	items, err := readArray(data, prefix)
	if err != nil {
		return nil, err
	}
	parts := make([]Part, 0, len(items))
	for i, raw := range items {
		p, err := decodePart(raw, fmt.Sprintf("%s[%d]", prefix, i), -1, role)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}
