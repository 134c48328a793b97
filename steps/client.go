package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/chatsim"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
)

// clientWorld is the client-role part of a scenario: the scripted chat
// server, the conversation it plays, and the client session under test.
type clientWorld struct {
	protocol string
	dialect  string // the protocol's dialect the target declares ("" for the default)
	tools    []target.ClientTool
	server   *chatsim.Server
	conv     *chatsim.Conversation
	chatURL  string
	session  target.Session
	held     int
	last     *target.ActionResult
	lastText string
	answers  int // scripted answers so far, for message ids
	// anonymous: the scripted answers start no message of their own (a UI
	// message stream's start chunk without a messageId), so the client
	// names the message it streams into.
	anonymous bool
}

// approvalID is the id the scripted server gives a call's approval request.
func approvalID(callID string) string { return "approval_" + callID }

// interruptID is the id the scripted server gives the AG-UI interrupt of a
// call's approval request: distinct from the approval id, so a client that
// resumes the approval id instead of the interrupt's resumes nothing.
func interruptID(callID string) string { return "interrupt_" + callID }

// clientSteps holds the steps of the client role.
type clientSteps struct{ world func() *world }

func (c *clientSteps) cw() (*clientWorld, error) {
	w := c.world()
	if w.client == nil {
		return nil, errors.New(`the scenario must say which protocol the client speaks first ("the client speaks ...")`)
	}
	return w.client, nil
}

func (c *clientSteps) speaks(ctx context.Context, protocol string) error {
	w := c.world()
	if _, err := protocols.Lookup(protocol); err != nil {
		return err
	}
	if err := w.requireFeature("clientProtocol:"+protocol, "the "+protocol+" protocol"); err != nil {
		return err
	}
	if w.client != nil {
		return errors.New("the client's protocol is already set")
	}
	dialect := w.info.Features.ClientDialect(protocol)
	if _, err := protocols.LookupDialect(protocol, dialect); err != nil {
		return &harnessError{err: fmt.Errorf("the target declares clientDialects[%q]: %w", protocol, err)}
	}
	w.client = &clientWorld{protocol: protocol, dialect: dialect, held: -1}
	return nil
}

func (c *clientSteps) toolApproval(_ context.Context, name string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	cw.tools = append(cw.tools, target.ClientTool{Name: name, NeedsApproval: true})
	return nil
}

func (c *clientSteps) toolClientSide(_ context.Context, name string) error {
	w := c.world()
	if err := w.requireFeature("clientTools", "client-side tools"); err != nil {
		return err
	}
	cw, err := c.cw()
	if err != nil {
		return err
	}
	cw.tools = append(cw.tools, target.ClientTool{Name: name, ClientSide: true})
	return nil
}

// ensureSession starts the chat server, the conversation and the session.
func (c *clientSteps) ensureSession(ctx context.Context) (*clientWorld, error) {
	cw, err := c.cw()
	if err != nil {
		return nil, err
	}
	if cw.session != nil {
		return cw, nil
	}
	w := c.world()
	if w.suite.Target.Client() == nil {
		return nil, &harnessError{err: errors.New("the target declares the client role but has none")}
	}
	codec, err := protocols.LookupDialect(cw.protocol, cw.dialect)
	if err != nil {
		return nil, err
	}
	if cw.server, err = chatsim.NewServer(); err != nil {
		return nil, &harnessError{err: err}
	}
	cw.conv = chatsim.NewConversation(codec)
	cw.chatURL = cw.server.Mount(cw.conv)
	sctx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	if cw.session, err = w.suite.Target.Client().NewSession(sctx, target.SessionConfig{ChatURL: cw.chatURL, Protocol: cw.protocol, Dialect: cw.dialect, Tools: cw.tools}); err != nil {
		return nil, &harnessError{err: fmt.Errorf("opening a client session: %w", err)}
	}
	return cw, nil
}

// script adds a scripted answer; the conversation exists before the session.
func (c *clientSteps) script(ctx context.Context, t chatsim.Turn) error {
	cw, err := c.ensureSession(ctx)
	if err != nil {
		return err
	}
	idx, err := cw.conv.Append(t)
	if err != nil {
		return err
	}
	if t.Hold || t.HoldOpen {
		cw.held = idx
	}
	return nil
}

// settle waits until the client is idle, or a scripted stream is held open
// (the test acts next, then releases it).
func (c *clientSteps) settle(ctx context.Context, cw *clientWorld) error {
	w := c.world()
	sctx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	type outcome struct{ err error }
	done := make(chan outcome, 2)
	go func() {
		_, err := cw.session.Wait(sctx, target.WaitCondition{Until: target.UntilIdle})
		done <- outcome{err}
	}()
	go func() {
		_, err := cw.conv.WaitHolding(sctx)
		done <- outcome{err}
	}()
	first := <-done
	cancel()
	if first.err != nil {
		return &harnessError{timeout: errors.Is(sctx.Err(), context.DeadlineExceeded), err: fmt.Errorf("waiting for the client to settle: %w", first.err)}
	}
	return nil
}

func (c *clientSteps) act(ctx context.Context, do func(context.Context, *clientWorld) (*target.ActionResult, error)) error {
	cw, err := c.ensureSession(ctx)
	if err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, c.world().suite.timeout())
	defer cancel()
	res, err := do(actx, cw)
	if err != nil {
		return &harnessError{err: err}
	}
	cw.last = res
	return c.settle(ctx, cw)
}

func (c *clientSteps) send(ctx context.Context, text string) error {
	return c.act(ctx, func(ctx context.Context, cw *clientWorld) (*target.ActionResult, error) {
		cw.lastText = text
		return cw.session.Send(ctx, text)
	})
}

// shownApproval finds the approval the client shows for a call.
func (c *clientSteps) shownApproval(ctx context.Context, cw *clientWorld, callID string) (*chat.Part, error) {
	st, err := cw.session.State(ctx)
	if err != nil {
		return nil, &harnessError{err: err}
	}
	for _, m := range st.Messages {
		for i := range m.Parts {
			p := &m.Parts[i]
			if p.Type == chat.PartToolCall && p.ToolCallID == callID && p.Approval != nil {
				return p, nil
			}
		}
	}
	return nil, fmt.Errorf("the client shows no approval request for %s", callID)
}

func (c *clientSteps) answer(ctx context.Context, verb, callID, reason string) error {
	return c.act(ctx, func(ctx context.Context, cw *clientWorld) (*target.ActionResult, error) {
		p, err := c.shownApproval(ctx, cw, callID)
		if err != nil {
			return nil, err
		}
		res, err := cw.session.Approve(ctx, target.ApprovalAnswer{ApprovalID: p.Approval.ID, Approved: verb == "approves", Reason: reason})
		if err == nil && res.Refused {
			return nil, fmt.Errorf("the client refused the answer for %s: %s", callID, res.Error)
		}
		return res, err
	})
}

func (c *clientSteps) toolOutput(ctx context.Context, output, callID string) error {
	if !json.Valid([]byte(output)) {
		return fmt.Errorf("the output %s is not valid JSON", output)
	}
	return c.act(ctx, func(ctx context.Context, cw *clientWorld) (*target.ActionResult, error) {
		res, err := cw.session.ToolOutput(ctx, callID, json.RawMessage(output))
		if err == nil && res.Refused {
			return nil, fmt.Errorf("the client refused the output for %s: %s", callID, res.Error)
		}
		return res, err
	})
}

func (c *clientSteps) release(ctx context.Context) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	if cw.held < 0 {
		return errors.New("no scripted stream is held open")
	}
	if err := cw.conv.Release(cw.held); err != nil {
		return err
	}
	cw.held = -1
	return c.settle(ctx, cw)
}

func (c *clientSteps) showsApproval(ctx context.Context, callID string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	if cw.session == nil {
		return errors.New("no client session has started")
	}
	wctx, cancel := context.WithTimeout(ctx, c.world().suite.timeout())
	defer cancel()
	cond := target.WaitCondition{Until: target.UntilApprovalRequested, ToolCallID: callID, OrIdle: true}
	st, err := cw.session.Wait(wctx, cond)
	if err != nil {
		if errors.Is(wctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("the client did not show an approval request for %s in time (its state: %s)", callID, describeClient(st))
		}
		return &harnessError{err: err}
	}
	cond.OrIdle = false
	if !cond.Holds(st) {
		return fmt.Errorf("the client shows no approval request for %s (its state: %s)", callID, describeClient(st))
	}
	return nil
}

func (c *clientSteps) showsApprovalID(ctx context.Context, callID string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	p, err := c.shownApproval(ctx, cw, callID)
	if err != nil {
		return err
	}
	// An AG-UI interrupt carries two keys: the approval id (in the
	// interrupt's metadata) and the interrupt's own id, which the protocol
	// resumes by; a client may show the approval under either.
	if id := p.Approval.ID; id != approvalID(callID) && (cw.protocol != chat.ProtocolAGUI || id != interruptID(callID)) {
		return fmt.Errorf("the client shows the approval for %s as %q; the server sent %q", callID, id, approvalID(callID))
	}
	return nil
}

func (c *clientSteps) madeRequests(_ context.Context, n int) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	if got := len(cw.conv.Requests()); got != n {
		err := fmt.Errorf("the client made %d request(s), want %d", got, n)
		if got < n {
			// A continuation never sent: the user's answer or the tool's
			// output never reaches the server.
			return harmed(checks.Lost, err)
		}
		return harmless(err)
	}
	return nil
}

func (c *clientSteps) request(n int) (chatsim.Request, error) {
	cw, err := c.cw()
	if err != nil {
		return chatsim.Request{}, err
	}
	reqs := cw.conv.Requests()
	if n < 1 || n > len(reqs) {
		return chatsim.Request{}, fmt.Errorf("there is no request %d (the client made %d)", n, len(reqs))
	}
	return reqs[n-1], nil
}

func (c *clientSteps) carries(_ context.Context, n int, kind, callID string) error {
	return c.carriesAnswer(n, kind, callID, nil)
}

// carriesReason: the answer carries the reason the user typed, whole, in
// every way it travels.
// A dialect whose requests have no place for a reason (TanStack AI 0.5)
// is held to the answer alone.
func (c *clientSteps) carriesReason(_ context.Context, n int, kind, callID, reason string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	codec, err := protocols.LookupDialect(cw.protocol, cw.dialect)
	if err != nil {
		return err
	}
	if !carriesReasons(codec) {
		return c.carriesAnswer(n, kind, callID, nil)
	}
	if w := c.world(); w.info != nil && w.info.Features.NoDenialReasons {
		// The target declares that its approval API takes no reason (TanStack
		// AI's addToolApprovalResponse({id, approved})): the client has none
		// to send, whatever room the protocol has for one.
		w.record(w.check, report.OutcomeNotApplicable, fmt.Sprintf("the reason of the %s of %s: the target declares that its approval API takes no reason", kind, callID))
		return c.carriesAnswer(n, kind, callID, nil)
	}
	return c.carriesAnswer(n, kind, callID, &reason)
}

// carriesAnswer: request n carries the answer for the call exactly once
// per way it travels, under the id the server asked by (the approval id on
// a part; an issued interrupt in a resume entry), with the user's value
// and, when reason is given, the user's reason.
func (c *clientSteps) carriesAnswer(n int, kind, callID string, reason *string) error {
	req, err := c.request(n)
	if err != nil {
		return err
	}
	// An answer may travel two ways at once (AG-UI: on the message parts
	// and as a resume entry); each way carries it exactly once, and every
	// copy says the same.
	perWay := map[string]int{}
	for _, a := range req.Answers {
		if a.ToolCallID != callID && a.ApprovalID != approvalID(callID) && a.ApprovalID != interruptID(callID) {
			continue
		}
		switch {
		case a.Via == "resume" && a.ToolCallID == "":
			// The server matches a resume entry by its interrupt: one that
			// names no interrupt it issued answers nothing.
			return fmt.Errorf("request %d resumes %q for %s, an id the server issued no interrupt under (it interrupted the call as %q)", n, a.ApprovalID, callID, interruptID(callID))
		case a.Via == "parts" && a.ApprovalID != approvalID(callID):
			return fmt.Errorf("request %d answers %s under the approval id %q; the server asked under %q", n, callID, a.ApprovalID, approvalID(callID))
		}
		perWay[a.Via]++
		if a.Approved != (kind == "approval") {
			return fmt.Errorf("request %d carries the opposite answer for %s (%v)", n, callID, req.Answers)
		}
		if reason != nil && a.Reason != *reason {
			return fmt.Errorf("request %d carries the %s of %s with the reason %q in its %s; the user gave %q", n, kind, callID, a.Reason, a.Via, *reason)
		}
	}
	if len(perWay) == 0 {
		return fmt.Errorf("request %d carries no %s of %s (it carries %v)", n, kind, callID, req.Answers)
	}
	for way, count := range perWay {
		if count > 1 {
			return fmt.Errorf("request %d carries %d answers for %s in its %s, want exactly one (%v)", n, count, callID, way, req.Answers)
		}
	}
	return nil
}

func (c *clientSteps) carriesNone(_ context.Context, n int, callID string) error {
	req, err := c.request(n)
	if err != nil {
		return err
	}
	for _, a := range req.Answers {
		if a.ToolCallID == callID || a.ApprovalID == approvalID(callID) {
			return fmt.Errorf("request %d carries an answer for %s", n, callID)
		}
	}
	return nil
}

// noStaleResume: an answer that travels as a resume entry (AG-UI) resumes
// its interrupt once; no later request carries it as a resume entry again.
func (c *clientSteps) noStaleResume(context.Context) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	resumedIn := map[string]int{}
	for _, r := range cw.conv.Requests() {
		for _, a := range r.Answers {
			if a.Via != "resume" {
				continue
			}
			if first, ok := resumedIn[a.ApprovalID]; ok && first != r.N {
				return fmt.Errorf("request %d resumes the interrupt %s again, which request %d already resumed", r.N, a.ApprovalID, first)
			}
			resumedIn[a.ApprovalID] = r.N
		}
	}
	return nil
}

func (c *clientSteps) clientState(ctx context.Context) (*target.ClientState, error) {
	cw, err := c.cw()
	if err != nil {
		return nil, err
	}
	if cw.session == nil {
		return nil, errors.New("no client session has started")
	}
	st, err := cw.session.State(ctx)
	if err != nil {
		return nil, &harnessError{err: err}
	}
	return st, nil
}

func (c *clientSteps) wentThrough(ctx context.Context, callID, list string) error {
	st, err := c.clientState(ctx)
	if err != nil {
		return err
	}
	var want []string
	for _, s := range strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' }) {
		// A state the client cannot show (the AI SDK has no awaiting-input)
		// is not asked of it.
		if c.world().info.Features.ClientShows(chat.ToolState(s)) {
			want = append(want, s)
		}
	}
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			if p.Type != chat.PartToolCall || p.ToolCallID != callID {
				continue
			}
			i := 0
			for _, s := range p.History {
				if i < len(want) && string(s) == want[i] {
					i++
				}
			}
			if i < len(want) {
				return stateHarm(p.History, fmt.Errorf("the tool call %s went through %v; want %v in that order", callID, p.History, want))
			}
			return nil
		}
	}
	return fmt.Errorf("the client holds no tool call %s", callID)
}

func (c *clientSteps) forwardOnly(ctx context.Context) error {
	st, err := c.clientState(ctx)
	if err != nil {
		return err
	}
	calls := 0
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			if p.Type != chat.PartToolCall {
				continue
			}
			calls++
			for i, s := range p.History {
				if !s.Known() {
					return fmt.Errorf("the tool call %s went through an unknown state %q", p.ToolCallID, s)
				}
				if i > 0 && s.Rank() < p.History[i-1].Rank() {
					return stateHarm(p.History, fmt.Errorf("the tool call %s went backwards: %v", p.ToolCallID, p.History))
				}
			}
		}
	}
	if calls == 0 {
		return errors.New("the client holds no tool call")
	}
	return nil
}

func (c *clientSteps) holdsOnce(ctx context.Context) error {
	st, err := c.clientState(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			if p.Type != chat.PartToolCall {
				continue
			}
			if seen[p.ToolCallID] {
				return fmt.Errorf("the client holds the tool call %s twice", p.ToolCallID)
			}
			seen[p.ToolCallID] = true
		}
	}
	return nil
}

func (c *clientSteps) noDangling(context.Context) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	for _, r := range cw.conv.Requests() {
		if len(r.Dangling) > 0 {
			return fmt.Errorf("request %d left %v without an answer or a result before a new user message", r.N, r.Dangling)
		}
	}
	return nil
}

func (c *clientSteps) refusedOrAnswered(ctx context.Context, callID string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	if cw.last != nil && cw.last.Refused {
		if strings.TrimSpace(cw.last.Error) == "" {
			return errors.New("the client refused the message without saying why")
		}
		return nil
	}
	reqs := cw.conv.Requests()
	if cw.last != nil && cw.last.Queued {
		return c.heldInQueue(ctx, cw, reqs)
	}
	if len(reqs) == 0 {
		return errors.New("the client neither refused the message nor sent it")
	}
	last := reqs[len(reqs)-1]
	for _, a := range last.Answers {
		if a.ToolCallID == callID || a.ApprovalID == approvalID(callID) {
			return nil
		}
	}
	if slices.Contains(last.Outputs, callID) {
		return nil
	}
	return fmt.Errorf("the client sent the message (request %d) with %s still unanswered", last.N, callID)
}

// heldInQueue: a message the client says it holds in its own queue is
// neither sent nor refused. It must show in the client's queue, and no
// request may carry it.
func (c *clientSteps) heldInQueue(ctx context.Context, cw *clientWorld, reqs []chatsim.Request) error {
	st, err := c.clientState(ctx)
	if err != nil {
		return err
	}
	if !holdsText(st.Queued, cw.lastText) {
		return fmt.Errorf("the client says it queued the message %q, but its queue does not hold it (its state: %s)", cw.lastText, describeClient(st))
	}
	for _, r := range reqs {
		if r.Decoded != nil && holdsText(r.Decoded.Messages, cw.lastText) {
			return fmt.Errorf("the client says it queued the message %q, but request %d sent it", cw.lastText, r.N)
		}
	}
	return nil
}

// holdsText reports whether a user message of msgs has the text.
func holdsText(msgs []chat.Message, text string) bool {
	for _, m := range msgs {
		if m.Role != chat.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if p.Type == chat.PartText && p.Text == text {
				return true
			}
		}
	}
	return false
}

// describeClient renders a client state briefly.
func describeClient(st *target.ClientState) string {
	if st == nil {
		return "unknown"
	}
	var parts []string
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			if p.Type == chat.PartToolCall {
				parts = append(parts, fmt.Sprintf("%s=%s", p.ToolCallID, p.State))
			}
		}
	}
	return fmt.Sprintf("busy=%v calls=[%s] queued=%d error=%q", st.Busy, strings.Join(parts, " "), len(st.Queued), st.Error)
}

// clientProblems are the client-role findings that fail a scenario whatever
// its steps say: a request that leaves a call dangling (CHAIN-05), a request
// that repeats a tool call (CHAIN-06), and a script not followed.
func (cw *clientWorld) problems() []problem {
	if cw == nil || cw.conv == nil {
		return nil
	}
	var out []problem
	for _, r := range cw.conv.Requests() {
		if len(r.Dangling) > 0 {
			out = append(out, problem{check: "CHAIN-05", detail: fmt.Sprintf("CHAIN-05: request %d left %v unanswered before a new user message", r.N, r.Dangling), spec: danglingHarm})
		}
		if len(r.Duplicates) > 0 {
			out = append(out, problem{check: "CHAIN-06", detail: fmt.Sprintf("CHAIN-06: request %d repeats the tool call(s) %v", r.N, r.Duplicates)})
		}
	}
	for _, p := range cw.conv.Problems() {
		out = append(out, problem{detail: "chat server: " + p})
	}
	return out
}

// close ends the session and the chat server.
func (cw *clientWorld) close(ctx context.Context) {
	if cw == nil {
		return
	}
	if cw.session != nil {
		_ = cw.session.Close(ctx) // the scenario is over; a failure changes nothing
	}
	if cw.server != nil {
		_ = cw.server.Close()
	}
}

// stateHarm grades a tool-call part's path through its states: a move back
// out of approval-responded, or out of a terminal state, loses the user's
// answer or the call's result from the client (lost); any other departure
// from the order of states harms nobody.
func stateHarm(history []chat.ToolState, err error) error {
	for i := 1; i < len(history); i++ {
		prev := history[i-1]
		if (prev == chat.ApprovalResponded || prev.Terminal()) && history[i].Rank() < prev.Rank() {
			return harmed(checks.Lost, fmt.Errorf("%w: it left %s for %s", err, prev, history[i]))
		}
	}
	return harmless(err)
}
