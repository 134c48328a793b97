package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// timeline orders what happens in a scenario: model calls, tool runs and
// policy decisions, across goroutines.
type timeline struct {
	mu     sync.Mutex
	events []timelineEvent
}

// timelineEvent is one entry of the timeline.
type timelineEvent struct {
	Seq        int    `json:"seq"`
	Kind       string `json:"kind"` // model-call, tool-start, tool-end, policy
	Turn       int    `json:"turn"`
	ModelCall  int    `json:"modelCall,omitempty"`
	Tool       string `json:"tool,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
}

func (t *timeline) add(e timelineEvent) timelineEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.Seq = len(t.events) + 1
	t.events = append(t.events, e)
	return e
}

func (t *timeline) snapshot() []timelineEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]timelineEvent(nil), t.events...)
}

// toolSpec is a tool of the scenario: its approval policy and behaviour.
type toolSpec struct {
	name     string
	approval target.Approval
	// policy decides a dynamic approval from the input.
	policy func(input json.RawMessage) (bool, error)
	// auto, when set, is the decision the policy takes on its own for
	// every call (approved or denied), instead of policy.
	auto *target.PolicyDecision
	// output is what the tool returns; nil gives a default output naming
	// the tool and the call.
	output json.RawMessage
	// fail makes the tool fail with this message.
	fail string
	// slow holds each run until more runs are in flight than the
	// concurrency bound allows, or the hold time passes.
	slow bool
	// schema is the tool's input schema; nil gives {"type":"object"}.
	schema json.RawMessage
	// noSchema sends the tool without an input schema (optional in the
	// driver protocol, as in the SDKs' tool definitions).
	noSchema bool
	// provider marks a tool the provider runs.
	provider bool
}

// toolRun is one tool execution the harness served.
type toolRun struct {
	Tool       string          `json:"tool"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Turn       int             `json:"turn"`
	Start      int             `json:"startSeq"`
	Known      bool            `json:"known"`
}

// policyCall is one dynamic policy decision the harness served.
type policyCall struct {
	Tool       string          `json:"tool"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Messages   []model.Message `json:"messages"`
	Turn       int             `json:"turn"`
}

// harness runs the scenario's tools and policies for the target, and
// records every run.
type harness struct {
	mu       sync.Mutex
	tl       *timeline
	tools    map[string]*toolSpec
	turn     int
	runs     []toolRun
	policies []policyCall
	inFlight int
	maxIn    int
	bound    int           // the concurrency option in force, 0 if none
	over     chan struct{} // closed when more runs are in flight than bound
	hold     time.Duration
}

var _ target.Harness = (*harness)(nil)

func newHarness(tl *timeline, hold time.Duration) *harness {
	return &harness{tl: tl, tools: map[string]*toolSpec{}, over: make(chan struct{}), hold: hold}
}

func (h *harness) beginTurn(n, bound int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.turn = n
	h.bound = bound
}

// Execute implements target.Harness.
func (h *harness) Execute(ctx context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	h.mu.Lock()
	spec, known := h.tools[req.ToolName]
	start := h.tl.add(timelineEvent{Kind: "tool-start", Turn: h.turn, Tool: req.ToolName, ToolCallID: req.ToolCallID})
	h.runs = append(h.runs, toolRun{Tool: req.ToolName, ToolCallID: req.ToolCallID, Input: append(json.RawMessage(nil), req.Input...), Turn: h.turn, Start: start.Seq, Known: known})
	h.inFlight++
	if h.inFlight > h.maxIn {
		h.maxIn = h.inFlight
	}
	if h.bound > 0 && h.inFlight > h.bound {
		select {
		case <-h.over:
		default:
			close(h.over)
		}
	}
	over := h.over
	turn := h.turn
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
		h.tl.add(timelineEvent{Kind: "tool-end", Turn: turn, Tool: req.ToolName, ToolCallID: req.ToolCallID})
	}()

	if !known {
		return nil, fmt.Errorf("the harness has no tool named %q", req.ToolName)
	}
	if spec.slow {
		// A slow tool: it holds until more runs than the bound are in
		// flight (the violation is then already recorded) or the hold
		// time passes, so a bounded runtime is never deadlocked.
		t := time.NewTimer(h.hold)
		defer t.Stop()
		select {
		case <-over:
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if spec.fail != "" {
		return nil, errors.New(spec.fail)
	}
	if spec.output != nil {
		return spec.output, nil
	}
	out, _ := json.Marshal(map[string]any{"ok": true, "tool": req.ToolName, "toolCallId": req.ToolCallID}) // plain values always marshal
	return out, nil
}

// Policy implements target.Harness.
func (h *harness) Policy(_ context.Context, req target.PolicyRequest) (bool, error) {
	h.mu.Lock()
	spec, known := h.tools[req.ToolName]
	h.policies = append(h.policies, policyCall{Tool: req.ToolName, ToolCallID: req.ToolCallID, Input: append(json.RawMessage(nil), req.Input...), Messages: model.Clone(req.Messages), Turn: h.turn})
	h.tl.add(timelineEvent{Kind: "policy", Turn: h.turn, Tool: req.ToolName, ToolCallID: req.ToolCallID})
	h.mu.Unlock()
	if !known || spec.policy == nil {
		return true, fmt.Errorf("the harness has no dynamic policy for %q", req.ToolName)
	}
	return spec.policy(req.Input)
}

// Decide implements target.Decider: a tool whose policy decides on its
// own answers its decision; any other answers Policy's.
func (h *harness) Decide(ctx context.Context, req target.PolicyRequest) (target.PolicyDecision, error) {
	h.mu.Lock()
	spec, known := h.tools[req.ToolName]
	h.mu.Unlock()
	if known && spec.auto != nil {
		h.mu.Lock()
		h.policies = append(h.policies, policyCall{Tool: req.ToolName, ToolCallID: req.ToolCallID, Input: append(json.RawMessage(nil), req.Input...), Messages: model.Clone(req.Messages), Turn: h.turn})
		h.tl.add(timelineEvent{Kind: "policy", Turn: h.turn, Tool: req.ToolName, ToolCallID: req.ToolCallID})
		h.mu.Unlock()
		return *spec.auto, nil
	}
	need, err := h.Policy(ctx, req)
	if err != nil {
		return target.PolicyDecision{}, err
	}
	if need {
		return target.PolicyDecision{Decision: target.DecisionUserApproval}, nil
	}
	return target.PolicyDecision{Decision: target.DecisionNotApplicable}, nil
}

func (h *harness) runsSnapshot() []toolRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]toolRun(nil), h.runs...)
}

func (h *harness) policySnapshot() []policyCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]policyCall(nil), h.policies...)
}

func (h *harness) maxInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.maxIn
}

// prefixPolicy needs approval when the input's field starts with prefix.
func prefixPolicy(field, prefix string) func(json.RawMessage) (bool, error) {
	return func(input json.RawMessage) (bool, error) {
		var obj map[string]any
		if err := json.Unmarshal(input, &obj); err != nil {
			return true, fmt.Errorf("policy: input is not an object: %w", err)
		}
		s, ok := obj[field].(string)
		if !ok {
			return true, fmt.Errorf("policy: input has no string field %q", field)
		}
		return strings.HasPrefix(s, prefix), nil
	}
}

// failingPolicy is a policy that cannot be evaluated.
func failingPolicy(json.RawMessage) (bool, error) {
	return false, errors.New("policy backend unavailable")
}

// panickingPolicy is a policy that panics: in-process the runtime's call
// of it panics; over HTTP the callback server drops the connection, as a
// crashing policy backend would.
func panickingPolicy(json.RawMessage) (bool, error) {
	panic("the policy crashed")
}
