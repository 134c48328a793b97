package driverserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/chatsim"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// sims is a model factory that maps a model base URL to an in-process
// simulator: the driver server needs no provider client to be tested.
type sims struct {
	mu sync.Mutex
	m  map[string]*simulator.Model
}

func (s *sims) add(t *testing.T, script simulator.Script) (string, *simulator.Model) {
	t.Helper()
	sim, err := simulator.New(script)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*simulator.Model{}
	}
	url := fmt.Sprintf("http://sim.invalid/%d/v1", len(s.m))
	s.m[url] = sim
	return url, sim
}

func (s *sims) model(ep target.ModelEndpoint) (llm.Model, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sim := s.m[ep.BaseURL]; sim != nil {
		return sim, nil
	}
	return nil, fmt.Errorf("no simulator at %q", ep.BaseURL)
}

// counter is the harness of a turn: it counts tool runs per tool and
// decides the dynamic policy from the input.
type counter struct {
	mu       sync.Mutex
	runs     map[string]int
	policies []target.PolicyRequest
}

func (c *counter) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]int{}
	}
	c.runs[req.ToolName]++
	return json.RawMessage(`{"done":"` + req.ToolCallID + `"}`), nil
}

func (c *counter) Policy(_ context.Context, req target.PolicyRequest) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.policies = append(c.policies, req)
	return strings.Contains(string(req.Input), "/etc"), nil
}

func (c *counter) snapshot() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	runs := map[string]int{}
	for k, v := range c.runs {
		runs[k] = v
	}
	return runs, len(c.policies)
}

// pair is the reference behind a driver server, driven by an HTTP target.
func pair(t *testing.T, factory driverserver.ModelFactory) (*httptarget.Target, *driverserver.Server) {
	t.Helper()
	srv, err := driverserver.NewServer(inprocess.New(reference.New(), "reference"), factory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ht.Close() })
	return ht, srv
}

var tools = []target.Tool{
	{Name: "readFile", Approval: target.ApprovalNever, InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "deleteFile", Approval: target.ApprovalAlways, InputSchema: json.RawMessage(`{"type":"object"}`)},
	{Name: "chmod", Approval: target.ApprovalDynamic, InputSchema: json.RawMessage(`{"type":"object"}`)},
}

func encode(t *testing.T, msgs []model.Message) json.RawMessage {
	t.Helper()
	b, err := model.EncodeMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Two turns of the reference over the protocol, its model in-process: the
// first runs the tool that needs no approval through executeURL, asks the
// dynamic policy through policyURL, and ends with two approval requests; the
// second, with one approval and one denial, runs the approved tool once
// before the model is called again.
func TestApprovalRoundTrip(t *testing.T) {
	for _, mode := range []target.Mode{target.Generate, target.Stream} {
		t.Run(string(mode), func(t *testing.T) {
			models := &sims{}
			ht, _ := pair(t, models.model)
			base, sim := models.add(t, simulator.Script{Turns: []simulator.Turn{
				{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{
					{ID: "r1", Name: "readFile", Input: json.RawMessage(`{"path":"/a"}`)},
					{ID: "d1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
					{ID: "k1", Name: "chmod", Input: json.RawMessage(`{"path":"/etc/passwd"}`)},
					{ID: "k2", Name: "chmod", Input: json.RawMessage(`{"path":"/tmp/x"}`)},
				}}},
				{Expect: &simulator.Expect{Results: []simulator.ResultExpect{
					{ToolCallID: "r1", Type: "json"}, {ToolCallID: "d1", Type: "json"},
					{ToolCallID: "k1", Type: "execution-denied"}, {ToolCallID: "k2", Type: "json"},
				}}, Reply: simulator.Reply{Text: "done"}},
			}})
			h := &counter{}
			history := []model.Message{model.UserText("tidy up")}
			req := &target.TurnRequest{Mode: mode, Model: target.ModelEndpoint{BaseURL: base, API: "openai-chat"}, Tools: tools,
				Toolkit: target.ToolkitProvided, Messages: encode(t, history), Harness: h}
			ctx := context.Background()
			resp, err := ht.Agent().Turn(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error != nil {
				t.Fatalf("turn 1: %+v", resp.Error)
			}
			if runs, asked := h.snapshot(); runs["readFile"] != 1 || runs["deleteFile"] != 0 || runs["chmod"] != 1 || asked != 2 {
				t.Fatalf("turn 1: runs %v, policy asked %d times; want readFile and chmod(k2) run once, policy asked twice", runs, asked)
			}
			h.mu.Lock()
			for _, p := range h.policies {
				if p.ToolName != "chmod" || len(p.Messages) == 0 || !bytes.Contains(p.Input, []byte("path")) {
					t.Errorf("policy callback lost its body: %+v", p)
				}
			}
			h.mu.Unlock()
			if mode == target.Stream && len(resp.Events) == 0 {
				t.Error("a stream turn came back without its events")
			}
			ix := model.IndexOf(resp.Messages)
			rd, ok1 := ix.RequestForCall("d1")
			rk, ok2 := ix.RequestForCall("k1")
			if !ok1 || !ok2 || resp.FinishReason == "" {
				t.Fatalf("turn 1: want approval requests for d1 and k1, got %+v (finish %q)", resp.Messages, resp.FinishReason)
			}
			if _, ok := ix.RequestForCall("k2"); ok {
				t.Error("the dynamic policy said no approval for k2, yet it was asked")
			}

			history = append(history, resp.Messages...)
			history = append(history, model.Message{Role: model.RoleTool, Content: []model.Part{
				model.ApprovalResponse(rd.ApprovalID, true, ""),
				model.ApprovalResponse(rk.ApprovalID, false, "not /etc"),
			}})
			req.Messages = encode(t, history)
			resp, err = ht.Agent().Turn(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error != nil || resp.FinishReason != "stop" {
				t.Fatalf("turn 2: %+v, finish %q", resp.Error, resp.FinishReason)
			}
			if runs, _ := h.snapshot(); runs["deleteFile"] != 1 || runs["readFile"] != 1 || runs["chmod"] != 1 {
				t.Fatalf("turn 2: runs %v; want the approved deleteFile once, nothing else again", runs)
			}
			if p := sim.Problems(); len(p) > 0 {
				t.Errorf("simulator problems: %v", p)
			}
		})
	}
}

// A turn error keeps its code, message and SDK error across the wire.
func TestModelErrorPassesThrough(t *testing.T) {
	models := &sims{}
	ht, _ := pair(t, models.model)
	base, _ := models.add(t, simulator.Script{Turns: []simulator.Turn{
		{Reply: simulator.Reply{Error: &simulator.ErrorReply{Status: 503, Type: "overloaded", Message: "try later"}}},
	}})
	resp, err := ht.Agent().Turn(context.Background(), &target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{BaseURL: base, API: "openai-chat"},
		Toolkit: target.ToolkitProvided, Tools: tools[:1], Messages: encode(t, []model.Message{model.UserText("hi")}), Harness: &counter{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error == nil || resp.Error.Code != "Model" || !strings.Contains(resp.Error.Message, "try later") || resp.Error.SDKError == "" {
		t.Fatalf("turn error %+v, want code Model with the provider's message", resp.Error)
	}
}

// panicking is a target whose agent panics.
type panicking struct{ target.Target }

func (panicking) Agent() target.Agent { return panicAgent{} }

type panicAgent struct{}

func (panicAgent) Turn(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
	panic("adapter bug")
}

// agentless plays no role at all.
type agentless struct{ target.Target }

func (agentless) Agent() target.Agent   { return nil }
func (agentless) Client() target.Client { return nil }

func do(t *testing.T, method, url, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct{ Code, Message string }
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("%s %s: %d answer is not the error envelope: %s", method, url, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, e.Error.Code, e.Error.Message
}

// Bad input is a 400 naming the field; a role not played is 501; a target
// that panics is a 500 envelope, never a dropped connection.
func TestBadInputNamesTheField(t *testing.T) {
	models := &sims{}
	_, srv := pair(t, models.model)
	const ok = `"model":{"baseURL":"http://sim.invalid/0/v1","api":"openai-chat"},"messages":[]`
	for _, c := range []struct {
		method, path, body string
		status             int
		code, want         string
	}{
		{"POST", "/v1/agent/turn", `{"mode":"sometimes",` + ok + `}`, 400, "BadRequest", `mode: unknown mode "sometimes"`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","toolkit":"some",` + ok + `}`, 400, "BadRequest", `toolkit: unknown setting "some"`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","tools":[{"name":"x","approval":"maybe"}],` + ok + `}`, 400, "BadRequest", `tools[0].approval: unknown policy "maybe"`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","tools":[{"name":"x","approval":"never"},{"name":"x","approval":"never"}],` + ok + `}`, 400, "BadRequest", `tools[1].name: "x" given twice`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","tools":[{"approval":"never"}],` + ok + `}`, 400, "BadRequest", `tools[0].name: missing`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","options":{"maxSteps":-1},` + ok + `}`, 400, "BadRequest", `options:`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"http://nowhere/v1","api":"openai-chat"},"messages":[]}`, 400, "BadRequest", `model: no simulator`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","tools":"all",` + ok + `}`, 400, "BadRequest", `tools`},
		{"POST", "/v1/agent/turn", `{"mode":"generate",` + ok + `} {}`, 400, "BadRequest", `more than one JSON value`},
		{"POST", "/v1/agent/turn", `{"mode":"generate",` + ok + `,"messages":"` + strings.Repeat("x", 17<<20) + `"}`, 413, "TooLarge", `the request body is larger than 16777216 bytes (the limit, --max-request-bytes)`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"file:///etc/passwd","api":"openai-chat"},"messages":[]}`, 400, "BadRequest", `model.baseURL: "file:///etc/passwd" is not an http or https URL`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","options":{"maxSteps":2001},` + ok + `}`, 400, "BadRequest", `options.maxSteps: 2001 is more than this server allows (100, --max-steps)`},
		{"POST", "/v1/client/sessions", `{"chatURL":"file:///etc/passwd","protocol":"ag-ui","tools":[]}`, 400, "BadRequest", `chatURL: "file:///etc/passwd" is not an http or https URL`},
		{"GET", "/v1/agent/turn", ``, 404, "NotFound", `no endpoint GET`},
		{"POST", "/v1/client/sessions", `{"chatURL":"http://127.0.0.1:1/chat","protocol":"smoke-signals","tools":[]}`, 400, "BadRequest", `smoke-signals`},
		{"POST", "/v1/client/sessions/nope/approval", `{"approvalId":"a","approved":true}`, 404, "NotFound", `no session "nope"`},
	} {
		status, code, msg := do(t, c.method, srv.URL+c.path, c.body)
		if status != c.status || code != c.code || !strings.Contains(msg, c.want) {
			body := c.body
			if len(body) > 120 {
				body = body[:120] + "…"
			}
			t.Errorf("%s %s %s: %d %s %q, want %d %s with %q", c.method, c.path, body, status, code, msg, c.status, c.code, c.want)
		}
	}

	// A session's own input.
	path := sessionPath(t, srv)
	for _, c := range []struct{ verb, body, want string }{
		{"approval", `{"approved":true}`, "approvalId: missing"},
		{"wait", `{"until":"forever","timeoutMs":1}`, `until: unknown condition "forever"`},
		{"wait", `{"until":"approval-requested","timeoutMs":1}`, "toolCallId: missing"},
		{"send", `{"txt":"hi"}`, `unknown field "txt"`},
	} {
		if status, code, msg := do(t, "POST", srv.URL+path+"/"+c.verb, c.body); status != 400 || code != "BadRequest" || !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: %d %s %q, want 400 BadRequest with %q", c.verb, c.body, status, code, msg, c.want)
		}
	}

	for name, tgt := range map[string]target.Target{"panics": panicking{}, "agentless": agentless{}} {
		ps, err := driverserver.NewServer(tgt, func(target.ModelEndpoint) (llm.Model, error) { return simulator.New(simulator.Script{}) })
		if err != nil {
			t.Fatal(err)
		}
		status, code, msg := do(t, "POST", ps.URL+"/v1/agent/turn", `{"mode":"generate",`+ok+`}`)
		want := map[string][]string{"panics": {"500", "Internal", "adapter bug"}, "agentless": {"501", "NotImplemented", "agent role"}}[name]
		if fmt.Sprint(status) != want[0] || code != want[1] || !strings.Contains(msg, want[2]) {
			t.Errorf("%s: %d %s %q, want %v", name, status, code, msg, want)
		}
		_ = ps.Close()
	}
}

// sessionPath opens a session over plain HTTP and returns its path (the
// reference's client makes no request before the first send).
func sessionPath(t *testing.T, srv *driverserver.Server) string {
	t.Helper()
	resp, err := http.Post(srv.URL+"/v1/client/sessions", "application/json",
		strings.NewReader(`{"chatURL":"http://127.0.0.1:1/chat","protocol":"ui-message-stream","tools":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || created.SessionID == "" {
		t.Fatalf("session: %v %+v", err, created)
	}
	return "/v1/client/sessions/" + created.SessionID
}

// A client session over the protocol against the scripted chat server:
// send, state, approval, wait; DELETE ends it (then 404), and the server's
// Close ends the sessions the harness left open.
func TestSessionLifecycle(t *testing.T) {
	_, srv := pair(t, (&sims{}).model)
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	codec, _ := protocols.Lookup(chat.ProtocolAGUI)
	conv := chatsim.NewConversation(codec)
	if _, err := conv.Append(chatsim.Turn{Hold: true, Events: []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "m1"},
		{Type: chat.EventToolCallStart, ToolCallID: "A", ToolName: "deleteFile"},
		{Type: chat.EventToolCallEnd, ToolCallID: "A", ToolName: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
		{Type: chat.EventApprovalRequested, ToolCallID: "A", ToolName: "deleteFile", Approval: &chat.Approval{ID: "approval_A"}},
		{Type: chat.EventFinish, FinishReason: "tool-calls"},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := conv.Append(chatsim.Turn{Events: []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "m2"},
		{Type: chat.EventToolResult, ToolCallID: "A", Output: json.RawMessage(`{"ok":true}`)},
		{Type: chat.EventFinish, FinishReason: "stop"},
	}}); err != nil {
		t.Fatal(err)
	}
	chats, err := chatsim.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer chats.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: chats.Mount(conv), Protocol: chat.ProtocolAGUI,
		Tools: []target.ClientTool{{Name: "deleteFile", NeedsApproval: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.Send(ctx, "delete /a"); err != nil || res.Refused {
		t.Fatalf("send: %+v %v", res, err)
	}
	// The first stream is held open: the client is busy, and says so.
	if _, err := conv.WaitHolding(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := s.State(ctx)
	if err != nil || !st.Busy {
		t.Fatalf("state while the stream is held: %+v %v", st, err)
	}
	if err := conv.Release(0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Wait(ctx, target.WaitCondition{Until: target.UntilApprovalRequested, ToolCallID: "A"}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Approve(ctx, target.ApprovalAnswer{ApprovalID: "approval_A", Approved: true, Reason: "fine"}); err != nil || res.Refused {
		t.Fatalf("approve: %+v %v", res, err)
	}
	if st, err = s.Wait(ctx, target.WaitCondition{Until: target.UntilIdle}); err != nil {
		t.Fatal(err)
	}
	var part *chat.Part
	for i := range st.Messages {
		for j := range st.Messages[i].Parts {
			if st.Messages[i].Parts[j].ToolCallID == "A" {
				part = &st.Messages[i].Parts[j]
			}
		}
	}
	if part == nil || part.State != chat.OutputAvailable {
		t.Fatalf("final state %+v", st.Messages)
	}
	reqs := conv.Requests()
	if len(reqs) != 2 || len(reqs[1].Answers) == 0 {
		t.Fatalf("the chat server saw %d requests, the second with answers %+v; want 2, the second approving", len(reqs), reqs[len(reqs)-1].Answers)
	}
	for _, a := range reqs[1].Answers { // AG-UI carries the answer twice: in the parts and as a resume
		if a.ApprovalID != "approval_A" || !a.Approved || a.Reason != "fine" {
			t.Errorf("the chat server saw the answer %+v", a)
		}
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.State(ctx); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("state after DELETE: %v, want HTTP 404", err)
	}

	// A session the harness leaves open is closed with the server.
	closed := make(chan struct{})
	ls, err := driverserver.NewServer(recordingTarget{closed: closed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := httptarget.New(ls.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer lt.Close()
	if _, err := lt.Client().NewSession(ctx, target.SessionConfig{ChatURL: "http://127.0.0.1:1/", Protocol: "ag-ui"}); err != nil {
		t.Fatal(err)
	}
	if err := ls.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	default:
		t.Fatal("Server.Close left a session open")
	}
}

// recordingTarget's sessions report their Close on a channel; their Wait
// blocks until its context ends, like a client that never gets there.
type recordingTarget struct {
	target.Target
	closed chan struct{}
}

func (r recordingTarget) Client() target.Client { return r }

func (r recordingTarget) NewSession(context.Context, target.SessionConfig) (target.Session, error) {
	return &recordingSession{closed: r.closed}, nil
}

type recordingSession struct {
	target.Session
	closed chan struct{}
	once   sync.Once
}

func (s *recordingSession) State(context.Context) (*target.ClientState, error) {
	return &target.ClientState{Busy: true}, nil
}

func (s *recordingSession) Wait(ctx context.Context, _ target.WaitCondition) (*target.ClientState, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s *recordingSession) Close(context.Context) error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// A wait that never holds ends with the harness's deadline, as an error
// wrapping context.DeadlineExceeded; each long poll is bounded by the
// deadline left, so the target answers in time.
func TestWaitEndsWithTheDeadline(t *testing.T) {
	srv, err := driverserver.NewServer(recordingTarget{closed: make(chan struct{})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	s, err := ht.Client().NewSession(context.Background(), target.SessionConfig{ChatURL: "http://127.0.0.1:1/", Protocol: "ag-ui"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.Wait(ctx, target.WaitCondition{Until: target.UntilIdle}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait: %v, want context.DeadlineExceeded", err)
	}
}
