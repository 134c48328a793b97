// Package target defines how the suite drives an implementation under test:
// the roles a target plays, the features it declares, and the messages of
// driver protocol v1, which the in-process reference and every HTTP target
// share.
//
// The agent role (server side) runs one turn: given tools, options and a
// conversation, it calls the model and returns the new messages, the stream
// events, the finish reason, or an error with a code. Tools and dynamic
// policies run in the harness: in-process through the Harness interface,
// over HTTP through the executeURL and policyURL the harness serves.
package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// Target is an implementation under test.
type Target interface {
	// Info describes the target and the features it declares.
	Info(ctx context.Context) (*Info, error)
	// Agent returns the agent role, or nil if the target does not play it.
	Agent() Agent
	// Client returns the client role, or nil if the target does not play it.
	Client() Client
	// Close releases what the target holds.
	Close() error
}

// Agent is the agent role: it runs turns.
type Agent interface {
	// Turn runs one turn. A conformance-relevant failure of the turn is
	// reported in TurnResponse.Error; an error return means the target could
	// not be driven at all (unreachable, crashed, answered garbage).
	Turn(ctx context.Context, req *TurnRequest) (*TurnResponse, error)
}

// Roles a target can play.
const (
	RoleAgent  = "agent"
	RoleClient = "client"
)

// Info is what a target says of itself (GET /v1/info).
type Info struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	SDK        string   `json:"sdk,omitempty"`
	SDKVersion string   `json:"sdkVersion,omitempty"`
	Roles      []string `json:"roles"`
	Features   Features `json:"features"`
}

// Features are the optional behaviours a target declares. A scenario that
// depends on a feature the target does not declare is not applicable.
type Features struct {
	// Modes are the turn modes supported: generate, stream.
	Modes []Mode `json:"modes,omitempty"`
	// DynamicPolicy: approval policies that decide per call.
	DynamicPolicy bool `json:"dynamicPolicy"`
	// Concurrency: the concurrency option bounds parallel tool runs.
	Concurrency bool `json:"concurrency"`
	// ReplayLedger: the application can bound how many executed approvals
	// a conversation's runtime remembers to refuse replays (the turn option
	// replayLedger).
	ReplayLedger bool `json:"replayLedger,omitempty"`
	// ProviderExecuted: approvals of provider-executed tools.
	ProviderExecuted bool `json:"providerExecuted"`
	// ToolkitErrors: ToolkitRequired and ToolNotFound errors.
	ToolkitErrors bool `json:"toolkitErrors"`
	// DenialPolicy is independent or abort-remaining: the policy a turn
	// gets when it names none.
	DenialPolicy string `json:"denialPolicy"`
	// DenialPolicies are the policies a turn may ask for in
	// options.denialPolicy, when the SDK lets each call choose (the
	// default policy need not be listed).
	DenialPolicies []string `json:"denialPolicies,omitempty"`
	// ToolErrors is result (a failing tool gives an error result) or
	// turn-error (the turn fails with ToolExecution).
	ToolErrors string `json:"toolErrors"`
	// ClientProtocols are the chat protocols the client role speaks:
	// ag-ui, ag-ui-legacy, ui-message-stream.
	ClientProtocols []string `json:"clientProtocols,omitempty"`
	// ClientTools: the client role runs client-side tools (Session.ToolOutput).
	ClientTools bool `json:"clientTools,omitempty"`
	// ClientDialects names, per client protocol, the dialect the client
	// speaks (chat.Dialects); a protocol not named is spoken in its default
	// dialect.
	ClientDialects map[string]string `json:"clientDialects,omitempty"`
	// ServerProtocols are the chat protocols the server role's chat
	// endpoint speaks (the role "server" in Info.Roles).
	ServerProtocols []string `json:"serverProtocols,omitempty"`
	// ServerDialects names, per server protocol, the dialect the chat
	// endpoint speaks; a protocol not named is spoken in its default.
	ServerDialects map[string]string `json:"serverDialects,omitempty"`
	// ClientStates are the tool-call states the client role can show, when
	// it has fewer than the eight of package chat (the Vercel AI SDK's chat
	// has no awaiting-input: a part is born input-streaming). Empty means
	// all. A state the client lacks is skipped where a scenario names the
	// states a call goes through.
	ClientStates []chat.ToolState `json:"clientStates,omitempty"`

	// ModelAPIs are the model APIs the adapter can point its SDK at:
	// openai-chat, openai-responses, anthropic-messages, and canonical (the
	// kit's lossless model API, for SDKs that accept an application's own
	// model). Empty means the three provider wire formats.
	ModelAPIs []string `json:"modelAPIs,omitempty"`
	// Steps is how many model calls a turn makes: "loop" (the default: the
	// SDK calls the model again after tools ran, until the model stops or a
	// call waits for approval) or "single" (a turn is one model call; the
	// application sends the next turn itself, which the harness then does).
	Steps string `json:"steps,omitempty"`
	// ResumeState: the SDK resumes from a saved run state rather than from
	// the history alone. Each turn answer carries an opaque state, which the
	// harness sends back with the next turn of the conversation.
	ResumeState bool `json:"resumeState,omitempty"`
	// UntypedResults: the SDK's tool results carry no output type (a denial
	// is an ordinary result with a fixed text); denials and errors are then
	// judged by what reaches the model, not by the labels of the answer.
	UntypedResults bool `json:"untypedResults,omitempty"`
	// NoDenialReasons: the SDK's approval API takes no reason with a denial.
	NoDenialReasons bool `json:"noDenialReasons,omitempty"`
	// BoundApprovals: an approval answer lives on its tool-call part (as in
	// TanStack AI's UI messages), so a free-standing response that matches
	// no call cannot be expressed.
	BoundApprovals bool `json:"boundApprovals,omitempty"`
	// AutoPolicies: a dynamic policy may approve or deny a call on its own
	// (the policy callback answers a decision), and the SDK runs an
	// automatically approved call and gives an automatically denied one a
	// denial result, as the AI SDK's toolApproval does.
	AutoPolicies bool `json:"autoPolicies,omitempty"`
	// HostedTools: tools the provider runs (a hosted MCP server) can be
	// given in tools[] with providerExecuted and serverLabel.
	HostedTools bool `json:"hostedTools,omitempty"`
	// SessionHistory: the SDK keeps the conversation in a session of its
	// own (ADK's sessions), so a turn brings only what is new. The
	// adapter answers NotExpressible to a turn whose earlier history is
	// not the one its session holds (a scenario that rewrites or writes
	// history tests the application's store, not the SDK); replays,
	// unknown ids and forged answers still reach the SDK.
	SessionHistory bool `json:"sessionHistory,omitempty"`
	// BatchedDecisions: the SDK takes every answer of a paused step
	// together, one per pending approval, in the order it asked (LangChain's
	// Command({resume: {decisions}})), so a request that answers part of a
	// step cannot be expressed: the @partial-batch scenarios are not
	// applicable (not failed).
	BatchedDecisions bool `json:"batchedDecisions,omitempty"`
	// EditedApprovals: an approving answer may carry editedInput, the input
	// the user approved instead of the model's (LangChain's edit decision,
	// Genkit's restart with replaceInput); the scenarios that edit an
	// approval need it.
	EditedApprovals bool `json:"editedApprovals,omitempty"`
	// Contract is how the SDK documents that answers reach it. Input
	// outside it is out-of-contract for the target: only the safety harms
	// (ran-against-answer, forged, crashed) are MUST there.
	Contract Contract `json:"contract,omitzero"`
}

// Contract is the delivery contract an SDK documents: what its own
// clients send, and what its own chat server does with it. Each field is a
// claim the adapter cites the SDK's docs for.
type Contract struct {
	// AnswersInLastMessage: a request's approval answers come in one tool
	// message, the last of the history (answers split over several
	// messages, or followed by another message, are out-of-contract).
	AnswersInLastMessage bool `json:"answersInLastMessage,omitempty"`
	// WholeBatches: the SDK's own client answers every pending approval of
	// a step in one request (a partial batch is out-of-contract).
	WholeBatches bool `json:"wholeBatches,omitempty"`
	// ServerSupersedesPending: the SDK's own chat server resolves a new user
	// message sent over a pending approval (it drops the superseded
	// request), so a client that sends one leaves no call the provider
	// refuses.
	ServerSupersedesPending bool `json:"serverSupersedesPending,omitempty"`
}

// Declares reports whether the contract holds the named field (its JSON
// name).
func (c Contract) Declares(name string) bool {
	switch name {
	case "answersInLastMessage":
		return c.AnswersInLastMessage
	case "wholeBatches":
		return c.WholeBatches
	case "serverSupersedesPending":
		return c.ServerSupersedesPending
	}
	return false
}

// The values of Features.Steps.
const (
	StepsLoop   = "loop"
	StepsSingle = "single"
)

// The model APIs of ModelEndpoint.API and Features.ModelAPIs.
const (
	APIOpenAIChat        = "openai-chat"
	APIOpenAIResponses   = "openai-responses"
	APIAnthropicMessages = "anthropic-messages"
	APICanonical         = "canonical"
)

// SupportsAPI reports whether the target can use the model API.
func (f Features) SupportsAPI(api string) bool {
	if len(f.ModelAPIs) == 0 {
		return api == APIOpenAIChat || api == APIOpenAIResponses || api == APIAnthropicMessages
	}
	return slices.Contains(f.ModelAPIs, api)
}

// ClientDialect returns the dialect the target's client speaks a protocol
// in ("" for the protocol's default).
func (f Features) ClientDialect(protocol string) string {
	return f.ClientDialects[protocol]
}

// Has reports whether the target declares the named feature. Names are the
// JSON field names ("dynamicPolicy"), "mode:stream", "denialPolicy:X" and
// "toolErrors:X".
func (f Features) Has(name string) bool {
	switch name {
	case "dynamicPolicy":
		return f.DynamicPolicy
	case "concurrency":
		return f.Concurrency
	case "replayLedger":
		return f.ReplayLedger
	case "providerExecuted":
		return f.ProviderExecuted
	case "toolkitErrors":
		return f.ToolkitErrors
	case "mode:generate":
		return slices.Contains(f.Modes, Generate)
	case "mode:stream":
		return slices.Contains(f.Modes, Stream)
	case "denialPolicy:independent":
		return f.DenialPolicy == "" || f.DenialPolicy == "independent" || slices.Contains(f.DenialPolicies, "independent")
	case "denialPolicy:abort-remaining":
		return f.DenialPolicy == "abort-remaining" || slices.Contains(f.DenialPolicies, "abort-remaining")
	case "toolErrors:result":
		return f.ToolErrors == "" || f.ToolErrors == "result"
	case "toolErrors:turn-error":
		return f.ToolErrors == "turn-error"
	case "clientTools":
		return f.ClientTools
	case "steps:loop":
		return f.Steps == "" || f.Steps == StepsLoop
	case "steps:single":
		return f.Steps == StepsSingle
	case "resumeState":
		return f.ResumeState
	case "typedResults":
		return !f.UntypedResults
	case "denialReasons":
		return !f.NoDenialReasons
	case "freeApprovals":
		return !f.BoundApprovals
	case "hostedTools":
		return f.HostedTools
	case "sessionHistory":
		return f.SessionHistory
	case "autoPolicies":
		return f.AutoPolicies
	case "editedApprovals":
		return f.EditedApprovals
	}
	if api, ok := strings.CutPrefix(name, "modelAPI:"); ok {
		return f.SupportsAPI(api)
	}
	if p, ok := strings.CutPrefix(name, "clientProtocol:"); ok {
		return slices.Contains(f.ClientProtocols, p)
	}
	if p, ok := strings.CutPrefix(name, "serverProtocol:"); ok {
		return slices.Contains(f.ServerProtocols, p)
	}
	return false
}

// ClientShows reports whether the client role can show the tool-call state.
func (f Features) ClientShows(s chat.ToolState) bool {
	return len(f.ClientStates) == 0 || slices.Contains(f.ClientStates, s)
}

// Mode is how a turn is run.
type Mode string

// The turn modes.
const (
	Generate Mode = "generate"
	Stream   Mode = "stream"
)

// Toolkit says whether tools are given to a turn.
type Toolkit string

// The toolkit settings.
const (
	ToolkitProvided Toolkit = "provided"
	ToolkitAbsent   Toolkit = "absent"
	ToolkitEmpty    Toolkit = "empty"
)

// Approval is a tool's approval policy in the driver protocol.
type Approval string

// The approval policies.
const (
	ApprovalAlways  Approval = "always"
	ApprovalNever   Approval = "never"
	ApprovalDynamic Approval = "dynamic"
)

// ModelEndpoint says where the target's model is.
type ModelEndpoint struct {
	// BaseURL is the simulator's base URL for this conversation.
	BaseURL string `json:"baseURL,omitempty"`
	// API is the wire format: openai-chat, openai-responses or
	// anthropic-messages.
	API string `json:"api"`
	// Local is the in-process model, for in-process targets.
	Local llm.Model `json:"-"`
}

// Tool is a tool given to a turn.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Approval    Approval        `json:"approval"`
	// ProviderExecuted marks a tool the provider runs (a hosted MCP
	// server): the SDK declares it to the provider and never runs it
	// itself; ServerLabel names its server. Only for targets that declare
	// hostedTools.
	ProviderExecuted bool   `json:"providerExecuted,omitempty"`
	ServerLabel      string `json:"serverLabel,omitempty"`
	// PolicyURL is where a dynamic policy is decided (HTTP targets).
	PolicyURL string `json:"policyURL,omitempty"`
	// ExecuteURL is where the tool runs (HTTP targets).
	ExecuteURL string `json:"executeURL,omitempty"`
}

// Options are a turn's options.
type Options struct {
	Concurrency int `json:"concurrency,omitempty"`
	MaxSteps    int `json:"maxSteps,omitempty"`
	// DenialPolicy asks for one of the target's declared denial policies
	// for this turn ("" or the default: the target's default).
	DenialPolicy string `json:"denialPolicy,omitempty"`
	// ReplayLedger bounds how many executed approvals the conversation's
	// runtime remembers to refuse replays (0: the runtime's default). Sent
	// only to targets that declare replayLedger; a conversation's first
	// turn sets it.
	ReplayLedger int `json:"replayLedger,omitempty"`
}

// TurnRequest is one turn to run (POST /v1/agent/turn).
type TurnRequest struct {
	// Conversation names the conversation the turn belongs to (one per
	// scenario). A target that keeps state between turns (a replay ledger,
	// run states) keys it by this id; a new id starts from nothing.
	Conversation string        `json:"conversation,omitempty"`
	Mode         Mode          `json:"mode"`
	Model        ModelEndpoint `json:"model"`
	Tools        []Tool        `json:"tools"`
	Toolkit      Toolkit       `json:"toolkit"`
	Options      Options       `json:"options"`
	// Messages is the conversation as canonical JSON. It is raw so that the
	// suite can send malformed input on purpose.
	Messages json.RawMessage `json:"messages"`
	// State is the opaque resume state the previous turn of the
	// conversation answered, for targets that declare resumeState.
	State json.RawMessage `json:"state,omitempty"`
	// Harness runs tools and policies for in-process targets.
	Harness Harness `json:"-"`
}

// TurnResponse is the outcome of a turn.
type TurnResponse struct {
	// Messages are the messages the turn added.
	Messages []model.Message `json:"messages"`
	// Events are the stream events, in stream mode.
	Events       []model.Event `json:"events,omitempty"`
	FinishReason string        `json:"finishReason,omitempty"`
	Error        *TurnError    `json:"error,omitempty"`
	// State is the opaque resume state to send with the next turn of the
	// conversation (targets that declare resumeState).
	State json.RawMessage `json:"state,omitempty"`
}

// UnmarshalJSON decodes a turn answer strictly: an unknown field is
// refused, and an error in the messages names the message's index and the
// field ("messages[2].content[0].toolName: missing field").
func (r *TurnResponse) UnmarshalJSON(data []byte) error {
	var w struct {
		Messages     json.RawMessage `json:"messages"`
		Events       []model.Event   `json:"events,omitempty"`
		FinishReason string          `json:"finishReason,omitempty"`
		Error        *TurnError      `json:"error,omitempty"`
		State        json.RawMessage `json:"state,omitempty"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	var msgs []model.Message
	if len(w.Messages) > 0 && string(w.Messages) != "null" {
		var err error
		if msgs, err = model.DecodeMessagesAt(w.Messages, "messages"); err != nil {
			return err
		}
	}
	*r = TurnResponse{Messages: msgs, Events: w.Events, FinishReason: w.FinishReason, Error: w.Error, State: w.State}
	return nil
}

// TurnError is a failed turn.
type TurnError struct {
	// Code is ToolkitRequired, ToolNotFound, InvalidApproval,
	// MissingToolResults, InvalidMessages, ToolExecution, Model or Other;
	// or NotExpressible: the adapter cannot put this input into its SDK's
	// own shape (a free-standing response for an SDK whose answers live on
	// their calls), which makes the scenario not applicable, never failed.
	Code    string `json:"code"`
	Message string `json:"message"`
	// SDKError is the SDK's own error (its class or tag and text).
	SDKError string `json:"sdkError,omitempty"`
}

// The turn error codes.
var ErrorCodes = []string{"ToolkitRequired", "ToolNotFound", "InvalidApproval", "MissingToolResults", "InvalidMessages", "ToolExecution", "Model", "Other", CodeNotExpressible}

// CodeNotExpressible is the turn error of an adapter that cannot express
// the turn's input in its SDK's shape.
const CodeNotExpressible = "NotExpressible"

// Validate checks a response's shape: a known error code, or messages and a
// finish reason.
func (r *TurnResponse) Validate() error {
	if r.Error != nil {
		if !slices.Contains(ErrorCodes, r.Error.Code) {
			return fmt.Errorf("error.code: unknown code %q (want one of %v)", r.Error.Code, ErrorCodes)
		}
		return nil
	}
	if r.FinishReason == "" {
		return fmt.Errorf("finishReason: missing in a successful turn")
	}
	return nil
}

// ExecuteRequest is a tool run the target asks of the harness.
type ExecuteRequest struct {
	ToolName   string          `json:"toolName,omitempty"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
}

// PolicyRequest is a dynamic policy decision the target asks of the harness.
type PolicyRequest struct {
	ToolName   string          `json:"toolName,omitempty"`
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Messages   []model.Message `json:"messages"`
}

// Harness runs tools and decides dynamic policies for a turn.
type Harness interface {
	// Execute runs a tool and returns its output; an error is a tool failure.
	Execute(ctx context.Context, req ExecuteRequest) (json.RawMessage, error)
	// Policy decides whether a call needs approval; an error is a policy
	// that failed to evaluate.
	Policy(ctx context.Context, req PolicyRequest) (bool, error)
}
