package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/reference/chatclient"
	"github.com/approval-conformance-kit/ack/target"
)

// clientRole opens sessions of the reference chat client.
type clientRole struct{ t *Target }

// NewSession implements target.Client.
func (c clientRole) NewSession(_ context.Context, cfg target.SessionConfig) (target.Session, error) {
	codec, err := protocols.LookupDialect(cfg.Protocol, cfg.Dialect)
	if err != nil {
		return nil, fmt.Errorf("in-process client: %w", err)
	}
	if cfg.ChatURL == "" {
		return nil, errors.New("in-process client: the session has no chat URL")
	}
	tr := &chatclient.HTTPTransport{URL: cfg.ChatURL, Codec: codec, Client: c.t.http}
	return &session{client: chatclient.New(recovering{tr}, c.t.clientOpts...)}, nil
}

// recovering is a transport that turns a panic of the client while it
// applies an event into the stream's error, as a browser's chat hook turns
// a throw in its stream handler into its error state: the client stops
// reading that stream, and the scenario judges what it shows, instead of
// the panic ending the whole run.
type recovering struct{ chatclient.Transport }

// Stream implements chatclient.Transport.
func (r recovering) Stream(ctx context.Context, req *chat.Request, yield func(chat.Event) error) error {
	return r.Transport.Stream(ctx, req, func(ev chat.Event) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("the chat client panicked on a %s event: %v", ev.Type, p)
			}
		}()
		return yield(ev)
	})
}

// session adapts a chatclient.Client to target.Session.
type session struct {
	client *chatclient.Client
	once   sync.Once
}

func result(err error) (*target.ActionResult, error) {
	if err != nil {
		return &target.ActionResult{Refused: true, Error: err.Error()}, nil
	}
	return &target.ActionResult{}, nil
}

func (s *session) Send(_ context.Context, text string) (*target.ActionResult, error) {
	return result(s.client.SendMessage(text))
}

func (s *session) Approve(_ context.Context, a target.ApprovalAnswer) (*target.ActionResult, error) {
	return result(s.client.AddToolApprovalResponse(a.ApprovalID, a.Approved, a.Reason))
}

func (s *session) ToolOutput(_ context.Context, id string, output json.RawMessage) (*target.ActionResult, error) {
	return result(s.client.AddToolOutput(id, output))
}

func (s *session) State(context.Context) (*target.ClientState, error) {
	return toState(s.client.State()), nil
}

func (s *session) Wait(ctx context.Context, until target.WaitCondition) (*target.ClientState, error) {
	st, err := s.client.WaitFor(ctx, func(st chatclient.State) bool { return until.Holds(toState(st)) })
	return toState(st), err
}

func (s *session) Close(context.Context) error {
	s.once.Do(s.client.Close)
	return nil
}

func toState(st chatclient.State) *target.ClientState {
	return &target.ClientState{Busy: st.Busy, Messages: st.Messages, Error: st.Error}
}

// streamingClient is an HTTP client for chat streams: no overall timeout,
// since a stream lasts as long as the server holds it.
var streamingClient = &http.Client{}
