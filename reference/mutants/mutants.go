// Package mutants holds mutants of the reference runtime: each reintroduces
// one bug that a real SDK had or could have, and names the checks that must
// catch it. The suite proves itself by failing every mutant on its checks
// while passing the clean reference (see the mutation test in runner).
package mutants

import (
	"fmt"
	"sort"

	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/chatclient"
	"github.com/approval-conformance-kit/ack/reference/internal/fault"
)

// Mutant is a reference runtime with one bug.
type Mutant struct {
	// Name identifies the mutant on the command line and in reports.
	Name string
	// Bug says what the mutant does wrong.
	Bug string
	// Checks are the check ids that must catch it.
	Checks []string
	// Source is where the bug comes from (a seed, an SDK issue).
	Source string

	// Role is the side of the protocol the bug is on: agent or client.
	Role string
	// Collateral are the checks beyond its targets that the mutant fails
	// when the whole suite runs against it, each with why its bug truly
	// breaks that check's own rule (a test pins this table).
	Collateral map[string]string

	faults fault.Set
	opts   []reference.Option
}

// New returns an agent carrying the mutant's bug (a clean agent for a
// client mutant).
func (m Mutant) New(opts ...reference.Option) *reference.Agent {
	all := append(append([]reference.Option(nil), m.opts...), opts...)
	if m.Role == "client" {
		return reference.New(all...)
	}
	return reference.New(append(all, reference.WithFaults(m.faults))...)
}

// ClientOptions returns the options of a chat client carrying the mutant's
// bug (none for an agent mutant).
func (m Mutant) ClientOptions() []chatclient.Option {
	if m.Role != "client" {
		return nil
	}
	return []chatclient.Option{chatclient.WithFaults(m.faults)}
}

func clientMutant(name string, f fault.Fault, checks []string, bug, source string) Mutant {
	return Mutant{Name: name, Bug: bug, Checks: checks, Source: source, Role: "client", faults: fault.Of(f)}
}

func mutant(name string, f fault.Fault, checks []string, bug, source string, opts ...reference.Option) Mutant {
	return Mutant{Name: name, Bug: bug, Checks: checks, Source: source, Role: "agent", faults: fault.Of(f), opts: opts}
}

// withFaults adds bugs a mutant needs so that another defence of the
// reference does not hide the one it carries.
func (m Mutant) withFaults(fs ...fault.Fault) Mutant {
	m.faults = m.faults.With(fs...)
	return m
}

// also records a check the mutant's bug breaks beyond its targets, and why.
func (m Mutant) also(check, why string) Mutant {
	c := make(map[string]string, len(m.Collateral)+1)
	for k, v := range m.Collateral {
		c[k] = v
	}
	c[check] = why
	m.Collateral = c
	return m
}

var all = []Mutant{
	mutant("late-resolution", fault.LateResolution, []string{"PRE-01", "WIRE-01"},
		"resolves approvals only after the model was called, which receives a dangling call", "seed 000").
		also("EDIT-02", "the edited call reaches the model without its result").
		also("REQ-06", "the calls of the step have no result in the prompt the model receives").
		also("PRE-02", "the prompt holds no denial result for the denied call").
		also("PRE-09", "the batch's results are missing from the prompt").
		also("PRE-13", "the turn fails on the refused prompt after the approved tools ran: their results are lost").
		also("PRE-14", "the valid answer's result is missing from the prompt").
		also("PART-01", "the calls of the partly denied step have no result in the prompt").
		also("PART-02", "the skipped calls' results are missing from the prompt").
		also("ERR-02", "the failed call's error result is missing from the prompt"),
	mutant("results-after-model-call", fault.ResultsAfterModelCall, []string{"PRE-01"},
		"runs approved tools first but appends their results only after the model call", "seed 000 Phase 5").
		also("EDIT-02", "the edited call reaches the model without its result").
		also("REQ-06", "the calls of the step have no result in the prompt the model receives").
		also("PRE-02", "the prompt holds no denial result for the denied call").
		also("PRE-09", "the batch's results are missing from the prompt").
		also("PRE-13", "the turn fails on the refused prompt after the approved tools ran: their results are lost").
		also("PRE-14", "the valid answer's result is missing from the prompt").
		also("PART-01", "the calls of the partly denied step have no result in the prompt").
		also("PART-02", "the skipped calls' results are missing from the prompt").
		also("WIRE-01", "the approved calls dangle in the prompt, their results appended after it").
		also("ERR-02", "the failed call's error result is missing from the prompt"),
	mutant("executes-denied-call", fault.ExecuteDenied, []string{"PRE-02"},
		"runs a denied call's tool (and still reports a denial)", "vercel/ai #14428").
		also("PART-02", "a denied call runs: no call may run without approval"),
	// Without the replay ledger too: the ledger would otherwise hide the bug.
	mutant("re-executes-resolved-calls", fault.ReexecuteResolved, []string{"PRE-03"},
		"runs an approved call again although the history already holds its result (and keeps no ledger of runs)", "seed 000 excludeResolved").
		withFaults(fault.NoReplayLedger).
		also("WIRE-04", "a retried request runs the call that already has its result again"),
	mutant("forwards-orphan-responses", fault.ForwardOrphans, []string{"PRE-12"},
		"sends approval responses that match no request on to the model", "seed 000 test 1.5"),
	mutant("no-toolkit-check", fault.NoToolkitCheck, []string{"PRE-05"},
		"calls the model although approvals are pending and no toolkit was given", "seed 000 Phase 1").
		also("WIRE-01", "with no toolkit it calls the model with the approved calls unresolved: they dangle"),
	mutant("skips-unknown-tool", fault.SkipUnknownTool, []string{"PRE-06"},
		"silently skips an approved call to a tool that is not in the toolkit", "seed 000 test 3.4").
		also("PRE-13", "the turn fails on the refused prompt after the approved calls ran: their results are lost").
		also("WIRE-01", "the skipped call has no result and dangles in the prompt"),
	mutant("ignores-concurrency", fault.IgnoreConcurrency, []string{"PRE-07"},
		"runs every approved call at once whatever the concurrency option", "seed 000 test 5.3"),
	mutant("stream-skips-resolution", fault.StreamSkipsResolution, []string{"PRE-08"},
		"pre-resolves in generate mode but not in stream mode", "seed 000 Phase 6").
		also("EDIT-02", "in stream mode the edited call reaches the model without its result").
		also("REQ-06", "in stream mode the calls of the step have no result in the prompt").
		also("PRE-01", "in stream mode the approved calls run after the model call").
		also("PRE-02", "in stream mode the prompt holds no denial result").
		also("PRE-09", "in stream mode the batch's results are missing from the prompt").
		also("PRE-13", "in stream mode the turn fails on the refused prompt after the approved tools ran").
		also("PRE-14", "in stream mode the valid answer's result is missing from the prompt").
		also("PART-01", "in stream mode the calls of the partly denied step have no result in the prompt").
		also("PART-02", "in stream mode the skipped calls' results are missing from the prompt").
		also("WIRE-01", "in stream mode the approved calls dangle in the prompt").
		also("ERR-02", "in stream mode the failed call's error result is missing from the prompt"),
	mutant("first-response-only", fault.FirstResponseOnly, []string{"PRE-09"},
		"resolves only the first response of a batch", "seed 001 §2.5").
		also("REQ-01", "the turn after a batch is refused over the unresolved answers, so the request it should issue is never made").
		also("PRE-01", "approved calls after the first answer never run").
		also("PRE-02", "denied calls after the first answer get no denial result").
		also("PRE-03", "re-sent approvals after the first are ignored and the turn is refused over them").
		also("PRE-06", "the missing tool's answer is ignored, so the turn fails over it as unanswered, not as not found").
		also("PRE-07", "only the first of the slow calls runs, so no bound is seen").
		also("PRE-11", "a sibling's answer after the conflicted call's is ignored and the turn is refused").
		also("DEN-01", "the denials after the first answer get no denial result").
		also("PART-01", "the calls answered after the first are left without results").
		also("PART-02", "approved calls answered after the first never run").
		also("ERR-02", "the failing call's answer is ignored, so it gets no error result").
		also("PRE-14", "a stray answer that comes first in its message is the only one read, so the valid answer after it is lost"),
	mutant("last-assistant-only", fault.LastAssistantOnly, []string{"PRE-10"},
		"looks for approval requests in the last assistant message only", "seed 001 §2.1"),
	mutant("double-execution-on-duplicates", fault.DoubleExecuteDuplicates, []string{"PRE-11"},
		"runs a call once per duplicated approval response", "mission: duplicated approvals").
		also("WIRE-03", "the duplicated answers run the call twice within one request"),
	mutant("keeps-approval-parts", fault.KeepApprovalParts, []string{"PRE-12"},
		"sends approval requests and responses (and the approval's reason) to the model", "Vercel convert-to-language-model-prompt"),
	mutant("validates-late", fault.ValidateLate, []string{"PRE-13"},
		"runs the approved tools it can before finding that one approved tool does not exist", "seed 000 Phase 5"),
	mutant("runs-before-approval", fault.RunBeforeApproval, []string{"REQ-01"},
		"runs a tool that needs approval in the same turn it asks for approval", "seed 001 §1.1").
		also("EDIT-01", "the call runs with the model's input before the user edits it").
		also("REQ-05", "a call whose policy failed runs at once, before any answer").
		also("PRE-02", "a call later denied has already run").
		also("PRE-03", "an approved call runs once when asked and again when approved").
		also("PRE-04", "a call runs before any answer, stray or valid").
		also("PRE-05", "calls run in the first turn, whatever the toolkit later").
		also("PRE-06", "a call to a tool later left out has already run").
		also("PRE-07", "the slow calls run twice, unbounded, in the first turn").
		also("PRE-09", "an unanswered call of the batch has already run").
		also("PRE-11", "a call runs before its duplicate answers, and again").
		also("PART-02", "calls later denied or skipped have already run").
		also("WIRE-03", "a re-sent approval runs the call again within the request that already ran it").
		also("WIRE-04", "a replayed request finds the call run twice already").
		also("ERR-01", "a call answered with a malformed approval has already run"),
	mutant("constant-approval-ids", fault.ConstantApprovalIDs, []string{"REQ-02"},
		"gives every approval request the same id", "seed 002 approval id vs tool call id").
		also("REQ-01", "an answer names one id that every request shares, so the runtime cannot tell the calls apart and refuses the turn after a batch; the request that turn should issue is never made").
		also("REQ-06", "calls of a step whose answers cannot be told apart end the turn with neither a result nor a pending request").
		also("PRE-01", "approved calls whose answer shares its id with another call's are never run").
		also("PRE-02", "denied calls whose answer cannot be matched get no denial result").
		also("PRE-03", "approvals re-sent after the results match every call's request at once, and the turn is refused instead of answered").
		also("PRE-06", "an approved call to a missing tool is refused over the calls it cannot match, not found missing").
		also("PRE-07", "the slow calls of a batch never run, so there is no bounded run to see").
		also("PRE-09", "a batch of answers sharing one id is not resolved").
		also("PRE-10", "an answer given turns later matches the first request with the id, not its own call").
		also("PRE-11", "a conflicted call beside a sibling cannot be told from the sibling, and the turn is refused").
		also("DEN-01", "the denied calls of a batch get no denial result at all").
		also("PART-01", "the calls of a partly denied step are left without results").
		also("PART-02", "approved calls beside a denied one never run").
		also("ERR-02", "a failing call's answer cannot be matched, so it gets no error result"),
	mutant("continues-after-approval", fault.ContinueAfterApproval, []string{"REQ-03"},
		"calls the model again in the same turn while an approval is pending", "Vercel shouldStartNextStep").
		also("WIRE-01", "calling the model again while a call waits for approval sends that call without a result: a dangling call the provider refuses"),
	mutant("policy-cached-per-tool", fault.PolicyCachedPerTool, []string{"REQ-04"},
		"evaluates a dynamic policy once per tool instead of once per call", "seed 001 §3.1").
		also("REQ-01", "the cached decision of one call (no approval) is reused for another that needs approval, which then gets no request").
		also("REQ-06", "calls the cached decision mishandles end the turn with neither result nor request").
		also("PRE-01", "a call that needed approval was never asked, so its answer matches nothing and it never runs"),
	mutant("fail-open-policy", fault.FailOpenPolicy, []string{"REQ-05"},
		"runs the tool unapproved when its approval policy fails", "seed 001 §3.4"),
	mutant("drops-unapproved-sibling", fault.DropUnapprovedSibling, []string{"REQ-06"},
		"drops the calls that need no approval from a step that also asks for one", "TanStack AI batch gating").
		also("REQ-04", "the calls the dynamic policy let through are dropped, so its decision is not honoured").
		also("PRE-01", "the dropped calls are missing from the prompt beside the approved ones, which then stay unresolved").
		also("PRE-09", "the batch turn is refused over the dropped calls that never got results"),
	mutant("drops-approval-events", fault.DropApprovalEvents, []string{"REQ-07"},
		"filters approval-request events out of the stream", "seed 004"),
	mutant("denial-as-text", fault.DenialAsText, []string{"DEN-01"},
		"reports a denial as a plain text result", "seed 000 Phase 4").
		also("DEN-03", "the denial reaches later turns as plain text, not the execution-denied result the first turn was promised"),
	mutant("drops-denial-reason", fault.DropDenialReason, []string{"DEN-02"},
		"drops the user's denial reason", "seed 001 §2.2").
		also("DEN-03", "the reason, dropped, is missing from the denial in every later turn too"),
	mutant("rewrites-old-denials", fault.RewriteOldDenials, []string{"DEN-03"},
		"shows earlier denials to the model as error text", "sdk-integration §2.6"),
	mutant("lost-results-on-partial-denial", fault.LostResultsOnPartialDenial, []string{"PART-01"},
		"stops processing a step at its first denial, leaving the other calls without results", "seed 003").
		also("PRE-01", "approved calls after the denied one never run").
		also("PRE-09", "the batch is not resolved past its first denial").
		also("PART-02", "approved calls after a denial never run (independent policy)").
		also("WIRE-01", "the calls left without results dangle in the prompt"),
	mutant("reruns-approved-on-partial-denial", fault.RerunApprovedOnPartialDenial, []string{"PART-02"},
		"runs the approved calls of a partly denied step twice", "seed 003").
		also("PRE-11", "a call with conflicting answers beside a denial runs twice").
		also("WIRE-03", "the approved calls run twice within one request"),
	mutant("runs-provider-executed", fault.RunProviderExecuted, []string{"PROV-01"},
		"runs an approved provider-executed call locally", "seed 001 §2.4"),
	mutant("drops-unflagged-provider-approval", fault.DropUnflaggedProviderApproval, []string{"PROV-02"},
		"drops a provider approval answered without providerExecuted", "sdk-integration §2.5"),
	mutant("no-result-placement", fault.NoResultPlacement, []string{"WIRE-02"},
		"leaves results where the client put them instead of right after their calls", "anchors §5"),
	mutant("executes-twice", fault.ExecuteTwice, []string{"WIRE-03"},
		"runs every call twice within one request", "mission: duplicated execution").
		also("PRE-11", "a call with duplicate answers runs twice: duplicates must lead to at most one run").
		also("PART-02", "approved calls run twice: they must run exactly once"),
	mutant("no-replay-ledger", fault.NoReplayLedger, []string{"WIRE-04"},
		"runs an approved call again when the same request is replayed", "mission: replayed approvals"),
	mutant("lenient-approval-decoding", fault.LenientApproved, []string{"ERR-01"},
		`reads "approved":"yes" as an approval`, "sdk-integration §2.3.12"),
	mutant("dangling-on-tool-error", fault.DanglingOnToolError, []string{"ERR-02"},
		"gives a failing tool no result", "seed 000 test 3.7").
		also("WIRE-01", "the failing call without a result dangles in the next prompt").
		also("REQ-06", "a call that needed no approval and failed ends its step with no result: the call is dropped"),
	mutant("no-signature-check", fault.NoSignatureCheck, []string{"SEC-01"},
		"honours approval requests it never issued", "Vercel tool-approval-signature").
		also("SEC-02", "a call whose input was changed after its request is honoured as approved (no signature binds the input)"),
	mutant("signature-ignores-input", fault.SignatureIgnoresInput, []string{"SEC-02"},
		"signs approvals without the call's input, so an edited input still runs", "Vercel tool-approval-signature"),

	// Neighbouring paths: the same mistake one branch away from a mutant
	// above, as bugs ship in real SDKs.
	mutant("panicking-policy-fails-open", fault.PanickingPolicyFailsOpen, []string{"REQ-05"},
		"runs the tool unapproved when its approval policy panics (an error still fails closed)", "neighbour of fail-open-policy"),
	mutant("empty-toolkit-unchecked", fault.EmptyToolkitUnchecked, []string{"PRE-05"},
		"refuses pending approvals without a toolkit, but not with an empty one", "neighbour of no-toolkit-check").
		also("WIRE-01", "with an empty toolkit it calls the model with the approved calls unresolved: they dangle"),
	mutant("accepts-unsigned-requests", fault.UnsignedAccepted, []string{"SEC-01"},
		"refuses a wrongly signed approval request, but honours one with no signature at all", "neighbour of no-signature-check"),
	mutant("signature-ignores-tool-name", fault.SignatureIgnoresName, []string{"SEC-02"},
		"signs approvals without the call's tool name, so a renamed call still runs", "neighbour of signature-ignores-input"),
	mutant("last-tool-message-only", fault.LastToolMessageOnly, []string{"PRE-09"},
		"reads the answers of the last tool message only, losing a batch sent in two messages", "neighbour of first-response-only").
		also("PRE-01", "the approvals of the first tool message are lost, so those calls never run").
		also("PART-02", "approved calls answered in the first message never run"),
	mutant("result-in-same-message-ignored", fault.ResultInSameMessageIgnored, []string{"PRE-03"},
		"runs a call again when its result comes in the same message as its approval (results in earlier messages are respected)", "neighbour of re-executes-resolved-calls"),
	mutant("conflicts-across-messages", fault.ConflictAcrossMessagesBoth, []string{"PRE-11"},
		"decides conflicting answers in two messages each on its own: the call runs and also gets a denial", "neighbour of double-execution-on-duplicates"),
	mutant("runs-unanswered-calls", fault.RunUnanswered, []string{"PRE-09"},
		"runs the calls whose approval is still unanswered when only some are answered", "neighbour of first-response-only").
		also("REQ-03", "with a call still unanswered, it calls the model instead of ending the turn").
		also("PRE-04", "a call whose only answer is a stray id runs as if approved"),
	mutant("call-id-as-approval-id", fault.CallIDAsApprovalID, []string{"PRE-04"},
		"takes a response whose id is a tool call id as the answer to that call's request", "seed 002 (approval id vs tool call id)"),
	mutant("stream-drops-result-events", fault.StreamDropsResultEvents, []string{"PRE-08"},
		"streams no tool-result events, though the turn's messages hold the results", "neighbour of drops-approval-events"),
	mutant("reports-results-twice", fault.DuplicateResultsMessage, []string{"PRE-01"},
		"returns the tool message of results twice in the turn's messages (the prompt holds it once)", "the messages a turn returns").
		also("REQ-06", "the turn's messages hold a call's result twice").
		also("PRE-02", "the turn's messages hold the denial result twice").
		also("PRE-08", "the stream carries each result once while the messages hold it twice").
		also("PRE-09", "the batch's results are reported twice in the turn's messages").
		also("PRE-10", "the result of an answer found earlier in the history is reported twice").
		also("PRE-11", "the duplicated answer's call gets two results in the turn's messages").
		also("PART-01", "the calls of the partly denied step each get two results in the turn's messages"),
	mutant("wrong-skip-text", fault.WrongSkipText, []string{"PART-02"},
		"under abort-remaining, gives skipped calls a result with another text than the stated one", "seed 003",
		reference.WithDenialPolicy(reference.AbortRemaining)),
	mutant("policy-without-messages", fault.PolicyWithoutMessages, []string{"REQ-04"},
		"asks a dynamic policy with the call but not the conversation", "neighbour of policy-cached-per-tool"),
	mutant("stray-response-blocks-answers", fault.StrayResponseBlocks, []string{"PRE-14"},
		"refuses a whole message because one response in it matches no request, losing the valid answers beside it", "a strict reading of stray responses"),
	mutant("later-step-runs-unapproved", fault.LaterStepRunsUnapproved, []string{"REQ-01"},
		"asks approval for a call in the first step of a turn, but runs one made in a later step at once", "neighbour of runs-before-approval").
		also("REQ-05", "a call of a later step whose policy failed is asked about, as failing closed requires, and runs at once all the same"),
	mutant("denials-missing-from-turn", fault.DenialsMissingFromTurn, []string{"PRE-02"},
		"gives the model a result for every denied call but leaves the denials out of the turn's messages and its stream", "a UI stream that carries no denial result").
		also("PART-01", "the denied call of a partly denied step has no result in the turn's messages").
		also("PRE-11", "when a denial wins over a conflicting approval, the turn's messages hold no result for the call"),
	mutant("drops-failed-free-call", fault.DropsFailedFreeCall, []string{"REQ-06"},
		"gives no result to a call that needed no approval when its tool fails (an approved call that fails still gets its error result)", "neighbour of dangling-on-tool-error").
		also("WIRE-01", "the failed call has no result and dangles in the prompt of the next step"),
	mutant("ledger-keyed-by-action", fault.LedgerKeyedByAction, []string{"PRE-09"},
		"keys its record of runs by the tool and input instead of the approval: a second approved call with the same input never runs and gets the first one's output", "idempotency keys derived from the action").
		also("PRE-01", "the same action approved again in a later turn never runs: the new approval is taken for a replay of the first"),
	mutant("later-step-policy-fails-open", fault.LaterStepPolicyFailsOpen, []string{"REQ-05"},
		"fails closed when a policy fails in the first step of a turn, but runs the tool unapproved when it fails in a later step", "neighbour of fail-open-policy"),
	mutant("policy-sees-current-exchange", fault.PolicySeesCurrentExchange, []string{"REQ-04"},
		"gives a dynamic policy only the messages after the model's last reply: in a later step it sees a tool result, not the user's request", "neighbour of policy-without-messages"),
	mutant("requests-in-own-message", fault.RequestsInOwnMessage, []string{"REQ-01"},
		"returns the approval requests in an assistant message of their own instead of the message that holds the calls", "the messages a turn returns"),
	mutant("lone-stray-answer-takes-latest", fault.StrayAnswerTakesLatest, []string{"PRE-04"},
		"takes a request's only answer, when it matches no request, as the answer to the latest request still open", "neighbour of call-id-as-approval-id"),
	mutant("forgery-unchecked-when-policy-exempts", fault.ExemptForgeryUnchecked, []string{"SEC-01"},
		"verifies an approval only when the call's dynamic policy, asked again, would ask: a forged approval of a call the policy exempts runs", "neighbour of accepts-unsigned-requests"),
	mutant("unflagged-provider-denial-stays-unflagged", fault.UnflaggedDenialStaysUnflagged, []string{"PROV-02"},
		"forwards a provider approval answered without the providerExecuted flag with the flag set when approved, but a denial without it", "neighbour of drops-unflagged-provider-approval"),
	mutant("result-before-answer-ignored", fault.ResultBeforeAnswerIgnored, []string{"PRE-03"},
		"counts a call's result only in the message of its answer or in an earlier turn: a result sent in a tool message of its own before the answer's message is missed and the call runs again", "neighbour of result-in-same-message-ignored"),

	clientMutant("client-without-continuation-skipped", fault.NoContinuationSkipped, []string{"CHAIN-02", "CHAIN-03"},
		"the pre-fix client of seed 002: an approval given while the continuation stream runs is swallowed", "seed 002"),
	clientMutant("client-filters-approval-events", fault.FilterApprovalEvents, []string{"REQ-07"},
		"a transport that takes approval requests out of the stream into a side channel", "seed 004").
		also("CHAIN-05", "the client never shows the request, so a new message goes out with the call unanswered"),
	clientMutant("client-continues-after-each-approval", fault.ContinueEachApproval, []string{"CHAIN-01"},
		"sends a continuation after each answer instead of once every call is answered", "seed 002 areAllToolsComplete"),
	clientMutant("client-continues-before-complete", fault.ContinueBeforeComplete, []string{"CHAIN-01"},
		"continues while a call still waits for its client-side output", "TanStack AI mixed batches"),
	clientMutant("client-leaves-dangling-call", fault.DanglingOnNewMessage, []string{"CHAIN-05"},
		"sends a new user message with an approval still pending and unanswered", "vercel/ai #12709"),
	clientMutant("client-state-regresses", fault.StateRegresses, []string{"CHAIN-04"},
		"moves a tool call back to awaiting-input when a continuation re-sends it", "TanStack AI re-emitted tool calls"),
	clientMutant("client-duplicates-calls", fault.DuplicateParts, []string{"CHAIN-06"},
		"adds a second part for a tool call a continuation re-sends", "TanStack AI #532"),
	clientMutant("client-continues-on-last-call", fault.ContinuesOnLastCall, []string{"CHAIN-01"},
		"decides to continue on the last tool call of the message alone: answering it first sends the continuation with the first call unanswered", "neighbour of client-continues-after-each-approval"),
	clientMutant("client-swallows-answer-during-first-stream", fault.ChecksQueuedBeforeStreamEnds, []string{"CHAIN-02"},
		"runs the checks queued during a stream before the stream counts as ended: an answer given while the first response streams is swallowed", "neighbour of client-without-continuation-skipped"),
	clientMutant("client-resends-resume-entries", fault.ResendsResumeEntries, []string{"CHAIN-01"},
		"sends a resume entry for every interrupt ever answered with each request, resuming old interrupts again", "AG-UI interrupts are resumed once"),
	clientMutant("client-denies-latest-pending-only", fault.DeniesLatestPendingOnly, []string{"CHAIN-05"},
		"on a new user message, denies only the latest pending approval and sends the others unanswered", "neighbour of client-leaves-dangling-call"),
	mutant("ignores-edited-input", fault.IgnoresEditedInput, []string{"EDIT-01"},
		"runs an approved call with the model's input, ignoring the input the user's approval edited", "the edit decisions of LangChain and Genkit"),
	mutant("original-call-after-edit", fault.OriginalCallAfterEdit, []string{"EDIT-02"},
		"runs the edited input but shows the model its original call beside the result", "langchainjs #33787; Genkit 1.42.0's restart with replaceInput"),
}

// All returns the mutants, sorted by name.
func All() []Mutant {
	out := append([]Mutant(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the mutant with the given name.
func Lookup(name string) (Mutant, error) {
	for _, m := range all {
		if m.Name == name {
			return m, nil
		}
	}
	return Mutant{}, fmt.Errorf("no mutant named %q (see conformance mutants)", name)
}
