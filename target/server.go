package target

import "context"

// RoleServer is the server role: the implementation's chat endpoint, with
// its agent behind it. The harness plays a conforming chat client against
// it; the agent calls the harness's simulated model and runs the tools
// through the harness, as in the agent role.
const RoleServer = "server"

// Server is the server role: it opens chat endpoints.
type Server interface {
	// NewChat opens a chat endpoint for one conversation.
	NewChat(ctx context.Context, cfg ChatConfig) (Chat, error)
}

// ServerTarget is a target that plays the server role. It is an interface
// of its own, beside Target, so that targets written before the role keep
// compiling: ServerOf finds it.
type ServerTarget interface {
	// Server returns the server role, or nil if the target does not play it.
	Server() Server
}

// ServerOf returns the target's server role, or nil.
func ServerOf(t Target) Server {
	if s, ok := t.(ServerTarget); ok {
		return s.Server()
	}
	return nil
}

// ChatConfig opens a chat endpoint (POST /v1/server/chats): the protocol
// the harness's client speaks, and for the agent behind the endpoint the
// model, the tools and the options, as a turn of the agent role gives them.
type ChatConfig struct {
	// Conversation names the conversation (one per scenario).
	Conversation string `json:"conversation,omitempty"`
	// Protocol is the chat protocol: ag-ui, ag-ui-legacy or
	// ui-message-stream (one of Features.ServerProtocols).
	Protocol string `json:"protocol"`
	// Dialect is the protocol's dialect (Features.ServerDialects), or
	// empty for the protocol's default.
	Dialect string        `json:"dialect,omitempty"`
	Model   ModelEndpoint `json:"model"`
	Tools   []Tool        `json:"tools"`
	Options Options       `json:"options"`
	// Harness runs tools and policies for in-process targets.
	Harness Harness `json:"-"`
}

// Chat is an open chat endpoint.
type Chat interface {
	// URL is where the harness's client posts its requests.
	URL() string
	// Close ends the endpoint (DELETE /v1/server/chats/{chatId}).
	Close(ctx context.Context) error
}
