package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// exchange is one recorded HTTP exchange.
type exchange struct {
	method, path    string
	status          int
	request, answer []byte
}

type recorder struct {
	mu   sync.Mutex
	seen []exchange
}

func (r *recorder) add(e exchange) {
	r.mu.Lock()
	r.seen = append(r.seen, e)
	r.mu.Unlock()
}

// proxy forwards to next and records the exchange.
func (r *recorder) proxy(next string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		out, _ := http.NewRequestWithContext(req.Context(), req.Method, next+req.URL.Path, bytes.NewReader(body))
		out.Header = req.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		r.add(exchange{req.Method, req.URL.Path, resp.StatusCode, body, answer})
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	})
}

// RoundTrip records the callbacks the driver server makes.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(answer))
	r.add(exchange{req.Method, req.URL.Path, resp.StatusCode, body, answer})
	return resp, nil
}

// schemas of each endpoint: request and answer.
var endpoints = []struct {
	method, path      string
	request, response string
}{
	{"GET", `^/v1/info$`, "", "info"},
	{"POST", `^/v1/agent/turn$`, "turn-request", "turn-response"},
	{"POST", `^/v1/client/sessions$`, "session-request", "session-created"},
	{"POST", `^/v1/client/sessions/[^/]+/send$`, "send-request", "action-result"},
	{"POST", `^/v1/client/sessions/[^/]+/approval$`, "approval-request", "action-result"},
	{"POST", `^/v1/client/sessions/[^/]+/tool-output$`, "tool-output-request", "action-result"},
	{"GET", `^/v1/client/sessions/[^/]+/state$`, "", "client-state"},
	{"POST", `^/v1/client/sessions/[^/]+/wait$`, "wait-request", "client-state"},
	{"DELETE", `^/v1/client/sessions/[^/]+$`, "", ""},
	{"POST", `^/v1/server/chats$`, "chat-request", "chat-created"},
	{"DELETE", `^/v1/server/chats/[^/]+$`, "", ""},
	{"POST", `^/v1/cb/[^/]+/execute/[^/]+$`, "execute-callback-request", "execute-callback-result"},
	{"POST", `^/v1/cb/[^/]+/policy/[^/]+$`, "policy-callback-request", "policy-callback-result"},
}

func loadSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "schemas", "driver", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Every message of driver protocol v1 that a real run exchanges (agent
// turns in both modes, dynamic policies, tool callbacks, client sessions,
// turn errors) fits the JSON Schema its endpoint documents.
func TestDriverMessagesFitTheSchemas(t *testing.T) {
	rec := &recorder{}
	srv, err := driverserver.NewServer(inprocess.New(reference.New(), "reference"), all.Models,
		driverserver.WithCallbackClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	front := httptest.NewServer(rec.proxy(srv.URL))
	defer front.Close()
	ht, err := httptarget.New(front.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ht.Close()
	wiring, err := httptarget.NewWiring("")
	if err != nil {
		t.Fatal(err)
	}
	defer wiring.Close()
	if _, err := Run(context.Background(), Options{Target: ht, Wiring: wiring, Tags: "@REQ-04,@PRE-01,@ERR-01,@ERR-02,@CHAIN-02,@CHAIN-05,@REQ-07"}); err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	get := func(name string) *jsonschema.Schema {
		if schemas[name] == nil {
			schemas[name] = loadSchema(t, name)
		}
		return schemas[name]
	}
	used := map[string]int{}
	for _, e := range rec.seen {
		var ep = -1
		for i, c := range endpoints {
			if c.method == e.method && regexp.MustCompile(c.path).MatchString(e.path) {
				ep = i
			}
		}
		if ep < 0 {
			t.Errorf("%s %s: no documented endpoint", e.method, e.path)
			continue
		}
		c := endpoints[ep]
		check := func(name string, body []byte, what string) {
			if name == "" {
				return
			}
			used[name]++
			if err := get(name).Validate(body); err != nil {
				t.Errorf("%s %s %s does not fit %s.schema.json: %v\n%.600s", e.method, e.path, what, name, err, body)
			}
		}
		check(c.request, e.request, "request")
		if e.status/100 == 2 {
			check(c.response, e.answer, "answer")
		} else {
			check("error", e.answer, fmt.Sprintf("error answer (%d)", e.status))
		}
	}
	for _, c := range endpoints {
		for _, name := range []string{c.request, c.response} {
			if name != "" && used[name] == 0 && name != "tool-output-request" {
				t.Errorf("no exchange exercised %s.schema.json", name)
			}
		}
	}
	t.Logf("%d exchanges validated: %v", len(rec.seen), used)
}

// The schemas refuse what the protocol forbids.
func TestDriverSchemasRefuseBadMessages(t *testing.T) {
	for _, c := range []struct{ schema, doc string }{
		{"turn-request", `{"mode":"sometimes","model":{"baseURL":"http://x","api":"openai-chat"},"toolkit":"provided","options":{},"messages":[]}`},
		{"turn-request", `{"mode":"generate","model":{"baseURL":"http://x","api":"openai-chat"},"toolkit":"provided","options":{},"messages":[],"tools":[{"name":"t","approval":"dynamic"}]}`},
		{"turn-response", `{"messages":[]}`},
		{"turn-response", `{"error":{"code":"Kaboom","message":"x"}}`},
		{"info", `{"name":"x","version":"1","roles":[],"features":{}}`},
		{"wait-request", `{"until":"approval-requested","timeoutMs":10}`},
		{"execute-callback-result", `{}`},
		{"policy-callback-result", `{"needsApproval":"yes"}`},
		{"client-state", `{"busy":false,"messages":[{"role":"assistant","parts":[{"type":"tool-call","toolCallId":"a","state":"thinking"}]}]}`},
	} {
		if err := loadSchema(t, c.schema).Validate([]byte(c.doc)); err == nil {
			t.Errorf("%s.schema.json accepted %s", c.schema, c.doc)
		}
	}
}
