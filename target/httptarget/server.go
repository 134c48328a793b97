package httptarget

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"

	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

// Server implements target.ServerTarget.
func (t *Target) Server() target.Server {
	if !t.plays(target.RoleServer) {
		return nil
	}
	return server{t}
}

type server struct{ t *Target }

// NewChat implements target.Server (POST /v1/server/chats). The harness's
// tools and policies are served on the callback server until the chat is
// closed.
func (s server) NewChat(ctx context.Context, cfg target.ChatConfig) (target.Chat, error) {
	if cfg.Model.BaseURL == "" {
		return nil, errors.New("http target: the chat has no model URL (the simulator must be served over HTTP)")
	}
	wire := cfg
	wire.Tools = append([]target.Tool(nil), cfg.Tools...)
	release := func() {}
	if cfg.Harness != nil {
		release = s.t.cb.register(cfg.Harness, wire.Tools)
	}
	var created driver.ChatCreated
	if err := s.t.call(ctx, http.MethodPost, driver.PathChats, &wire, &created, driver.MsgChatCreated); err != nil {
		release()
		return nil, err
	}
	return &chatEndpoint{t: s.t, url: created.ChatURL, path: driver.PathChats + "/" + url.PathEscape(created.ChatID), release: release}, nil
}

type chatEndpoint struct {
	t       *Target
	url     string
	path    string
	once    sync.Once
	release func()
}

func (c *chatEndpoint) URL() string { return c.url }

// Close implements target.Chat (DELETE /v1/server/chats/{chatId}).
func (c *chatEndpoint) Close(ctx context.Context) error {
	defer c.once.Do(c.release)
	return c.t.call(ctx, http.MethodDelete, c.path, nil, nil, "")
}
