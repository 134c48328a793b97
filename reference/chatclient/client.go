// Package chatclient is the kit's reference chat client: the UI side of tool
// approval, as TanStack AI's ChatClient and the Vercel AI SDK's useChat play
// it.
//
// The client keeps UI messages whose tool-call parts move through
// awaiting-input, input-streaming, input-complete, approval-requested,
// approval-responded and a terminal state, never backwards. The user answers
// approvals with AddToolApprovalResponse (and client-side tools with
// AddToolOutput); once every tool call of the last assistant message is
// complete, the client sends exactly one continuation request. An answer
// given while a stream is still running is queued until the stream ends,
// and a continuation check skipped because another continuation was under
// way is re-run when it finishes (seed 002's continuationPending and
// continuationSkipped), so no answer is swallowed. A new user message while
// an approval is pending denies it first, so no call is left dangling.
//
// The client talks to a chat server through a Transport; HTTPTransport
// speaks any chat.Codec (AG-UI, the UI message stream) over HTTP and passes
// every event through untouched (seed 004).
package chatclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/chat"
)

// Transport carries a request to a chat server and its response stream back.
type Transport interface {
	// Stream sends the request and delivers the response's events to yield,
	// in order, until the stream ends.
	Stream(ctx context.Context, req *chat.Request, yield func(chat.Event) error) error
}

// PendingPolicy says what a new user message does to pending approvals.
type PendingPolicy string

// The pending policies.
const (
	// DenyPending denies every pending approval, with PendingDenialReason,
	// before sending the message, so no call is left without an answer.
	DenyPending PendingPolicy = "deny"
	// RefusePending refuses to send while an approval is pending.
	RefusePending PendingPolicy = "refuse"
)

// PendingDenialReason is the reason of an approval denied by a new message.
const PendingDenialReason = "The user sent a new message instead of answering."

// Errors of the client's actions.
var (
	// ErrBusy: a response is still streaming.
	ErrBusy = errors.New("chat client: a response is still streaming; wait for it to end")
	// ErrPendingApproval: a send was refused because an approval is pending.
	ErrPendingApproval = errors.New("chat client: an approval is pending; answer it before sending a new message")
	// ErrUnknownApproval: no tool call waits for this approval.
	ErrUnknownApproval = errors.New("chat client: no tool call is waiting for this approval")
	// ErrNotAwaitingOutput: the tool call does not wait for a client output.
	ErrNotAwaitingOutput = errors.New("chat client: the tool call does not wait for an output from the client")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("chat client: closed")
)

// Option configures a Client.
type Option func(*Client)

// WithPendingPolicy sets what a new message does to pending approvals.
func WithPendingPolicy(p PendingPolicy) Option { return func(c *Client) { c.pending = p } }

// WithThreadID sets the thread id sent with every request.
func WithThreadID(id string) Option { return func(c *Client) { c.threadID = id } }

// WithoutAutoContinue makes a client that never sends a continuation by
// itself: it shows approvals and takes answers, and leaves continuing to
// its application (as a chat hook without an automatic-send rule does).
func WithoutAutoContinue() Option { return func(c *Client) { c.manual = true } }

// State is a snapshot of the client.
type State struct {
	// Busy is true while a request or a continuation check is under way.
	Busy bool `json:"busy"`
	// Loading is true while a response is streaming.
	Loading  bool           `json:"loading"`
	Messages []chat.Message `json:"messages"`
	// Requests counts the requests the client has sent.
	Requests int `json:"requests"`
	// Error is the last stream's error, if any.
	Error string `json:"error,omitempty"`
}

// Client is the reference chat client. It is safe for concurrent use.
type Client struct {
	transport Transport
	pending   PendingPolicy
	threadID  string
	manual    bool // WithoutAutoContinue

	ctx    context.Context
	cancel context.CancelFunc

	mu                  sync.Mutex
	messages            []chat.Message
	current             int // index of the assistant message the stream writes to, or -1
	loading             bool
	continuationPending bool
	continuationSkipped bool
	postStream          []func()
	dirty               bool // an answer or output since the last request
	sentResume          map[string]bool
	requests            int
	lastErr             string
	busy                int // running streams and continuation checks
	changed             chan struct{}
	closed              bool
}

// New returns a client talking through transport.
func New(transport Transport, opts ...Option) *Client {
	c := &Client{transport: transport, pending: DenyPending, threadID: "thread-" + uuid.NewString(),
		current: -1, sentResume: map[string]bool{}, changed: make(chan struct{})}
	for _, o := range opts {
		o(c)
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// Close stops the client's streams.
func (c *Client) Close() {
	c.mu.Lock()
	c.closed = true
	c.notifyLocked()
	c.mu.Unlock()
	c.cancel()
}

// notifyLocked wakes every waiter; c.mu is held.
func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// State returns a snapshot of the client.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stateLocked()
}

func (c *Client) stateLocked() State {
	return State{Busy: c.busy > 0, Loading: c.loading, Messages: chat.Clone(c.messages), Requests: c.requests, Error: c.lastErr}
}

// WaitFor blocks until cond holds for the client's state, or ctx ends.
func (c *Client) WaitFor(ctx context.Context, cond func(State) bool) (State, error) {
	for {
		c.mu.Lock()
		st := c.stateLocked()
		ch := c.changed
		closed := c.closed
		c.mu.Unlock()
		if cond(st) {
			return st, nil
		}
		if closed {
			return st, ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return st, fmt.Errorf("chat client: waiting: %w", ctx.Err())
		}
	}
}

// WaitIdle blocks until no request or continuation is under way.
func (c *Client) WaitIdle(ctx context.Context) (State, error) {
	return c.WaitFor(ctx, func(s State) bool { return !s.Busy })
}

// SendMessage adds a user message and sends it. It returns once the request
// is under way; the response streams in the background.
func (c *Client) SendMessage(text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if c.loading || c.continuationPending {
		return ErrBusy
	}
	if pending := c.pendingApprovalsLocked(); len(pending) > 0 {
		if c.pending == RefusePending {
			return ErrPendingApproval
		}
		no := false
		for _, p := range pending {
			p.Approval.Approved = &no
			p.Approval.Reason = PendingDenialReason
			c.setStateLocked(p, chat.ApprovalResponded)
		}
	}
	c.messages = append(c.messages, chat.Message{ID: "msg-" + uuid.NewString(), Role: chat.RoleUser, Parts: []chat.Part{{Type: chat.PartText, Text: text}}})
	c.busy++
	req := c.beginStreamLocked()
	go func() {
		defer c.done()
		c.runStream(req)
	}()
	return nil
}

// AddToolApprovalResponse answers an approval. The continuation request goes
// out once every tool call of the last assistant message is complete; if a
// response is still streaming, the check waits until it ends.
func (c *Client) AddToolApprovalResponse(approvalID string, approved bool, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	part := c.findApprovalLocked(approvalID)
	if part == nil {
		return fmt.Errorf("%w: %q", ErrUnknownApproval, approvalID)
	}
	part.Approval.Approved = &approved
	part.Approval.Reason = reason
	c.setStateLocked(part, chat.ApprovalResponded)
	c.dirty = true
	c.afterAnswerLocked()
	return nil
}

// AddToolOutput gives a client-side tool call its output.
func (c *Client) AddToolOutput(toolCallID string, output json.RawMessage) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	part := c.findCallLocked(toolCallID)
	if part == nil || part.Approval != nil || part.State.Terminal() {
		return fmt.Errorf("%w: %q", ErrNotAwaitingOutput, toolCallID)
	}
	if !json.Valid(output) {
		return fmt.Errorf("chat client: the output for %q is not valid JSON", toolCallID)
	}
	part.Output = append(json.RawMessage(nil), output...)
	c.setStateLocked(part, chat.OutputAvailable)
	c.dirty = true
	c.afterAnswerLocked()
	return nil
}

// afterAnswerLocked runs the continuation check now, or after the stream.
func (c *Client) afterAnswerLocked() {
	c.notifyLocked()
	if c.loading {
		c.busy++ // the queued check keeps the client busy until it has run
		c.postStream = append(c.postStream, func() {
			defer c.done()
			c.checkForContinuation()
		})
		return
	}
	c.busy++
	go func() {
		defer c.done()
		c.checkForContinuation()
	}()
}

func (c *Client) done() {
	c.mu.Lock()
	c.busy--
	c.notifyLocked()
	c.mu.Unlock()
}

// checkForContinuation sends the continuation request when every tool call
// of the last assistant message is complete. A check that finds another
// continuation under way marks itself skipped; the running one re-checks
// when it ends.
func (c *Client) checkForContinuation() {
	if c.manual {
		return
	}
	c.mu.Lock()
	if c.continuationPending || c.loading {
		c.continuationSkipped = true
		c.mu.Unlock()
		return
	}
	if !c.shouldAutoSendLocked() {
		c.mu.Unlock()
		return
	}
	c.continuationPending = true
	c.continuationSkipped = false
	req := c.beginStreamLocked()
	c.mu.Unlock()

	c.runStream(req)

	c.mu.Lock()
	c.continuationPending = false
	skipped := c.continuationSkipped
	c.continuationSkipped = false
	c.notifyLocked()
	c.mu.Unlock()
	if skipped {
		c.checkForContinuation()
	}
}

// shouldAutoSendLocked: something was answered since the last request, and
// every tool call of the last assistant message is complete.
func (c *Client) shouldAutoSendLocked() bool {
	if !c.dirty {
		return false
	}
	last := c.lastAssistantLocked()
	if last == nil {
		return false
	}
	calls := 0
	for i := range last.Parts {
		p := &last.Parts[i]
		if p.Type != chat.PartToolCall {
			continue
		}
		calls++
		if !c.complete(p) {
			return false
		}
	}
	return calls > 0
}

// complete reports whether a tool call needs nothing more from the user.
func (c *Client) complete(p *chat.Part) bool {
	return p.ProviderExecuted || p.State.Terminal() || p.State == chat.ApprovalResponded
}

func (c *Client) lastAssistantLocked() *chat.Message {
	for i := len(c.messages) - 1; i >= 0; i-- {
		if c.messages[i].Role == chat.RoleAssistant {
			return &c.messages[i]
		}
		if c.messages[i].Role == chat.RoleUser {
			return nil
		}
	}
	return nil
}

func (c *Client) pendingApprovalsLocked() []*chat.Part {
	var out []*chat.Part
	for i := range c.messages {
		for j := range c.messages[i].Parts {
			p := &c.messages[i].Parts[j]
			if p.Type == chat.PartToolCall && p.State == chat.ApprovalRequested && p.Approval != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

func (c *Client) findApprovalLocked(id string) *chat.Part {
	for _, p := range c.pendingApprovalsLocked() {
		if p.Approval.ID == id {
			return p
		}
	}
	return nil
}

func (c *Client) findCallLocked(id string) *chat.Part {
	for i := range c.messages {
		for j := range c.messages[i].Parts {
			p := &c.messages[i].Parts[j]
			if p.Type == chat.PartToolCall && p.ToolCallID == id {
				return p
			}
		}
	}
	return nil
}

// beginStreamLocked marks a response as loading and builds its request;
// c.mu is held, so no other action can slip in between.
func (c *Client) beginStreamLocked() *chat.Request {
	c.loading = true
	c.current = -1
	c.dirty = false
	c.requests++
	req := c.requestLocked()
	c.notifyLocked()
	return req
}

// runStream sends the request and applies the response stream. When the
// stream ends, the actions queued while it ran are run.
func (c *Client) runStream(req *chat.Request) {
	err := c.transport.Stream(c.ctx, req, func(ev chat.Event) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.applyLocked(ev)
		c.notifyLocked()
		return nil
	})

	c.mu.Lock()
	c.loading = false
	if err != nil {
		c.lastErr = err.Error()
	}
	actions := c.postStream
	c.postStream = nil
	c.notifyLocked()
	c.mu.Unlock()
	for _, a := range actions {
		a()
	}
}

// requestLocked builds the request: the whole conversation, and resume
// entries for answered interrupts not sent yet.
func (c *Client) requestLocked() *chat.Request {
	req := &chat.Request{ThreadID: c.threadID, RunID: "run-" + uuid.NewString(), Messages: chat.Clone(c.messages)}
	for i := range c.messages {
		for _, p := range c.messages[i].Parts {
			a := p.Approval
			if a == nil || a.InterruptID == "" || a.Approved == nil || c.sentResume[a.InterruptID] {
				continue
			}
			c.sentResume[a.InterruptID] = true
			req.Resume = append(req.Resume, chat.Resume{InterruptID: a.InterruptID, Approved: *a.Approved, Reason: a.Reason})
		}
	}
	return req
}
