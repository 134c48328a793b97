// Package reference is the kit's reference implementation of human-in-the-loop
// tool approval: an agent runtime that the conformance suite certifies, and
// that other implementations are measured against.
//
// One turn (Agent.Generate or Agent.Stream) does, in order:
//
//  1. Pre-resolution. Approval responses in the incoming history are matched
//     to the requests this runtime issued (anywhere in the history). Orphan
//     responses are ignored; calls that already have a result are skipped;
//     duplicate responses count once and conflicting ones deny. Everything is
//     validated before anything runs: a missing toolkit (ToolkitRequired), an
//     approved tool not in the toolkit (ToolNotFound), a request whose
//     signature does not match the call (InvalidApproval), a call left with
//     neither result nor answer (MissingToolResults). Approved calls then run
//     (bounded by the concurrency option) and denied ones get an
//     execution-denied result; the results are appended as one tool message
//     before the model is called.
//  2. The step loop. The model is called with a prompt in which approval
//     parts are stripped (provider-executed responses excepted) and every
//     result sits right after its call. Calls whose tool needs approval (a
//     static or dynamic policy; a policy that fails counts as "needs
//     approval") get a signed approval request and end the turn with finish
//     reason tool-calls; the others run and the loop goes on, up to the step
//     limit. Calls of provider-executed tools are never run here.
//
// Stream mode emits the same work as canonical events, approval requests
// among them, in order. Errors are *Error values with a Code.
package reference

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// Call is a tool call handed to a tool or a policy.
type Call struct {
	ToolName   string
	ToolCallID string
	Input      json.RawMessage
}

// PolicyInput is what a dynamic approval policy decides on.
type PolicyInput struct {
	Call
	// Messages are the step's prompt messages, before the assistant message
	// that holds the call.
	Messages []model.Message
}

// PolicyFunc decides whether a call needs approval. An error counts as
// "needs approval" (fail closed).
type PolicyFunc func(ctx context.Context, in PolicyInput) (bool, error)

// ExecuteFunc runs a tool and returns its JSON output. An error becomes an
// error-text result for the model.
type ExecuteFunc func(ctx context.Context, call Call) (json.RawMessage, error)

// Approval is a tool's approval policy.
type Approval struct {
	kind    string
	dynamic PolicyFunc
	decide  DecideFunc
}

// Outcome is what a deciding policy decides for a call, as the AI SDK's
// toolApproval statuses do.
type Outcome string

// The outcomes of a deciding policy.
const (
	// RunsFreely: the call runs without approval.
	RunsFreely Outcome = "not-applicable"
	// AsksUser: the call waits for the user's answer.
	AsksUser Outcome = "user-approval"
	// AutoApproved: the policy approves the call on its own; it runs.
	AutoApproved Outcome = "approved"
	// AutoDenied: the policy denies the call on its own; it gets a denial
	// result with the policy's reason and never runs.
	AutoDenied Outcome = "denied"
)

// Decision is a deciding policy's outcome for a call.
type Decision struct {
	Outcome Outcome
	// Reason is an automatic denial's reason, given to the model.
	Reason string
}

// DecideFunc decides a call: run it, ask, or approve or deny it on its
// own. An error counts as "needs approval" (fail closed).
type DecideFunc func(ctx context.Context, in PolicyInput) (Decision, error)

// Deciding returns a dynamic policy that may also approve or deny a call
// on its own.
func Deciding(fn DecideFunc) Approval { return Approval{kind: "dynamic", decide: fn} }

// The static policies.
var (
	// Never runs the tool without asking.
	Never = Approval{kind: "never"}
	// Always asks before every call.
	Always = Approval{kind: "always"}
)

// Dynamic returns a policy that asks fn for every call.
func Dynamic(fn PolicyFunc) Approval { return Approval{kind: "dynamic", dynamic: fn} }

// String names the policy: never, always or dynamic.
func (a Approval) String() string {
	if a.kind == "" {
		return "never"
	}
	return a.kind
}

// Tool is a tool in the toolkit.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the input; calls whose input does not
	// conform get an error result and never run.
	InputSchema json.RawMessage
	Approval    Approval
	Execute     ExecuteFunc
}

// DenialPolicy says what happens to the other calls of a step when one is
// denied.
type DenialPolicy string

// The denial policies.
const (
	// Independent decides every call on its own answer.
	Independent DenialPolicy = "independent"
	// AbortRemaining gives the approved calls that follow a denied one in the
	// same step the result SkippedText instead of running them (seed 003).
	AbortRemaining DenialPolicy = "abort-remaining"
)

// SkippedText is the result of a call skipped under AbortRemaining.
const SkippedText = "Error: Tool execution was skipped due to previous tool denial."

// DefaultDenialReason is what the model reads for a denial given without a
// reason. It is not put in the result's reason field, which stays as the
// user left it; provider encoders use it as the result text.
const DefaultDenialReason = "Tool call execution denied."

// Turn is the input of one turn.
type Turn struct {
	Model llm.Model
	// Tools is the toolkit; empty means none was given.
	Tools []Tool
	// Messages is the conversation so far.
	Messages []model.Message
	// Concurrency bounds how many tools run at once; 0 means unbounded.
	Concurrency int
	// MaxSteps bounds the model calls of the turn; 0 means the agent's default.
	MaxSteps int
	// DenialPolicy overrides the agent's denial policy for this turn ("":
	// the agent's).
	DenialPolicy DenialPolicy
}

// Result is the outcome of a turn.
type Result struct {
	// Messages are the messages the turn added, to be appended to the
	// conversation: a tool message with pre-resolved results, then per step
	// the assistant message and a tool message with the results of the calls
	// that ran.
	Messages []model.Message
	// FinishReason is tool-calls when approvals are pending, otherwise the
	// last step's finish reason.
	FinishReason string
	// Steps is how many times the model was called.
	Steps int
	Usage llm.Usage
}

// Option configures an Agent.
type Option func(*Agent)

// WithSecret sets the key that signs approval requests. By default each
// Agent draws a random one.
func WithSecret(secret []byte) Option {
	return func(a *Agent) { a.secret = append([]byte(nil), secret...) }
}

// WithDenialPolicy sets what a denial does to the rest of its step.
func WithDenialPolicy(p DenialPolicy) Option { return func(a *Agent) { a.denial = p } }

// WithMaxSteps sets the default step limit of a turn (5 by default).
func WithMaxSteps(n int) Option { return func(a *Agent) { a.maxSteps = n } }

// WithIDs sets the generator of approval ids (uuids by default).
func WithIDs(next func() string) Option { return func(a *Agent) { a.newID = next } }

// WithLedgerSize bounds how many executed approvals the agent remembers to
// refuse replays (10,000 by default).
func WithLedgerSize(n int) Option { return func(a *Agent) { a.ledger = newLedger(n) } }

// WithOrphansRefused makes the agent refuse a message holding an approval
// response that matches no request it issued (InvalidApproval), instead of
// ignoring the stray response: both are allowed (PRE-04).
func WithOrphansRefused() Option { return func(a *Agent) { a.refuseOrphans = true } }

// WithLenientDecoding makes the agent ignore fields of a message part it
// does not know, instead of refusing them: allowed, as long as they never
// change the outcome (ERR-01).
func WithLenientDecoding() Option { return func(a *Agent) { a.lenient = true } }

// WithToolErrorsFailTheTurn makes a failing tool fail the turn with
// ToolExecution instead of giving the model an error result: allowed, when
// declared (toolErrors: turn-error), by ERR-02.
func WithToolErrorsFailTheTurn() Option { return func(a *Agent) { a.toolErrorsFail = true } }

// WithUntypedResults makes a denial an ordinary text result that carries
// the reason, as SDKs without typed results do: allowed, when declared
// (untypedResults).
func WithUntypedResults() Option { return func(a *Agent) { a.untyped = true } }

// WithoutDenialReasons makes every denial result reasonless, as an SDK
// whose approval API takes no reason gives it: allowed, when declared
// (noDenialReasons).
func WithoutDenialReasons() Option { return func(a *Agent) { a.noReasons = true } }

// Agent is the reference agent runtime. It is safe for concurrent use; the
// only state it keeps across turns is the ledger of executed approvals.
type Agent struct {
	secret   []byte
	denial   DenialPolicy
	maxSteps int
	newID    func() string
	ledger   *ledger
	// The variants the rules allow (WithOrphansRefused,
	// WithLenientDecoding, WithToolErrorsFailTheTurn, WithUntypedResults,
	// WithoutDenialReasons).
	refuseOrphans  bool
	lenient        bool
	toolErrorsFail bool
	untyped        bool
	noReasons      bool
}

// New returns an agent.
func New(opts ...Option) *Agent {
	a := &Agent{denial: Independent, maxSteps: 5, newID: uuid.NewString}
	for _, o := range opts {
		o(a)
	}
	if a.secret == nil {
		a.secret = make([]byte, 32)
		if _, err := rand.Read(a.secret); err != nil {
			panic(fmt.Sprintf("reference: no randomness for the signing key: %v", err)) // crypto/rand never fails on supported platforms
		}
	}
	if a.ledger == nil {
		a.ledger = newLedger(10000)
	}
	return a
}

// Fresh returns an agent configured as a (policy, step limit, ids,
// variants) with none of its state: an empty ledger of the same size and a
// signing key of its own. A server keeps one per conversation, so that no
// conversation sees another's approvals.
func (a *Agent) Fresh() *Agent {
	b := *a
	b.ledger = newLedger(a.ledger.max)
	b.secret = make([]byte, 32)
	if _, err := rand.Read(b.secret); err != nil {
		panic(fmt.Sprintf("reference: no randomness for the signing key: %v", err)) // crypto/rand never fails on supported platforms
	}
	return &b
}

// DenialPolicy returns the agent's denial policy.
func (a *Agent) DenialPolicy() DenialPolicy { return a.denial }

// Generate runs one turn and returns its result.
func (a *Agent) Generate(ctx context.Context, t Turn) (*Result, error) {
	r := &run{agent: a, turn: t, mode: "generate"}
	return r.do(ctx)
}

// Stream runs one turn in stream mode, delivering its events to yield in
// order. The model is called in stream mode. The returned Result holds the
// same messages the events describe. An error from yield stops the turn.
func (a *Agent) Stream(ctx context.Context, t Turn, yield func(model.Event) error) (*Result, error) {
	r := &run{agent: a, turn: t, mode: "stream", yield: yield}
	res, err := r.do(ctx)
	if err != nil && !r.yieldFailed {
		code, msg := "Other", err.Error()
		if e, ok := err.(*Error); ok {
			code = string(e.Code)
		}
		_ = yield(model.Event{Type: model.EventError, Code: code, Message: msg}) // the turn already failed; the consumer may be gone
	}
	return res, err
}
