// Package driver holds what both ends of driver protocol v1 share beyond
// the messages in package target: the paths, the session and callback
// bodies, the error envelope, and request-size limits.
package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/approval-conformance-kit/ack/limits"
)

// The endpoints of driver protocol v1.
const (
	PathInfo     = "/v1/info"
	PathTurn     = "/v1/agent/turn"
	PathSessions = "/v1/client/sessions"
	// PathChats opens the server role's chat endpoints (POST), and ends one
	// (DELETE PathChats/{chatId}).
	PathChats = "/v1/server/chats"
)

// ChatCreated answers POST /v1/server/chats: the chat's id and the URL of
// its chat endpoint.
type ChatCreated struct {
	ChatID  string `json:"chatId"`
	ChatURL string `json:"chatURL"`
}

// MaxBody is the default bound of a request or response body either end
// reads (limits.DefaultRequestBytes; servers and clients take their own).
const MaxBody = limits.DefaultRequestBytes

// SessionCreated answers POST /v1/client/sessions.
type SessionCreated struct {
	SessionID string `json:"sessionId"`
}

// SendRequest is the body of POST .../send.
type SendRequest struct {
	Text string `json:"text"`
}

// ToolOutputRequest is the body of POST .../tool-output.
type ToolOutputRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Output     json.RawMessage `json:"output"`
}

// WaitRequest is the body of POST .../wait: the condition, and how long the
// target may hold the request before answering with the state as it is.
type WaitRequest struct {
	Until      string `json:"until"`
	ToolCallID string `json:"toolCallId,omitempty"`
	OrIdle     bool   `json:"orIdle,omitempty"`
	TimeoutMs  int    `json:"timeoutMs"`
}

// ExecuteResult answers a tool callback: the output, or the tool's error.
type ExecuteResult struct {
	Output json.RawMessage `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// PolicyResult answers a dynamic policy callback.
type PolicyResult struct {
	NeedsApproval *bool  `json:"needsApproval,omitempty"`
	Error         string `json:"error,omitempty"`
	// Decision is an automatic decision (approved or denied), sent only to
	// targets that declare autoPolicies; Reason is a denial's reason.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Error is the envelope of a failed driver request (4xx/5xx).
type Error struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// WriteJSON writes v with a status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"Internal","message":"the answer does not encode"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError writes the error envelope.
func WriteError(w http.ResponseWriter, status int, code, format string, args ...any) {
	var e Error
	e.Error.Code, e.Error.Message = code, fmt.Sprintf(format, args...)
	WriteJSON(w, status, e)
}

// ReadJSON decodes a request body of at most limit bytes (MaxBody when
// 0) into v, refusing unknown fields; errors say what was wrong, and a body
// past the limit is a *limits.TooLarge (WriteReadError answers it 413).
func ReadJSON(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	if limit <= 0 {
		limit = MaxBody
	}
	body := limits.NewReader(r.Body, limit, "the request body", "max-request-bytes")
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, body.Err) {
			return body.Err
		}
		return fmt.Errorf("the request body: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("the request body: more than one JSON value")
	}
	return nil
}

// WriteReadError answers a request whose body ReadJSON refused: 413 for
// a body past its limit, 400 otherwise.
func WriteReadError(w http.ResponseWriter, err error) {
	var tooLarge *limits.TooLarge
	if errors.As(err, &tooLarge) {
		WriteError(w, http.StatusRequestEntityTooLarge, "TooLarge", "%v", err)
		return
	}
	WriteError(w, http.StatusBadRequest, "BadRequest", "%v", err)
}

// ReadBody reads a response body of at most limit bytes (MaxBody when 0);
// past it, the error is a *limits.TooLarge naming what was read.
func ReadBody(r io.Reader, limit int64, what string) ([]byte, error) {
	if limit <= 0 {
		limit = MaxBody
	}
	return io.ReadAll(limits.NewReader(r, limit, what, "max-reply-bytes"))
}

// Decode decodes a response body of at most MaxBody bytes, refusing
// trailing data; a body past the limit is a *limits.TooLarge.
func Decode(r io.Reader, v any) error {
	data, err := ReadBody(r, MaxBody, "the answer")
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}
