package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
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

	sent []model.Message // the history sent (nil when raw was malformed)
	spec turnSpec
}

// turnSpec is what a turn was run with, so it can be replayed.
type turnSpec struct {
	messages json.RawMessage
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
	// outOfShard marks a scenario another shard runs: it is skipped and
	// not recorded.
	outOfShard bool
	client     *clientWorld
	// providerApprovals maps the scripted provider-executed calls to their
	// approval ids.
	providerApprovals map[string]string
}

func newWorld(s *Suite, info *target.Info) *world {
	tl := &timeline{}
	w := &world{suite: s, info: info, mode: target.Generate, toolkit: target.ToolkitProvided, omitted: map[string]bool{}, tl: tl}
	w.harness = newHarness(tl, s.SlowToolHold)
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
	}))
	if err != nil {
		return err
	}
	w.sim = sim
	return nil
}

// script adds a turn to the model's script.
func (w *world) script(t simulator.Turn) error {
	if err := w.ensureSim(); err != nil {
		return err
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
// when the target can use it, else the canonical API (lossless).
func (w *world) modelAPI() string {
	api := string(w.sim.Profile())
	if w.suite.Wiring == nil {
		return api
	}
	f := w.info.Features
	if f.SupportsAPI(target.APICanonical) && !f.SupportsAPI(api) {
		return target.APICanonical
	}
	return api
}

// turnRequest builds the request of a turn from the scenario's state.
func (w *world) turnRequest(messages json.RawMessage) (*target.TurnRequest, error) {
	if err := w.ensureSim(); err != nil {
		return nil, err
	}
	req := &target.TurnRequest{
		Mode:     w.mode,
		Model:    target.ModelEndpoint{API: w.modelAPI(), Local: w.sim},
		Toolkit:  w.toolkit,
		Options:  w.options,
		Messages: messages,
		Harness:  w.harness,
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

// runTurn runs one turn with the given conversation.
func (w *world) runTurn(ctx context.Context, messages json.RawMessage, sent []model.Message) error {
	req, err := w.turnRequest(messages)
	if err != nil {
		return err
	}
	rec := &turnRecord{N: len(w.turns) + 1, Request: messages, sent: sent, spec: turnSpec{messages: messages}}
	w.turns = append(w.turns, rec)
	w.harness.beginTurn(rec.N, w.options.Concurrency)
	rec.FirstModelCall = w.sim.Calls() + 1

	tctx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	resp, err := w.suite.Target.Agent().Turn(tctx, req)
	rec.LastModelCall = w.sim.Calls()
	if err != nil {
		herr := &harnessError{err: err, timeout: errors.Is(tctx.Err(), context.DeadlineExceeded)}
		rec.Err = herr.Error()
		return herr
	}
	if err := resp.Validate(); err != nil {
		herr := &harnessError{err: fmt.Errorf("the target's answer is malformed: %w", err)}
		rec.Err = herr.Error()
		return herr
	}
	rec.Response = resp
	if resp.Error == nil && sent != nil {
		w.history = append(w.history, model.Clone(resp.Messages)...)
	}
	return nil
}

// last returns the latest turn.
func (w *world) last() (*turnRecord, error) {
	if len(w.turns) == 0 {
		return nil, errors.New("no turn has run yet")
	}
	return w.turns[len(w.turns)-1], nil
}

// lastOK returns the latest turn, which must have succeeded.
func (w *world) lastOK() (*turnRecord, error) {
	t, err := w.last()
	if err != nil {
		return nil, err
	}
	if t.Response.Error != nil {
		return nil, fmt.Errorf("turn %d failed with %s: %s", t.N, t.Response.Error.Code, t.Response.Error.Message)
	}
	return t, nil
}

// approvalFor finds the approval request for a call in the history.
func (w *world) approvalFor(callID string) (model.Part, error) {
	ix := model.IndexOf(w.history)
	req, ok := ix.RequestForCall(w.callIDIn(w.history, callID))
	if !ok {
		return model.Part{}, fmt.Errorf("the conversation holds no approval request for %q", callID)
	}
	return req, nil
}

// modelCall returns the journal entry of the n-th model call.
func (w *world) modelCall(n int) (simulator.Entry, error) {
	if w.sim == nil {
		return simulator.Entry{}, errors.New("the model was never called")
	}
	for _, e := range w.sim.Journal() {
		if e.Call == n {
			return e, nil
		}
	}
	return simulator.Entry{}, fmt.Errorf("there was no model call %d (the model was called %d time(s))", n, w.sim.Calls())
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
	return append(out, w.client.problems()...)
}

// requireRole marks the scenario not applicable when the target does not
// play the role.
func (w *world) requireRole(role string) {
	if !slices.Contains(w.info.Roles, role) {
		w.na = &notApplicable{reason: fmt.Sprintf("the target does not play the %s role", role)}
	}
}

type problem struct {
	check  string
	detail string
}
