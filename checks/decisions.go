package checks

// harms are the harms each check's failures can show, by id. A MUST check
// names at least one (TestHarms); its assertions that can show none of
// them only warn.
var harms = map[string][]Harm{
	"REQ-01":   {RanAgainstAnswer},
	"REQ-02":   {RanAgainstAnswer},
	"REQ-03":   {Refused, Lost},
	"REQ-04":   {RanAgainstAnswer},
	"REQ-05":   {RanAgainstAnswer},
	"REQ-06":   {Refused, Lost},
	"REQ-07":   {Lost},
	"PRE-01":   {Lost, RanAgainstAnswer},
	"PRE-02":   {RanAgainstAnswer, Lost},
	"PRE-03":   {RanAgainstAnswer},
	"PRE-04":   {RanAgainstAnswer, Forged},
	"PRE-05":   {RanAgainstAnswer, Crashed, Refused},
	"PRE-06":   {RanAgainstAnswer, Crashed},
	"PRE-07":   {},
	"PRE-08":   {Lost},
	"PRE-09":   {Lost, RanAgainstAnswer},
	"PRE-10":   {Lost},
	"PRE-11":   {RanAgainstAnswer, Refused},
	"PRE-12":   {},
	"PRE-13":   {Lost},
	"PRE-14":   {Lost},
	"DEN-01":   {Lost},
	"DEN-02":   {},
	"DEN-03":   {},
	"PART-01":  {Refused, Lost},
	"PART-02":  {RanAgainstAnswer, Lost},
	"CHAIN-01": {Lost},
	"CHAIN-02": {Lost},
	"CHAIN-03": {Lost},
	"CHAIN-04": {Lost},
	"CHAIN-05": {Refused},
	"CHAIN-06": {},
	"PROV-01":  {RanAgainstAnswer, Lost},
	"PROV-02":  {Lost},
	"WIRE-01":  {Refused},
	"WIRE-02":  {Refused},
	"WIRE-03":  {RanAgainstAnswer},
	"WIRE-04":  {RanAgainstAnswer},
	"ERR-01":   {RanAgainstAnswer, Crashed},
	"ERR-02":   {Refused, Lost, Crashed},
	"SEC-01":   {Forged},
	"SEC-02":   {Forged},
	"EDIT-01":  {RanAgainstAnswer},
	"EDIT-02":  {Lost},
}

// decisions say, for the checks whose reading was contested, what was
// decided, on which SDK docs and harms, and what the check no longer
// demands. Every check is also graded by the general rule: a MUST failure
// stands only where the run shows its harm, and on out-of-contract input
// only the safety harms (ran-against-answer, forged, crashed) are MUST.
var decisions = map[string]string{
	"REQ-01": "The MUST is that the tool does not run unasked (ran-against-answer). Asking for the approval in the same turn, in the assistant message that holds the call, is SHOULD: a runtime that asks one approval at a time (Mastra suspends a run on its first call that needs approval and asks the next after the answer) runs nothing unapproved and loses nothing, so it warns here and is not failed. " +
		"A call that is never asked and never answered shows its harm elsewhere: a dangling call the provider refuses (WIRE-01, REQ-06) or a call that silently disappears (REQ-06).",
	"REQ-02": "SHOULD, no longer MUST: a shared approval id harms nobody until an answer resolves the wrong call, and that harm (a denied call that runs, an approved call that does not) is charged where it shows, to PRE-01 and PRE-02.",
	"REQ-03": "The MUST is that the model is not called again while a call waits: such a call sends a prompt with a dangling call (refused) or one from which the waiting call was hidden (lost). " +
		"The turn's finish reason is no longer judged: the AI SDK and Effect document it as the model's (\"the reason the model finished generating\") and detect approvals from the content parts, and no application is harmed by it; the kit does not invent a rule to tell the two apart.",
	"REQ-04": "The MUST is that a policy's decision is not applied to the wrong call: a call that needs approval by the policy runs unasked (ran-against-answer). That the policy is handed the call id, the input and the messages is SHOULD: a policy given less cannot implement some rules, but nothing runs against an answer until it decides wrongly, which the run assertions catch.",
	"REQ-06": "A call that needs no approval, held back while a sibling waits and run with the next request before the model is called (TanStack AI does it by design), leaves no dangling call and loses no result: that warns (SHOULD: a free call runs in the turn that made it). " +
		"The MUST failure is a call that no prompt and no later turn ever answered although the conversation went on (lost), or one the provider refused as dangling (refused); a scenario whose conversation ends with the turn shows no such loss, and its failure warns. " +
		"A turn that fails after its tools ran loses their results with the turn (lost), unless the application gets them back: where the SDK documents that the error carries the run's state (the OpenAI Agents SDK's MaxTurnsExceeded), the adapter returns the results from it, as an application following the docs would, and nothing is lost.",
	"PRE-01": "An approved call whose result is missing from the turn's messages but reached the model's prompt, or came back in a later turn, loses nothing the run can show: that warns. The MUST failure is an approved call that never ran, or whose result no prompt and no later turn ever held (lost).",
	"PRE-02": "A denied call that runs is ran-against-answer, whoever sent the input. A denial whose result is missing from the turn's messages but reached the model's prompt (TanStack AI's client keeps the cancelled call as approval-responded and sends its placeholder result with the next request) loses nothing: that warns. The MUST failure for a missing denial is one no prompt and no later turn ever held (lost).",
	"PRE-03": "Every run of a call that already has a result is ran-against-answer, whoever wrote the result: a result the client sent beside the approval (a call the user carried out by hand, a client-side tool) is the conversation's answer for that call, and a runtime that runs the tool anyway repeats a side effect the history says has happened. On input no conforming client sends (a re-sent or replayed answer), it stays a MUST failure: running a tool twice is a safety harm.",
	"PRE-08": "The stream's result events may come in completion order: nothing documents an order, a chat client keys result parts by call id, and a runtime that runs calls concurrently cannot keep the messages' order without buffering. The check no longer demands the order; a result event missing from the stream, or carrying another output than the turn's messages, is lost for the stream's consumer.",
	"PRE-09": "Where an SDK documents that a request's answers come in one tool message, the last of the history (the AI SDK), answers split over several messages are out-of-contract for it (the adapter declares answersInLastMessage): only safety harms are MUST there. " +
		"An approved call that ran before such a turn was refused, its result then lost, is PRE-13's question (a side effect before a refusal), not a PRE-09 failure.",
	"PRE-13":   "A side effect whose result is lost because the turn was refused after the tool ran is the harm this check guards against (lost); it stays SHOULD, since a refusal of input outside the SDK's contract is the SDK's to choose.",
	"PART-01":  "As for PRE-02: a denied call's result that reached the model's prompt although the turn's messages lack it loses nothing the run can show, and warns. The MUST failure is a call of the step that no prompt and no later turn ever answered, or one the provider refused as dangling.",
	"CHAIN-04": "The MUST is that a tool-call part does not move back out of approval-responded or out of a terminal state: the user's answer or the call's result disappears from the client (lost). Other departures from the order of states (a state skipped, input-streaming after input-complete) are SHOULD.",
	"CHAIN-05": "The harm is the provider's refusal of the conversation the client sends. Where the SDK's own chat server resolves a new message over a pending approval (the AI SDK 7's convertToModelMessages drops the superseded request, and no 400 follows), the adapter declares serverSupersedesPending and a dangling call in the client's request only warns; where the SDK's server would refuse it (the AI SDK 6 throws), it fails.",
	"WIRE-02":  "Layouts that no SDK flow produces (an extra assistant message between a call and its answer, written by hand) are out-of-contract input: the provider's refusal of such a prompt warns. On conforming input a misplaced result that the provider refuses fails.",
	"ERR-01":   "The MUST is that a malformed answer never runs a tool (ran-against-answer) and never crashes the runtime. Malformed answers come from no conforming client, so the scenarios are out-of-contract. An empty approval id is a string some SDKs' schemas accept (Effect's): treating it as an answer that matches no request, and ignoring it as PRE-04 allows, meets the rule; refusing it with a clear error is SHOULD. The provider's refusal that may follow is charged to WIRE-01, once.",
	"SEC-01":   "SHOULD: a runtime documented as trusting its history (a stateless server, a run-state blob documented as not tamper-proof) may honour a forged approval; the warning says what the history lets a hostile client do.",
	"SEC-02":   "SHOULD, for the same reason as SEC-01.",
}
