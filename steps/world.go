package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

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
	// acceptedRefusals are the turns whose clear refusal an assertion
	// accepted as the scenario's outcome.
	acceptedRefusals []int
	// stoppedAt is the step at which the scenario stopped before its end
	// ("" when it ran to its end).
	stoppedAt string
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
