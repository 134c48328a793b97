package httptarget_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/chatsim"
	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// harness counts runs and decides the dynamic policy.
type harness struct {
	runs, asked atomic.Int32
	sawMessages atomic.Int32
}

func (h *harness) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	h.runs.Add(1)
	if req.ToolName == "fail" {
		return nil, errors.New("disk on fire")
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func (h *harness) Policy(_ context.Context, req target.PolicyRequest) (bool, error) {
	h.asked.Add(1)
	if len(req.Messages) > 0 {
		h.sawMessages.Add(1)
	}
	var in struct{ Path string }
	_ = json.Unmarshal(req.Input, &in)
	return strings.HasPrefix(in.Path, "/etc"), nil
}

func newPair(t *testing.T) (*httptarget.Target, *httptarget.Wiring) {
	t.Helper()
	srv, err := driverserver.NewServer(inprocess.New(reference.New(), "reference"), all.Models)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ht.Close() })
	w, err := httptarget.NewWiring("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return ht, w
}

// An agent turn over HTTP: the dynamic policy and the tool run through the
// callbacks; the approval, the turn's messages and the stream come back.
func TestAgentTurnOverHTTP(t *testing.T) {
	ht, w := newPair(t)
	info, err := ht.Info(context.Background())
	if err != nil || info.Name != "reference" || len(info.Roles) != 3 {
		t.Fatalf("info %+v, %v", info, err)
	}
	sim, _ := simulator.New(simulator.Script{Turns: []simulator.Turn{
		{Reply: simulator.Reply{ToolCalls: []simulator.ToolCall{
			{ID: "c1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/etc/x"}`)},
			{ID: "c2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/tmp/y"}`)},
		}}},
	}})
	h := &harness{}
	msgs, _ := model.EncodeMessages([]model.Message{model.UserText("clean up")})
	req := &target.TurnRequest{Mode: target.Stream, Model: target.ModelEndpoint{API: "openai-chat"}, Toolkit: target.ToolkitProvided, Messages: msgs, Harness: h,
		Tools: []target.Tool{{Name: "deleteFile", Approval: target.ApprovalDynamic, InputSchema: json.RawMessage(`{"type":"object"}`)}}}
	if err := w.Prepare(req, sim, h); err != nil {
		t.Fatal(err)
	}
	resp, err := ht.Agent().Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatalf("turn error %+v", resp.Error)
	}
	ix := model.IndexOf(resp.Messages)
	if _, ok := ix.RequestForCall("c1"); !ok {
		t.Errorf("no approval request for c1: %+v", resp.Messages)
	}
	if h.runs.Load() != 1 || h.asked.Load() != 2 || h.sawMessages.Load() != 2 {
		t.Errorf("runs %d, policy asked %d (with messages %d)", h.runs.Load(), h.asked.Load(), h.sawMessages.Load())
	}
	if len(resp.Events) == 0 {
		t.Error("a stream turn came back without its events")
	}
	if p := sim.Problems(); len(p) > 0 {
		t.Errorf("simulator problems: %v", p)
	}
}

// A turn error keeps its code across the wire.
func TestTurnErrorCodeCrosses(t *testing.T) {
	ht, w := newPair(t)
	sim, _ := simulator.New(simulator.Script{})
	h := &harness{}
	msgs := json.RawMessage(`[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"tool","content":[{"type":"tool-approval-response","approvalId":"a1","approved":"yes"}]}]`)
	req := &target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{API: "openai-chat"}, Toolkit: target.ToolkitProvided, Messages: msgs, Harness: h}
	if err := w.Prepare(req, sim, h); err != nil {
		t.Fatal(err)
	}
	resp, err := ht.Agent().Turn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error == nil || resp.Error.Code != "InvalidMessages" {
		t.Fatalf("turn %+v, want InvalidMessages", resp.Error)
	}
}

// A client session over HTTP against the scripted chat server.
func TestClientSessionOverHTTP(t *testing.T) {
	ht, _ := newPair(t)
	codec, _ := protocols.Lookup(chat.ProtocolUIMessageStream)
	conv := chatsim.NewConversation(codec)
	_, _ = conv.Append(chatsim.Turn{Events: []chat.Event{
		{Type: chat.EventMessageStart, MessageID: "m1"},
		{Type: chat.EventToolCallStart, ToolCallID: "A", ToolName: "deleteFile"},
		{Type: chat.EventToolCallEnd, ToolCallID: "A", ToolName: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
		{Type: chat.EventApprovalRequested, ToolCallID: "A", ToolName: "deleteFile", Approval: &chat.Approval{ID: "approval_A"}},
		{Type: chat.EventFinish, FinishReason: "tool-calls"},
	}})
	_, _ = conv.Append(chatsim.Turn{Events: []chat.Event{{Type: chat.EventMessageStart, MessageID: "m1"}, {Type: chat.EventToolResult, ToolCallID: "A", Output: json.RawMessage(`{"ok":true}`)}, {Type: chat.EventFinish}}})
	srv, err := chatsim.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := srv.Mount(conv)
	ctx := context.Background()
	var s target.Session
	s, err = ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: url, Protocol: chat.ProtocolUIMessageStream, Tools: []target.ClientTool{{Name: "deleteFile", NeedsApproval: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if res, err := s.Send(ctx, "delete a"); err != nil || res.Refused {
		t.Fatalf("send: %+v %v", res, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := s.Wait(wctx, target.WaitCondition{Until: target.UntilApprovalRequested, ToolCallID: "A"}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Approve(ctx, target.ApprovalAnswer{ApprovalID: "approval_A", Approved: true}); err != nil || res.Refused {
		t.Fatalf("approve: %+v %v", res, err)
	}
	st, err := s.Wait(wctx, target.WaitCondition{Until: target.UntilIdle})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(conv.Requests()); n != 2 {
		t.Fatalf("the client made %d requests, want 2", n)
	}
	if st.Messages[len(st.Messages)-1].Parts[0].State != chat.OutputAvailable {
		t.Fatalf("final state %+v", st.Messages)
	}
	if res, err := s.Approve(ctx, target.ApprovalAnswer{ApprovalID: "approval_nope", Approved: true}); err != nil || !res.Refused {
		t.Fatalf("an unknown approval: %+v %v", res, err)
	}
}

// jsonAnswer answers every request with body, as application/json.
func jsonAnswer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}
}

func turnReq(t *testing.T) *target.TurnRequest {
	msgs, _ := model.EncodeMessages([]model.Message{model.UserText("hi")})
	return &target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{BaseURL: "http://127.0.0.1:1/v1", API: "openai-chat"}, Messages: msgs}
}

// A target that cannot be driven is an error, never a turn: refused
// connections, a hang, garbage, an unknown error code, an error status.
func TestBrokenTargets(t *testing.T) {
	// A port nobody listens on.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String()
	l.Close()
	hang := make(chan struct{})
	defer close(hang)
	cases := []struct {
		name    string
		handler http.HandlerFunc
		url     string
		want    string
		timeout bool
		limit   int64
	}{
		{name: "refused", url: dead, want: "connection refused"},
		{name: "hangs", handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client leaving
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}, timeout: true},
		{name: "garbage", handler: func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>oops")) },
			want: `the answer is not a valid turn-response message: the answer's Content-Type is "text/html; charset=utf-8", not application/json`},
		{name: "garbage as JSON", handler: jsonAnswer("<html>oops"), want: "the answer is not a valid turn-response message: invalid JSON"},
		{name: "unknown code", handler: jsonAnswer(`{"messages":[],"finishReason":"error","error":{"code":"Kaboom","message":"x"}}`), want: `/error/code: "Kaboom" is not one of`},
		{name: "no finish", handler: jsonAnswer(`{"messages":[]}`), want: `/: missing required property "finishReason"`},
		{name: "a field the schema forbids", handler: jsonAnswer(`{"messages":[],"finishReason":"stop","extra":1}`), want: `/: unknown property "extra" (docs/schemas/driver/turn-response.schema.json)`},
		{name: "error status", handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "adapter crashed", 500) }, want: "HTTP 500: adapter crashed"},
		{name: "cut off", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte(`{"messa`))
		}, want: "unexpected EOF"},
		{name: "too large", handler: jsonAnswer(`{"messages":[],"finishReason":"stop","x":"` + strings.Repeat("x", 2000) + `"}`), limit: 1000,
			want: "the answer is larger than 1000 bytes (the limit, --max-reply-bytes)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if c.handler != nil {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				url = srv.URL
			}
			ht, err := httptarget.New(url, httptarget.WithTimeout(200*time.Millisecond), httptarget.WithLimits(limits.Limits{ReplyBytes: c.limit}))
			if err != nil {
				t.Fatal(err)
			}
			defer ht.Close()
			_, err = ht.Agent().Turn(context.Background(), turnReq(t))
			switch {
			case err == nil:
				t.Fatal("a broken target gave a turn")
			case c.timeout && !errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("err = %v, want a deadline", err)
			case !c.timeout && !strings.Contains(err.Error(), c.want):
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := httptarget.New("ftp://x"); err == nil {
		t.Error("a non-HTTP URL was accepted")
	}
}

// The driver server refuses bad input with a clear error naming the field.
func TestDriverServerBadInput(t *testing.T) {
	srv, err := driverserver.NewServer(inprocess.New(reference.New(), "reference"), func(ep target.ModelEndpoint) (llm.Model, error) {
		return all.Models(ep)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, c := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/v1/agent/turn", `{`, 400, "the request body"},
		{"POST", "/v1/agent/turn", `{"mode":"generate","bogus":1}`, 400, `unknown field "bogus"`},
		{"POST", "/v1/agent/turn", `{"mode":"generate","model":{"api":"openai-chat"},"messages":[]}`, 400, "model.baseURL: missing"},
		{"POST", "/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"http://127.0.0.1:1","api":"grpc"},"messages":[]}`, 400, "unknown provider profile"},
		{"POST", "/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"http://127.0.0.1:1","api":"openai-chat"},"tools":[{"name":"x","approval":"dynamic"}],"messages":[]}`, 400, "tools[0].policyURL"},
		{"POST", "/v1/client/sessions", `{"protocol":"ag-ui"}`, 400, "chatURL and protocol"},
		{"POST", "/v1/client/sessions/nope/send", `{"text":"x"}`, 404, "no session"},
		{"GET", "/v1/nothing", ``, 404, "no endpoint"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(e.Error.Message, c.want) {
			t.Errorf("%s %s %s: %d %q, want %d with %q", c.method, c.path, c.body, resp.StatusCode, e.Error.Message, c.status, c.want)
		}
	}
}
