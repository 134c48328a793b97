package httptarget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
)

// recordingHarness records the callbacks it serves.
type recordingHarness struct {
	mu       sync.Mutex
	executed []target.ExecuteRequest
	policies []target.PolicyRequest
}

func (h *recordingHarness) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.executed = append(h.executed, req)
	if req.ToolCallID == "boom" {
		return nil, errors.New("disk on fire")
	}
	return json.RawMessage(`{"ran":"` + req.ToolName + `"}`), nil
}

func (h *recordingHarness) Policy(_ context.Context, req target.PolicyRequest) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.policies = append(h.policies, req)
	return true, nil
}

type answer struct {
	status int
	body   string
}

func post(url, body string) answer {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return answer{status: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(bytes.TrimSpace(b))}
}

// The callback server, seen from an adapter: each tool gets an executeURL,
// each dynamic tool a policyURL, valid while its turn runs; bodies are
// checked; a tool's failure is {error}; afterwards the URLs are gone.
func TestCallbacksLiveForTheirTurn(t *testing.T) {
	var (
		got     target.TurnRequest
		answers = map[string]answer{}
	)
	adapter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		odd, plain := got.Tools[0], got.Tools[1]
		answers["execute"] = post(odd.ExecuteURL, `{"toolCallId":"c1","input":{"path":"/a"}}`)
		answers["policy"] = post(odd.PolicyURL, `{"toolCallId":"c1","input":{"path":"/a"},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
		answers["failing"] = post(plain.ExecuteURL, `{"toolCallId":"boom","input":{}}`)
		answers["no input"] = post(plain.ExecuteURL, `{"toolCallId":"c2"}`)
		answers["garbage"] = post(plain.ExecuteURL, `{"toolCallId":`)
		answers["no id"] = post(plain.ExecuteURL, `{"input":{}}`)
		answers["unknown field"] = post(plain.ExecuteURL, `{"toolCallId":"c3","input":{},"extra":1}`)
		answers["bad messages"] = post(odd.PolicyURL, `{"toolCallId":"c1","input":{},"messages":[{"role":"robot"}]}`)
		answers["no such kind"] = post(strings.Replace(plain.ExecuteURL, "/execute/", "/delete/", 1), `{"toolCallId":"c4","input":{}}`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"messages":[],"finishReason":"stop"}`))
	}))
	defer adapter.Close()
	ht, err := httptarget.New(adapter.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	h := &recordingHarness{}
	tools := []target.Tool{{Name: "rm -rf/?x", Approval: target.ApprovalDynamic}, {Name: "plain", Approval: target.ApprovalAlways}}
	req := &target.TurnRequest{Mode: target.Generate, Model: target.ModelEndpoint{BaseURL: "http://127.0.0.1:1/v1", API: "openai-chat"},
		Tools: tools, Toolkit: target.ToolkitProvided, Messages: json.RawMessage(`[]`), Harness: h}
	if _, err := ht.Agent().Turn(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if tools[0].ExecuteURL != "" || req.Tools[0].ExecuteURL != "" {
		t.Error("Turn filled the caller's tools with callback URLs")
	}
	if got.Tools[1].PolicyURL != "" || got.Tools[1].ExecuteURL == "" {
		t.Errorf("a static tool's URLs: %+v", got.Tools[1])
	}
	for name, want := range map[string]answer{
		"execute":       {200, `{"output":{"ran":"rm -rf/?x"}}`},
		"policy":        {200, `{"needsApproval":true}`},
		"failing":       {200, `{"error":"disk on fire"}`},
		"no input":      {200, `{"output":{"ran":"plain"}}`},
		"garbage":       {400, `BadRequest`},
		"no id":         {400, `toolCallId: missing`},
		"unknown field": {400, `unknown field \"extra\"`},
		"bad messages":  {400, `messages:`},
		"no such kind":  {404, `NotFound`},
	} {
		if a := answers[name]; a.status != want.status || !strings.Contains(a.body, want.body) {
			t.Errorf("%s: %d %s, want %d with %s", name, a.status, a.body, want.status, want.body)
		}
	}
	h.mu.Lock()
	if len(h.executed) != 3 || h.executed[0].ToolName != "rm -rf/?x" || string(h.executed[0].Input) != `{"path":"/a"}` || string(h.executed[2].Input) != `{}` {
		t.Errorf("executed %+v", h.executed)
	}
	if len(h.policies) != 1 || h.policies[0].ToolCallID != "c1" || len(h.policies[0].Messages) != 1 {
		t.Errorf("policies %+v", h.policies)
	}
	h.mu.Unlock()

	// The turn is over: its callbacks are gone.
	if a := post(got.Tools[1].ExecuteURL, `{"toolCallId":"late","input":{}}`); a.status != http.StatusGone {
		t.Errorf("a callback after its turn: %d %s, want 410", a.status, a.body)
	}
	resp, err := http.Get(got.Tools[1].ExecuteURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET on a callback: %d, want 404", resp.StatusCode)
	}
}

// A hung target ends with the caller's context, as an error wrapping
// context.DeadlineExceeded, in every role; so does one that crashes after
// taking the request.
func TestContextBoundsEveryCall(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var hang http.HandlerFunc = func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	srv := httptest.NewServer(hang)
	defer srv.Close()
	ht, err := httptarget.New(srv.URL) // the default timeout is far off: the context decides
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	calls := map[string]func(context.Context) error{
		"info": func(ctx context.Context) error { _, err := ht.Info(ctx); return err },
		"turn": func(ctx context.Context) error { _, err := ht.Agent().Turn(ctx, turnReq(t)); return err },
		"session": func(ctx context.Context) error {
			_, err := ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: "http://127.0.0.1:1/", Protocol: "ag-ui"})
			return err
		},
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := call(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want an error wrapping context.DeadlineExceeded", name, err)
		}
	}

	crash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"))
		_ = conn.Close()
	}))
	defer crash.Close()
	ct, err := httptarget.New(crash.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ct.Close()
	if _, err := ct.Agent().Turn(context.Background(), turnReq(t)); err == nil {
		t.Error("a target that crashed mid-answer gave a turn")
	}
}

// Info and sessions are checked like turns: a missing name, no roles, a
// session without an id are errors; a role not declared is nil.
func TestInfoAndSessionAnswersAreChecked(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	ctx := context.Background()
	for b, want := range map[string]string{
		`{"version":"1","roles":["agent"],"features":{}}`:                       `not a valid info message: /: missing required property "name"`,
		`{"name":"x","version":"1","roles":[],"features":{}}`:                   "/roles: minItems: got 0, want 1",
		`{"name":"x","version":"1","roles":"agent","features":{}}`:              "not a valid info message: /roles: got string, want array",
		`{"name":"x","version":"1","roles":["agent"],"features":{}} trailing`:   "not a valid info message: invalid JSON: data after the value",
		`{"name":"x","version":"1","roles":["agent"],"features":1}`:             "not a valid info message: /features: got number, want object",
		`{"name":"x","version":"1","roles":["agent"],"features":{},"colour":1}`: `not a valid info message: /: unknown property "colour"`,
	} {
		body = b
		if _, err := ht.Info(ctx); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("info %s: %v, want %q", b, err, want)
		}
	}
	body = `{"sessionId":""}`
	if _, err := ht.Client().NewSession(ctx, target.SessionConfig{ChatURL: "http://127.0.0.1:1/", Protocol: "ag-ui"}); err == nil || !strings.Contains(err.Error(), "/sessionId: minLength: got 0, want 1") {
		t.Errorf("a session without an id: %v", err)
	}
	body = `{"name":"x","version":"1","roles":["client"],"features":{"modes":[]}}`
	if _, err := ht.Info(ctx); err != nil {
		t.Fatal(err)
	}
	if ht.Agent() != nil || ht.Client() == nil {
		t.Error("the roles played do not follow the info")
	}
}

// A target that answers with a redirect is a harness error naming it: the
// harness never sends the request (with its callback URLs and tokens) on
// to where the redirect points.
func TestRedirectIsRefused(t *testing.T) {
	followed := make(chan string, 1)
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed <- r.URL.Path
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	_, err = ht.Info(context.Background())
	if err == nil || !strings.Contains(err.Error(), "with a redirect to "+elsewhere.URL+"/stolen") || !strings.Contains(err.Error(), "does not follow redirects") {
		t.Errorf("a redirect: %v", err)
	}
	select {
	case p := <-followed:
		t.Errorf("the redirect was followed to %s", p)
	default:
	}
}
