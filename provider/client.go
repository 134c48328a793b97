package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
)

// maxResponseBody bounds an error body.
const maxResponseBody = 16 << 20

// Client is an llm.Model that calls a provider endpoint over HTTP in its
// wire format.
type Client struct {
	// BaseURL is the API base ("http://127.0.0.1:8080/c/x/v1").
	BaseURL string
	// Codec is the wire format.
	Codec Codec
	// HTTP is the HTTP client; http.DefaultClient if nil. Streams last as
	// long as the server holds them, so it should not time out whole
	// requests; contexts bound the calls.
	HTTP *http.Client
	// Header is added to every request (an API key, say).
	Header http.Header
	// MaxReply bounds a reply, JSON or the whole of a stream, in bytes
	// (limits.DefaultReplyBytes when 0); past it the call fails with a
	// *limits.TooLarge.
	MaxReply int64
}

// reply bounds a reply body.
func (c *Client) reply(body io.Reader) io.Reader {
	limit := c.MaxReply
	if limit <= 0 {
		limit = limits.DefaultReplyBytes
	}
	return limits.NewReader(body, limit, "the model's reply", "max-reply-bytes")
}

// NewClient returns a client at baseURL of the model API named by api: a
// provider profile's wire format, or "canonical".
func NewClient(baseURL, api string) (*Client, error) {
	p, err := parseAPI(api)
	if err != nil {
		return nil, err
	}
	c, err := Lookup(p)
	if err != nil {
		return nil, err
	}
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Codec: c}, nil
}

func (c *Client) do(ctx context.Context, req *llm.Request, stream bool) (*http.Response, error) {
	body, err := c.Codec.EncodeRequest(req, stream)
	if err != nil {
		return nil, fmt.Errorf("%s client: encode the request: %w", c.Codec.Profile(), err)
	}
	url := c.BaseURL + c.Codec.Path()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", c.Codec.Profile(), err)
	}
	for k, vs := range c.Header {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	hreq.Header.Set("Content-Type", "application/json")
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("%s client: POST %s: %w", c.Codec.Profile(), url, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
		return nil, apiError(resp.StatusCode, data)
	}
	return resp, nil
}

// apiError reads an error envelope of either shape: OpenAI's
// {"error":{"message","type"}} or Anthropic's {"type":"error","error":{...}}.
func apiError(status int, body []byte) *llm.APIError {
	e := &llm.APIError{Status: status, Body: body, Message: strings.TrimSpace(string(body))}
	var env struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		e.Type, e.Message = env.Error.Type, env.Error.Message
	}
	return e
}

// Generate implements llm.Model.
func (c *Client) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := c.do(ctx, req, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(c.reply(resp.Body))
	if err != nil {
		return nil, fmt.Errorf("%s client: read the reply: %w", c.Codec.Profile(), err)
	}
	out, err := c.Codec.DecodeResponse(data)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", c.Codec.Profile(), err)
	}
	return out, nil
}

// Stream implements llm.Model.
func (c *Client) Stream(ctx context.Context, req *llm.Request, yield func(llm.StreamEvent) error) error {
	resp, err := c.do(ctx, req, true)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	finished := false
	err = c.Codec.ReadStream(ctx, c.reply(resp.Body), func(ev llm.StreamEvent) error {
		if ev.Type == llm.StreamFinish {
			finished = true
		}
		return yield(ev)
	})
	if err != nil {
		return fmt.Errorf("%s client: %w", c.Codec.Profile(), err)
	}
	if !finished {
		return fmt.Errorf("%s client: the stream ended without a finish", c.Codec.Profile())
	}
	return nil
}
