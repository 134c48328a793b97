// Package transcript reads recorded conversations in the formats they are
// found in, telling the formats apart by content: the kit's canonical
// conversation (the AI SDK's model messages, 4 to 7), request bodies of
// OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, Vercel
// AI SDK UI messages (3 to 7), AG-UI RunAgentInput (with TanStack AI's
// parts), AG-UI event logs, LangChain message JSON, Gemini contents, and
// the kit's own journal (journal.jsonl of a report, or of `conformance
// record`).
//
// Reading is lenient: the field names of earlier SDK versions are read as
// their successors, and fields or part types a format does not know, which
// say nothing about pairing, are left out; each is a Note. Only what cannot
// be read at all is an Error.
//
// Reading streams: a JSON array of messages is read one element at a time,
// each element decoded (with the provider codecs of package provider and the
// chat codecs of package chat), reduced to what the providers' rules look
// at, and dropped. Only a skeleton (roles, part types, ids) of each message
// is kept, so a transcript of hundreds of megabytes is read in memory
// proportional to its largest message plus a few bytes per message. Options
// keep the full content for consumers that need it (replay, scenarios).
//
// Errors name the file position (a byte offset, which Position turns into a
// line and column) and the field, for example
// "messages[3].tool_calls[0].id: missing".
package transcript

import (
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/wire"
)

// Format is a transcript format.
type Format string

// The formats.
const (
	// Canonical is the kit's conversation model (docs/driver-protocol.md):
	// an array of messages, or an object with "messages".
	Canonical Format = "canonical"
	// OpenAIChat is an OpenAI Chat Completions request body.
	OpenAIChat Format = "openai-chat"
	// OpenAIResponses is an OpenAI Responses request body.
	OpenAIResponses Format = "openai-responses"
	// AnthropicMessages is an Anthropic Messages request body.
	AnthropicMessages Format = "anthropic-messages"
	// UIMessages is the Vercel AI SDK's UI messages (useChat's request body,
	// or the array alone).
	UIMessages Format = "ui-messages"
	// AGUI is an AG-UI RunAgentInput (TanStack AI's request body).
	AGUI Format = "ag-ui"
	// Journal is the kit's journal: one JSON object per model call.
	Journal Format = "journal"
	// LangChain is LangChain's message JSON: messages with a type (human,
	// ai, tool, system) and their tool_calls and tool_call_id, as
	// messages_to_dict, model_dump or the JS serializer write them.
	LangChain Format = "langchain"
	// Gemini is a Gemini generateContent request body (contents with
	// functionCall and functionResponse parts), or its contents alone.
	Gemini Format = "gemini"
)

// Formats lists every format.
var Formats = []Format{Canonical, OpenAIChat, OpenAIResponses, AnthropicMessages, UIMessages, AGUI, Journal, LangChain, Gemini, AGUIEvents}

// ParseFormat reads a format name; "" and "auto" mean detection by content.
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown input format %q (want auto, %s)", s, strings.Join(names, ", "))
}

// Describe names the format for people.
func (f Format) Describe() string {
	switch f {
	case Canonical:
		return "canonical conversation"
	case OpenAIChat:
		return "OpenAI Chat Completions request body"
	case OpenAIResponses:
		return "OpenAI Responses request body"
	case AnthropicMessages:
		return "Anthropic Messages request body"
	case UIMessages:
		return "Vercel AI SDK UI messages"
	case AGUI:
		return "AG-UI RunAgentInput"
	case Journal:
		return "journal"
	case LangChain:
		return "LangChain messages"
	case Gemini:
		return "Gemini contents"
	case AGUIEvents:
		return "AG-UI event log"
	}
	return string(f)
}

// Provider reports whether the format is a provider's request body, and
// its profile.
func (f Format) Provider() (wire.Profile, bool) {
	switch f {
	case OpenAIChat:
		return wire.OpenAIChat, true
	case OpenAIResponses:
		return wire.OpenAIResponses, true
	case AnthropicMessages:
		return wire.AnthropicMessages, true
	}
	return "", false
}

// Kind says what a request's messages are.
type Kind string

// The kinds.
const (
	// Prompt: what reached a model (a provider body, a journaled prompt).
	Prompt Kind = "prompt"
	// History: what an agent or a chat server receives (a canonical
	// conversation, UI messages, a RunAgentInput); answers at its end are
	// still to be acted on.
	History Kind = "history"
)

// set is a set of candidate formats while detecting.
type set uint16

func one(f Format) set {
	for i, g := range Formats {
		if g == f {
			return 1 << i
		}
	}
	return 0
}

func setOf(fs ...Format) set {
	var s set
	for _, f := range fs {
		s |= one(f)
	}
	return s
}

// bodies are the formats a messages array can be in.
var bodies = setOf(Canonical, OpenAIChat, OpenAIResponses, AnthropicMessages, UIMessages, AGUI, LangChain, Gemini)

// priority decides between formats that stay indistinguishable (every
// message plain text): the order they are tried in.
var priority = []Format{Canonical, OpenAIChat, AnthropicMessages, UIMessages, AGUI, OpenAIResponses, LangChain, Gemini}

func (s set) single() (Format, bool) {
	var found Format
	n := 0
	for i, f := range Formats {
		if s&(1<<i) != 0 {
			found = f
			n++
		}
	}
	return found, n == 1
}

func (s set) has(f Format) bool { return s&one(f) != 0 }

// first returns the candidate that comes first in priority.
func (s set) first() (Format, bool) {
	for _, f := range priority {
		if s.has(f) {
			return f, true
		}
	}
	return "", false
}

func (s set) names() string {
	var out []string
	for _, f := range Formats {
		if s.has(f) {
			out = append(out, string(f))
		}
	}
	return strings.Join(out, ", ")
}
