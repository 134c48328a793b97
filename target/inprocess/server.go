package inprocess

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/chatserver"
	"github.com/approval-conformance-kit/ack/target"
)

// Server implements target.ServerTarget: the reference chat server, with
// the conversation's reference agent behind it.
func (t *Target) Server() target.Server { return serverRole{t} }

type serverRole struct{ t *Target }

// NewChat implements target.Server: it serves the reference chat server on
// a loopback port of its own, for one conversation.
func (s serverRole) NewChat(_ context.Context, cfg target.ChatConfig) (target.Chat, error) {
	if cfg.Model.Local == nil {
		return nil, errors.New("in-process target: the chat has no in-process model")
	}
	if cfg.Harness == nil {
		return nil, errors.New("in-process target: the chat has no harness for its tools")
	}
	codec, err := protocols.LookupDialect(cfg.Protocol, cfg.Dialect)
	if err != nil {
		return nil, fmt.Errorf("in-process target: %w", err)
	}
	tools := []reference.Tool{}
	for _, spec := range cfg.Tools {
		tool, err := Tool(spec, cfg.Harness)
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	h := &chatserver.Server{Agent: s.t.agentFor(cfg.Conversation), Codec: codec, Model: cfg.Model.Local, Tools: tools, MaxSteps: cfg.Options.MaxSteps}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("in-process target: listen: %w", err)
	}
	c := &chatEndpoint{url: "http://" + ln.Addr().String() + "/chat", srv: &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout}}
	go func() { _ = c.srv.Serve(ln) }() // Serve returns when Close is called
	return c, nil
}

// readHeaderTimeout bounds the time a client takes to send headers.
const readHeaderTimeout = 10 * time.Second

// chatEndpoint is one chat endpoint on its own loopback server.
type chatEndpoint struct {
	url string
	srv *http.Server
}

func (c *chatEndpoint) URL() string { return c.url }

func (c *chatEndpoint) Close(context.Context) error { return c.srv.Close() }
