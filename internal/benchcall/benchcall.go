// Package benchcall is the model call the HTTP benchmarks make, Go's and
// the peers' alike: an approval conversation's second call (a call, its
// approval, its result) and the scripted reply to it, and a handler that
// serves it from the simulator, one short conversation after another.
package benchcall

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

// Prompt is the prompt of every benchmarked call.
var Prompt = []model.Message{
	model.SystemText("be careful"),
	model.UserText("delete a and b"),
	{Role: model.RoleAssistant, Content: []model.Part{
		model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
		model.ApprovalRequest("appr_1", "call_1"),
	}},
	{Role: model.RoleTool, Content: []model.Part{
		model.ApprovalResponse("appr_1", true, ""),
		model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":"/a"}`))),
	}},
}

// Request is the benchmarked request: the prompt and its tool.
func Request() *llm.Request {
	return &llm.Request{Messages: Prompt, Tools: []llm.ToolDef{{Name: "deleteFile", InputSchema: json.RawMessage(`{"type":"object"}`)}}}
}

// Reply is the scripted reply to every call.
var Reply = simulator.Reply{Text: "Deleted a; deleting b.", ToolCalls: []simulator.ToolCall{
	{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)}}}

// TurnsPerConversation is how many calls one simulated conversation
// answers before the next begins: a scenario makes a few, and a journal of
// millions would measure the journal.
const TurnsPerConversation = 64

// Simulator serves the call from a simhttp server under <its URL>/v1/...,
// in a new conversation every TurnsPerConversation calls. Close it with
// the server it returns.
func Simulator(profile wire.Profile) (http.Handler, *simhttp.Server, error) {
	srv, err := simhttp.NewServer()
	if err != nil {
		return nil, nil, err
	}
	r := &rotating{srv: srv, profile: profile}
	return r, srv, nil
}

type rotating struct {
	srv     *simhttp.Server
	profile wire.Profile
	mu      sync.Mutex
	n, left int
}

func (r *rotating) conversation() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left == 0 {
		turns := make([]simulator.Turn, TurnsPerConversation)
		for i := range turns {
			turns[i] = simulator.Turn{Reply: Reply}
		}
		sim, err := simulator.New(simulator.Script{Provider: r.profile, Turns: turns})
		if err != nil {
			return "", err
		}
		if r.n > 0 {
			r.srv.Remove(fmt.Sprint(r.n))
		}
		r.n++
		if _, err := r.srv.Add(fmt.Sprint(r.n), sim); err != nil {
			return "", err
		}
		r.left = TurnsPerConversation
	}
	r.left--
	return fmt.Sprint(r.n), nil
}

// ServeHTTP hands /v1/<endpoint> to the current conversation.
func (r *rotating) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	name, err := r.conversation()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.URL.Path = "/c/" + name + "/v1" + strings.TrimPrefix(req.URL.Path, "/v1")
	r.srv.ServeHTTP(w, req)
}
