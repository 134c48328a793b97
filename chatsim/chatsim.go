// Package chatsim is the harness's scripted chat server: it plays the server
// side to a chat client under test, in the client's wire protocol, turn by
// turn, and journals every request the client makes.
//
// A turn may hold its stream open before the last event until the test
// releases it, so a test can act while a stream is running: seed 002's race
// (the second approval given while the continuation stream is still open)
// is reproduced deterministically, with channels and no sleeps.
//
// Like net/http/httptest, a Server is a real loopback HTTP server with a URL
// and Close; many conversations share it, each under its own path.
package chatsim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/limits"
)

// MaxRequestBody bounds a request body a Conversation reads; a Server
// applies its own limit (Limits.RequestBytes) first.
const MaxRequestBody = limits.DefaultRequestBytes

// Turn is the answer to one request.
type Turn struct {
	Events []chat.Event
	// Hold keeps the stream open before its last event until Release.
	Hold bool
	// HoldOpen writes every event, then keeps the stream open, unended,
	// until Release: the run has finished (with an AG-UI run's interrupts)
	// but the response has not ended.
	HoldOpen bool
	// Optional turns answer a request a valid client may or may not make;
	// they are not reported when unused, and are dropped when a required
	// turn is appended after them.
	Optional bool
}

// Answer is an approval answer a request carries.
type Answer struct {
	ApprovalID string `json:"approvalId"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Approved   bool   `json:"approved"`
	Reason     string `json:"reason,omitempty"`
	// Via says how: "parts" (the message parts) or "resume" (AG-UI).
	Via string `json:"via"`
}

// Request is the journal record of one request.
type Request struct {
	// N is the 1-based number of the request.
	N int `json:"n"`
	// Turn is the 0-based script turn that answered it, or -1.
	Turn int `json:"turn"`
	// Body is the raw request body.
	Body json.RawMessage `json:"body"`
	// Decoded is the request as the protocol reads it (nil if it did not).
	Decoded *chat.Request `json:"-"`
	// Error is why the request could not be decoded or answered.
	Error string `json:"error,omitempty"`
	// Answers are the approval answers the request carries.
	Answers []Answer `json:"answers,omitempty"`
	// Outputs are the tool calls whose outputs the request carries.
	Outputs []string `json:"outputs,omitempty"`
	// Dangling are tool calls with neither answer nor output that a later
	// user message leaves behind (check CHAIN-05).
	Dangling []string `json:"dangling,omitempty"`
	// Duplicates are tool call ids that appear in more than one part
	// (check CHAIN-06).
	Duplicates []string `json:"duplicates,omitempty"`
	// Streamed are the events the server answered with: the script's turn
	// as the server's Behaviour completes it.
	Streamed []chat.Event `json:"streamed,omitempty"`
}

// Conversation is one scripted conversation. It is safe for concurrent use.
type Conversation struct {
	codec chat.Codec

	mu       sync.Mutex
	turns    []Turn
	gates    []chan struct{}
	next     int
	requests []Request
	holding  int // the turn whose stream is held open, or -1
	problems []string
	changed  chan struct{}
	// behaviour is what the server does beyond the script.
	behaviour Behaviour
	// interrupts are the AG-UI interrupts the server issued, by interrupt
	// id: a resume entry answers the one it names, and no other.
	interrupts map[string]issued
}

// issued is an approval request the server streamed as an interrupt.
type issued struct{ toolCallID, approvalID string }

// NewConversation returns a conversation speaking the codec's protocol, as
// a conforming server of that protocol would (Conforming).
func NewConversation(codec chat.Codec) *Conversation {
	return &Conversation{codec: codec, holding: -1, changed: make(chan struct{}), behaviour: Conforming(codec.Name()), interrupts: map[string]issued{}}
}

// Protocol returns the conversation's protocol name.
func (c *Conversation) Protocol() string { return c.codec.Name() }

// Append adds a turn to the script and returns its index.
func (c *Conversation) Append(t Turn) (int, error) {
	if len(t.Events) == 0 {
		return 0, fmt.Errorf("chatsim: a turn needs at least one event")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.Optional {
		for len(c.turns) > c.next && c.turns[len(c.turns)-1].Optional {
			c.turns = c.turns[:len(c.turns)-1]
			c.gates = c.gates[:len(c.gates)-1]
		}
	}
	c.turns = append(c.turns, t)
	c.gates = append(c.gates, make(chan struct{}))
	return len(c.turns) - 1, nil
}

// Release lets a held turn's stream end. Releasing a turn twice is an error.
func (c *Conversation) Release(turn int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if turn < 0 || turn >= len(c.gates) {
		return fmt.Errorf("chatsim: no turn %d to release", turn)
	}
	select {
	case <-c.gates[turn]:
		return fmt.Errorf("chatsim: turn %d was already released", turn)
	default:
		close(c.gates[turn])
	}
	if c.holding == turn {
		// Released now, not when the handler next runs: a test that waits
		// for the next held stream must not see this one.
		c.holding = -1
		c.notifyLocked()
	}
	return nil
}

// Holding returns the turn whose stream is held open right now.
func (c *Conversation) Holding() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.holding, c.holding >= 0
}

// WaitHolding blocks until a stream is held open, or ctx ends.
func (c *Conversation) WaitHolding(ctx context.Context) (int, error) {
	for {
		c.mu.Lock()
		h, ch := c.holding, c.changed
		c.mu.Unlock()
		if h >= 0 {
			return h, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return -1, ctx.Err()
		}
	}
}

// Requests returns a copy of the journal.
func (c *Conversation) Requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.requests...)
}

// Problems returns what fails the scenario: requests past the end of the
// script, requests that could not be decoded, and turns left unconsumed.
func (c *Conversation) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]string(nil), c.problems...)
	left := 0
	for _, t := range c.turns[c.next:] {
		if !t.Optional {
			left++
		}
	}
	if left > 0 {
		out = append(out, fmt.Sprintf("%d scripted chat response(s) left unused (the client made %d request(s))", left, len(c.requests)))
	}
	return out
}

func (c *Conversation) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// ServeHTTP answers one request of the client with the next turn.
func (c *Conversation) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "chatsim: only POST is served")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	c.mu.Lock()
	rec := Request{N: len(c.requests) + 1, Turn: -1, Body: append(json.RawMessage(nil), body...)}
	status := http.StatusBadRequest
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		rec.Body = nil
		rec.Error = (&limits.TooLarge{What: "the request body", Limit: tooBig.Limit, Flag: "max-request-bytes"}).Error()
		status = http.StatusRequestEntityTooLarge
	} else if err != nil {
		rec.Error = "reading the body: " + err.Error()
	} else if dec, derr := c.codec.DecodeRequest(body); derr != nil {
		rec.Error = fmt.Sprintf("the %s request does not decode: %v", c.codec.Name(), derr)
	} else {
		rec.Decoded = dec
		analyze(&rec, dec, c.codec.Name(), c.interrupts)
	}
	if rec.Error != "" {
		c.problems = append(c.problems, fmt.Sprintf("request %d: %s", rec.N, rec.Error))
		c.requests = append(c.requests, rec)
		c.notifyLocked()
		c.mu.Unlock()
		writeError(w, status, rec.Error)
		return
	}
	if c.next >= len(c.turns) {
		c.problems = append(c.problems, fmt.Sprintf("request %d is past the end of the script (%d response(s) scripted)", rec.N, len(c.turns)))
		c.requests = append(c.requests, rec)
		c.notifyLocked()
		c.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("chatsim: request %d is past the end of the script", rec.N))
		return
	}
	turnIndex := c.next
	c.next++
	rec.Turn = turnIndex
	turn, gate := c.turns[turnIndex], c.gates[turnIndex]
	events := c.behaviour.apply(&rec, turn.Events)
	rec.Streamed = events
	for _, ev := range events {
		if ev.Type == chat.EventApprovalRequested && ev.Approval != nil && ev.Approval.InterruptID != "" {
			c.interrupts[ev.Approval.InterruptID] = issued{toolCallID: ev.ToolCallID, approvalID: ev.Approval.ID}
		}
	}
	c.requests = append(c.requests, rec)
	c.notifyLocked()
	c.mu.Unlock()

	for k, v := range c.codec.ResponseHeaders() {
		w.Header().Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	ew := c.codec.NewWriter(w, flush, rec.Decoded)
	if turn.HoldOpen {
		for _, ev := range events {
			if ew.Write(ev) != nil {
				return
			}
		}
		c.hold(r.Context(), turnIndex, gate)
		_ = ew.Close() // the client may have gone; nothing to do about it
		return
	}
	if turn.Hold {
		for _, ev := range events[:len(events)-1] {
			if ew.Write(ev) != nil {
				return
			}
		}
		c.hold(r.Context(), turnIndex, gate)
		events = events[len(events)-1:]
	}
	for _, ev := range events {
		if ew.Write(ev) != nil {
			return
		}
	}
	_ = ew.Close() // the client may have gone; nothing to do about it
}

// hold holds a turn's stream until it is released or the client goes.
func (c *Conversation) hold(ctx context.Context, turn int, gate chan struct{}) {
	c.setHolding(turn)
	select {
	case <-gate:
	case <-ctx.Done():
	}
	c.clearHolding(turn)
}

func (c *Conversation) setHolding(turn int) {
	c.mu.Lock()
	c.holding = turn
	c.notifyLocked()
	c.mu.Unlock()
}

// clearHolding ends the hold of a turn, if it is still the one held.
func (c *Conversation) clearHolding(turn int) {
	c.mu.Lock()
	if c.holding == turn {
		c.holding = -1
		c.notifyLocked()
	}
	c.mu.Unlock()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": msg}) // a string map always marshals
	_, _ = w.Write(b)
}

// analyze records what a request carries: answers, outputs, dangling calls
// and duplicates. An answer counts only in the form the protocol defines,
// as a real server of it reads it: in AG-UI's interrupt form a resume
// entry naming an interrupt the server issued (TanStack AI 0.58 drops the
// answers on inbound parts); in the legacy AG-UI form and the UI message
// stream the approval on the tool-call part (neither has resume entries).
// A resume entry naming no issued interrupt is recorded under the id it
// names and matches no call.
func analyze(rec *Request, req *chat.Request, protocol string, interrupts map[string]issued) {
	viaResume := protocol == chat.ProtocolAGUI
	seen := map[string]int{}
	resumedCall := map[string]chat.Resume{}
	if viaResume {
		for _, r := range req.Resume {
			if is, ok := interrupts[r.InterruptID]; ok {
				resumedCall[is.toolCallID] = r
			}
		}
	}
	lastUser := -1
	for i, m := range req.Messages {
		if m.Role == chat.RoleUser {
			lastUser = i
		}
	}
	for i, m := range req.Messages {
		for _, p := range m.Parts {
			if p.Type != chat.PartToolCall {
				continue
			}
			seen[p.ToolCallID]++
			if seen[p.ToolCallID] == 2 {
				rec.Duplicates = append(rec.Duplicates, p.ToolCallID)
			}
			answered := false
			if a := p.Approval; a != nil && !viaResume && a.Approved != nil {
				rec.Answers = append(rec.Answers, Answer{ApprovalID: a.ID, ToolCallID: p.ToolCallID, Approved: *a.Approved, Reason: a.Reason, Via: "parts"})
				answered = true
			}
			if r, ok := resumedCall[p.ToolCallID]; ok {
				approval := ""
				if p.Approval != nil {
					approval = p.Approval.ID
				}
				rec.Answers = append(rec.Answers, Answer{ApprovalID: approval, ToolCallID: p.ToolCallID, Approved: r.Approved, Reason: r.Reason, Via: "resume"})
				delete(resumedCall, p.ToolCallID)
				answered = true
			}
			if len(p.Output) > 0 || p.State == chat.OutputAvailable {
				rec.Outputs = append(rec.Outputs, p.ToolCallID)
				answered = true
			}
			if p.State.Terminal() || p.ProviderExecuted {
				answered = true
			}
			if !answered && m.Role == chat.RoleAssistant && lastUser > i {
				rec.Dangling = append(rec.Dangling, p.ToolCallID)
			}
		}
	}
	if !viaResume {
		return
	}
	for _, r := range req.Resume {
		is, ok := interrupts[r.InterruptID]
		if ok {
			if _, left := resumedCall[is.toolCallID]; !left {
				continue // matched a part above
			}
			// An issued interrupt whose call the request's messages lack:
			// the server still knows the call it interrupted.
			rec.Answers = append(rec.Answers, Answer{ApprovalID: is.approvalID, ToolCallID: is.toolCallID, Approved: r.Approved, Reason: r.Reason, Via: "resume"})
			continue
		}
		rec.Answers = append(rec.Answers, Answer{ApprovalID: r.InterruptID, Approved: r.Approved, Reason: r.Reason, Via: "resume"})
	}
}
