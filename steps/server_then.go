package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
)

// The server role's assertions: what the chat endpoint streamed back for
// each call (its approval request, its outcome, the assistant's text),
// each charged as the agent role charges the same fault.

// lastExchange returns the last request and its stream; a request the
// endpoint refused, or whose stream broke, has nothing to judge.
func (s *serverSteps) lastExchange() (*chatExchange, error) {
	sw, err := s.sw()
	if err != nil {
		return nil, err
	}
	if len(sw.exchanges) == 0 {
		return nil, errors.New("the client has posted no request to the chat endpoint")
	}
	x := sw.exchanges[len(sw.exchanges)-1]
	w := s.world()
	if n := len(w.turns); n > 0 {
		if e, refused := w.rejectedIn(w.turns[n-1]); refused {
			// What the stream would have carried after a prompt the model
			// refused does not exist: that failure is charged to its own
			// check (WIRE-01, WIRE-02).
			return nil, blocked("the model refused a prompt of request %d (model call %d: %s)", x.N, e.Call, e.Violations[0].Check)
		}
	}
	if x.Status/100 != 2 {
		return nil, fmt.Errorf("the chat endpoint refused request %d with HTTP %d: %s", x.N, x.Status, x.Body)
	}
	return x, nil
}

// streamAsks (REQ-07): the stream asks approval for the call, with an
// approval id the client can answer.
func (s *serverSteps) streamAsks(_ context.Context, callID string) error {
	x, err := s.lastExchange()
	if err != nil {
		return err
	}
	for _, ev := range x.Events {
		if ev.Type == chat.EventApprovalRequested && ev.ToolCallID == callID {
			if ev.Approval == nil || ev.Approval.ID == "" {
				return fmt.Errorf("the stream of request %d asks approval for %s without an approval id", x.N, callID)
			}
			return nil
		}
	}
	return fmt.Errorf("the stream of request %d never asks approval for %s (%s)", x.N, callID, eventTypes(x.Events))
}

// outcomeOf finds the outcome event of a call in the last stream.
func (s *serverSteps) outcomeOf(callID string) (*chatExchange, *chat.Event, error) {
	x, err := s.lastExchange()
	if err != nil {
		return nil, nil, err
	}
	var found *chat.Event
	for i, ev := range x.Events {
		switch ev.Type {
		case chat.EventToolResult, chat.EventToolDenied, chat.EventToolError:
			if ev.ToolCallID != callID {
				continue
			}
			if found != nil {
				return x, found, fmt.Errorf("the stream of request %d reports %s twice (%s, then %s)", x.N, callID, found.Type, ev.Type)
			}
			found = &x.Events[i]
		}
	}
	if found == nil {
		return x, nil, fmt.Errorf("the stream of request %d reports no outcome of %s (%s)", x.N, callID, eventTypes(x.Events))
	}
	return x, found, nil
}

// promptHeld reports whether a prompt of the last request held a result
// for the call: the runtime resolved it, whatever its stream says.
func (s *serverSteps) promptHeld(callID string) bool {
	w := s.world()
	if w.sim == nil || len(w.turns) == 0 {
		return false
	}
	rec := w.turns[len(w.turns)-1]
	for _, e := range w.sim.Journal() {
		if e.Call < rec.FirstModelCall || (rec.LastModelCall >= rec.FirstModelCall && e.Call > rec.LastModelCall) {
			continue
		}
		if _, ok := model.IndexOf(e.Prompt).Result(w.callIDIn(e.Prompt, callID)); ok {
			return true
		}
	}
	return false
}

// missingFromStream judges a call whose outcome the stream never reported:
// when a prompt of the request held its result, the runtime resolved it
// and the stream lost it, which is PRE-08's rule (the stream carries one
// result event per result); when none did, the runtime never resolved it,
// which the prompt's assertions judge: blocked here.
func (s *serverSteps) missingFromStream(err error, callID string) error {
	if !s.promptHeld(callID) {
		if text, failed := s.streamError(); failed {
			// The request was refused where its call was answered: no
			// prompt judges it (there is none), and the client is told
			// of a failure instead of the call's outcome.
			return harmed(checks.Lost, fmt.Errorf("%v: the stream fails with %q instead", err, text))
		}
		return blocked("%v: no prompt of the request holds a result for %s either (the prompt's assertions judge that)", err, callID)
	}
	if s.world().check == "PRE-08" {
		return harmed(checks.Lost, err)
	}
	return &chargedError{check: "PRE-08", why: err.Error(), own: blocked("%v: that is PRE-08's rule, charged there", err), spec: harmSpec{harm: checks.Lost}}
}

// streamError returns the error the last request's stream failed with.
func (s *serverSteps) streamError() (string, bool) {
	x, err := s.lastExchange()
	if err != nil {
		return "", false
	}
	for _, ev := range x.Events {
		if ev.Type == chat.EventError {
			return ev.ErrorText, true
		}
	}
	return "", false
}

// streamDenied: the stream reports the call as denied (a denial event:
// tool-output-denied), not as a result or an error: the denial's
// representation where the client reads it.
func (s *serverSteps) streamDenied(_ context.Context, callID string) error {
	if s.world().info.Features.UntypedResults {
		return &naError{why: "the target declares untyped results: a denial is an ordinary result, in its stream too"}
	}
	x, ev, err := s.outcomeOf(callID)
	if x == nil {
		return err
	}
	if ev == nil {
		return s.missingFromStream(err, callID)
	}
	if err != nil {
		return err // reported twice
	}
	if ev.Type != chat.EventToolDenied {
		return fmt.Errorf("the stream of request %d reports the denied %s as %s, not as a denial", x.N, callID, ev.Type)
	}
	return nil
}

// streamOutput: the stream gives the call the tool's output, the value
// the tool returned.
func (s *serverSteps) streamOutput(_ context.Context, callID, output string) error {
	x, ev, err := s.outcomeOf(callID)
	if x == nil {
		return err
	}
	if ev == nil {
		return s.missingFromStream(err, callID)
	}
	if err != nil {
		return err // reported twice
	}
	if ev.Type != chat.EventToolResult {
		// The call was resolved otherwise (denied, failed): the prompt's
		// assertions judge the resolution.
		return blocked("the stream of request %d reports %s as %s, not with its output %s (the resolution is judged by what reached the model)", x.N, callID, ev.Type, output)
	}
	if !jsonEqual(ev.Output, json.RawMessage(output)) {
		return fmt.Errorf("the stream of request %d gives %s the output %s, want %s", x.N, callID, ev.Output, output)
	}
	return nil
}

// streamFailed: the stream reports the call as failed, with the tool's
// error text; for a target whose failing tools fail the turn
// (toolErrors: turn-error), the stream fails with it.
func (s *serverSteps) streamFailed(_ context.Context, callID, text string) error {
	if s.world().info.Features.ToolErrors == "turn-error" {
		x, err := s.lastExchange()
		if err != nil {
			return err
		}
		for _, ev := range x.Events {
			if ev.Type == chat.EventError {
				if !strings.Contains(ev.ErrorText, text) {
					return fmt.Errorf("the stream of request %d fails with %q, without the tool's error %q", x.N, ev.ErrorText, text)
				}
				return nil
			}
		}
		return fmt.Errorf("the target declares that a failing tool fails the turn, but the stream of request %d reports no error (%s)", x.N, eventTypes(x.Events))
	}
	x, ev, err := s.outcomeOf(callID)
	if x == nil {
		return err
	}
	if ev == nil {
		return s.missingFromStream(err, callID)
	}
	if err != nil {
		return err // reported twice
	}
	if ev.Type != chat.EventToolError {
		return fmt.Errorf("the stream of request %d reports the failed %s as %s, not as an error", x.N, callID, ev.Type)
	}
	if !strings.Contains(ev.ErrorText, text) {
		return fmt.Errorf("the stream of request %d reports %s failing with %q, without the tool's error %q", x.N, callID, ev.ErrorText, text)
	}
	return nil
}

// streamNoOutcome: the stream reports no outcome of the call (it waits
// for an answer).
func (s *serverSteps) streamNoOutcome(_ context.Context, callID string) error {
	x, ev, err := s.outcomeOf(callID)
	if ev != nil {
		err := fmt.Errorf("the stream of request %d reports %s as %s before the batch was answered", x.N, callID, ev.Type)
		if runs := s.world().runsOf(callID); len(runs) > 0 {
			// The call ran while a call of its batch still waited for
			// its answer.
			return harmed(checks.RanAgainstAnswer, err)
		}
		return harmless(err)
	}
	if x == nil {
		return err
	}
	return nil
}

// streamText: the client shows the assistant's text.
func (s *serverSteps) streamText(_ context.Context, text string) error {
	x, err := s.lastExchange()
	if err != nil {
		return err
	}
	got := ""
	for _, ev := range x.Events {
		if ev.Type == chat.EventTextDelta {
			got += ev.Delta
		}
	}
	if !strings.Contains(got, text) {
		return harmless(fmt.Errorf("the stream of request %d carries the text %q, want %q", x.N, got, text))
	}
	return nil
}

// streamNoError: the stream of the last request reports no error (unless
// the target declares that a failing tool fails the turn).
func (s *serverSteps) streamNoError(context.Context) error {
	if s.world().info.Features.ToolErrors == "turn-error" {
		return &naError{why: "the target declares that a failing tool fails the turn (toolErrors: turn-error)"}
	}
	x, err := s.lastExchange()
	if err != nil {
		return err
	}
	for _, ev := range x.Events {
		if ev.Type == chat.EventError {
			return harmed(checks.Crashed, fmt.Errorf("the stream of request %d fails with %q", x.N, ev.ErrorText))
		}
	}
	if x.StreamErr != "" {
		return harmed(checks.Crashed, fmt.Errorf("the stream of request %d breaks off: %s", x.N, x.StreamErr))
	}
	return nil
}

// streamFailsWith: the stream reports the turn's failure as an error event
// carrying the text the failure gave (the provider's message of a model
// that failed), as generate mode fails the turn with it. A stream that
// ends as if nothing failed loses the failure; one that reports it under
// another text (a server that masks errors by default, so as not to leak
// them) still tells the client the turn failed: that only warns.
func (s *serverSteps) streamFailsWith(_ context.Context, text string) error {
	x, err := s.lastExchange()
	if err != nil {
		return err
	}
	for _, ev := range x.Events {
		if ev.Type == chat.EventError {
			if !strings.Contains(ev.ErrorText, text) {
				return harmless(fmt.Errorf("the stream of request %d fails with %q, without the failure's text %q", x.N, ev.ErrorText, text))
			}
			return nil
		}
	}
	return harmed(checks.Lost, fmt.Errorf("the stream of request %d reports no error, though the turn failed with %q (%s)", x.N, text, eventTypes(x.Events)))
}

func eventTypes(evs []chat.Event) string {
	var s []string
	for _, ev := range evs {
		t := string(ev.Type)
		if ev.ToolCallID != "" {
			t += "(" + ev.ToolCallID + ")"
		}
		s = append(s, t)
	}
	if len(s) == 0 {
		return "no events"
	}
	return "events: " + strings.Join(s, ", ")
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
