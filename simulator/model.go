package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/wire"
)

// Verdicts of a journaled call.
const (
	VerdictOK                = "ok"
	VerdictViolation         = "violation"
	VerdictExpectationFailed = "expectation-failed"
	VerdictExhausted         = "exhausted"
	VerdictScriptedError     = "scripted-error"
	VerdictCanceled          = "canceled"
	// VerdictRefused is a request the provider would refuse before reading
	// its prompt (it does not decode, or names what the provider does not
	// hold), answered with the provider's error.
	VerdictRefused = "refused"
)

// Error types the simulator answers with when the script, not the
// provider, refuses a call.
const (
	ErrTypeExhausted   = "simulator_script_exhausted"
	ErrTypeExpectation = "simulator_expectation_failed"
	ErrTypeLimit       = "simulator_limit_reached"
)

// Entry is the journal record of one call.
type Entry struct {
	// Call is the 1-based number of the call.
	Call int `json:"call"`
	// Turn is the 0-based script turn it consumed, or -1.
	Turn int `json:"turn"`
	// Mode is generate or stream.
	Mode string `json:"mode"`
	// Prompt is the canonical prompt received.
	Prompt []model.Message `json:"prompt"`
	// Wire is the provider-shaped request body, when the call came over HTTP.
	Wire json.RawMessage `json:"wire,omitempty"`
	// Lossy says the prompt came over a provider wire, which carries tool
	// outputs as text without their types (the canonical API does not).
	Lossy bool `json:"lossy,omitempty"`
	// Tools are the names of the tools offered.
	Tools []string `json:"tools"`
	// Verdict is ok, violation, expectation-failed, exhausted,
	// scripted-error or canceled.
	Verdict string `json:"verdict"`
	// Reply is the reply given, when the call succeeded.
	Reply *Reply `json:"reply,omitempty"`
	// Status and ErrorBody are the HTTP error answered, if any.
	Status    int    `json:"status"`
	ErrorBody string `json:"errorBody,omitempty"`
	// Violations are the provider rules the prompt broke.
	Violations []wire.Violation `json:"violations,omitempty"`
	// Failures are the turn's expectations the prompt did not meet.
	Failures []Problem `json:"failures,omitempty"`
	// Blocked are the turn's expectations that could not be evaluated,
	// because what they read is missing (the type of a result the prompt
	// does not hold). They fail nothing: the missing result is charged to
	// its own check, among the failures.
	Blocked []Problem `json:"blocked,omitempty"`
}

// Problem is something that fails the scenario: a broken provider rule, an
// unmet expectation, a call past the end of the script, or a turn left
// unconsumed.
type Problem struct {
	// Check is the check id to blame, or "" for a script problem.
	Check string `json:"check,omitempty"`
	// Call is the call number the problem arose in, or 0.
	Call int `json:"call,omitempty"`
	// ToolCallID is the call whose expected result the prompt lacks, for
	// that problem only: the expectation presupposes the call is in the
	// conversation, which the caller may know better.
	ToolCallID string `json:"toolCallId,omitempty"`
	Detail     string `json:"detail"`
}

func (p Problem) String() string {
	s := p.Detail
	if p.Call > 0 {
		s = fmt.Sprintf("model call %d: %s", p.Call, s)
	}
	if p.Check != "" {
		s = p.Check + ": " + s
	}
	return s
}

// Option configures a Model.
type Option func(*Model)

// WithObserver calls fn with the call number each time a call arrives,
// before the reply, so a harness can order model calls against other
// events. fn must not call back into the Model.
func WithObserver(fn func(call int)) Option { return func(m *Model) { m.observe = fn } }

// RejectUnmet makes a prompt that does not meet its turn's expectations
// fail with a 400 instead of getting the scripted reply, so that an agent
// under development sees it at once (conformance sim). By default the
// failure is recorded as a problem and the reply is sent: a real provider
// would answer, and the rest of the scenario is still observed.
func RejectUnmet() Option { return func(m *Model) { m.rejectUnmet = true } }

// PastEnd makes a call past the end of the script get this reply (as a
// real provider would answer something) instead of an error; the call is
// still journaled as exhausted and reported as a problem. A harness uses it
// so that a target calling the model more than scripted is judged by the
// scenario's assertions, not by the error an unscripted call would cause.
func PastEnd(r Reply) Option { return func(m *Model) { m.pastEnd = &r } }

// WithLimits bounds what a conversation may cost: at most calls model
// calls are answered, and the journal keeps at most journalBytes of
// request bodies (Call.Wire). A call past either bound is refused (HTTP
// 400 or 413, type simulator_limit_reached) and not journaled; the first
// refusal is a problem. Zero leaves a bound off.
func WithLimits(calls int, journalBytes int64) Option {
	return func(m *Model) { m.maxCalls, m.maxJournal = calls, journalBytes }
}

// WithRequestIDs sets the prefix of the request ids used in provider error
// envelopes (default "req_sim_").
func WithRequestIDs(prefix string) Option { return func(m *Model) { m.reqPrefix = prefix } }

// Model is the in-process simulated model. It is safe for concurrent use.
type Model struct {
	mu        sync.Mutex
	profile   wire.Profile
	turns     []Turn
	next      int
	calls     int
	journal   []Entry
	problems  []Problem
	observe   func(int)
	reqPrefix string
	// rejectUnmet answers unmet expectations with a 400 (RejectUnmet).
	rejectUnmet bool
	// pastEnd answers calls past the end of the script (PastEnd).
	pastEnd *Reply

	maxCalls    int
	maxJournal  int64
	journalSize int64
	refused     int
}

var _ llm.Model = (*Model)(nil)

// New returns a simulated model that plays script. It returns an error if
// the script is malformed.
func New(script Script, opts ...Option) (*Model, error) {
	if err := script.Validate(); err != nil {
		return nil, fmt.Errorf("simulator script: %w", err)
	}
	profile, _ := wire.ParseProfile(string(script.Provider)) // validated above
	m := &Model{profile: profile, turns: append([]Turn(nil), script.Turns...), reqPrefix: "req_sim_"}
	for _, o := range opts {
		o(m)
	}
	return m, nil
}

// Profile returns the provider profile in force.
func (m *Model) Profile() wire.Profile { return m.profile }

// Append adds turns to the end of the script, for a harness that scripts
// the model as a conversation goes. Optional turns left unconsumed at the
// end are dropped first when a required turn is appended: the agent turn
// they were offered to is over.
func (m *Model) Append(turns ...Turn) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range turns {
		if err := t.Reply.validate(); err != nil {
			return fmt.Errorf("simulator turn %d: reply.%w", i, err)
		}
		if i > 0 && turns[i-1].Optional && !t.Optional {
			return fmt.Errorf("simulator turn %d: a required turn cannot follow an optional one", i)
		}
	}
	if len(turns) > 0 && !turns[0].Optional {
		for len(m.turns) > m.next && m.turns[len(m.turns)-1].Optional {
			m.turns = m.turns[:len(m.turns)-1]
		}
	}
	m.turns = append(m.turns, turns...)
	return nil
}

// Journal returns a copy of the journal.
func (m *Model) Journal() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Entry(nil), m.journal...)
}

// Calls returns how many calls have arrived.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// Remaining returns how many turns are left unconsumed.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.turns) - m.next
}

// Recorded returns the problems recorded so far, in the order they
// happened (the turns left unconsumed are not among them: see Unconsumed).
func (m *Model) Recorded() []Problem {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Problem(nil), m.problems...)
}

// TurnAt returns the i-th turn of the script as it stands.
func (m *Model) TurnAt(i int) (Turn, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i < 0 || i >= len(m.turns) {
		return Turn{}, false
	}
	return m.turns[i], true
}

// Unconsumed returns how many required turns are left unconsumed.
func (m *Model) Unconsumed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	left := 0
	for _, t := range m.turns[m.next:] {
		if !t.Optional {
			left++
		}
	}
	return left
}

// Problems returns everything that fails the scenario so far, including
// turns left unconsumed.
func (m *Model) Problems() []Problem {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := append([]Problem(nil), m.problems...)
	left := 0
	for _, t := range m.turns[m.next:] {
		if !t.Optional {
			left++
		}
	}
	if left > 0 {
		out = append(out, Problem{Detail: fmt.Sprintf("%d scripted turn(s) left unconsumed (the model was called %d time(s), the script has %d turn(s))", left, m.calls, len(m.turns))})
	}
	return out
}

// Limit sets the bounds of WithLimits on a model already made (a server
// that serves it applies its own); zero leaves a bound as it is.
func (m *Model) Limit(calls int, journalBytes int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if calls > 0 {
		m.maxCalls = calls
	}
	if journalBytes > 0 {
		m.maxJournal = journalBytes
	}
}

// Refused returns how many calls were refused for a bound of WithLimits.
func (m *Model) Refused() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.refused
}

// overLimit refuses a call past a bound of WithLimits; m.mu is held.
func (m *Model) overLimit(wireBytes int) error {
	var status int
	var msg string
	switch {
	case m.maxCalls > 0 && m.calls >= m.maxCalls:
		status, msg = 400, fmt.Sprintf("simulator: this conversation has answered its limit of %d model calls (--max-calls); the call is refused", m.maxCalls)
	case m.maxJournal > 0 && m.journalSize+int64(wireBytes) > m.maxJournal:
		status, msg = 413, fmt.Sprintf("simulator: this conversation's journal has reached its limit of %d bytes of requests (--max-journal-bytes); the call is refused", m.maxJournal)
	default:
		return nil
	}
	if m.refused == 0 {
		m.problems = append(m.problems, Problem{Detail: msg + " (and every later call)"})
	}
	m.refused++
	body := m.errorBody(m.calls+1, msg, ErrTypeLimit)
	return &llm.APIError{Status: status, Type: ErrTypeLimit, Message: msg, Body: []byte(body)}
}

// Generate implements llm.Model.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	reply, err := m.Handle(ctx, Call{Mode: "generate", Request: req})
	if err != nil {
		return nil, err
	}
	if err := wait(ctx, reply); err != nil {
		return nil, err
	}
	return reply.Response(), nil
}

// Stream implements llm.Model. The events before the finish are delivered
// first; a Gate on the reply then holds the end of the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request, yield func(llm.StreamEvent) error) error {
	reply, err := m.Handle(ctx, Call{Mode: "stream", Request: req})
	if err != nil {
		return err
	}
	events := reply.StreamEvents()
	for _, ev := range events[:len(events)-1] {
		if err := yield(ev); err != nil {
			return err
		}
	}
	if err := wait(ctx, reply); err != nil {
		return err
	}
	return yield(events[len(events)-1])
}

// Wait holds until the reply may be delivered (or, for a stream, ended):
// its latency has passed and its gate has opened.
func (r *Reply) Wait(ctx context.Context) error { return wait(ctx, r) }

func wait(ctx context.Context, r *Reply) error {
	if r.Latency > 0 {
		t := time.NewTimer(r.Latency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if r.Gate != nil {
		select {
		case <-r.Gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Call is one call to hand to the simulator.
type Call struct {
	// Mode is generate or stream.
	Mode string
	// Request is the canonical prompt and tools.
	Request *llm.Request
	// Wire is the provider-shaped request body, if the call came over HTTP.
	Wire json.RawMessage
	// View is the prompt as the provider lays it out, decoded from Wire; nil
	// to lay out the canonical prompt with the model's profile.
	View *wire.View
	// Owned says the caller made Request for this call and will not change
	// it: the journal keeps it as it is, without a copy.
	Owned bool
	// Lossy says Request was decoded from a provider wire, which carries
	// tool outputs as text without their types: result expectations are
	// then checked as the wire allows.
	Lossy bool
}

// Unreadable journals a request that was refused before its prompt could
// be read (a front end's decoding), as a model call with the status and
// body the client got, and records it as a problem (charged to no check:
// the turn's own assertions judge what the refusal did to the turn).
func (m *Model) Unreadable(mode string, wire []byte, status int, body, detail string) {
	m.mu.Lock()
	m.calls++
	call := m.calls
	observe := m.observe
	m.mu.Unlock()
	if observe != nil {
		observe(call)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.journal = append(m.journal, Entry{Call: call, Turn: -1, Mode: mode, Wire: append([]byte(nil), wire...), Verdict: VerdictRefused, Status: status, ErrorBody: body})
	m.problems = append(m.problems, Problem{Call: call, Detail: fmt.Sprintf("model call %d was refused before its prompt could be read: %s", call, detail)})
}

// Handle runs one call through the simulator: it journals the call,
// validates the prompt, checks the turn's expectations, and consumes the
// turn. It returns the reply to send, or an *llm.APIError.
func (m *Model) Handle(ctx context.Context, c Call) (*Reply, error) {
	req := c.Request
	m.mu.Lock()
	if err := m.overLimit(len(c.Wire)); err != nil {
		m.mu.Unlock()
		return nil, err
	}
	m.calls++
	call := m.calls
	m.journalSize += int64(len(c.Wire))
	prompt := req.Messages
	if !c.Owned {
		prompt = model.Clone(prompt)
	}
	entry := Entry{Call: call, Turn: -1, Mode: c.Mode, Prompt: prompt, Wire: c.Wire, Lossy: c.Lossy, Tools: toolNames(req.Tools)}
	observe := m.observe
	m.mu.Unlock()
	if observe != nil {
		observe(call)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	record := func(e Entry) { m.journal = append(m.journal, e) }

	if err := ctx.Err(); err != nil {
		entry.Verdict = VerdictCanceled
		record(entry)
		return nil, err
	}

	var vs []wire.Violation
	if reqID := fmt.Sprintf("%s%d", m.reqPrefix, call); c.View != nil {
		vs = wire.Check(*c.View, reqID)
	} else {
		vs = wire.CheckMessages(m.profile, req.Messages, reqID)
	}
	if len(vs) > 0 {
		first := vs[0]
		entry.Verdict, entry.Violations, entry.Status, entry.ErrorBody = VerdictViolation, vs, first.Status, first.Body
		record(entry)
		for _, v := range vs {
			m.problems = append(m.problems, Problem{Check: v.Check, Call: call, Detail: v.Describe()})
		}
		return nil, &llm.APIError{Status: first.Status, Type: first.ErrorType, Message: first.Text, Body: []byte(first.Body), Check: first.Check}
	}

	if m.next >= len(m.turns) {
		msg := fmt.Sprintf("simulator: model call %d is past the end of the script (%d turn(s))", call, len(m.turns))
		entry.Verdict, entry.Status, entry.ErrorBody = VerdictExhausted, 400, m.errorBody(call, msg, ErrTypeExhausted)
		record(entry)
		m.problems = append(m.problems, Problem{Call: call, Detail: "the model was called more times than the script has turns"})
		if m.pastEnd != nil {
			reply := *m.pastEnd
			m.journal[len(m.journal)-1].Status, m.journal[len(m.journal)-1].ErrorBody, m.journal[len(m.journal)-1].Reply = 200, "", &reply
			return &reply, nil
		}
		return nil, &llm.APIError{Status: 400, Type: ErrTypeExhausted, Message: msg, Body: []byte(entry.ErrorBody)}
	}
	turnIndex := m.next
	turn := m.turns[turnIndex]
	m.next++
	entry.Turn = turnIndex

	fails, blocked := turn.Expect.check(req, c.Lossy)
	for i := range blocked {
		blocked[i].Call = call
	}
	entry.Blocked = blocked
	if len(fails) > 0 {
		for i := range fails {
			fails[i].Call = call
		}
		details := make([]string, len(fails))
		for i, f := range fails {
			details[i] = f.Detail
		}
		m.problems = append(m.problems, fails...)
		entry.Failures = fails
		if m.rejectUnmet {
			msg := "simulator: the prompt did not meet the script: " + strings.Join(details, "; ")
			entry.Verdict, entry.Status, entry.ErrorBody = VerdictExpectationFailed, 400, m.errorBody(call, msg, ErrTypeExpectation)
			record(entry)
			return nil, &llm.APIError{Status: 400, Type: ErrTypeExpectation, Message: msg, Body: []byte(entry.ErrorBody), Check: fails[0].Check}
		}
	}

	reply := turn.Reply
	if e := reply.Error; e != nil {
		body := e.Body
		if body == "" {
			body = m.errorBody(call, e.Message, e.Type)
		}
		entry.Verdict, entry.Status, entry.ErrorBody = VerdictScriptedError, e.Status, body
		record(entry)
		return nil, &llm.APIError{Status: e.Status, Type: e.Type, Message: e.Message, Body: []byte(body)}
	}
	entry.Verdict, entry.Status, entry.Reply = VerdictOK, 200, &reply
	record(entry)
	return &reply, nil
}

// errorBody builds an error envelope in the profile's shape.
func (m *Model) errorBody(call int, message, typ string) string {
	if m.profile == wire.AnthropicMessages {
		return wire.AnthropicErrorBody(message, typ, fmt.Sprintf("%s%d", m.reqPrefix, call))
	}
	return wire.OpenAIErrorBody(message, typ, nil, nil)
}

func toolNames(defs []llm.ToolDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}

// FinishReason returns the reply's finish reason, defaulted.
func (r *Reply) finishReason() string {
	if r.FinishReason != "" {
		return r.FinishReason
	}
	for _, c := range r.ToolCalls {
		if !c.ProviderExecuted {
			return llm.FinishToolCalls
		}
	}
	return llm.FinishStop
}

// Content returns the reply as assistant content parts.
func (r *Reply) Content() []model.Part {
	var parts []model.Part
	if r.Text != "" {
		parts = append(parts, model.Text(r.Text))
	}
	for _, c := range r.ToolCalls {
		input := c.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		p := model.ToolCall(c.ID, c.Name, input)
		p.ProviderExecuted = c.ProviderExecuted
		parts = append(parts, p)
		if c.ApprovalID != "" {
			parts = append(parts, model.ApprovalRequest(c.ApprovalID, c.ID))
		}
	}
	for _, pr := range r.ProviderResults {
		out := pr.Output
		if len(out) == 0 {
			out = json.RawMessage("null")
		}
		p := model.ToolResult(pr.ToolCallID, pr.Name, model.JSONOutput(out))
		p.ProviderExecuted, p.ApprovalID = true, pr.ApprovalID
		parts = append(parts, p)
	}
	return parts
}

// Response returns the reply as an llm.Response.
func (r *Reply) Response() *llm.Response {
	return &llm.Response{Content: r.Content(), FinishReason: r.finishReason(), Usage: r.Usage}
}

// StreamEvents returns the reply as stream events; the last is the finish.
func (r *Reply) StreamEvents() []llm.StreamEvent {
	var evs []llm.StreamEvent
	for _, p := range r.Content() {
		switch p.Type {
		case model.PartText:
			for _, piece := range chunks(p.Text, r.ChunkSize) {
				evs = append(evs, llm.StreamEvent{Type: llm.StreamTextDelta, Text: piece})
			}
		case model.PartToolCall:
			evs = append(evs, llm.StreamEvent{Type: llm.StreamToolInputStart, ToolCallID: p.ToolCallID, ToolName: p.ToolName})
			for _, piece := range chunks(string(p.Input), r.ChunkSize) {
				evs = append(evs, llm.StreamEvent{Type: llm.StreamToolInputDelta, ToolCallID: p.ToolCallID, Delta: piece})
			}
			q := p
			evs = append(evs, llm.StreamEvent{Type: llm.StreamPart, Part: &q})
		default:
			q := p
			evs = append(evs, llm.StreamEvent{Type: llm.StreamPart, Part: &q})
		}
	}
	return append(evs, llm.StreamEvent{Type: llm.StreamFinish, FinishReason: r.finishReason(), Usage: r.Usage})
}

// chunks splits s into pieces of at most n bytes without splitting a UTF-8
// sequence; n <= 0 gives s whole.
func chunks(s string, n int) []string {
	if n <= 0 || len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		end := n
		if end >= len(s) {
			end = len(s)
		} else {
			for end > 0 && !utf8Start(s[end]) {
				end--
			}
			if end == 0 {
				end = n
				for end < len(s) && !utf8Start(s[end]) {
					end++
				}
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
