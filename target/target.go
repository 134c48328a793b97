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
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
	Modes []Mode `json:"modes"`
	// DynamicPolicy: approval policies that decide per call.
	DynamicPolicy bool `json:"dynamicPolicy"`
	// Concurrency: the concurrency option bounds parallel tool runs.
	Concurrency bool `json:"concurrency"`
	// ProviderExecuted: approvals of provider-executed tools.
	ProviderExecuted bool `json:"providerExecuted"`
	// ToolkitErrors: ToolkitRequired and ToolNotFound errors.
	ToolkitErrors bool `json:"toolkitErrors"`
	// DenialPolicy is independent or abort-remaining.
	DenialPolicy string `json:"denialPolicy"`
	// ToolErrors is result (a failing tool gives an error result) or
	// turn-error (the turn fails with ToolExecution).
	ToolErrors string `json:"toolErrors"`
	// ClientProtocols are the chat protocols the client role speaks:
	// ag-ui, ag-ui-legacy, ui-message-stream.
	ClientProtocols []string `json:"clientProtocols,omitempty"`
	// ClientTools: the client role runs client-side tools (Session.ToolOutput).
	ClientTools bool `json:"clientTools,omitempty"`
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
	case "providerExecuted":
		return f.ProviderExecuted
	case "toolkitErrors":
		return f.ToolkitErrors
	case "mode:generate":
		return slices.Contains(f.Modes, Generate)
	case "mode:stream":
		return slices.Contains(f.Modes, Stream)
	case "denialPolicy:independent":
		return f.DenialPolicy == "" || f.DenialPolicy == "independent"
	case "denialPolicy:abort-remaining":
		return f.DenialPolicy == "abort-remaining"
	case "toolErrors:result":
		return f.ToolErrors == "" || f.ToolErrors == "result"
	case "toolErrors:turn-error":
		return f.ToolErrors == "turn-error"
	case "clientTools":
		return f.ClientTools
	}
	if p, ok := strings.CutPrefix(name, "clientProtocol:"); ok {
		return slices.Contains(f.ClientProtocols, p)
	}
	return false
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
	// PolicyURL is where a dynamic policy is decided (HTTP targets).
	PolicyURL string `json:"policyURL,omitempty"`
	// ExecuteURL is where the tool runs (HTTP targets).
	ExecuteURL string `json:"executeURL,omitempty"`
}

// Options are a turn's options.
type Options struct {
	Concurrency int `json:"concurrency,omitempty"`
	MaxSteps    int `json:"maxSteps,omitempty"`
}

// TurnRequest is one turn to run (POST /v1/agent/turn).
type TurnRequest struct {
	Mode    Mode          `json:"mode"`
	Model   ModelEndpoint `json:"model"`
	Tools   []Tool        `json:"tools"`
	Toolkit Toolkit       `json:"toolkit"`
	Options Options       `json:"options"`
	// Messages is the conversation as canonical JSON. It is raw so that the
	// suite can send malformed input on purpose.
	Messages json.RawMessage `json:"messages"`
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
}

// TurnError is a failed turn.
type TurnError struct {
	// Code is ToolkitRequired, ToolNotFound, InvalidApproval,
	// MissingToolResults, InvalidMessages, ToolExecution, Model or Other.
	Code    string `json:"code"`
	Message string `json:"message"`
	// SDKError is the SDK's own error (its class or tag and text).
	SDKError string `json:"sdkError,omitempty"`
}

// The turn error codes.
var ErrorCodes = []string{"ToolkitRequired", "ToolNotFound", "InvalidApproval", "MissingToolResults", "InvalidMessages", "ToolExecution", "Model", "Other"}

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
