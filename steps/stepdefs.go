package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/approval-conformance-kit/ack/checks"
)

// stepKind says what a step does: it arranges or drives the scenario, or it
// asserts something of the target.
type stepKind int

const (
	// kindDo arranges the scenario or drives the target. It asserts
	// nothing: when it fails, the scenario cannot go on, which is an error
	// of the scenario unless a check already failed (the failure then
	// explains why the scenario could not go on).
	kindDo stepKind = iota
	// kindAssert is an assertion. It belongs to exactly one check: the one
	// its text names in brackets ("Then [PRE-02] ..."), or the one its
	// definition fixes because its rule is that check's alone. A failed
	// assertion is charged to its check and the scenario goes on.
	kindAssert
)

// labelPattern is the optional check label of an assertion step.
const labelPattern = `(?:\[([A-Z]+-\d{2})\] )?`

// stepDef is one step definition: what its text looks like, what kind of
// step it is and, for an assertion, the check it is fixed to ("" when its
// text must name one).
type stepDef struct {
	kind  stepKind
	expr  string
	fixed string
	fn    any
	// harm is the harm an assertion's failure causes, unless the failure
	// names its own (harmed, harmedIf, harmless); none: the rule it tests
	// is SHOULD at most.
	harm harmSpec
	// input is the tag a user action gives the scenario's input when it
	// runs: @out-of-contract for what no conforming client sends, or a
	// trait a delivery contract may exclude (checks.Traits).
	input string
	// acceptsRefusal says the assertion passes on a turn that refused its
	// input clearly: when it passes, that refusal was the scenario's
	// expected outcome, not a loss (world.refusedConforming).
	acceptsRefusal bool
}

// pattern returns the definition's compiled pattern; patterns are compiled
// once per process.
func (d stepDef) pattern() *regexp.Regexp {
	src := "^" + d.expr + "$"
	if d.kind == kindAssert {
		src = "^" + labelPattern + d.expr + "$"
	}
	if re, ok := compiled.Load(src); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(src)
	compiled.Store(src, re)
	return re
}

// compiled caches the step patterns by source.
var compiled sync.Map

// definitions lists every step of the suite. The handlers close over world,
// which returns the scenario's world (nil when the definitions are listed
// for a lint).
func definitions(world func() *world) []stepDef {
	g := &given{world: world}
	u := &user{world: world}
	th := &then{world: world}
	c := &clientSteps{world: world}
	sv := &serverSteps{world: world}
	var defs []stepDef
	do := func(expr string, fn any) { defs = append(defs, stepDef{kind: kindDo, expr: expr, fn: fn}) }
	// sends is a user action whose input is out-of-contract, or has a
	// trait a delivery contract may exclude (tag).
	sends := func(tag, expr string, fn any) {
		defs = append(defs, stepDef{kind: kindDo, expr: expr, fn: fn, input: tag})
	}
	// assert defines an assertion; h is the harm its failure causes unless
	// the failure names its own (none: its rule is SHOULD at most).
	assert := func(expr, fixed string, fn any, h ...harmSpec) {
		d := stepDef{kind: kindAssert, expr: expr, fixed: fixed, fn: fn}
		if len(h) > 0 {
			d.harm = h[0]
		}
		defs = append(defs, d)
	}
	// assertOrRefused defines an assertion that a clear refusal of the
	// turn also satisfies.
	assertOrRefused := func(expr, fixed string, fn any, h ...harmSpec) {
		assert(expr, fixed, fn, h...)
		defs[len(defs)-1].acceptsRefusal = true
	}

	// Arrangement.
	do(`the agent runs in (generate|stream) mode`, g.mode)
	do(`a tool "([^"]+)" that needs approval`, g.toolAlways)
	do(`a tool "([^"]+)" that needs no approval`, g.toolNever)
	do(`a tool "([^"]+)" that the provider runs`, g.toolProvider)
	do(`a tool "([^"]+)" that needs approval and is slow`, g.toolSlow)
	do(`a tool "([^"]+)" that needs approval when "([^"]+)" starts with "([^"]*)"`, g.toolDynamic)
	do(`a tool "([^"]+)" whose approval policy fails`, g.toolFailingPolicy)
	do(`a tool "([^"]+)" whose approval policy (approves|denies) every call on its own(?: because "([^"]*)")?`, g.toolAutoPolicy)
	do(`a tool "([^"]+)" whose approval policy panics`, g.toolPanickingPolicy)
	do(`the tool "([^"]+)" fails with "([^"]*)"`, g.toolFails)
	do(`the tool "([^"]+)" returns (.+)`, g.toolReturns)
	do(`(no|an empty) toolkit is given`, g.noToolkit)
	do(`the toolkit leaves out "([^"]+)"`, g.omitTool)
	do(`the concurrency option is (\d+)`, g.concurrency)
	do(`the step limit is (\d+)`, g.stepLimit)
	do(`the runtime remembers the last (\d+) approvals? it ran`, g.replayLedger)
	do(`the model speaks "([^"]+)"`, g.profile)
	do(`the target's denial policy is "(independent|abort-remaining)"`, g.denialPolicy)
	do(`the model calls "([^"]+)" with (\{.*\}) as "([^"]+)"`, g.modelCalls)
	do(`the model calls:`, g.modelCallsTable)
	do(`the model calls the provider tool "([^"]+)" with (\{.*\}) as "([^"]+)" asking approval "([^"]+)"`, g.providerCall)
	do(`the model returns the result (\{.*\}) of the provider tool "([^"]+)" for "([^"]+)"(?: run on the approval "([^"]+)")?`, g.providerResult)
	do(`the model replies "([^"]*)"`, g.modelReplies)
	do(`the model answers with:`, g.modelAnswers)
	do(`the model may answer with:`, g.modelMayAnswer)
	do(`the tool "([^"]+)" takes input matching:`, g.toolSchema)
	do(`the tool "([^"]+)" has no input schema`, g.noSchema)
	do(`the whole toolkit is given`, g.wholeToolkit)
	do(`the conversation starts with (\d+) finished exchanges of "([^"]+)"`, g.exchanges)
	do(`the conversation continues with:`, g.historyDoc)
	do(`the model may reply "([^"]*)"`, g.modelMayReply)

	// The user's actions; each runs a turn.
	do(`the user says "([^"]*)"`, u.says)
	do(`the user (approves|denies) `+idList+`(?: because "([^"]*)")?`, u.answers)
	do(`the user answers:`, u.answersTable)
	sends("@answers-in-several-messages", `the user answers in two messages:`, u.answersTwoMessages)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" twice in one message`, u.approvesTwice)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" in one message and again in the next`, u.approvesTwiceAcross)
	sends(checks.OutOfContractTag, `the user approves and denies "([^"]+)" in one message`, u.conflicting)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" and denies it in the next message`, u.conflictingAcross)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" along with the unknown approval "([^"]+)"`, u.withOrphan)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" after the unknown approval "([^"]+)"`, u.afterOrphan)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" after an assistant note "([^"]*)"`, u.afterNote)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" and sends its result (\{.*\}) in the same message`, u.approvesWithResult)
	sends(checks.OutOfContractTag, `the user sends the result (\{.*\}) of "([^"]+)" and then its approval in another message`, u.resultThenApproval)
	sends("@answers-not-last", `the user approves "([^"]+)" and adds "([^"]*)"`, u.approvesAndAdds)
	sends("@answers-not-last", `the user answers and adds "([^"]*)":`, u.answersTableAndAdds)
	sends(checks.OutOfContractTag, `the user re-sends the approval for "([^"]+)"`, u.resends)
	sends(checks.OutOfContractTag, `the same request is sent again`, u.replay)
	sends(checks.OutOfContractTag, `the user sends a malformed approval for "([^"]+)": (.+)`, u.malformed)
	sends(checks.OutOfContractTag, `the user sends a forged approval for "([^"]+)" with (\{.*\}) as "([^"]+)"`, u.forged)
	sends(checks.OutOfContractTag, `the user sends an unsigned forged approval for "([^"]+)" with (\{.*\}) as "([^"]+)"`, u.forgedUnsigned)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" after changing its input to (\{.*\})`, u.tampered)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" after renaming its tool to "([^"]+)"`, u.renamed)
	do(`the user approves "([^"]+)" with its input edited to (\{.*\})`, u.approvesEdited)
	do(`the user approves "([^"]+)" with its input edited to (\{.*\}) and approves "([^"]+)" as it is`, u.approvesEditedBeside)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" with its input edited to (\{.*\}) after the unknown approval "([^"]+)"`, u.approvesEditedAfterOrphan)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" with its input edited to (\{.*\}) and again to (\{.*\}) in one message`, u.approvesEditedTwice)
	do(`the user (approves|denies) the provider approval "([^"]+)"( without the providerExecuted flag)?`, u.providerAnswer)

	// Outcomes of the last turn.
	assert(`the turn ends with finish reason "([^"]+)"`, "", th.finishReason)
	assertOrRefused(`the turn fails with "([^"]+)"`, "", th.failsWith)
	assertOrRefused(`the turn fails with a clear error`, "", th.failsClearly)
	assertOrRefused(`the turn fails with a clear error or "([^"]+)" gets a denial result`, "", th.failsClearlyOrDenied)
	assertOrRefused(`the turn finishes, or is refused with a clear error`, "", th.finishesOrRefuses)
	assert(`"([^"]+)" failed as the target declares, with "([^"]*)"`, "", th.failedAsDeclared)
	assertOrRefused(`the turn fails with "([^"]+)" or "([^"]+)" gets a denial result`, "", th.failsOrDenied)
	assertOrRefused(`the turn asks approval for "([^"]+)" or fails with a clear error`, "", th.asksOrFails)
	assert(`(?:an approval is|approvals are) requested for `+idList, "", th.approvalRequested)
	assert(`no approval is requested for "([^"]+)"`, "", th.noApprovalRequested)
	assert(`the approval request for "([^"]+)" is in the assistant message that holds the call`, "", th.requestBesideCall)
	assert(`every approval id in the conversation is unique`, "REQ-02", th.uniqueApprovalIDs)
	assert(`every call of the turn has a result or a pending approval`, "REQ-06", th.everyCallAccounted)
	assertOrRefused(`every call of the turn has a result or a pending approval, or the turn refused clearly and ran nothing`, "REQ-06", th.everyCallAccountedOrRefused)
	assert(`the turn's first message holds the results for `+idList, "", th.firstMessageHolds)
	assert(`the turn added an? "([^"]+)" result for "([^"]+)"`, "", th.turnAddedResult)
	assert(`the turn added exactly one result for each of `+idList, "", th.turnAddedOne)
	assert(`the stream's approval-request events match the turn's messages`, "REQ-07", th.streamMatches, lostShown)
	assert(`the stream's result events match the turn's results`, "PRE-08", th.streamResultsMatch, lostShown)
	assert(`the stream carries the events (.+) in order`, "", th.eventsInOrder)
	assert(`the turn carries the provider's approval request "([^"]+)" for "([^"]+)"`, "", th.carriesProviderRequest, lostShown)
	assert(`the stream carries the provider's approval request "([^"]+)"`, "", th.streamCarriesProviderRequest, lostShown)
	assert(`the turn holds no result for "([^"]+)"`, "", th.turnHoldsNoResult)

	// What ran.
	assert(`"([^"]+)" has not run`, "", th.notRun, ranAgainst)
	assert(`"([^"]+)" has run (\d+) times?`, "", th.ranTimes)
	assert(`"([^"]+)" has run at most once`, "", th.ranAtMostOnce, ranAgainst)
	assert(`"([^"]+)" has run`, "", th.hasRun)
	assert(`"([^"]+)" has not run again after its result`, "", th.notRunAfterResult, ranAgainst)
	assertOrRefused(`the turn resolved "([^"]+)" once, or refused the message with a clear error`, "", th.resolvedOnceOrRefused, ranAgainst)
	assert(`"([^"]+)" has not run with (\{.*\})`, "", th.notRunWith, ranAgainst)
	assert(`"([^"]+)" ran with (\{.*\})`, "", th.ranWith, ranAgainst)
	assert(`nothing has run`, "", th.nothingRan, ranAgainst)
	assert(`no side effect of the turn lost its result`, "", th.noLostSideEffects, lostShown)
	assert(`"([^"]+)" ran before model call (\d+)`, "", th.ranBefore)
	assert(`at most (\d+) tools? ran at once`, "PRE-07", th.atMostAtOnce)
	assert(`the policy was asked for "([^"]+)", each time with its input`, "REQ-04", th.policyAskedWithInput)
	assert(`the policy saw the user's message "([^"]*)"`, "REQ-04", th.policySaw)
	assert(`the policy saw the call id "([^"]+)"`, "REQ-04", th.policySawCallID)

	// What the model received.
	assert(`the model was called (\d+) times? in the turn`, "", th.modelCalledTimes)
	assert(`the model was not called in the turn`, "", th.modelNotCalled)
	assert(`model call (\d+) received an? "([^"]+)" result for "([^"]+)"`, "", th.receivedResult, lostShown)
	assert(`model call (\d+) received the denial of "([^"]+)" with the user's reason "([^"]*)"`, "DEN-02", th.receivedReason)
	assert(`model call (\d+) received the skipped result for "([^"]+)"`, "PART-02", th.receivedSkipped, lostShown)
	assert(`model call (\d+) received the call "([^"]+)" with (\{.*\}) beside its result`, "", th.receivedEditedCall, lostShown)
	assertOrRefused(`model call (\d+) received the call "([^"]+)" with (\{.*\}) beside its result, or the turn refused the message`, "", th.receivedEditedCallOrRefused, lostShown)
	assert(`the model saw "([^"]+)" with the input it ran with`, "", th.sawAsRan, lostShown)
	assert(`model call (\d+) received exactly one result for each of `+idList, "", th.receivedExactlyOne, lostShown)
	assert(`model call (\d+) received no approval parts`, "PRE-12", th.noApprovalParts)
	assert(`model call (\d+) did not receive the text "([^"]*)"`, "", th.notReceivedText)
	assert(`model call (\d+) received an error result for "([^"]+)" containing "([^"]*)"`, "", th.receivedError, lostShown)
	assert(`model call (\d+) received the same result for "([^"]+)" as model call (\d+)`, "", th.sameResult)
	assert(`model call (\d+) received the same denial text for "([^"]+)" and "([^"]+)"`, "", th.sameDenialText)
	assert(`model call (\d+) received the provider approval "([^"]+)" as (approved|denied)`, "", th.receivedProviderApproval, lostShown)
	assertOrRefused(`model call (\d+) received the provider approval "([^"]+)" as (approved|denied), or the turn failed with a clear error`, "", th.providerApprovalOrError, lostShown)

	// The client role.
	do(`the client speaks "([^"]+)"`, c.speaks)
	do(`the client knows a tool "([^"]+)" that needs approval`, c.toolApproval)
	do(`the client runs a tool "([^"]+)" itself`, c.toolClientSide)
	do(`the chat server answers with:`, c.answersWith)
	do(`the chat server answers with the following, holding the stream open:`, c.answersHolding)
	do(`the chat server answers with the following, holding the stream open after the run finishes:`, c.answersHoldingOpen)
	do(`the chat server answers with the text "([^"]*)"`, c.answersText)
	do(`the chat server may answer with the text "([^"]*)"`, c.mayAnswerText)
	do(`the chat server ends the held stream`, c.release)
	do(`the chat server starts every answer with a new message id`, c.newMessageIDs)
	do(`the chat server starts its answers without a message id`, c.anonymousAnswers)
	do(`the user sends "([^"]*)" in the client`, c.send)
	do(`the user (approves|denies) "([^"]+)" in the client(?: because "([^"]*)")?`, c.answer)
	do(`the client's tool returns (\{.*\}) for "([^"]+)"`, c.toolOutput)
	assert(`the client shows an approval request for "([^"]+)"`, "", c.showsApproval, lostShown)
	assert(`the client shows the approval request for "([^"]+)" with the id the server sent`, "", c.showsApprovalID, lostShown)
	assert(`the client made (\d+) requests?`, "", c.madeRequests)
	assert(`request (\d+) carries the (approval|denial) of "([^"]+)"`, "", c.carries, lostShown)
	assert(`request (\d+) carries the (approval|denial) of "([^"]+)" with the reason "([^"]*)"`, "", c.carriesReason, lostShown)
	assert(`request (\d+) carries no answer for "([^"]+)"`, "", c.carriesNone)
	assert(`no request resumes an interrupt an earlier request resumed`, "", c.noStaleResume)
	assert(`the tool call "([^"]+)" went through (.+)`, "CHAIN-04", c.wentThrough)
	assert(`every tool call's state moved forward only`, "CHAIN-04", c.forwardOnly)
	assert(`the client holds each tool call once`, "CHAIN-06", c.holdsOnce)
	assert(`no request left a call dangling`, "CHAIN-05", c.noDangling, danglingHarm)
	assert(`the message was refused with a clear error,(?: held in the client's queue,)? or "([^"]+)" was answered in the request that sent it`, "CHAIN-05", c.refusedOrAnswered, danglingHarm)

	// The server role: the harness is the chat client.
	do(`the chat endpoint speaks "([^"]+)"`, sv.speaks)
	do(`the user sends "([^"]*)" to the chat endpoint`, sv.send)
	do(`the user (approves|denies) `+idList+` in the chat(?: because "([^"]*)")?`, sv.answer)
	sends(checks.OutOfContractTag, `a stale tab answers "([^"]+)" again, (approving|denying) it`, sv.staleAnswer)
	sends(checks.OutOfContractTag, `the application trims the output of "([^"]+)" from the chat and the user sends "([^"]*)"`, sv.trimsOutput)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" in the chat under the approval id "([^"]+)"`, sv.answerUnderID)
	sends(checks.OutOfContractTag, `the user approves "([^"]+)" and denies "([^"]+)" in the chat, each answer sent on the other call`, sv.answersSwapped)
	do(`the user opens a second chat and sends "([^"]*)"`, sv.secondChat)
	do(`the first chat is shown again`, sv.firstChat)
	do(`the chat endpoint restarts`, sv.restart)
	assert(`the chat stream asks approval for "([^"]+)"`, "", sv.streamAsks, lostShown)
	assert(`the chat stream reports "([^"]+)" as denied`, "", sv.streamDenied, lostShown)
	assert(`the chat stream gives "([^"]+)" the output (.+)`, "", sv.streamOutput, lostShown)
	assert(`the chat stream reports "([^"]+)" as failed with "([^"]*)"`, "", sv.streamFailed, lostShown)
	assert(`the chat stream reports no outcome of "([^"]+)"`, "", sv.streamNoOutcome, ranAgainst)
	assert(`the chat stream carries the text "([^"]*)"`, "", sv.streamText)
	assert(`the chat stream ends without an error`, "", sv.streamNoError)
	assert(`the chat stream fails with "([^"]+)"`, "", sv.streamFailsWith, lostShown)
	return defs
}

// A Scenario is a scenario ready to run: its pickle, and each of its steps
// matched to the definition it runs, with the arguments it is given.
// Prepare builds it once; it can then be run any number of times, at once
// too (running reads it and never writes it).
type Scenario struct {
	// Pickle is the scenario as Gherkin compiles it (an outline's row is a
	// scenario of its own).
	Pickle *godog.Scenario
	steps  []boundStep
}

// boundStep is a step matched to its definition.
type boundStep struct {
	step *godog.Step
	// def is the index of the step's definition in definitions' list; -1
	// when undefined is set.
	def int
	// undefined says why the step has no definition: no definition matches
	// its text, or several do. The step fails whether or not it runs.
	undefined error
	// label is an assertion's check label ("" when its text names none).
	label string
	// args are the handler's arguments after the context.
	args []reflect.Value
	// badArgs says why the step's arguments do not fit its handler: the
	// step fails when it runs.
	badArgs error
}

var (
	errorType   = reflect.TypeOf((*error)(nil)).Elem()
	contextType = reflect.TypeOf((*context.Context)(nil)).Elem()
	stringType  = reflect.TypeOf("")
	intType     = reflect.TypeOf(0)
	docType     = reflect.TypeOf((*godog.DocString)(nil))
	tableType   = reflect.TypeOf((*godog.Table)(nil))
)

// checkHandlers panics unless every handler takes a context first and
// arguments a step can give (text, an integer, a doc string, a table), and
// returns only an error.
func checkHandlers(defs []stepDef) {
	for _, d := range defs {
		t := reflect.TypeOf(d.fn)
		if t.Kind() != reflect.Func || t.NumIn() < 1 || t.In(0) != contextType || t.NumOut() != 1 || t.Out(0) != errorType {
			panic("steps: the handler of " + d.expr + " must take a context first and return only an error")
		}
		for i := 1; i < t.NumIn(); i++ {
			switch t.In(i) {
			case stringType, intType, docType, tableType:
			default:
				panic(fmt.Sprintf("steps: the handler of %s takes a %s, which no step gives", d.expr, t.In(i)))
			}
		}
	}
}

// Prepare matches each step of the pickle to its definition and converts
// its arguments, once.
func Prepare(p *godog.Scenario) *Scenario {
	sc := &Scenario{Pickle: p, steps: make([]boundStep, len(p.Steps))}
	for i, st := range p.Steps {
		sc.steps[i] = bind(st)
	}
	return sc
}

// bind matches a step's text to the one definition whose pattern matches
// it whole, and converts the pattern's groups (then the step's doc string
// or table) to the handler's parameters in order; an assertion's first
// group is its check label.
func bind(st *godog.Step) boundStep {
	b := boundStep{step: st, def: -1}
	var groups []string
	var exprs []string
	for i, d := range lintDefs {
		re := d.pattern()
		if m := re.FindStringSubmatch(st.Text); m != nil {
			if b.def < 0 {
				b.def, groups = i, m[1:]
			}
			exprs = append(exprs, re.String())
		}
	}
	switch {
	case len(exprs) == 0:
		b.undefined = fmt.Errorf("%w: %s", godog.ErrUndefined, st.Text)
		return b
	case len(exprs) > 1:
		b.def = -1
		b.undefined = fmt.Errorf("%w, step text: %s\n    matches:\n        %s", godog.ErrAmbiguous, st.Text, strings.Join(exprs, "\n        "))
		return b
	}
	d := lintDefs[b.def]
	args := make([]any, 0, len(groups)+1)
	for _, g := range groups {
		args = append(args, g)
	}
	if st.Argument != nil {
		args = append(args, st.Argument)
	}
	t := reflect.TypeOf(d.fn)
	params := make([]reflect.Type, 0, t.NumIn())
	if d.kind == kindAssert {
		params = append(params, stringType) // the label
	}
	for i := 1; i < t.NumIn(); i++ {
		params = append(params, t.In(i))
	}
	values := make([]reflect.Value, len(params))
	for i, p := range params {
		var arg any
		if i < len(args) {
			arg = args[i]
		}
		v, err := convert(arg, p)
		if err != nil {
			b.badArgs = fmt.Errorf("argument %d of the step: %w", i, err)
			return b
		}
		values[i] = v
	}
	if d.kind == kindAssert {
		b.label, values = values[0].String(), values[1:]
	}
	b.args = values
	return b
}

// convert gives a step's argument (a pattern's group, or the step's doc
// string or table) as a handler's parameter of type t.
func convert(arg any, t reflect.Type) (reflect.Value, error) {
	text, isText := arg.(string)
	data, _ := arg.(*messages.PickleStepArgument)
	switch t {
	case stringType:
		switch {
		case isText:
			return reflect.ValueOf(text), nil
		case data != nil && data.DocString != nil:
			return reflect.ValueOf(data.DocString.Content), nil
		}
		return reflect.Value{}, errors.New("the step has no text or doc string there")
	case intType:
		if !isText {
			return reflect.Value{}, errors.New("the step has no number there")
		}
		n, err := strconv.ParseInt(text, 10, 0)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("%q is not a whole number: %w", text, err)
		}
		return reflect.ValueOf(int(n)), nil
	case docType:
		if data == nil {
			return reflect.Value{}, errors.New("the step has no doc string")
		}
		return reflect.ValueOf(data.DocString), nil
	case tableType:
		if data == nil {
			return reflect.Value{}, errors.New("the step has no table")
		}
		return reflect.ValueOf(data.DataTable), nil
	}
	return reflect.Value{}, fmt.Errorf("no step gives a %s", t)
}

// call runs a bound step in the scenario's world: it is skipped when the
// scenario does not apply, fails as a harness error when the target's info
// could not be read, and, for an assertion, records its finding against
// its check and lets the scenario go on.
func call(ctx context.Context, defs []stepDef, b *boundStep, w *world, infoErr error) error {
	if b.badArgs != nil {
		return b.badArgs
	}
	if infoErr != nil {
		return &harnessError{err: infoErr}
	}
	if w != nil && w.na != nil {
		return godog.ErrSkip
	}
	d := defs[b.def]
	in := make([]reflect.Value, 0, 1+len(b.args))
	in = append(in, reflect.ValueOf(ctx))
	in = append(in, b.args...)
	if d.kind == kindDo {
		if d.input != "" && w != nil {
			w.markInput(d.input)
		}
		out := reflect.ValueOf(d.fn).Call(in)[0]
		if out.IsNil() {
			return nil
		}
		return out.Interface().(error)
	}
	check, err := d.check(b.label)
	if err != nil {
		return &authoringError{err: err}
	}
	w.readTurn, w.check, w.stepHarm = false, check, d.harm
	out := reflect.ValueOf(d.fn).Call(in)[0]
	var aerr error
	if !out.IsNil() {
		aerr = out.Interface().(error)
	}
	if aerr == nil && d.acceptsRefusal {
		w.acceptRefusal()
	}
	return w.judge(check, aerr)
}

// check returns the check an assertion step is charged to: its fixed
// check, or the label its text gives.
func (d stepDef) check(label string) (string, error) {
	switch {
	case d.fixed != "" && label != "" && label != d.fixed:
		return "", fmt.Errorf("the step is an assertion of %s; it cannot be charged to %s", d.fixed, label)
	case d.fixed != "":
		return d.fixed, nil
	case label == "":
		return "", errors.New("the assertion names no check: write its check in brackets after the keyword (Then [PRE-01] ...)")
	}
	if _, ok := checks.Lookup(label); !ok {
		return "", fmt.Errorf("the assertion names the unknown check %s", label)
	}
	return label, nil
}
