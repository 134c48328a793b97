package lint

import (
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/transcript"
)

// Runtime is a chat server whose conversion of UI messages to model
// messages lint applies: the reference's (the one the server role of the
// suite certifies), or a certified SDK's where it is known to convert a
// state otherwise.
type Runtime struct {
	// Name and Version name it ("vercel-ai", "7.0.173"); the reference has
	// no version.
	Name, Version string
	// Format is the UI message format its server converts (the reference
	// converts every one), and Reads says it in words: a history of
	// another format is converted as the reference does.
	Format transcript.Format
	Reads  string
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
	// AsksAgainPendingBeforeUser: an approval request left unanswered
	// before a later user message keeps its call, and the server, finding
	// the call without a result when the run starts, asks for the approval
	// again without calling the model.
	AsksAgainPendingBeforeUser bool
	// ResolvesAnswerAnywhere: an answer is acted on (and its result put
	// next to its call) even when an assistant message comes after it.
	ResolvesAnswerAnywhere bool
	// DropsIncompleteInput: a tool part whose input is not complete (no
	// output) is left out of the model messages, its call with it.
	DropsIncompleteInput []string
}

// reads reports whether the runtime converts histories of format f.
func (r Runtime) reads(f transcript.Format) bool {
	return r.Format == "" || r.Format == f
}

// dropsIncomplete reports whether the runtime leaves a part in state out.
func (r Runtime) dropsIncomplete(state string) bool {
	for _, s := range r.DropsIncompleteInput {
		if s == state {
			return true
		}
	}
	return false
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
//
// TanStack AI's facts, for the ai-client 0.33.2 line (its chat() server is
// @tanstack/ai 0.58.0; lines of dist/esm/activities/chat/): the server reads
// the RunAgentInput's messages with their parts. convertMessagesToModelMessages
// (messages.js:81-148) builds an assistant message's tool calls from its
// tool-call parts, but only those in state input-complete, complete,
// approval-requested, approval-responded or error, or with an output
// (isToolCallIncluded, messages.js:350-352; used at :403-412): a part still
// awaiting-input or input-streaming is left out, its call with it. An
// approval-responded part with no output becomes a tool message in the
// conversion itself, {"approved":false,"message":"User denied this action"}
// for a denial (messages.js:461-472), which the server counts as the call's
// result (index.js:1459-1466). Before it calls the model, every run looks
// for calls without a result anywhere in the history (checkForPendingToolCalls,
// index.js:340, :769-771, getPendingToolCallsFromMessages :1459-1474) and
// interrupts for the approval of each one whose tool needs approval and
// has none (getBoundaryActionableToolRequests, index.js:1342-1362): an
// approval left unanswered before a later user message is asked for again,
// and the model is not called (as the tanstack@0.33.2-wire certification
// shows in new-message-over-pending-approval.yaml: one model call, the
// second turn ends on the approval request). An answer followed by a user
// message is acted on, as the reference does (the approvals are read from
// every message's approval-responded parts, index.js:1076-1082), and so is
// one with an assistant message after it: its approval becomes a
// placeholder tool message right after its call, {"approved":true,
// "pendingExecution":true,...} (messages.js:461-472), which is no result
// (index.js:1462-1465), so the call is run with the approvals before the
// model is called (index.js:797-800) and its result takes the
// placeholder's place (index.js:1435-1453).
//
// TanStack AI's ai-client 0.22.1 line (@tanstack/ai 0.42.0, the same files)
// differs in one state: isToolCallIncluded leaves approval-requested parts
// out too (messages.js:92-94, used at :124-126), so an approval request
// left unanswered is removed from the model messages, its call with it,
// and the model is called without it (the tanstack@0.22.1-wire certification
// shows it: in new-message-over-pending-approval.yaml, model call 2 holds
// the free call and not the pending one). Its denied approval-responded
// part is a denial's result in the conversion (messages.js:177-190), and
// an approved one is run wherever it is: its placeholder is no result
// (index.js:1037-1065), every run starts by running the calls without one
// with the approvals of every message (index.js:279, :600-601, :641-645,
// :885-897), and the result takes the placeholder's place
// (index.js:1009-1030).
var Runtimes = []Runtime{
	Reference,
	{Name: "vercel-ai", Version: "6.0.326", Format: transcript.UIMessages, Reads: "AI SDK UI messages",
		RefusesAnswerBeforeUser: true, DeniedToo: true, RefusesPendingBeforeUser: true},
	{Name: "vercel-ai", Version: "7.0.173", Format: transcript.UIMessages, Reads: "AI SDK UI messages",
		RefusesAnswerBeforeUser: true, DropsPendingBeforeUser: true, DeniedRespondedIsResult: true},
	{Name: "tanstack", Version: "0.22.1", Format: transcript.AGUI, Reads: "TanStack AI's messages (AG-UI RunAgentInput with parts)",
		DeniedRespondedIsResult: true, DropsPendingBeforeUser: true, ResolvesAnswerAnywhere: true,
		DropsIncompleteInput: []string{"awaiting-input", "input-streaming"}},
	{Name: "tanstack", Version: "0.33.2", Format: transcript.AGUI, Reads: "TanStack AI's messages (AG-UI RunAgentInput with parts)",
		DeniedRespondedIsResult: true, AsksAgainPendingBeforeUser: true, ResolvesAnswerAnywhere: true,
		DropsIncompleteInput: []string{"awaiting-input", "input-streaming"}},
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
