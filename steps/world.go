package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/wire"
)

// harnessError is a failure to drive the target (it crashed, hung, was
// unreachable, or answered garbage); it makes the scenario's verdict error
// or timeout instead of fail.
type harnessError struct {
	timeout bool
	err     error
}

func (e *harnessError) Error() string {
	if e.timeout {
		return "target timed out: " + e.err.Error()
	}
	return "harness error: " + e.err.Error()
}

func (e *harnessError) Unwrap() error { return e.err }

// notApplicable is returned (wrapped in godog.ErrSkip) when the target does
// not declare a feature the scenario needs.
type notApplicable struct{ reason string }

// turnRecord is one turn the scenario ran.
type turnRecord struct {
	N int `json:"turn"`
	// Request is the conversation sent.
	Request json.RawMessage `json:"request"`
	// Response is what the target answered.
	Response *target.TurnResponse `json:"response,omitempty"`
	// FirstModelCall and LastModelCall bound the model calls of the turn
	// (LastModelCall < FirstModelCall when there were none).
	FirstModelCall int `json:"firstModelCall"`
	LastModelCall  int `json:"lastModelCall"`
	// Err is the harness error, if the target could not be driven.
	Err string `json:"error,omitempty"`
	// Steps counts the extra target turns the harness sent as the
	// application's loop (single-step targets).
	Steps int `json:"loopSteps,omitempty"`

	sent []model.Message // the history sent (nil when raw was malformed)
	spec turnSpec
}

// turnSpec is what a turn was run with, so it can be replayed.
type turnSpec struct {
	messages json.RawMessage
	state    json.RawMessage
}

// world is the state of one scenario.
type world struct {
	suite   *Suite
	info    *target.Info
	mode    target.Mode
	profile wire.Profile
	tools   []*toolSpec
	toolkit target.Toolkit
	omitted map[string]bool
	options target.Options
	tl      *timeline
	harness *harness
	sim     *simulator.Model
	pending []simulator.Turn // scripted turns not yet given to the simulator
	history []model.Message
	turns   []*turnRecord
	na      *notApplicable
	client  *clientWorld
	server  *serverWorld
	// providerApprovals maps the scripted provider-executed calls to their
	// approval ids.
	providerApprovals map[string]string

	// conversation names the scenario's conversation to the target.
	conversation string
	// state is the resume state the last turn answered (resumeState
	// targets).
	state json.RawMessage
	// step is the text of the step running.
	step string
	// findings are the outcomes of the assertions so far.
	findings []finding
	// notes are observations charged to no check.
	notes []string
	// seenProblems and seenCalls count the simulator's problems and
	// journal entries already drained; reported holds the always-on
	// findings already recorded.
	seenProblems, seenCalls int
	reported                map[string]bool
	// readTurn says the assertion under way read the last turn's outcome;
	// failedTurns are the turns whose failure an assertion was already
	// charged for: a later assertion that only finds the same failure is
	// blocked by it (the cause is charged once, not its symptoms).
	readTurn    bool
	failedTurns map[int]bool
	// unasked holds the calls a turn was to ask approval for and did not
	// (REQ-01's failure, charged there), by that turn: what a later
	// assertion reads of them (their answers, results, runs, the turn's
	// end) was taken away by that failure, and is blocked.
	unasked map[string]int
	// check is the check of the assertion under way, and stepHarm the harm
	// its failure causes unless the failure names its own.
	check    string
	stepHarm harmSpec
	// inputTags are the tags the scenario's user actions gave its input
	// (markInput).
	inputTags []string
	// inputWhy names, for each input tag, the step that gave it.
	inputWhy map[string]string
}

func newWorld(s *Suite, info *target.Info) *world {
	tl := &timeline{}
	w := &world{suite: s, info: info, mode: target.Generate, toolkit: target.ToolkitProvided, omitted: map[string]bool{}, tl: tl, reported: map[string]bool{}}
	w.harness = newHarness(tl, s.slowToolHold())
	return w
}

// requireFeature marks the scenario not applicable when the target does not
// declare the feature.
func (w *world) requireFeature(name, what string) error {
	if w.info.Features.Has(name) {
		return nil
	}
	w.na = &notApplicable{reason: fmt.Sprintf("the target does not declare %s (%s)", what, name)}
	return errSkip
}

func (w *world) tool(name string) *toolSpec {
	for _, t := range w.tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func (w *world) addTool(t *toolSpec) error {
	if w.tool(t.name) != nil {
		return fmt.Errorf("the scenario defines the tool %q twice", t.name)
	}
	w.tools = append(w.tools, t)
	w.harness.mu.Lock()
	w.harness.tools[t.name] = t
	w.harness.mu.Unlock()
	return nil
}

// ensureSim creates the simulator the first time it is needed.
func (w *world) ensureSim() error {
	if w.sim != nil {
		return nil
	}
	sim, err := simulator.New(simulator.Script{Provider: w.profile}, simulator.WithObserver(func(call int) {
		w.tl.add(timelineEvent{Kind: "model-call", Turn: len(w.turns), ModelCall: call})
	}), simulator.PastEnd(simulator.Reply{Text: "(the scenario scripts no reply for this model call)"}))
	if err != nil {
		return err
	}
	w.sim = sim
	return nil
}

// script adds a turn to the model's script. Its expectations of the prompt
// are adapted to what the target declares: a target with untyped results
// is not held to result types, one without denial reasons not to reasons
// (those aspects are recorded as not applicable).
func (w *world) script(t simulator.Turn) error {
	if err := w.ensureSim(); err != nil {
		return err
	}
	if t.Expect != nil {
		x, err := w.adaptExpect(t.Expect)
		if err != nil {
			return err
		}
		t.Expect = x
	}
	for _, c := range t.Reply.ToolCalls {
		if c.ProviderExecuted && c.ApprovalID != "" {
			if w.providerApprovals == nil {
				w.providerApprovals = map[string]string{}
			}
			w.providerApprovals[c.ID] = c.ApprovalID
		}
	}
	return w.sim.Append(t)
}

// callIDIn is the id msgs know a call by. Over a provider wire a
// provider-executed call's own id is lost (OpenAI's mcp_approval_request
// carries the approval id only, and SDKs make up the call's id), so such a
// call is found through its approval request.
func (w *world) callIDIn(msgs []model.Message, callID string) string {
	approvalID, ok := w.providerApprovals[callID]
	if !ok || w.suite.Wiring == nil {
		return callID
	}
	if req, found := model.IndexOf(msgs).Request(approvalID); found {
		return req.ToolCallID
	}
	return callID
}

// modelAPI is the model API the scenario's turns use: in-process, the
// simulator itself; over HTTP, the provider wire of the scenario's profile
// when the target can use it, else the canonical API (lossless), which the
// suite also prefers when asked to.
func (w *world) modelAPI() string {
	api := string(w.sim.Profile())
	if w.suite.Wiring == nil {
		return api
	}
	f := w.info.Features
	if f.SupportsAPI(target.APICanonical) && (w.suite.PreferCanonical || !f.SupportsAPI(api)) {
		return target.APICanonical
	}
	return api
}

// tamperState changes a resume state where old appears verbatim (raw, or
// escaped inside a JSON string), as a hostile client changing a saved run
// state would. A state in another encoding is left as it is.
func (w *world) tamperState(old, new string) {
	if len(w.state) == 0 || old == "" {
		return
	}
	esc := func(x string) string {
		b, _ := json.Marshal(x) // a string always marshals
		return string(b[1 : len(b)-1])
	}
	s := strings.ReplaceAll(string(w.state), old, new)
	s = strings.ReplaceAll(s, esc(old), esc(new))
	w.state = json.RawMessage(s)
}

// lossy reports whether the model sees the prompt through a provider wire,
// which drops approval parts and result types.
func (w *world) lossy() bool {
	return w.suite.Wiring != nil && w.modelAPI() != target.APICanonical
}

// turnRequest builds the request of a turn from the scenario's state.
func (w *world) turnRequest(messages json.RawMessage) (*target.TurnRequest, error) {
	if err := w.ensureSim(); err != nil {
		return nil, err
	}
	if api := w.modelAPI(); w.suite.Wiring != nil && !w.info.Features.SupportsAPI(api) {
		w.na = &notApplicable{reason: fmt.Sprintf("the target declares neither the %s model API nor the canonical one", api)}
		return nil, errSkip
	}
	req := &target.TurnRequest{
		Conversation: w.conversation,
		Mode:         w.mode,
		Model:        target.ModelEndpoint{API: w.modelAPI(), Local: w.sim},
		Toolkit:      w.toolkit,
		Options:      w.options,
		Messages:     messages,
		State:        w.state,
		Harness:      w.harness,
	}
	if w.toolkit == target.ToolkitProvided {
		for _, t := range w.tools {
			if w.omitted[t.name] {
				continue
			}
			schema := t.schema
			if schema == nil {
				schema = json.RawMessage(`{"type":"object"}`)
			}
			req.Tools = append(req.Tools, target.Tool{
				Name:        t.name,
				Description: "The " + t.name + " tool of the scenario.",
				InputSchema: schema,
				Approval:    t.approval,
			})
			if t.provider {
				req.Tools[len(req.Tools)-1].ProviderExecuted = true
				req.Tools[len(req.Tools)-1].ServerLabel = "ack-" + t.name
			}
		}
	}
	if w.suite.Wiring != nil {
		if err := w.suite.Wiring.Prepare(req, w.sim, w.harness); err != nil {
			return nil, &harnessError{err: err}
		}
	}
	return req, nil
}

// send appends messages to the history and runs a turn.
func (w *world) send(ctx context.Context, msgs ...model.Message) error {
	w.history = append(w.history, msgs...)
	raw, err := model.EncodeMessages(w.history)
	if err != nil {
		return err
	}
	return w.runTurn(ctx, raw, model.Clone(w.history))
}

// sendRaw runs a turn with the history plus raw JSON messages appended,
// for input that is malformed on purpose. The raw messages do not join the
// history.
func (w *world) sendRaw(ctx context.Context, raw ...json.RawMessage) error {
	hist, err := model.EncodeMessages(w.history)
	if err != nil {
		return err
	}
	body := strings.TrimSuffix(string(hist), "]")
	for _, r := range raw {
		if body != "[" {
			body += ","
		}
		body += string(r)
	}
	body += "]"
	return w.runTurn(ctx, json.RawMessage(body), nil)
}

// runTurn runs one turn with the given conversation: one target turn, or,
// for a target whose turn is a single model call, the application's loop
// of them (the next is sent while the last ended with tool calls and no
// call waits for an answer). A target that cannot express the input makes
// the scenario not applicable.
func (w *world) runTurn(ctx context.Context, messages json.RawMessage, sent []model.Message) error {
	rec := &turnRecord{N: len(w.turns) + 1, Request: messages, sent: sent, spec: turnSpec{messages: messages, state: w.state}}
	w.turns = append(w.turns, rec)
	w.harness.beginTurn(rec.N, w.options.Concurrency)
	if err := w.ensureSim(); err != nil {
		return err
	}
	rec.FirstModelCall = w.sim.Calls() + 1
	defer func() { rec.LastModelCall = w.sim.Calls() }()

	single := w.info.Features.Steps == target.StepsSingle
	limit := w.options.MaxSteps
	if limit <= 0 {
		limit = defaultStepLimit
	}
	combined := &target.TurnResponse{}
	for step := 1; ; step++ {
		resp, err := w.targetTurn(ctx, rec, messages)
		if err != nil {
			return err
		}
		combined.Messages = append(combined.Messages, resp.Messages...)
		combined.Events = append(combined.Events, resp.Events...)
		combined.FinishReason, combined.Error = resp.FinishReason, resp.Error
		if resp.State != nil {
			combined.State = resp.State
			w.state = resp.State
		}
		if resp.Error != nil && resp.Error.Code == target.CodeNotExpressible {
			w.na = &notApplicable{reason: "the target cannot express this scenario's input in its SDK: " + resp.Error.Message}
			return errSkip
		}
		rec.Response = combined
		if resp.Error != nil || sent == nil || !single || step >= limit || resp.FinishReason != "tool-calls" || waitsForAnswer(resp.Messages) {
			break
		}
		// The application's loop: the turn's messages join the history
		// and the model is called again.
		sent = append(model.Clone(sent), model.Clone(resp.Messages)...)
		raw, err := model.EncodeMessages(sent)
		if err != nil {
			return err
		}
		messages = raw
		rec.Steps++
	}
	if combined.Error == nil && rec.sent != nil {
		w.history = append(w.history, model.Clone(combined.Messages)...)
	}
	return nil
}

// defaultStepLimit bounds the application's loop for single-step targets
// when the scenario sets no step limit.
const defaultStepLimit = 10

// targetTurn sends one turn to the target and checks its answer's shape.
func (w *world) targetTurn(ctx context.Context, rec *turnRecord, messages json.RawMessage) (*target.TurnResponse, error) {
	req, err := w.turnRequest(messages)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	resp, err := w.suite.Target.Agent().Turn(tctx, req)
	if err != nil {
		herr := &harnessError{err: err, timeout: errors.Is(tctx.Err(), context.DeadlineExceeded)}
		rec.Err = herr.Error()
		return nil, herr
	}
	if err := resp.Validate(); err != nil {
		herr := &harnessError{err: fmt.Errorf("the target's answer is malformed: %w", err)}
		rec.Err = herr.Error()
		return nil, herr
	}
	return resp, nil
}

// waitsForAnswer reports whether messages hold an approval request that
// has no answer and whose call has no result.
func waitsForAnswer(msgs []model.Message) bool {
	ix := model.IndexOf(msgs)
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.Type != model.PartToolApprovalRequest || len(ix.Responses[p.ApprovalID]) > 0 {
				continue
			}
			if _, done := ix.Result(p.ToolCallID); !done {
				return true
			}
		}
	}
	return false
}

// last returns the latest turn.
func (w *world) last() (*turnRecord, error) {
	if len(w.turns) == 0 {
		return nil, errors.New("no turn has run yet")
	}
	w.readTurn = true
	return w.turns[len(w.turns)-1], nil
}

// lastOK returns the latest turn, which must have succeeded. When it failed
// because the simulator refused one of its prompts (a provider rule broken,
// already charged to its WIRE check), what the caller wanted to judge does
// not exist: the assertion is blocked, not failed.
func (w *world) lastOK() (*turnRecord, error) {
	t, err := w.last()
	if err != nil {
		return nil, err
	}
	if e := t.Response.Error; e != nil {
		if v, ok := w.rejectedIn(t); ok {
			return nil, blocked("turn %d failed because the model refused its prompt (model call %d: %s)", t.N, v.Call, v.Violations[0].Check)
		}
		return nil, harmedIf(checks.Lost, lostWithTurn(t.N), fmt.Errorf("turn %d failed with %s: %s", t.N, e.Code, e.Message))
	}
	return t, nil
}

// rejectedIn returns the first model call of a turn that the simulator
// refused for breaking a provider rule.
func (w *world) rejectedIn(t *turnRecord) (simulator.Entry, bool) {
	if w.sim == nil {
		return simulator.Entry{}, false
	}
	for _, e := range w.sim.Journal() {
		if e.Call >= t.FirstModelCall && e.Call <= t.LastModelCall && e.Verdict == simulator.VerdictViolation && len(e.Violations) > 0 {
			return e, true
		}
	}
	return simulator.Entry{}, false
}

// approvalFor finds the approval request for a call in the history.
// It reads the parts themselves, not an index by approval id, so that a
// target that reuses approval ids is still answered (and judged on REQ-02).
func (w *world) approvalFor(callID string) (model.Part, error) {
	id := w.callIDIn(w.history, callID)
	for i := len(w.history) - 1; i >= 0; i-- {
		for _, p := range w.history[i].Content {
			if p.Type == model.PartToolApprovalRequest && p.ToolCallID == id {
				return p, nil
			}
		}
	}
	return model.Part{}, fmt.Errorf("the conversation holds no approval request for %q", callID)
}

// modelCall returns the journal entry of the n-th model call.
func (w *world) modelCall(n int) (simulator.Entry, error) {
	if w.sim == nil {
		return simulator.Entry{}, errors.New("the model was never called")
	}
	// A scenario numbers model calls by its script: model call n is the one
	// that got the n-th scripted reply. They coincide unless a call the
	// script has no reply for (one made too early, or one refused for a
	// broken provider rule) came first or in its place; that call is
	// charged to the rule it breaks, and does not shift what later
	// assertions read. An unscripted call is read by its own number when no
	// scripted call has that number.
	journal := w.sim.Journal()
	var byCall, byTurn *simulator.Entry
	shifted := false
	for i, e := range journal {
		if e.Call < n && e.Turn < 0 {
			shifted = true
		}
		if e.Call == n {
			byCall = &journal[i]
		}
		if e.Turn == n-1 {
			byTurn = &journal[i]
		}
	}
	switch {
	case byTurn != nil && (shifted || byCall == nil || byCall.Turn < 0):
		return *byTurn, nil
	case shifted:
		return simulator.Entry{}, blocked("the model never got scripted reply %d: an unscripted model call came before it", n)
	case byCall != nil:
		return *byCall, nil
	}
	if last, err := w.last(); err == nil && last.Response != nil && last.Response.Error != nil && last.Response.Error.Code != "Model" && n >= last.FirstModelCall {
		// The turn was refused before it got that far: nothing reached the
		// model, so what a prompt holds is not at stake. Whether refusing
		// was right is the turn assertions' to judge.
		return simulator.Entry{}, &naError{why: fmt.Sprintf("there was no model call %d: turn %d was refused with %s", n, last.N, last.Response.Error.Code)}
	}
	return simulator.Entry{}, fmt.Errorf("there was no model call %d (the model was called %d time(s))", n, w.sim.Calls())
}

// scenarioNumber is the number a scenario gives (see modelCall) to the
// model call the journal numbers n; false when the scenario cannot name
// it (an unscripted call whose number a scripted call has taken).
func (w *world) scenarioNumber(n int) (int, bool) {
	if w.sim == nil {
		return n, true
	}
	m := n
	for _, e := range w.sim.Journal() {
		if e.Call == n && e.Turn >= 0 {
			m = e.Turn + 1
		}
	}
	if e, err := w.modelCall(m); err != nil || e.Call != n {
		return 0, false
	}
	return m, true
}

// everyRunCounts are the checks whose rules are about duplicate runs
// within one request (approved calls run exactly once; duplicate answers
// lead to at most one run; a call runs at most once per request): their
// count assertions count every run. The others count a call once per turn
// it ran in, so that a call run twice within a turn is charged to those
// rules alone, not to every assertion that counts it.
var everyRunCounts = map[string]bool{"PART-02": true, "PRE-11": true, "WIRE-03": true}

// countedRunsOf returns the runs a count assertion of the current check
// counts (see everyRunCounts).
func (w *world) countedRunsOf(nameOrCall string) []toolRun {
	runs := w.runsOf(nameOrCall)
	if everyRunCounts[w.check] {
		return runs
	}
	type key struct {
		call string
		turn int
	}
	seen := map[key]bool{}
	var out []toolRun
	for _, r := range runs {
		k := key{r.ToolCallID, r.Turn}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// runsOf returns the tool runs for a tool name or a call id.
func (w *world) runsOf(nameOrCall string) []toolRun {
	byTool := w.tool(nameOrCall) != nil
	var out []toolRun
	for _, r := range w.harness.runsSnapshot() {
		if (byTool && r.Tool == nameOrCall) || (!byTool && r.ToolCallID == nameOrCall) {
			out = append(out, r)
		}
	}
	return out
}

// problems are the findings the scenario fails on whatever its steps say:
// the simulator's problems (provider rules broken, script not followed)
// and a call run twice within one turn (WIRE-03).
func (w *world) problems() []problem {
	var out []problem
	if w.sim != nil {
		for _, p := range w.sim.Problems() {
			out = append(out, problem{check: p.Check, detail: p.String()})
		}
	}
	type key struct {
		turn int
		call string
	}
	count := map[key]int{}
	for _, r := range w.harness.runsSnapshot() {
		count[key{r.Turn, r.ToolCallID}]++
	}
	var keys []key
	for k, n := range count {
		if n > 1 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].turn != keys[j].turn {
			return keys[i].turn < keys[j].turn
		}
		return keys[i].call < keys[j].call
	})
	for _, k := range keys {
		out = append(out, problem{check: "WIRE-03", detail: fmt.Sprintf("WIRE-03: tool call %s ran %d times in turn %d", k.call, count[k], k.turn)})
	}
	out = append(out, w.server.problems()...)
	return append(out, w.client.problems()...)
}

// requireRole marks the scenario not applicable when the target does not
// play the role.
func (w *world) requireRole(role string) {
	if !slices.Contains(w.info.Roles, role) {
		w.na = &notApplicable{reason: fmt.Sprintf("the target does not play the %s role", role)}
	}
}

// requireWholeBatches marks a scenario that answers part of a step's
// approvals not applicable when the target's SDK takes every answer of a
// step together (batchedDecisions): it cannot express the input.
func (w *world) requireWholeBatches() {
	if w.na == nil && w.info.Features.BatchedDecisions {
		w.na = &notApplicable{reason: "the target's SDK takes every answer of a paused step together, in the order asked (batchedDecisions): a request answering part of a step cannot be expressed"}
	}
}

type problem struct {
	check  string
	detail string
	spec   harmSpec
}

// adaptExpect checks a scripted turn's expectations of the prompt and fits
// them to the target: every expectation must name a known check; what the
// target declares it lacks (result types, denial reasons) or what the
// provider wire cannot carry (approval parts) is recorded as not applicable
// instead of being checked.
func (w *world) adaptExpect(e *simulator.Expect) (*simulator.Expect, error) {
	x := *e
	x.Results = nil
	for _, c := range e.Checks() {
		if _, ok := checks.Lookup(c); !ok {
			return nil, &authoringError{err: fmt.Errorf("the model's script blames the unknown check %q", c)}
		}
	}
	checkOf := func(own, field string) string {
		if own != "" {
			return own
		}
		if c := e.FieldChecks[field]; c != "" {
			return c
		}
		return e.Check
	}
	for _, r := range e.Results {
		check := checkOf(r.Check, "results")
		if check == "" {
			return nil, &authoringError{err: fmt.Errorf("the expected result for %s names no check", r.ToolCallID)}
		}
		if r.Reason != nil && *r.Reason != "" && w.noDenialReasons() {
			w.record(orCheck(r.ReasonCheck, check), report.OutcomeNotApplicable, fmt.Sprintf("the denial reason expected for %s: the target declares that its approval API takes no reason", r.ToolCallID))
			r.Reason = nil
		}
		if w.info.Features.UntypedResults && r.Type != "" {
			w.record(orCheck(r.TypeCheck, check), report.OutcomeNotApplicable, fmt.Sprintf("the %s type expected for %s: the target declares untyped results", r.Type, r.ToolCallID))
			r.Type = ""
		}
		if w.info.Features.UntypedResults && r.Reason != nil {
			// A denial is then an ordinary result: its reason is judged
			// by the text that reaches the model.
			r.ReasonInText = true
		}
		x.Results = append(x.Results, r)
	}
	if e.NoApprovalParts && w.lossy() {
		w.record(checkOf("", "noApprovalParts"), report.OutcomeNotApplicable, "no approval parts in the prompt: a provider wire carries none, so it cannot show them (the canonical model API can)")
		x.NoApprovalParts = false
	}
	for field, set := range map[string]bool{
		"noResults": len(x.NoResults) > 0, "noApprovalParts": x.NoApprovalParts, "messages": x.Messages != nil,
		"lastRole": x.LastRole != "", "contains": len(x.Contains) > 0, "notContains": len(x.NotContains) > 0,
		"tools": x.Tools != nil, "providerApprovals": len(x.ProviderApprovals) > 0,
	} {
		if set && checkOf("", field) == "" && (field != "providerApprovals" || slices.ContainsFunc(x.ProviderApprovals, func(p simulator.ProviderApprovalExpect) bool { return p.Check == "" })) {
			return nil, &authoringError{err: fmt.Errorf("the model's script expects %s of the prompt but names no check", field)}
		}
	}
	return &x, nil
}

// callsMadeIn returns the local tool calls the model made during a turn,
// as the simulator's replies made them.
func (w *world) callsMadeIn(t *turnRecord) []simulator.ToolCall {
	if w.sim == nil {
		return nil
	}
	var out []simulator.ToolCall
	for _, e := range w.sim.Journal() {
		if e.Call < t.FirstModelCall || e.Call > t.LastModelCall || e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if !c.ProviderExecuted {
				out = append(out, c)
			}
		}
	}
	return out
}

// modelCallThatMade returns the model call (journal numbering) of the turn
// whose reply made the call, or 0 when no model call of the turn made it.
func (w *world) modelCallThatMade(t *turnRecord, callID string) int {
	if w.sim == nil {
		return 0
	}
	for _, e := range w.sim.Journal() {
		if e.Call < t.FirstModelCall || e.Call > t.LastModelCall || e.Reply == nil {
			continue
		}
		for _, c := range e.Reply.ToolCalls {
			if c.ID == callID {
				return e.Call
			}
		}
	}
	return 0
}

// orCheck is own, or fallback when own is empty.
func orCheck(own, fallback string) string {
	if own != "" {
		return own
	}
	return fallback
}

// turnResultRules are the checks whose own rules require the turn's
// messages to hold exactly one result for a resolved call.
var turnResultRules = map[string]bool{"PRE-01": true, "PRE-02": true, "PRE-11": true, "REQ-06": true, "PART-01": true, "ERR-02": true}

// resultContentRules are the checks whose rules are about what a result
// holds (its type, its reason, its form in later turns), not whether it is
// there: an assertion of theirs that finds no result is blocked, and the
// absence is charged to the rule that requires the result (resultRule).
var resultContentRules = map[string]bool{"DEN-01": true, "DEN-02": true, "DEN-03": true}

// resultRule is the check whose rule a missing result for callID in the
// messages of turn rec breaks: PRE-01 for a call the request approved
// (its first answer counts), PRE-02 for one it denied, REQ-06 for a call
// no answer was about.
func (w *world) resultRule(rec *turnRecord, callID string) string {
	approved, found := answerOf(rec.Request, callID)
	switch {
	case !found && w.autoDenied(callID):
		return "PRE-02" // denied by its policy: a denied call
	case !found:
		return "REQ-06"
	case approved:
		return "PRE-01"
	}
	return "PRE-02"
}

// autoDenied reports whether the call's tool has a policy that denies
// every call on its own.
func (w *world) autoDenied(callID string) bool {
	if w.harness == nil {
		return false
	}
	for _, r := range w.harness.policySnapshot() {
		if r.ToolCallID != callID {
			continue
		}
		if t := w.tool(r.Tool); t != nil && t.auto != nil && t.auto.Decision == target.DecisionDenied {
			return true
		}
	}
	return false
}

// answerOf finds the first answer to callID's approval in a conversation,
// read leniently: a message the strict decoder refuses (an unknown field,
// on purpose) still says what it answers.
func answerOf(raw json.RawMessage, callID string) (approved, found bool) {
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return false, false
	}
	type part struct {
		Type       string `json:"type"`
		ToolCallID string `json:"toolCallId"`
		ApprovalID string `json:"approvalId"`
		Approved   bool   `json:"approved"`
	}
	var parts []part
	for _, m := range msgs {
		var ps []part
		if json.Unmarshal(m.Content, &ps) == nil {
			parts = append(parts, ps...)
		}
	}
	asks := map[string]bool{}
	for _, p := range parts {
		if p.Type == string(model.PartToolApprovalRequest) && p.ToolCallID == callID {
			asks[p.ApprovalID] = true
		}
	}
	for _, p := range parts {
		if p.Type == string(model.PartToolApprovalResponse) && asks[p.ApprovalID] {
			return p.Approved, true
		}
	}
	return false, false
}

// missingResult is what an assertion that needs the result of callID in
// the messages of turn rec gets when there is none. An assertion of a rule
// that requires that result fails; any other is blocked, and the absence
// is charged to the rule that requires it (resultRule).
func (w *world) missingResult(rec *turnRecord, callID, why string) error {
	if n, ok := w.unasked[callID]; ok {
		if _, answered := answerOf(rec.Request, callID); !answered {
			return blocked("%s: turn %d asked no approval for %s (REQ-01's failure, charged there), so no answer could resolve it", why, n, callID)
		}
	}
	if turnResultRules[w.check] {
		return harmedIf(checks.Lost, resultNeverSeen(rec.N, callID), errors.New(why))
	}
	owner := w.resultRule(rec, callID)
	return &chargedError{check: owner, why: why, own: blocked("%s: that is %s's rule, charged there", why, owner),
		spec: harmSpec{harm: checks.Lost, show: resultNeverSeen(rec.N, callID)}}
}

// turnOf returns the turn in which the journal's model call n was made.
func (w *world) turnOf(n int) (*turnRecord, bool) {
	for _, rec := range w.turns {
		if n >= rec.FirstModelCall && n <= rec.LastModelCall {
			return rec, true
		}
	}
	return nil, false
}

// markUnasked records calls turn n was to ask approval for and did not.
func (w *world) markUnasked(n int, callIDs []string) {
	if w.unasked == nil {
		w.unasked = map[string]int{}
	}
	for _, id := range callIDs {
		if _, seen := w.unasked[id]; !seen {
			w.unasked[id] = n
		}
	}
}

// askedLate lists the calls of w.unasked whose approval requests a turn's
// messages hold: the turn asks what an earlier turn should have.
func (w *world) askedLate(msgs []model.Message) []string {
	var out []string
	for id := range w.unasked {
		if hasRequest(msgs, w.callIDIn(msgs, id)) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// unaskedNotRun lists the calls of w.unasked that name a tool or call
// what and never ran: runs they would have made were taken away by
// REQ-01's failure.
func (w *world) unaskedNotRun(what string) []string {
	ix := model.IndexOf(w.history)
	var out []string
	for id := range w.unasked {
		call, _ := ix.Call(id)
		if id != what && call.ToolName != what {
			continue
		}
		if len(w.runsOf(id)) == 0 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// unaskedIn lists the calls turn n was to ask approval for and did not.
func (w *world) unaskedIn(n int) []string {
	var out []string
	for id, turn := range w.unasked {
		if turn == n {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
