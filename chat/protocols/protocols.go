// Package protocols is the registry of the chat wire protocols: it maps a
// protocol name, and optionally one of its dialects, to its codec.
package protocols

import (
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/agui"
	"github.com/approval-conformance-kit/ack/chat/uistream"
)

// Lookup returns the codec of a protocol name (see chat.Protocols), in the
// protocol's default dialect.
func Lookup(name string) (chat.Codec, error) {
	return LookupDialect(name, "")
}

// LookupDialect returns the codec of a protocol in one of its dialects (see
// chat.Dialects); an empty dialect is the protocol's default.
func LookupDialect(name, dialect string) (chat.Codec, error) {
	if !slices.Contains(chat.Protocols, name) {
		return nil, fmt.Errorf("unknown chat protocol %q (known: %s)", name, strings.Join(chat.Protocols, ", "))
	}
	if dialect == "" {
		dialect = chat.DefaultDialect(name)
	} else if !slices.Contains(chat.Dialects[name], dialect) {
		if len(chat.Dialects[name]) == 0 {
			return nil, fmt.Errorf("chat protocol %q has no dialects; %q is not one", name, dialect)
		}
		return nil, fmt.Errorf("unknown dialect %q of chat protocol %q (known: %s)", dialect, name, strings.Join(chat.Dialects[name], ", "))
	}
	switch name {
	case chat.ProtocolAGUI:
		return agui.Codec{Interrupts: true, Dialect: dialect}, nil
	case chat.ProtocolAGUILegacy:
		return agui.Codec{Dialect: dialect}, nil
	default:
		return uistream.Codec{}, nil
	}
}

// All returns a codec for every protocol, in the order of chat.Protocols,
// each in its default dialect.
func All() []chat.Codec {
	out := make([]chat.Codec, 0, len(chat.Protocols))
	for _, name := range chat.Protocols {
		c, _ := Lookup(name)
		out = append(out, c)
	}
	return out
}

// AllDialects returns a codec for every protocol in every dialect.
func AllDialects() []chat.Codec {
	var out []chat.Codec
	for _, name := range chat.Protocols {
		ds := chat.Dialects[name]
		if len(ds) == 0 {
			ds = []string{""}
		}
		for _, d := range ds {
			c, _ := LookupDialect(name, d)
			out = append(out, c)
		}
	}
	return out
}
