package httptarget

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

type client struct{ t *Target }

// NewSession implements target.Client (POST /v1/client/sessions).
func (c client) NewSession(ctx context.Context, cfg target.SessionConfig) (target.Session, error) {
	var created driver.SessionCreated
	if err := c.t.call(ctx, http.MethodPost, driver.PathSessions, &cfg, &created, driver.MsgSessionCreated); err != nil {
		return nil, err
	}
	if created.SessionID == "" {
		return nil, errors.New("http target: POST /v1/client/sessions: sessionId: missing")
	}
	return &session{t: c.t, path: driver.PathSessions + "/" + url.PathEscape(created.SessionID)}, nil
}

type session struct {
	t    *Target
	path string
}

func (s *session) action(ctx context.Context, verb string, body any) (*target.ActionResult, error) {
	var res target.ActionResult
	if err := s.t.call(ctx, http.MethodPost, s.path+"/"+verb, body, &res, driver.MsgActionResult); err != nil {
		return nil, err
	}
	return &res, nil
}

// Send implements target.Session.
func (s *session) Send(ctx context.Context, text string) (*target.ActionResult, error) {
	return s.action(ctx, "send", driver.SendRequest{Text: text})
}

// Approve implements target.Session.
func (s *session) Approve(ctx context.Context, a target.ApprovalAnswer) (*target.ActionResult, error) {
	return s.action(ctx, "approval", a)
}

// ToolOutput implements target.Session.
func (s *session) ToolOutput(ctx context.Context, id string, output json.RawMessage) (*target.ActionResult, error) {
	return s.action(ctx, "tool-output", driver.ToolOutputRequest{ToolCallID: id, Output: output})
}

// State implements target.Session.
func (s *session) State(ctx context.Context) (*target.ClientState, error) {
	var st target.ClientState
	if err := s.t.call(ctx, http.MethodGet, s.path+"/state", nil, &st, driver.MsgClientState); err != nil {
		return nil, err
	}
	return &st, nil
}

// longPoll is how long one wait request may be held by the target.
const longPoll = 5 * time.Second

// Wait implements target.Session with long polls: each asks the target to
// hold the request until the condition holds or a bound passes, and the
// next poll follows at once, until ctx ends.
func (s *session) Wait(ctx context.Context, until target.WaitCondition) (*target.ClientState, error) {
	for {
		bound := longPoll
		if dl, ok := ctx.Deadline(); ok {
			if left := time.Until(dl); left < bound {
				bound = left
			}
		}
		if bound <= 0 {
			st, _ := s.State(context.WithoutCancel(ctx))
			return st, context.DeadlineExceeded
		}
		var st target.ClientState
		pollCtx, cancel := context.WithTimeout(ctx, bound+s.t.timeout)
		err := s.t.call(pollCtx, http.MethodPost, s.path+"/wait", driver.WaitRequest{Until: until.Until, ToolCallID: until.ToolCallID, OrIdle: until.OrIdle, TimeoutMs: int(bound / time.Millisecond)}, &st, driver.MsgClientState)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		if until.Holds(&st) {
			return &st, nil
		}
		if err := ctx.Err(); err != nil {
			return &st, err
		}
	}
}

// Close implements target.Session (DELETE).
func (s *session) Close(ctx context.Context) error {
	return s.t.call(ctx, http.MethodDelete, s.path, nil, nil, "")
}
