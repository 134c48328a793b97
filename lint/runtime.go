package lint

import (
	"fmt"
	"strings"
)

// Runtime is a chat server whose conversion of UI messages to model
// messages lint applies: the reference's (the one the server role of the
// suite certifies), or a certified SDK's where it is known to convert a
// state otherwise.
type Runtime struct {
	// Name and Version name it ("vercel-ai", "7.0.173"); the reference has
	// no version.
	Name, Version string
	// RefusesAnswerBeforeUser: an answered approval followed by a user
	// message is not read (answers are looked for only when the last
	// message is a tool message), so the SDK throws MissingToolResultsError
	// before it calls the provider. DeniedToo says a denial is lost the
	// same way (otherwise only an approval).
	RefusesAnswerBeforeUser, DeniedToo bool
	// RefusesPendingBeforeUser: an approval request left unanswered before
	// a later user message is kept, and the SDK throws
	// MissingToolResultsError.
	RefusesPendingBeforeUser bool
	// DropsPendingBeforeUser: approval requests before the last user
	// message are removed from the history, their calls with them.
	DropsPendingBeforeUser bool
	// DeniedRespondedIsResult: an approval-responded part with a denial
	// becomes a denial's tool result in the conversion itself.
	DeniedRespondedIsResult bool
}

// String is NAME@VERSION, or "reference".
func (r Runtime) String() string {
	if r.Version == "" {
		return r.Name
	}
	return r.Name + "@" + r.Version
}

// Reference is the reference chat server: an answer anywhere after the last
// assistant message is acted on, whatever follows it.
var Reference = Runtime{Name: "reference"}

// Runtimes are the runtimes lint knows, the reference first.
//
// The AI SDK's facts: its answers are looked for only when the last message
// is a tool message (ai 6.0.326 collect-tool-approvals.ts:30-37, ai 7.0.173
// :31-38; reports/certified/vercel-ai@*-wire/FINDINGS.md D3), so an answer
// followed by a user message is lost and streamText throws
// MissingToolResultsError before the provider is called. In ai 6 a denial
// is lost the same way, and an approval request left unanswered before a
// user message is kept, with the same error (FINDINGS.md D7). ai 7's
// convertToModelMessages gives a denied approval-responded part an
// execution-denied result (ui/convert-to-model-messages.ts:361-376), and
// removes approval requests that come before the last user message, their
// calls with them (:63-87; FINDINGS.md D7).
var Runtimes = []Runtime{
	Reference,
	{Name: "vercel-ai", Version: "6.0.326", RefusesAnswerBeforeUser: true, DeniedToo: true, RefusesPendingBeforeUser: true},
	{Name: "vercel-ai", Version: "7.0.173", RefusesAnswerBeforeUser: true, DropsPendingBeforeUser: true, DeniedRespondedIsResult: true},
}

// ParseRuntime reads NAME@VERSION ("reference", "" for the reference).
func ParseRuntime(s string) (Runtime, error) {
	if s == "" || s == "reference" {
		return Reference, nil
	}
	var names []string
	for _, r := range Runtimes {
		if r.String() == s {
			return r, nil
		}
		names = append(names, r.String())
	}
	return Runtime{}, fmt.Errorf("no conversion on record for runtime %q (known: %s)", s, strings.Join(names, ", "))
}

// missingToolResults is the AI SDK's refusal of a call without a result, as
// the certified reports record it.
func missingToolResults(id string) string {
	return fmt.Sprintf("MissingToolResultsError: Tool result is missing for tool call %s.", id)
}
