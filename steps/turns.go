package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
)

// Running a turn: the request the target gets, the application's loop for
// single-step targets, and the record of each turn.

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
			if schema == nil && !t.noSchema {
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
