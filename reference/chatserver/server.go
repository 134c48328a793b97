// Package chatserver is the reference chat server: the reference agent
// runtime behind a chat endpoint, speaking a chat protocol (AG-UI or the UI
// message stream), so the reference client and server run end to end over
// real HTTP.
//
// Each request carries the whole conversation as UI messages; the server
// turns it into the canonical model (tool calls, approval requests with
// their signatures, approval answers, results), runs one turn in stream
// mode, and streams the turn's events back in the protocol.
package chatserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
)

// MaxRequestBody bounds a request body.
const MaxRequestBody = 4 << 20

// Server is an http.Handler serving one chat endpoint.
type Server struct {
	Agent *reference.Agent
	Codec chat.Codec
	// Model is the model each turn calls.
	Model llm.Model
	// Tools is the toolkit.
	Tools []reference.Tool
	// MaxSteps bounds the model calls of a turn (the agent's default if 0).
	MaxSteps int
}

// ServeHTTP runs one turn for the request and streams it back.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "chat server: only POST is served", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
	if err != nil {
		http.Error(w, "chat server: reading the body: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	req, err := s.Codec.DecodeRequest(body)
	if err != nil {
		http.Error(w, fmt.Sprintf("chat server: the %s request does not decode: %v", s.Codec.Name(), err), http.StatusBadRequest)
		return
	}
	history, err := ToModelMessages(req)
	if err != nil {
		http.Error(w, "chat server: "+err.Error(), http.StatusBadRequest)
		return
	}
	for k, v := range s.Codec.ResponseHeaders() {
		w.Header().Set(k, v)
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	ew := s.Codec.NewWriter(w, func() {
		if flusher != nil {
			flusher.Flush()
		}
	}, req)
	s.stream(r.Context(), history, ew)
	_ = ew.Close() // the client may be gone
}

// stream runs the turn and writes its events.
func (s *Server) stream(ctx context.Context, history []model.Message, ew chat.EventWriter) {
	tr := &translator{w: ew, messageID: "msg-" + uuid.NewString(), calls: map[string]*model.Part{}}
	if tr.err = ew.Write(chat.Event{Type: chat.EventRunStarted}); tr.err != nil {
		return
	}
	_, err := s.Agent.Stream(ctx, reference.Turn{Model: s.Model, Tools: s.Tools, Messages: history, MaxSteps: s.MaxSteps}, tr.write)
	if err != nil && tr.err == nil && !tr.failed {
		_ = ew.Write(chat.Event{Type: chat.EventError, ErrorText: err.Error()}) // best effort; the stream is ending
	}
}

// InterruptID is the AG-UI interrupt id the server gives an approval
// request: an id of its own, distinct from the approval id, so that a
// client resuming the approval id instead of the interrupt it was sent is
// seen (the server still reads a resume entry naming the approval id).
func InterruptID(approvalID string) string { return "interrupt-" + approvalID }

// translator turns canonical stream events into chat events.
type translator struct {
	w         chat.EventWriter
	messageID string
	started   bool
	failed    bool
	err       error
	// calls remembers each call of the turn, so an approval request can name
	// its tool and input (AG-UI interrupts carry them).
	calls map[string]*model.Part
}

func (t *translator) send(ev chat.Event) error {
	if t.err != nil {
		return t.err
	}
	t.err = t.w.Write(ev)
	return t.err
}

func (t *translator) start() error {
	if t.started {
		return nil
	}
	t.started = true
	return t.send(chat.Event{Type: chat.EventMessageStart, MessageID: t.messageID})
}

func (t *translator) write(ev model.Event) error {
	switch ev.Type {
	case model.EventTextDelta:
		if err := t.start(); err != nil {
			return err
		}
		return t.send(chat.Event{Type: chat.EventTextDelta, MessageID: t.messageID, Delta: ev.Text})
	case model.EventToolCall:
		p := ev.Part
		t.calls[p.ToolCallID] = p
		if err := t.start(); err != nil {
			return err
		}
		if err := t.send(chat.Event{Type: chat.EventToolCallStart, ToolCallID: p.ToolCallID, ToolName: p.ToolName, MessageID: t.messageID}); err != nil {
			return err
		}
		if err := t.send(chat.Event{Type: chat.EventToolCallArgs, ToolCallID: p.ToolCallID, Delta: string(p.Input)}); err != nil {
			return err
		}
		return t.send(chat.Event{Type: chat.EventToolCallEnd, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Input: p.Input})
	case model.EventToolApprovalRequest:
		p := ev.Part
		ev := chat.Event{Type: chat.EventApprovalRequested, ToolCallID: p.ToolCallID,
			Approval: &chat.Approval{ID: p.ApprovalID, Signature: p.Signature, InterruptID: InterruptID(p.ApprovalID)}}
		if call := t.calls[p.ToolCallID]; call != nil {
			ev.ToolName, ev.Input = call.ToolName, call.Input
		}
		return t.send(ev)
	case model.EventToolResult:
		p := ev.Part
		out := p.Output
		switch {
		case out == nil:
			return nil
		case out.Type == model.OutputExecutionDenied:
			return t.send(chat.Event{Type: chat.EventToolDenied, ToolCallID: p.ToolCallID, ToolName: p.ToolName})
		case out.IsFailure():
			text := out.TextValue()
			if text == "" {
				text = string(out.Value)
			}
			return t.send(chat.Event{Type: chat.EventToolError, ToolCallID: p.ToolCallID, ToolName: p.ToolName, ErrorText: text})
		default:
			value := out.Value
			if out.Type == model.OutputText {
				value, _ = json.Marshal(out.TextValue()) // a string always marshals
			}
			return t.send(chat.Event{Type: chat.EventToolResult, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Output: value})
		}
	case model.EventFinish:
		return t.send(chat.Event{Type: chat.EventFinish, FinishReason: ev.FinishReason})
	case model.EventError:
		t.failed = true
		return t.send(chat.Event{Type: chat.EventError, ErrorText: ev.Message})
	}
	return nil
}
