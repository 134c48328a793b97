// Package driver holds what both ends of driver protocol v1 share beyond
// the messages in package target: the paths, the session and callback
// bodies, the error envelope, and request-size limits.
package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// The endpoints of driver protocol v1.
const (
	PathInfo     = "/v1/info"
	PathTurn     = "/v1/agent/turn"
	PathSessions = "/v1/client/sessions"
)

// MaxBody bounds a request or response body either end reads.
const MaxBody = 16 << 20

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

// ReadJSON decodes a size-limited body into v, refusing unknown fields;
// errors say what was wrong.
func ReadJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the request body: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("the request body: more than one JSON value")
	}
	return nil
}

// Decode decodes a response body (size-limited), refusing trailing data.
func Decode(r io.Reader, v any) error {
	dec := json.NewDecoder(io.LimitReader(r, MaxBody))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}
