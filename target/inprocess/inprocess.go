// Package inprocess is the target that drives the reference runtime in the
// same process: the suite's turns become reference.Agent calls, the
// harness's tools and policies become the reference's tools and policies.
package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/chatclient"
	"github.com/approval-conformance-kit/ack/target"
)

// Version is the reference's version as the target reports it.
const Version = "0.1.0"

// Target drives a reference agent, and the reference chat client, in-process.
// Each conversation gets an agent of its own (reference.Agent.Fresh), so
// no scenario sees another's ledger.
type Target struct {
	agent      *reference.Agent
	name       string
	clientOpts []chatclient.Option
	dialects   map[string]string
	// serverDialects are the dialects the server role speaks.
	serverDialects map[string]string
	http           *http.Client
	modelAPIs      []string

	mu            sync.Mutex
	conversations map[string]*reference.Agent
	order         []string
	adjust        []func(*target.Features)
}

// maxConversations bounds the agents kept for conversations; the oldest
// is forgotten first.
const maxConversations = 4096

// agentFor returns the agent of a conversation ("" shares the target's).
func (t *Target) agentFor(conversation string) *reference.Agent {
	return t.agentOf(conversation, 0)
}

// agentOf returns the agent of a conversation ("" shares the target's); a
// conversation's first turn makes it, remembering at most ledger executed
// approvals when ledger is positive (the turn option replayLedger).
func (t *Target) agentOf(conversation string, ledger int) *reference.Agent {
	if conversation == "" {
		return t.agent
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.conversations[conversation]; ok {
		return a
	}
	if t.conversations == nil {
		t.conversations = map[string]*reference.Agent{}
	}
	if len(t.order) >= maxConversations {
		delete(t.conversations, t.order[0])
		t.order = t.order[1:]
	}
	a := t.agent.Fresh()
	if ledger > 0 {
		reference.WithLedgerSize(ledger)(a)
	}
	t.conversations[conversation] = a
	t.order = append(t.order, conversation)
	return a
}

// Option configures a Target.
type Option func(*Target)

// WithFeatures adjusts the features the target declares (for variants of
// the reference that differ in ways the norms allow).
func WithFeatures(adjust func(*target.Features)) Option {
	return func(t *Target) { t.adjust = append(t.adjust, adjust) }
}

// WithClientOptions configures the reference chat client of the client role.
func WithClientOptions(opts ...chatclient.Option) Option {
	return func(t *Target) { t.clientOpts = append(t.clientOpts, opts...) }
}

// WithModelAPIs sets the model APIs the target declares (target.APICanonical
// and the provider profiles; by default none, which means the three
// provider wires). Served over HTTP, the reference's model client speaks
// any of them, so this chooses which one the harness points it at.
func WithModelAPIs(apis ...string) Option {
	return func(t *Target) { t.modelAPIs = append([]string(nil), apis...) }
}

// WithClientDialects declares the dialect the reference chat client speaks
// each protocol in (chat.Dialects); protocols not named use their default.
func WithClientDialects(dialects map[string]string) Option {
	return func(t *Target) { t.dialects = dialects }
}

// WithServerDialects declares the dialect the reference chat server speaks
// each protocol in, in the server role; protocols not named use their
// default.
func WithServerDialects(dialects map[string]string) Option {
	return func(t *Target) { t.serverDialects = dialects }
}

// New returns a target for the agent; name appears in reports ("reference"
// for the clean runtime, the mutant's name for a mutant).
func New(agent *reference.Agent, name string, opts ...Option) *Target {
	t := &Target{agent: agent, name: name, http: streamingClient}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Info implements target.Target.
func (t *Target) Info(context.Context) (*target.Info, error) {
	info := &target.Info{
		Name:    t.name,
		Version: Version,
		SDK:     "ack-reference",
		Roles:   []string{target.RoleAgent, target.RoleClient, target.RoleServer},
		Features: target.Features{
			Modes:            []target.Mode{target.Generate, target.Stream},
			DynamicPolicy:    true,
			Concurrency:      true,
			ReplayLedger:     true,
			ProviderExecuted: true,
			ToolkitErrors:    true,
			DenialPolicy:     string(t.agent.DenialPolicy()),
			DenialPolicies:   []string{string(reference.Independent), string(reference.AbortRemaining)},
			ToolErrors:       "result",
			ClientProtocols:  append([]string(nil), chat.Protocols...),
			ClientTools:      true,
			ModelAPIs:        append([]string(nil), t.modelAPIs...),
			ClientDialects:   t.dialects,
			ServerProtocols:  append([]string(nil), chat.Protocols...),
			ServerDialects:   t.serverDialects,
			AutoPolicies:     true,
			EditedApprovals:  true,
		},
	}
	for _, a := range t.adjust {
		a(&info.Features)
	}
	return info, nil
}

// Agent implements target.Target.
func (t *Target) Agent() target.Agent { return agentRole{t} }

// Client implements target.Target.
func (t *Target) Client() target.Client { return clientRole{t} }

// Close implements target.Target.
func (t *Target) Close() error { return nil }

type agentRole struct{ t *Target }

// Turn implements target.Agent.
func (a agentRole) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	return RunTurn(ctx, a.t.agentOf(req.Conversation, req.Options.ReplayLedger), req)
}

// RunTurn runs one driver-protocol turn on a reference agent. The model is
// req.Model.Local; tools and policies go to req.Harness.
func RunTurn(ctx context.Context, agent *reference.Agent, req *target.TurnRequest) (*target.TurnResponse, error) {
	if req.Model.Local == nil {
		return nil, errors.New("in-process target: the turn has no in-process model")
	}
	if req.Harness == nil {
		return nil, errors.New("in-process target: the turn has no harness for its tools")
	}
	msgs, err := agent.DecodeHistory(req.Messages)
	if err != nil {
		return &target.TurnResponse{Error: turnError(err)}, nil
	}
	turn := reference.Turn{
		Model:        req.Model.Local,
		Messages:     msgs,
		Concurrency:  req.Options.Concurrency,
		MaxSteps:     req.Options.MaxSteps,
		DenialPolicy: reference.DenialPolicy(req.Options.DenialPolicy),
	}
	switch req.Toolkit {
	case target.ToolkitEmpty:
		turn.Tools = []reference.Tool{} // an empty toolkit, not none
	case "", target.ToolkitProvided:
		for _, spec := range req.Tools {
			tool, err := Tool(spec, req.Harness)
			if err != nil {
				return nil, err
			}
			turn.Tools = append(turn.Tools, tool)
		}
	}
	resp := &target.TurnResponse{}
	var res *reference.Result
	switch req.Mode {
	case target.Stream:
		res, err = agent.Stream(ctx, turn, func(ev model.Event) error {
			resp.Events = append(resp.Events, ev)
			return nil
		})
	case target.Generate, "":
		res, err = agent.Generate(ctx, turn)
	default:
		return nil, fmt.Errorf("in-process target: unknown mode %q", req.Mode)
	}
	if err != nil {
		resp.Error = turnError(err)
		return resp, nil
	}
	resp.Messages = res.Messages
	resp.FinishReason = res.FinishReason
	return resp, nil
}

// Tool turns a driver-protocol tool into a reference tool whose execution
// and dynamic policy go to the harness.
func Tool(spec target.Tool, h target.Harness) (reference.Tool, error) {
	tool := reference.Tool{
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: spec.InputSchema,
		Execute: func(ctx context.Context, c reference.Call) (json.RawMessage, error) {
			return h.Execute(ctx, target.ExecuteRequest{ToolName: c.ToolName, ToolCallID: c.ToolCallID, Input: c.Input})
		},
	}
	switch spec.Approval {
	case target.ApprovalAlways:
		tool.Approval = reference.Always
	case target.ApprovalNever, "":
		tool.Approval = reference.Never
	case target.ApprovalDynamic:
		tool.Approval = reference.Dynamic(func(ctx context.Context, in reference.PolicyInput) (bool, error) {
			return h.Policy(ctx, target.PolicyRequest{ToolName: in.ToolName, ToolCallID: in.ToolCallID, Input: in.Input, Messages: in.Messages})
		})
		if d, ok := h.(target.Decider); ok {
			// A harness whose policies may decide on their own: approve
			// or deny a call without asking.
			tool.Approval = reference.Deciding(func(ctx context.Context, in reference.PolicyInput) (reference.Decision, error) {
				dec, err := d.Decide(ctx, target.PolicyRequest{ToolName: in.ToolName, ToolCallID: in.ToolCallID, Input: in.Input, Messages: in.Messages})
				if err != nil {
					return reference.Decision{}, err
				}
				if err := dec.Validate(); err != nil {
					return reference.Decision{}, err
				}
				return reference.Decision{Outcome: reference.Outcome(dec.Decision), Reason: dec.Reason}, nil
			})
		}
	default:
		return reference.Tool{}, fmt.Errorf("tool %q: unknown approval policy %q", spec.Name, spec.Approval)
	}
	return tool, nil
}

// turnError is a failed turn: the reference's code, its message without
// the code (which the code field carries), and the error as the runtime
// wrote it.
func turnError(err error) *target.TurnError {
	msg := err.Error()
	var rerr *reference.Error
	if errors.As(err, &rerr) {
		msg = rerr.Message
	}
	return &target.TurnError{Code: string(reference.CodeOf(err)), Message: msg, SDKError: err.Error()}
}
