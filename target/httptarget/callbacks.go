package httptarget

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

// callbacks is the loopback server the target's tools and dynamic policies
// call: each turn's harness is registered under a fresh token for as long
// as the turn runs.
type callbacks struct {
	url          string
	srv          *http.Server
	done         chan struct{}
	requestBytes int64

	mu    sync.Mutex
	turns map[string]target.Harness
}

func startCallbacks(addr string, lim limits.Limits) (*callbacks, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http target: callback server: %w", err)
	}
	cb := &callbacks{url: "http://" + l.Addr().String(), done: make(chan struct{}), turns: map[string]target.Harness{}, requestBytes: lim.RequestBytes}
	cb.srv = lim.Server(cb, func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		driver.WriteError(w, status, refusalCode(status), "%s", msg)
	})
	go func() {
		defer close(cb.done)
		_ = cb.srv.Serve(l) // ends on Close
	}()
	return cb, nil
}

func (cb *callbacks) close() error {
	err := cb.srv.Close()
	<-cb.done
	return err
}

// register fills the tools' callback URLs for a harness; release ends it.
func (cb *callbacks) register(h target.Harness, tools []target.Tool) (release func()) {
	token := uuid.NewString()
	cb.mu.Lock()
	cb.turns[token] = h
	cb.mu.Unlock()
	for i := range tools {
		base := cb.url + "/v1/cb/" + token
		name := url.PathEscape(tools[i].Name)
		tools[i].ExecuteURL = base + "/execute/" + name
		if tools[i].Approval == target.ApprovalDynamic {
			tools[i].PolicyURL = base + "/policy/" + name
		}
	}
	return func() {
		cb.mu.Lock()
		delete(cb.turns, token)
		cb.mu.Unlock()
	}
}

// callbackRequest is the body of a tool or policy callback.
type callbackRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Input      json.RawMessage `json:"input"`
	Messages   json.RawMessage `json:"messages,omitempty"`
}

func (cb *callbacks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The escaped path, so that a tool name may hold any character.
	path := r.URL.EscapedPath()
	parts := strings.Split(strings.TrimPrefix(path, "/v1/cb/"), "/")
	if r.Method != http.MethodPost || len(parts) != 3 || !strings.HasPrefix(path, "/v1/cb/") {
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no callback %s %s", r.Method, r.URL.Path)
		return
	}
	token, kind := parts[0], parts[1]
	tool, err := url.PathUnescape(parts[2])
	if err != nil {
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no callback %s %s", r.Method, r.URL.Path)
		return
	}
	cb.mu.Lock()
	h := cb.turns[token]
	cb.mu.Unlock()
	if h == nil {
		driver.WriteError(w, http.StatusGone, "TurnOver", "the turn of this callback is over (or never was)")
		return
	}
	var req callbackRequest
	if err := driver.ReadJSON(w, r, &req, cb.requestBytes); err != nil {
		driver.WriteReadError(w, err)
		return
	}
	if req.ToolCallID == "" && kind != "policy" {
		// A policy may be asked without the call's id, by an SDK whose
		// policy functions are not given it: REQ-04 judges that.
		driver.WriteError(w, http.StatusBadRequest, "BadRequest", "toolCallId: missing")
		return
	}
	input := req.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	ctx := context.WithoutCancel(r.Context())
	switch kind {
	case "execute":
		out, err := h.Execute(ctx, target.ExecuteRequest{ToolName: tool, ToolCallID: req.ToolCallID, Input: input})
		if err != nil {
			driver.WriteJSON(w, http.StatusOK, driver.ExecuteResult{Error: err.Error()})
			return
		}
		if len(out) == 0 {
			out = json.RawMessage("null") // an answer always holds output or error
		}
		driver.WriteJSON(w, http.StatusOK, driver.ExecuteResult{Output: out})
	case "policy":
		var msgs []model.Message
		if len(req.Messages) > 0 {
			decoded, err := model.DecodeMessages(req.Messages)
			if err != nil {
				driver.WriteError(w, http.StatusBadRequest, "BadRequest", "messages: %v", err)
				return
			}
			msgs = decoded
		}
		preq := target.PolicyRequest{ToolName: tool, ToolCallID: req.ToolCallID, Input: input, Messages: msgs}
		var auto *target.PolicyDecision
		needs, err := crashing(func() (bool, error) {
			if d, ok := h.(target.Decider); ok {
				dec, err := d.Decide(ctx, preq)
				if err == nil && (dec.Decision == target.DecisionApproved || dec.Decision == target.DecisionDenied) {
					auto = &dec
				}
				return dec.NeedsApproval(), err
			}
			return h.Policy(ctx, preq)
		})
		if err != nil {
			driver.WriteJSON(w, http.StatusOK, driver.PolicyResult{Error: err.Error()})
			return
		}
		if auto != nil {
			// An automatic decision is answered as one; the scenarios that
			// make one need a target that declares autoPolicies.
			driver.WriteJSON(w, http.StatusOK, driver.PolicyResult{Decision: auto.Decision, Reason: auto.Reason})
			return
		}
		driver.WriteJSON(w, http.StatusOK, driver.PolicyResult{NeedsApproval: &needs})
	default:
		driver.WriteError(w, http.StatusNotFound, "NotFound", "no callback kind %q", kind)
	}
}

// crashing runs a harness policy; a policy that panics (a scenario's
// crashing policy backend) drops the callback's connection, as a crashed
// backend would, instead of answering.
func crashing(fn func() (bool, error)) (needs bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			panic(http.ErrAbortHandler) // net/http closes the connection quietly
		}
	}()
	return fn()
}

// refusalCode is the driver protocol's error code of a callback its
// server's bounds refused.
func refusalCode(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "TooLarge"
	}
	return "Busy"
}
