// Package protocols is the registry of the chat wire protocols: it maps a
// protocol name to its codec.
package protocols

import (
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/agui"
	"github.com/approval-conformance-kit/ack/chat/uistream"
)

// Lookup returns the codec of a protocol name (see chat.Protocols).
func Lookup(name string) (chat.Codec, error) {
	switch name {
	case chat.ProtocolAGUI:
		return agui.Codec{Interrupts: true}, nil
	case chat.ProtocolAGUILegacy:
		return agui.Codec{}, nil
	case chat.ProtocolUIMessageStream:
		return uistream.Codec{}, nil
	}
	return nil, fmt.Errorf("unknown chat protocol %q (known: %s)", name, strings.Join(chat.Protocols, ", "))
}

// All returns a codec for every protocol, in the order of chat.Protocols.
func All() []chat.Codec {
	out := make([]chat.Codec, 0, len(chat.Protocols))
	for _, name := range chat.Protocols {
		c, _ := Lookup(name)
		out = append(out, c)
	}
	return out
}
