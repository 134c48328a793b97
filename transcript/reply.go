package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// ReplyOf turns a model's reply into the simulator's script form, so that a
// recorded reply can be played again.
func ReplyOf(resp *llm.Response) simulator.Reply {
	r := simulator.Reply{FinishReason: resp.FinishReason, Usage: resp.Usage}
	for _, p := range resp.Content {
		switch p.Type {
		case model.PartText:
			r.Text += p.Text
		case model.PartToolCall:
			r.ToolCalls = append(r.ToolCalls, simulator.ToolCall{ID: p.ToolCallID, Name: p.ToolName, Input: p.Input, ProviderExecuted: p.ProviderExecuted})
		case model.PartToolApprovalRequest:
			for i := range r.ToolCalls {
				if r.ToolCalls[i].ID == p.ToolCallID && r.ToolCalls[i].ProviderExecuted {
					r.ToolCalls[i].ApprovalID = p.ApprovalID
				}
			}
		case model.PartToolResult:
			if p.ProviderExecuted && p.Output != nil {
				r.ProviderResults = append(r.ProviderResults, simulator.ProviderResult{ToolCallID: p.ToolCallID, Name: p.ToolName, Output: p.Output.Value})
			}
		}
	}
	return r
}

// DecodeReply reads a recorded reply body of a model API (a provider
// profile, or provider.Canonical): a whole JSON reply, or, when stream is
// set, its server-sent events.
func DecodeReply(api wire.Profile, body []byte, stream bool) (*llm.Response, error) {
	if !stream {
		codec, err := provider.Lookup(api)
		if err != nil {
			return nil, err
		}
		return codec.DecodeResponse(body)
	}
	return DecodeReplyFrom(api, bytes.NewReader(body), true)
}

// DecodeReplyFrom is DecodeReply of a body read from r: a stream is read
// event by event, so that what it holds is the reply, not the stream.
func DecodeReplyFrom(api wire.Profile, r io.Reader, stream bool) (*llm.Response, error) {
	codec, err := provider.Lookup(api)
	if err != nil {
		return nil, err
	}
	if !stream {
		body, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return codec.DecodeResponse(body)
	}
	return llm.Collect(context.Background(), recorded{codec, r}, nil)
}

// recorded is a model whose stream is a recorded one, read once.
type recorded struct {
	codec provider.Codec
	body  io.Reader
}

func (r recorded) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	return nil, errors.New("a recorded stream is only read as a stream")
}

func (r recorded) Stream(ctx context.Context, _ *llm.Request, yield func(llm.StreamEvent) error) error {
	if err := r.codec.ReadStream(ctx, r.body, yield); err != nil {
		return fmt.Errorf("the recorded %s stream: %w", r.codec.Profile(), err)
	}
	return nil
}
