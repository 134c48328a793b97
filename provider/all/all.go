// Package all registers every provider wire format and makes model clients
// for a driver-protocol model endpoint.
package all

import (
	"errors"
	"net/http"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/target"

	// The wire formats register themselves.
	_ "github.com/approval-conformance-kit/ack/provider/anthropic"
	_ "github.com/approval-conformance-kit/ack/provider/canonical"
	_ "github.com/approval-conformance-kit/ack/provider/openaichat"
	_ "github.com/approval-conformance-kit/ack/provider/openairesponses"
)

// streaming is the HTTP client of model calls: no overall timeout, since a
// stream lasts as long as the server holds it; contexts bound the calls.
var streaming = &http.Client{}

// Models is a driverserver.ModelFactory: an HTTP client of the endpoint's
// model API (a provider wire format, or canonical) at its base URL, whose
// replies are bounded by limits.DefaultReplyBytes.
func Models(ep target.ModelEndpoint) (llm.Model, error) { return ModelsWithin(0)(ep) }

// ModelsWithin is Models with replies bounded by maxReply bytes (the
// default when 0): a reply, JSON or streamed, past it fails the call.
func ModelsWithin(maxReply int64) func(target.ModelEndpoint) (llm.Model, error) {
	return func(ep target.ModelEndpoint) (llm.Model, error) {
		if ep.BaseURL == "" {
			return nil, errors.New("the model endpoint has no baseURL")
		}
		c, err := provider.NewClient(ep.BaseURL, ep.API)
		if err != nil {
			return nil, err
		}
		c.HTTP = streaming
		c.MaxReply = maxReply
		return c, nil
	}
}
