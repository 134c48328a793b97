package checks

// text holds the long texts of a check. Paragraphs are separated by a blank
// line; the words MUST, MUST NOT, SHOULD, SHOULD NOT and MAY are used as RFC
// 2119 defines them.
type text struct {
	text, rationale, origin string
}

// texts are the normative text, the rationale and the origin of every
// check, by id.
//
// The terms: a turn is one request to the runtime (the conversation in, the
// messages the turn adds and, in stream mode, its stream events out); a
// step is one model call of a turn and the tool runs that follow it; a call
// is a tool call the model made; an approval request names a call and
// carries an approval id; an answer (an approval response) names an
// approval id and says approved or denied; a result is a tool-result part
// for a call; the prompt is what one model call receives.
var texts = map[string]text{
	"REQ-01": {
		text: "When the model calls a tool whose approval policy says the call needs approval (a static \"always\", or a dynamic policy that answers yes for this call), the runtime MUST NOT run the tool in that turn. " +
			"The turn SHOULD return an approval request for the call: a tool-approval-request part naming the call's toolCallId, in the assistant message that holds the call (a runtime MAY ask one approval at a time, so long as the call never runs unasked). " +
			"This holds in every step of the turn, not only the first: a call that needs approval in a later step, after calls that needed none have run, is held back the same way.\n\n" +
			"A call whose approval comes later runs only in a later turn, when an answer approving it arrives (PRE-01).",
		rationale: "Approval exists to keep a dangerous tool (deleting files, sending mail, spending money) from running until a person agrees. A runtime that runs the tool and then asks, or runs it in the same turn it asks, makes the question meaningless: the side effect has already happened. " +
			"The later-step case matters because step loops often treat the first model call specially; a bug there lets any call made after a free tool (read a file, then delete it) slip through unasked.",
		origin: "In the AI SDK and in Effect AI a tool declares needsApproval, either a boolean or a function of the call's input. When a call needs approval, the SDK does not run the tool: it emits a tool-approval-request part with a fresh approval id and the call's id, and the call waits. " +
			"The answer comes back in a later request as a tool-approval-response part in a tool message.",
	},
	"REQ-02": {
		text: "Every approval request the runtime issues SHOULD carry an approval id that no other approval request in the same conversation carries, across all its turns. " +
			"Two calls waiting at once, and a call made in a later turn, each get an id of their own. Answers name the approval id, so the id alone SHOULD identify one request.",
		rationale: "The user's answer finds its call through the approval id. If two requests share an id, one answer approves both, or the runtime picks the wrong call: a denial of one call can run another, and an approval meant for a harmless call can release a dangerous one. " +
			"Ids reused across turns break the same way once the history holds both requests.",
		origin: "TanStack AI's chat client keeps an approval id on each tool-call part that is separate from the tool call id, and every user-facing API answers by the approval id, so that answers stay correlated even when call ids repeat across messages. " +
			"The AI SDK generates a new random approval id for every request.",
	},
	"REQ-03": {
		text: "A turn in which some call waits for approval MUST end once the step that made the call is done: the runtime MUST NOT call the model again in that turn, whatever step limit or stop condition the turn has. " +
			"The calls of that step that need no approval still run (REQ-06). The turn's finish reason is the model's to give and is not judged.\n\n" +
			"When only some of several pending approvals are answered, the turn that carries those answers MUST NOT call the model while another call of the same step still waits for its answer.",
		rationale: "A model called again while a call still waits sees a tool call without a result: the provider refuses the request with HTTP 400 (a dangling call), or, if the runtime hides the call, the model goes on as if the action had been dropped and may call the tool again. " +
			"An application learns that it must ask the user from the approval-request parts of the turn, which is what the SDKs document.",
		origin: "In the AI SDK the step loop starts a new step only when every client tool call of the step has an output or a denial; a call waiting for approval stops the loop even when stopWhen would allow five steps. The result's finish reason is the last step's, which is the model's own (documented as \"the reason the model finished generating\"): tool-calls when the model says so, stop when a model ends a step of tool calls with stop.",
	},
	"REQ-04": {
		text: "A dynamic approval policy MUST decide per call: a decision for one call MUST NOT be applied to another, and a call the policy's decision says needs approval MUST NOT run unasked. Every evaluation for a call SHOULD be given that call's own input and toolCallId, and the conversation's messages (the user's message that led to the call among them). " +
			"Two calls of the same tool in one step are evaluated separately and MAY get different decisions. " +
			"A call the policy exempts SHOULD run without an approval request.\n\n" +
			"Decision: a runtime MAY evaluate the policy again for the same call in a later turn (for example when the answer arrives); every such evaluation is held to the same rule, with the call's own input.",
		rationale: "Policies exist to ask only where it matters: a write under /etc needs a person, a write under /tmp does not. A policy evaluated once per tool, or given another call's input, asks for the harmless call and waves the dangerous one through. " +
			"A policy that cannot see the conversation cannot implement rules such as \"ask unless the user asked for exactly this\".",
		origin: "In the AI SDK and in Effect AI, needsApproval may be a function of the call's input and a context holding the toolCallId and the messages; the SDK calls it for each call before deciding whether to run it. " +
			"The AI SDK 7 evaluates the policy again when the answer comes back, before it runs the approved call, which is why the rule allows a second evaluation.",
	},
	"REQ-05": {
		text: "When a dynamic policy cannot decide (it returns an error, or it throws or panics), the runtime SHOULD fail closed: the tool SHOULD NOT run in that turn. " +
			"The turn SHOULD either request approval for the call or fail with a clear error of its own (an error code and a message). " +
			"A model error is not such a refusal; and a turn that fails before the model made the call has not decided anything about it.",
		rationale: "Policies often depend on something that can fail: a policy service over the network, a database, a parser of the input. If a failure reads as \"no approval needed\", an outage of the policy service becomes permission to run every dangerous tool. " +
			"Throwing is the neighbour of returning an error that runtimes forget: the error path is handled, the panic escapes through a path that treats it as false.",
		origin: "In the AI SDK and Effect AI, a needsApproval function may be asynchronous (a promise, an Effect) and may fail like any other code; the SDKs evaluate it before running the tool. What a failure should mean is not written down there; this check takes the safe reading.",
	},
	"REQ-06": {
		text: "No local call the model makes in a step may be lost: every one MUST get a result that a prompt or a later turn holds, and the prompt of the next model call MUST hold exactly one result for each call of the step. " +
			"Every call SHOULD end the turn that made it either with a result or with a pending approval request in the turn's messages; a call that needs no approval in a step where other calls wait for approval SHOULD run in that turn, its result in the turn's messages (a runtime MAY hold it back and run it with the next request, before the model is called). " +
			"A call dropped from the history, or left without a result that the provider then refuses, fails.\n\n" +
			"When a turn ends because its step limit is reached, every call of the last step still has a result or a pending approval.",
		rationale: "A call the model made but the history does not answer is a dangling call: the next request to the provider fails with HTTP 400 (OpenAI: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\"; Anthropic: \"tool_use ids were found without tool_result blocks immediately after\"), and the conversation is stuck until someone edits its history. " +
			"A deferred free call is the same bug seen from the application: it stores a history in which the call has no answer.",
		origin: "Agent loops that gate a whole step on its approvals have dropped or deferred the calls that needed none; loops that stop early lose the calls after the stopping point. Every provider rejects a prompt in which a tool call has no result.",
	},
	"REQ-07": {
		text: "In stream mode, the stream MUST carry every approval request of the turn as a tool-approval-request event, identical to the part in the turn's messages (same approval id, call id, and every other field), in the same order, and each after the tool-call event of its call. " +
			"The stream MUST NOT carry approval-request events the messages do not hold. A provider's own approval request (for a tool the provider runs) reaches the stream the same way.\n\n" +
			"On the client side, a chat client and any transport in front of it MUST pass the approval requests the server streams to the application unchanged: the client shows an approval request for the call, under the approval id the server sent.",
		rationale: "The approval request is the one event the user must see: if a transport filters it into a side channel, renames its id, or reorders it before its call, the application's native approval API never learns of it, and the answer the user gives (if any) names an id the server does not know. " +
			"The conversation then hangs, or the answer is refused.",
		origin: "A WebSocket transport for the AI SDK 6 chat once took tool-approval-request chunks out of the stream and delivered them to a custom callback; the chat's own addToolApprovalResponse never saw them. The fix was to let the chunks through unchanged, since they are a standard chunk type of the UI message stream.",
	},

	"PRE-01": {
		text: "When a request carries an answer approving a call, the runtime MUST run the call before it calls the model, and the prompt of that model call MUST hold exactly one result for the call (a json, text or error result, never a denial). " +
			"The messages the turn returns MUST also hold exactly one result for the call, as the first message of the turn (WIRE-02): what the application stores and sends next time must agree with what the model saw. " +
			"When the model then answers with text, the turn finishes with the reason stop.",
		rationale: "If the runtime calls the model before it resolves the approvals, the model receives the approved call without a result: the provider refuses the request (HTTP 400), or the model, seeing no result, assumes the action did not happen and asks again. " +
			"A result that reaches the model but not the returned messages, or reaches them twice, corrupts the stored history and breaks the next turn instead.",
		origin: "Effect AI once resolved approvals that arrived in the prompt only after the next model call had been made: the model got calls with no results and errored. " +
			"The fix resolves them first: collect the answers, run the approved calls, build denial results for the denied ones, add them to the prompt as a tool message, and only then call the model, in generate and in stream mode alike.",
	},
	"PRE-02": {
		text: "A call whose answer is a denial MUST NOT run. The prompt of the next model call MUST hold exactly one result for it, a denial result (DEN-01), and the messages the turn returns MUST hold exactly one result for it too.",
		rationale: "A denied call that runs anyway is the worst failure an approval system can have: the user said no and the file is deleted. " +
			"A denied call with no result is a dangling call (the provider's HTTP 400); with two results it is a duplicate (also refused); with a success result the model believes the action happened.",
		origin: "The AI SDK and Effect AI both turn a denial into a tool result whose output is {type: execution-denied, reason}. A reported AI SDK bug put denied answers into the list of approved ones, so the denied call ran and the provider then refused the prompt.",
	},
	"PRE-03": {
		text: "A call that already has a result anywhere in the history MUST NOT run again: not when its approval is sent again in a later message, not when a later turn carries the same history, and not when its result comes in the same message as its approval. " +
			"The turn MUST NOT add a second result for it, and the prompt MUST hold exactly one result for it.",
		rationale: "Histories are replayed on every turn. A runtime that resolves every approval it finds, rather than those still unresolved, runs every approved tool again on every later turn: the same mail sent once per message the user writes. " +
			"A result in the same message as its approval is the neighbouring case that runtimes checking only earlier messages miss.",
		origin: "Effect AI's approval collection gained an option to exclude approvals whose call already has a result, and pre-resolution uses it, so that a history holding both an approval and its result does not run the tool again.",
	},
	"PRE-04": {
		text: "An answer whose approval id matches no approval request in the history MUST NOT cause any tool to run. An answer is matched by its approval id only: an answer whose id is a tool call id (and not an approval id) answers nothing. " +
			"Decision: the runtime MAY ignore such an answer or MAY refuse the message with a clear error; both meet this check. Whether the stray answer reaches the model is PRE-12's rule, and whether it blocks the valid answers beside it is PRE-14's.",
		rationale: "Answers come from the client, which may be buggy or hostile. A runtime that guesses what a stray answer meant (the call with the same id, the latest call, any call of the tool) runs tools nobody approved.",
		origin:    "Effect AI ignores an approval response whose request is not in the history. The AI SDK refuses it instead, with InvalidToolApprovalError (\"Tool approval response references unknown approvalId\"). Either way nothing runs.",
	},
	"PRE-05": {
		text: "When a request carries answers to resolve (approved or denied, even a single denial) and the turn has no toolkit, or an empty one, the turn MUST fail with the error ToolkitRequired: the runtime MUST NOT call the model or run any tool. " +
			"A missing toolkit and an empty toolkit are distinct inputs and both MUST be refused. This check applies to targets that declare toolkitErrors.",
		rationale: "Without a toolkit the runtime can neither run the approved calls nor name the denied ones; if it calls the model anyway, the model receives calls without results (HTTP 400) and the approvals are silently lost. " +
			"An empty toolkit is the form the bug takes when an application builds its tool list dynamically and it comes out empty.",
		origin: "Effect AI added a ToolkitRequiredError for a prompt that holds pending approvals when no toolkit was provided, and raises it for an empty toolkit too, before the model is called.",
	},
	"PRE-06": {
		text: "When an approved call names a tool that is not in the turn's toolkit, the tool MUST NOT run and the runtime MUST NOT crash. " +
			"The turn MUST either fail with a clear refusal (the error ToolNotFound; an SDK that has no such error may refuse the turn as invalid, InvalidApproval or InvalidMessages, with a message) or give the call a denial result (execution-denied) and go on. It applies to every target: an SDK that cannot refuse still must not run the call.",
		rationale: "Toolkits change between turns (a deploy, a feature flag, a tool renamed). A runtime that crashes on an approved call it cannot find takes the conversation down; one that skips it silently leaves a dangling call for the provider to refuse.",
		origin:    "Effect AI raises ToolNotFoundError, naming the tool and the tools available, when an approved call's tool is missing from the toolkit.",
	},
	"PRE-07": {
		text:      "When the turn sets the concurrency option to N (N > 0), at most N approved calls SHOULD run at once while the runtime resolves approvals. A concurrency of 0 or none means no bound. This check applies to targets that declare the concurrency option.",
		rationale: "Tools call rate-limited APIs and share resources; an application that asks for one call at a time usually has a reason (ordering, a lock, a quota). Ignoring the option works in tests and fails under load.",
		origin:    "Effect AI's pre-resolution runs the approved calls with the turn's concurrency option (unbounded by default).",
	},
	"PRE-08": {
		text: "Stream mode MUST resolve approvals exactly as generate mode does: same runs, same results, same prompt. " +
			"In stream mode the stream MUST carry one tool-result event for each result in the turn's messages, with the same output, and no result event for a call the messages hold no result for; the events MAY come in any order (completion order, for calls run at once). " +
			"The suite also compares the two modes: when a scenario runs in both and one of its checks passes in generate mode but fails in stream mode, PRE-08 fails in the stream row.",
		rationale: "Most chat applications stream. A runtime whose pre-resolution lives in the generate path only passes every non-streaming test and breaks every real user; a stream that does not report the results leaves the interface showing calls that never finish.",
		origin:    "Effect AI's pre-resolution was written for generateText and then applied to streamText as a separate change; each mode has its own code path to get wrong.",
	},
	"PRE-09": {
		text: "When one request carries several answers (a batch), in one tool message or spread over several messages, the runtime MUST resolve all of them before it calls the model: each approved call runs and each denied call gets a denial result, and the prompt holds exactly one result for each. " +
			"A call whose approval is still unanswered MUST NOT run and gets no result; while it waits, the model is not called (REQ-03), and when its answer comes in a later request, nothing answered earlier is lost.",
		rationale: "Users approve several calls at once; interfaces send the answers together or one message each. A runtime that reads only the first answer, or only the last tool message, runs one call and leaves the others dangling; one that treats \"not answered yet\" as approved runs calls nobody looked at.",
		origin:    "The AI SDK and Effect AI accept several tool-approval-response parts in one tool message and resolve each; the AI SDK reads the answers of the last message, so a batch split over two messages is where SDKs differ.",
	},
	"PRE-10": {
		text:      "The runtime MUST find an approval request wherever it is in the history, not only in the last assistant message: an answer that comes after other messages (an assistant note, a later exchange) still resolves its call.",
		rationale: "Histories grow between a request and its answer: the assistant adds a note, the user asks something else, the answer comes three turns later. A runtime that only looks at the last assistant message finds no request and either refuses the answer or drops it, and the call stays dangling.",
		origin:    "The AI SDK collects approval requests and tool calls from every assistant message of the history and matches answers to them by approval id: approvals persist across turns.",
	},
	"PRE-11": {
		text: "Duplicate answers (the same approval sent twice) and conflicting answers (approved and denied) for one call, in one message or in two messages of one request, MUST lead to at most one run of the call and exactly one result for it, in the turn's messages and in the prompt. " +
			"Which answer wins is not prescribed. Decision: the runtime MAY instead refuse the message with a clear error (InvalidApproval or InvalidMessages, with a message), and then nothing runs.",
		rationale: "Double clicks, retries and two open tabs produce duplicate answers; a runtime that resolves each answer runs the tool twice (two payments) and adds two results (the provider's HTTP 400 for a duplicate result). " +
			"A conflict resolved both ways runs the call and also reports it denied: the model is told the action did not happen when it did.",
		origin: "The AI SDK counts only the first answer per tool call and ignores duplicates and conflicting answers after it.",
	},
	"PRE-12": {
		text: "The prompt sent to the model SHOULD NOT hold approval parts: no tool-approval-request part, and no tool-approval-response part except the answers to provider-executed calls, which are forwarded (PROV-01). " +
			"This includes an answer that matches no request (its content SHOULD NOT reach the model). The reason given with an approval (not a denial) SHOULD NOT reach the model.",
		rationale: "Approval parts are bookkeeping between the application and the runtime; providers have no place for them, and a provider adapter that meets one errors or turns it into text the model misreads. " +
			"An approval's reason is often private (\"ok, it's my test account\") and was never meant for the model. Over a provider wire the approval parts cannot show, so the suite checks this rule through the canonical model API.",
		origin: "The AI SDK removes tool-approval-request parts and every non-provider-executed tool-approval-response part while it converts the history into the model's prompt; Effect AI strips resolved approvals the same way. The AI SDK never passes an approved answer's reason on.",
	},
	"PRE-13": {
		text: "A turn that fails validation SHOULD fail before any tool runs: the runtime SHOULD check every approved call (its tool exists, its answer is valid) before it runs any. " +
			"If the turn fails, no tool SHOULD have run in it; if it succeeds, every call that ran in it SHOULD have a result in the turn's messages.",
		rationale: "A turn that runs the first approved tool and then fails on the second has done something whose result is lost: the file is deleted, the error reaches the application, and the history holds no record that the deletion happened, so a retry deletes again or the model is never told.",
		origin:    "Effect AI's pre-resolution first checks that every approved tool exists in the toolkit and only then runs any of them.",
	},
	"PRE-14": {
		text: "An answer that matches no request SHOULD NOT block the valid answers in the same request: they SHOULD be resolved as if it were absent (the approved call runs and the model gets its result). " +
			"A runtime that refuses the whole message because of the stray answer meets PRE-04 but warns here.",
		rationale: "A stale answer left in a client's state (a request from an older conversation, an approval already handled) is common. If it blocks the valid answers, the conversation cannot go on until someone edits its history.",
		origin:    "Effect AI ignores orphan approval responses and still resolves the valid answers beside them.",
	},

	"DEN-01": {
		text: "A denied call's result MUST be a failure result whose output is {type: execution-denied, reason?}, in the prompt and in the messages the turn returns, for each denied call of a step. " +
			"For a target that declares untypedResults (its results carry no output type), this check is judged by what reaches the model: exactly one result for the call, and the call did not run.",
		rationale: "The model has to tell \"the user refused\" from \"the tool failed\" and from \"the tool succeeded with this text\": it should not retry a refused action, and it should explain it to the user. Applications also need the type to show a denied call as denied.",
		origin:    "The AI SDK and Effect AI both represent a denial as a tool result whose output is {type: execution-denied, reason}, built from the answer's reason; Effect marks it as a failure result.",
	},
	"DEN-02": {
		text: "The user's denial reason SHOULD reach the model: in the canonical prompt as the execution-denied output's reason, exactly; over a provider wire as part of the result's text. " +
			"A denial without a reason SHOULD reach the model as a stable default text: two reasonless denials read the same. The text itself is not prescribed. This check does not apply to targets that declare noDenialReasons.",
		rationale: "\"Not this folder, use /tmp\" is an instruction the model can act on; without it the model guesses, often retrying the same call. A stable default lets the model (and anyone reading transcripts) recognise a denial.",
		origin:    "The AI SDK puts the reason into the denial's output; on the OpenAI wire the denial becomes a tool message whose content is the reason, or \"Tool call execution denied.\" when there is none.",
	},
	"DEN-03": {
		text:      "Once a denial has reached the model, the result of that call SHOULD read the same in every later model call of the conversation: the same output type and the same reason or text.",
		rationale: "A denial that becomes an error text two turns later tells the model the tool failed, so it tries again; one whose reason disappears loses the user's instruction. Histories are re-converted on every turn, which is where this happens.",
		origin:    "In the AI SDK 7 chat, a call in the output-denied state is converted into an error-text result (\"Tool call execution denied.\") while the same denial was an execution-denied result the turn before: the denial the model sees changes type between turns.",
	},

	"PART-01": {
		text:      "When one call of a step with several calls is denied (the first, a middle one or the last), every call of the step MUST have exactly one result in the prompt of the next model call and in the messages the turn returns, whatever the denial policy.",
		rationale: "A loop that stops at the first denial leaves the other calls of the step without results: the next request fails with the provider's HTTP 400, or the model, seeing half the results, assumes the missing actions failed or never happened.",
		origin:    "An agent loop that processed a step's calls one by one returned, or broke out of the loop, at the first denied call; the calls after it got no result and were missing from the saved history. The fix records a result for every remaining call before leaving the loop.",
	},
	"PART-02": {
		text: "A call MUST NOT run without approval, and a call MUST NOT run more than once. What an approved call does depends on the target's denial policy:\n\n" +
			"- independent (the default): every approved call MUST run exactly once and every denied call gets a denial, whatever the order of the answers;\n" +
			"- abort-remaining (declared by the target): in the model's call order (not the order of the answers), each approved call before the first denied call MUST run exactly once; every approved call after it MUST NOT run and MUST get an error-text result reading exactly \"Error: Tool execution was skipped due to previous tool denial.\"",
		rationale: "After a denial, an application may want to stop the remaining actions of the step (the user's no often means \"stop\"), but the skipped calls still need results, and the model needs to know they were skipped rather than failed or done. " +
			"An exact text lets applications and the model recognise the skip; runs beyond once are the double execution this whole kit exists to prevent.",
		origin: "An agent loop that stopped at the first denial of a step was fixed by giving each call after the denied one a result with the text \"Error: Tool execution was skipped due to previous tool denial.\", distinct from the denied call's own result, so that the model receives a result for every call it made.",
	},

	"CHAIN-01": {
		text: "A chat client MUST send exactly one continuation request once every tool call of the last assistant message is complete (its approval answered, or its result or client-side output present), and MUST NOT send one before. " +
			"The continuation MUST carry each answer exactly once (per way it travels: on the message parts, or as a resume entry), with the value the user gave.",
		rationale: "A continuation sent after the first of two answers leaves the second call unanswered in the request (the server sees a pending call and stops again, or the provider refuses a dangling call); two continuations for one set of answers run the approved tools twice, or start two model runs that race.",
		origin:    "TanStack AI's chat client continues automatically when areAllToolsComplete holds for the last assistant message: every tool call is approval-responded, has an output, or has a result. The AI SDK's chat continues when sendAutomaticallyWhen (lastAssistantMessageIsCompleteWithApprovalResponses) holds.",
	},
	"CHAIN-02": {
		text:      "An answer the user gives while a stream is still active (before the run's last event, or after the run has finished but before its response has ended) MUST be acted on when the stream ends: the client sends the continuation that carries it. It MUST never be swallowed.",
		rationale: "Users answer as soon as the approval appears, often before the stream that carries it has closed. A client that checks for continuation only when no stream is running, and never checks again, leaves the conversation hanging with an approved call nobody runs.",
		origin:    "TanStack AI's chat client guarded continuations with a continuationPending flag. An approval given during a continuation stream queued a check that found the flag still set and returned early, and nothing re-checked: the approval was lost. The fix adds a continuationSkipped flag and re-checks once the stream is over.",
	},
	"CHAIN-03": {
		text:      "n chained approvals, where each continuation yields a new approval request, MUST complete with exactly n+1 requests: the first message and one continuation per answer, each continuation carrying the latest answer.",
		rationale: "Chains are how agents work through multi-step tasks (delete a, then b, then c). A missing request means an answer was swallowed; an extra one means tools run twice or the model is asked twice.",
		origin:    "TanStack AI's fixed chat client completes two chained approvals with three streams: the first message, a continuation after the first answer, and one more after the answer given while the second stream ran.",
	},
	"CHAIN-04": {
		text: "A tool-call part in a client SHOULD move forward only, through awaiting-input, input-streaming, input-complete, approval-requested, approval-responded, then one terminal state (output-available, output-error or output-denied). It MAY skip states. It MUST NOT move back out of approval-responded or out of a terminal state (the user's answer or the call's result would disappear). " +
			"A continuation that sends the same call again MUST NOT reset its part. A call that needed approval goes through approval-requested and approval-responded before its output.",
		rationale: "Interfaces render from the part's state: a part that falls back to awaiting-input shows the approval prompt again (and a second click answers twice), or shows a finished call as still running.",
		origin:    "TanStack AI's tool-call parts move awaiting-input, input-streaming, input-complete, then approval-requested and approval-responded; the AI SDK's UI parts have the same path with output-available, output-error and output-denied as outcomes.",
	},
	"CHAIN-05": {
		text: "When the user sends a new message while an approval is pending, the client MUST NOT leave the call dangling: it MUST either refuse the message with a clear error, or answer the call (an answer, or a result) in the request that sends the message, or hold the message back until the call is answered. " +
			"The suite checks every request of every client scenario: a request MUST NOT carry a new user message after a call that has neither an answer nor a result.",
		rationale: "A new user message after an unanswered call gives the provider a call without a result: OpenAI's Responses API refuses it (\"No tool output found for function call\"), and the chat is stuck with an error on every later message.",
		origin:    "In the AI SDK's chat, sending a new message while a tool call waited in the approval-requested state produced a request whose call had no output, which the provider refused (vercel/ai #12709).",
	},
	"CHAIN-06": {
		text:      "After a continuation, the client SHOULD hold each tool call once (one part per call, even when the server sends the call again), and no request it sends SHOULD repeat a tool call or a result. The suite checks every request of every client scenario for repeated calls.",
		rationale: "A call held twice is sent twice: the provider refuses duplicate calls or duplicate results, and the interface shows the action twice, inviting a second approval.",
		origin:    "Tool calls duplicated in a TanStack AI chat client's history after a continuation were reported against TanStack AI (#532); a server that sends a call again in a continuation's stream is the usual trigger.",
	},

	"PROV-01": {
		text: "A call the provider runs itself (a hosted MCP server behind OpenAI's Responses API, say) MUST NOT run locally. The turn MUST carry the provider's approval request for it, under the provider's approval id; in stream mode the stream carries it too (REQ-07). " +
			"The user's answer (approved or denied) MUST be forwarded to the provider in the next model call, as a tool-approval-response part with providerExecuted: true.",
		rationale: "The provider, not the runtime, runs these tools, and it waits for the answer. A runtime that runs the call locally executes a tool it has no handler for (or the wrong one with the same name); one that drops the answer leaves the provider waiting and the user's decision lost.",
		origin:    "The AI SDK has two approval flows: for its own tools it checks needsApproval and runs them; for a provider-executed tool the provider emits the approval request, the SDK forwards the answer (a tool-approval-response with providerExecuted: true) and the provider runs the tool. OpenAI's Responses API calls this an mcp_approval_request and mcp_approval_response.",
	},
	"PROV-02": {
		text:      "When the answer to a provider's approval comes without the providerExecuted flag, the runtime SHOULD still forward it to the provider, or refuse the message with a clear error (InvalidMessages or InvalidApproval, with a message). It SHOULD NOT drop it silently, and the call is never run locally (PROV-01).",
		rationale: "Client code often builds answers without the flag; the user approved, the provider never hears it, and the conversation goes on as if the question was never answered.",
		origin:    "In the AI SDK, an answer to a provider-executed approval without providerExecuted: true is silently lost: an approval leaves an empty tool message that is dropped, and a denial leaves only a denial result that the OpenAI Responses converter skips.",
	},

	"WIRE-01": {
		text: "No prompt sent to the model MUST hold a tool call without a result (dangling), a result without a call before it (orphan), or two results for one call. " +
			"The suite checks every model call of every scenario against the rules of the scenario's provider, whatever the scenario's own assertions say; a prompt that breaks them gets the provider's exact HTTP 400 body.",
		rationale: "Every major provider refuses such a prompt with HTTP 400 (OpenAI Chat: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\"; OpenAI Responses: \"No tool output found for function call\", \"No tool call found for function call output\"; Anthropic: \"tool_use ids were found without tool_result blocks immediately after\"). " +
			"The conversation is then stuck: every later request carries the same broken history.",
		origin: "These are the providers' own validation rules, as their APIs answer them; nearly every approval bug in the SDKs above ends in one of these errors.",
	},
	"WIRE-02": {
		text: "Results MUST be placed where the provider requires them: for OpenAI Chat Completions, one tool message per call right after the assistant message with the calls; for the OpenAI Responses API, each function_call_output after its function_call; for Anthropic Messages, the tool_result blocks in the very next user message. " +
			"The results a turn adds for the answers it resolved come first in the turn's messages, so that when the user wrote text after answering, the results still follow their calls and the text comes after them. " +
			"The suite checks placement on every model call of every scenario.",
		rationale: "A result in the wrong place is as fatal as a missing one: Anthropic refuses a tool_result that is not in the message right after its tool_use, and OpenAI refuses tool messages that do not directly follow their calls. Answers followed by a user note are where runtimes put the results after the note.",
		origin:    "The providers' ordering rules, as their HTTP 400s state them (Anthropic names the offending message index; OpenAI the call ids).",
	},
	"WIRE-03": {
		text:      "Within one turn (one request to the runtime), every tool call MUST run at most once. The suite checks this on every turn of every scenario.",
		rationale: "A tool that runs twice sends the mail twice, pays twice, deletes twice. Duplicate answers, retried steps and a stream and generate path both resolving are the usual causes.",
		origin:    "Duplicated approvals that run a dangerous tool twice are the failure this kit is built to catch; the AI SDK, for one, counts only the first answer for each call and ignores the rest.",
	},
	"WIRE-04": {
		text:      "Sending the same request again (a client retry after a timeout, a replay of a request that already succeeded, a retry after a model error) SHOULD NOT run a tool again: a call that ran for a request SHOULD run once however often the request is sent. The runtime MAY answer the replay with the same result or refuse it.",
		rationale: "Clients retry: on timeouts, on network errors, on a page reload. An approval that runs the tool once per delivery turns a flaky connection into repeated side effects.",
		origin:    "Replayed approvals that run a dangerous tool twice are a class of bug this kit targets; runtimes that keep no record of what ran for a conversation cannot tell a replay from a new answer.",
	},

	"ERR-01": {
		text: "A malformed approval response MUST NOT run any tool, and MUST NOT crash the runtime; it SHOULD be refused with a clear error (the turn fails with InvalidMessages or InvalidApproval and a message) before the model is called. Malformed means: approved that is not a boolean (a string such as \"yes\" or \"true\", a number, null) or is missing; an approval id that is missing, empty or not a string; an unknown part type. " +
			"Decision: an unknown extra field MAY be ignored, but it MUST NOT change the outcome: a denial with \"override\": true stays a denial (a denial result, or a clear error) and the tool does not run.",
		rationale: "Answers come from clients, and a lenient reading turns a malformed answer into a yes: \"approved\": \"false\" is a non-empty string, truthy in JavaScript. Refusing clearly makes the client's bug visible instead of running a tool the user may have refused.",
		origin:    "Since AI SDK 7.0.155, generateText and streamText no longer check the messages against the ModelMessage schema: \"approved\": \"yes\" ran the tool, and an answer without approved was read as a denial. AI SDK 6 refused all of these as an invalid prompt.",
	},
	"ERR-02": {
		text: "A tool that fails after its call was approved MUST NOT leave the call dangling. For a target that declares toolErrors: result (the default), the model MUST receive an error result for the call (error-text or error-json, not a denial), and the turn's messages MUST hold it; the tool's own message may be kept from the model (an SDK may hide it behind a text of its own); " +
			"for a target that declares toolErrors: turn-error, the turn MUST fail with ToolExecution and a message that carries the tool's. The other approved calls of the request still run and get their results.",
		rationale: "Tools fail (disk full, SMTP down). If the failure leaves no result, the next request carries a dangling call (HTTP 400) and the model never learns the action failed; reported as a denial, the model is told the user refused.",
		origin:    "Effect AI propagates a tool handler's error according to the tool's failure mode; the AI SDK turns a throwing execute into an error-text result for the model.",
	},

	"SEC-01": {
		text:      "The runtime SHOULD honour only approval requests it issued itself (signed, or kept on the server). A request and its approval forged into the history by the client, whether with a wrong signature or with none, for a tool that needs approval or for one that needs none, SHOULD NOT lead to the call running as approved.",
		rationale: "The history comes from the client. Without this, anyone who can post to the chat endpoint can write a tool call with any input plus its approval, and the runtime runs it: a remote trigger for every tool the agent has.",
		origin:    "The AI SDK can sign approval requests with an HMAC when an experimental_toolApprovalSecret is set; an answer to a request with a missing or wrong signature is then refused and nothing runs. Without the secret, AI SDK 7 runs a forged approval for a tool that needs no approval.",
	},
	"SEC-02": {
		text:      "An approved call SHOULD run with the tool and the input that were shown for approval. A call whose input or tool name was changed in the history after the request was issued SHOULD NOT run as approved, neither with the new input nor as the new tool.",
		rationale: "A user approves \"delete /tmp/scratch\"; the client (or anything between) edits the stored call to \"delete /etc/passwd\" and sends the approval. Without a binding between the request and the call's name and input, the approval covers whatever the history says.",
		origin:    "The AI SDK's approval signature covers the call's id, tool name and input, so an answer to a request whose call was edited does not verify.",
	},
	"EDIT-01": {
		text:      "For a target that declares editedApprovals, an approving answer that carries editedInput MUST run the call with the edited input, and MUST NOT run it with the model's original input, in that turn or any later one. A replayed request that carries the same edited approval runs the call no more often than the replay rules allow (WIRE-04).",
		rationale: "The user changed what the tool does (a smaller amount, a safer path, another recipient) and approved only that. Running the original input runs exactly what the user declined to approve as it was.",
		origin:    "LangChain's humanInTheLoopMiddleware takes an edit decision with the edited action's arguments; Genkit restarts an interrupted call with replaceInput; the ADK and the Claude Agent SDK let an approval change the input too.",
	},
	"EDIT-02": {
		text:      "For a target that declares editedApprovals, after an edited approval every prompt that holds the call MUST show it with the edited input, beside the result of the run with that input.",
		rationale: "A prompt that pairs the model's original call with the result of the edited one tells the model its own call ran: it misreads the result, and it may make the original call again, which the user had changed.",
		origin:    "langchainjs #33787: after an edit, the agent re-attempted the original call. LangChain's middleware rewrites the call in the step's AIMessage; Genkit keeps the original input in the model message and records the replaced one in the restarted request's metadata.",
	},
}
