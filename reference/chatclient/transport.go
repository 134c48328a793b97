package chatclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/approval-conformance-kit/ack/chat"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// HTTPTransport posts requests to a chat endpoint in a wire protocol and
// reads the response stream. It hands every event to the client as it
// arrives, approval requests included; it filters nothing.
type HTTPTransport struct {
	// URL is the chat endpoint.
	URL string
	// Codec is the wire protocol.
	Codec chat.Codec
	// Client is the HTTP client; http.DefaultClient if nil. It must not time
	// out whole requests: a stream lasts as long as the server holds it.
	Client *http.Client
}

// Stream implements Transport.
func (t *HTTPTransport) Stream(ctx context.Context, req *chat.Request, yield func(chat.Event) error) error {
	body, err := t.Codec.EncodeRequest(req)
	if err != nil {
		return fmt.Errorf("chat client: encode request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("chat client: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	client := t.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return fmt.Errorf("chat client: POST %s: %w", t.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return fmt.Errorf("chat client: POST %s: HTTP %d: %s", t.URL, resp.StatusCode, bytes.TrimSpace(msg))
	}
	if err := t.Codec.ReadEvents(ctx, resp.Body, yield); err != nil {
		return fmt.Errorf("chat client: reading the %s stream: %w", t.Codec.Name(), err)
	}
	return nil
}
