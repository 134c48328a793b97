//go:build !mutation

package chatclient

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/chat"
)

// script is an in-memory transport: each request gets the next response;
// a response may hold its last event until its gate is closed.
type script struct {
	mu        sync.Mutex
	responses []response
	requests  []*chat.Request
	arrived   chan int
}

type response struct {
	events []chat.Event
	gate   chan struct{} // nil: not held
}

func newScript() *script { return &script{arrived: make(chan int, 16)} }

func (s *script) add(events []chat.Event, held bool) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gate chan struct{}
	if held {
		gate = make(chan struct{})
	}
	s.responses = append(s.responses, response{events: events, gate: gate})
	return gate
}

func (s *script) Stream(ctx context.Context, req *chat.Request, yield func(chat.Event) error) error {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	if n >= len(s.responses) {
		s.mu.Unlock()
		s.arrived <- n + 1
		return errors.New("script: no response scripted")
	}
	r := s.responses[n]
	s.mu.Unlock()
	s.arrived <- n + 1
	evs := r.events
	if r.gate != nil {
		for _, ev := range evs[:len(evs)-1] {
			if err := yield(ev); err != nil {
				return err
			}
		}
		select {
		case <-r.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
		evs = evs[len(evs)-1:]
	}
	for _, ev := range evs {
		if err := yield(ev); err != nil {
			return err
		}
	}
	return nil
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *script) request(n int) *chat.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[n-1]
}

func callEvents(id string, approval bool) []chat.Event {
	evs := []chat.Event{
		{Type: chat.EventToolCallStart, ToolCallID: id, ToolName: "deleteFile"},
		{Type: chat.EventToolCallArgs, ToolCallID: id, Delta: `{"path":`},
		{Type: chat.EventToolCallArgs, ToolCallID: id, Delta: `"/x"}`},
		{Type: chat.EventToolCallEnd, ToolCallID: id},
	}
	if approval {
		evs = append(evs, chat.Event{Type: chat.EventApprovalRequested, ToolCallID: id, Approval: &chat.Approval{ID: "approval_" + id, Signature: "sig"}})
	}
	return evs
}

func turn(evs ...[]chat.Event) []chat.Event {
	out := []chat.Event{{Type: chat.EventMessageStart}}
	for _, e := range evs {
		out = append(out, e...)
	}
	return append(out, chat.Event{Type: chat.EventFinish, FinishReason: "tool-calls"})
}

func text(s string) []chat.Event { return []chat.Event{{Type: chat.EventTextDelta, Delta: s}} }

func result(id string) []chat.Event {
	return []chat.Event{{Type: chat.EventToolResult, ToolCallID: id, Output: json.RawMessage(`{"ok":true}`)}}
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func idle(t *testing.T, c *Client) State {
	t.Helper()
	st, err := c.WaitIdle(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func approvalShown(t *testing.T, c *Client, id string) {
	t.Helper()
	_, err := c.WaitFor(waitCtx(t), func(s State) bool {
		for _, m := range s.Messages {
			for _, p := range m.Parts {
				if p.ToolCallID == id && p.State == chat.ApprovalRequested {
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("approval for %s never shown: %v", id, err)
	}
}

// TestChainedApprovalRace reproduces seed 002: the second approval is given
// while the continuation stream is still open; the client must act on it
// when the stream ends.
func TestChainedApprovalRace(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int
	}{
		{"fixed client", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript()
			c := New(s)
			defer c.Close()
			s.add(turn(callEvents("A", true)), false)
			gate := s.add(turn(result("A"), callEvents("B", true)), true)
			s.add(turn(text("done")), false)

			if err := c.SendMessage("delete a then b"); err != nil {
				t.Fatal(err)
			}
			idle(t, c)
			if err := c.AddToolApprovalResponse("approval_A", true, ""); err != nil {
				t.Fatal(err)
			}
			approvalShown(t, c, "B") // stream 2 is open: its end is held
			if err := c.AddToolApprovalResponse("approval_B", true, ""); err != nil {
				t.Fatal(err)
			}
			if got := s.count(); got != 2 {
				t.Fatalf("requests while stream 2 is open = %d, want 2", got)
			}
			close(gate)
			st := idle(t, c)
			if got := s.count(); got != tc.want {
				t.Errorf("requests = %d, want %d", got, tc.want)
			}
			if tc.want == 3 {
				req := s.request(3)
				var b *chat.Part
				for _, m := range req.Messages {
					for i := range m.Parts {
						if m.Parts[i].ToolCallID == "B" {
							b = &m.Parts[i]
						}
					}
				}
				if b == nil || b.Approval == nil || b.Approval.Approved == nil || !*b.Approval.Approved || b.Approval.Signature != "sig" {
					t.Errorf("request 3 does not carry B's approval with its signature: %+v", b)
				}
				if st.Messages[len(st.Messages)-1].Parts[0].Text != "done" {
					t.Errorf("final message %+v", st.Messages[len(st.Messages)-1])
				}
			}
		})
	}
}

func TestContinuesOnceWhenAllAnswered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		after1 int
	}{
		{"clean", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript()
			c := New(s)
			defer c.Close()
			s.add(turn(callEvents("A", true), callEvents("B", true)), false)
			s.add(turn(text("ok")), false)
			s.add(turn(text("ok again")), false)
			if err := c.SendMessage("go"); err != nil {
				t.Fatal(err)
			}
			idle(t, c)
			if err := c.AddToolApprovalResponse("approval_A", true, ""); err != nil {
				t.Fatal(err)
			}
			idle(t, c)
			if got := s.count(); got != tc.after1 {
				t.Fatalf("requests after the first answer = %d, want %d", got, tc.after1)
			}
		})
	}
}

func TestClientToolBlocksContinuation(t *testing.T) {
	s := newScript()
	c := New(s)
	defer c.Close()
	s.add(turn(callEvents("A", true), callEvents("C", false)), false)
	s.add(turn(text("done")), false)
	if err := c.SendMessage("go"); err != nil {
		t.Fatal(err)
	}
	idle(t, c)
	if err := c.AddToolApprovalResponse("approval_A", false, "no"); err != nil {
		t.Fatal(err)
	}
	idle(t, c)
	if s.count() != 1 {
		t.Fatalf("continued while C waits for its output")
	}
	if err := c.AddToolOutput("C", json.RawMessage(`{"color":"red"}`)); err != nil {
		t.Fatal(err)
	}
	idle(t, c)
	if s.count() != 2 {
		t.Fatalf("requests = %d after the last output, want 2", s.count())
	}
	if err := c.AddToolOutput("C", json.RawMessage(`1`)); !errors.Is(err, ErrNotAwaitingOutput) {
		t.Errorf("a second output: got %v", err)
	}
}

func TestNewMessageWhilePending(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []Option
		refused bool
	}{
		{"deny pending", nil, false},
		{"refuse", []Option{WithPendingPolicy(RefusePending)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript()
			c := New(s, tc.opts...)
			defer c.Close()
			s.add(turn(callEvents("A", true)), false)
			s.add(turn(text("fine")), false)
			if err := c.SendMessage("go"); err != nil {
				t.Fatal(err)
			}
			idle(t, c)
			err := c.SendMessage("never mind")
			if tc.refused {
				if !errors.Is(err, ErrPendingApproval) {
					t.Fatalf("got %v, want a refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			idle(t, c)
			req := s.request(2)
			a := req.Messages[1].Parts[0].Approval
			if a == nil || a.Approved == nil || *a.Approved || a.Reason != PendingDenialReason {
				t.Errorf("request 2 does not deny A: %+v", a)
			}
		})
	}
}

func TestStatesNeverGoBackwards(t *testing.T) {
	s := newScript()
	c := New(s)
	defer c.Close()
	s.add(turn(callEvents("A", true)), false)
	// The continuation re-sends A (as TanStack AI 0.42 does) before its result.
	s.add(turn(callEvents("A", false), result("A"), text("done")), false)
	if err := c.SendMessage("go"); err != nil {
		t.Fatal(err)
	}
	idle(t, c)
	if err := c.AddToolApprovalResponse("approval_A", true, ""); err != nil {
		t.Fatal(err)
	}
	st := idle(t, c)
	var parts []chat.Part
	for _, m := range st.Messages {
		for _, p := range m.Parts {
			if p.ToolCallID == "A" {
				parts = append(parts, p)
			}
		}
	}
	if len(parts) != 1 {
		t.Fatalf("A appears %d times", len(parts))
	}
	want := []chat.ToolState{chat.AwaitingInput, chat.InputStreaming, chat.InputComplete, chat.ApprovalRequested, chat.ApprovalResponded, chat.OutputAvailable}
	if got := parts[0].History; len(got) != len(want) {
		t.Fatalf("history %v, want %v", got, want)
	} else {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("history %v, want %v", got, want)
			}
		}
	}
}

func TestAnswersAreChecked(t *testing.T) {
	s := newScript()
	c := New(s)
	defer c.Close()
	s.add(turn(callEvents("A", true)), false)
	if err := c.SendMessage("go"); err != nil {
		t.Fatal(err)
	}
	if err := c.SendMessage("again"); !errors.Is(err, ErrBusy) {
		t.Fatalf("a send while streaming: got %v", err)
	}
	idle(t, c)
	if err := c.AddToolApprovalResponse("approval_nope", true, ""); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("unknown approval: got %v", err)
	}
	s.add(turn(text("ok")), false)
	if err := c.AddToolApprovalResponse("approval_A", true, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.AddToolApprovalResponse("approval_A", false, ""); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("a second answer: got %v", err)
	}
	idle(t, c)
	c.Close()
	if err := c.SendMessage("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
