package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/record"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

// journal is a goroutine-safe buffer of journal lines.
type journal struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (j *journal) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.b.Write(p)
}

func (j *journal) entries(t *testing.T) []record.Entry {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []record.Entry
	for _, line := range strings.Split(strings.TrimSpace(j.b.String()), "\n") {
		if line == "" {
			continue
		}
		var e record.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		out = append(out, e)
	}
	return out
}

func (j *journal) bytes() []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]byte(nil), j.b.Bytes()...)
}

// fixture is a simulator served over HTTP behind a recording proxy.
type fixture struct {
	sim     *simhttp.Server
	proxy   *httptest.Server
	journal *journal
	// exchanges receives each exchange once journaled.
	exchanges chan record.Entry
}

func newFixture(t *testing.T, refuse bool) *fixture {
	t.Helper()
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	f := &fixture{sim: sim, journal: &journal{}, exchanges: make(chan record.Entry, 100)}
	p, err := record.New(record.Options{Upstream: sim.URL, Journal: f.journal, Refuse: refuse,
		OnExchange: func(e record.Entry) { f.exchanges <- e }})
	if err != nil {
		t.Fatal(err)
	}
	f.proxy = httptest.NewServer(p)
	t.Cleanup(f.proxy.Close)
	return f
}

// conversation adds a scripted conversation to the simulator and returns
// the model and the base URL to reach it through the proxy.
func (f *fixture) conversation(t *testing.T, name string, s simulator.Script) (*simulator.Model, string) {
	t.Helper()
	m, err := simulator.New(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.sim.Add(name, m); err != nil {
		t.Fatal(err)
	}
	return m, f.proxy.URL + "/c/" + name + "/v1"
}

func twoTurns(p wire.Profile) simulator.Script {
	return simulator.Script{Provider: p, Turns: []simulator.Turn{
		{Reply: simulator.Reply{Text: "Deleting.", ChunkSize: 4, ToolCalls: []simulator.ToolCall{{ID: "call_1", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)}}}},
		{Reply: simulator.Reply{Text: "Done."}},
	}}
}

var tools = []llm.ToolDef{{Name: "deleteFile", InputSchema: json.RawMessage(`{"type":"object"}`)}}

// post sends a raw body through the proxy and returns the status and the
// answer's bytes.
func post(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// TestPassThrough: in every wire format, JSON and streamed, the client gets
// the upstream's answer byte for byte, the journal holds those bytes and
// the reply decoded, and the exchanges of a conversation are numbered.
func TestPassThrough(t *testing.T) {
	f := newFixture(t, false)
	for _, p := range wire.Profiles {
		for _, stream := range []bool{false, true} {
			name := fmt.Sprintf("%s-%v", p, stream)
			t.Run(name, func(t *testing.T) {
				sim, base := f.conversation(t, name, twoTurns(p))
				codec, _ := provider.Lookup(p)
				first := &llm.Request{Messages: []model.Message{model.UserText("delete /a")}, Tools: tools}
				body, _ := codec.EncodeRequest(first, stream)
				status, got := post(t, base+codec.Path(), body)
				if status != 200 {
					t.Fatalf("HTTP %d: %s", status, got)
				}
				e := <-f.exchanges
				if e.Response == nil || e.Verdict != record.VerdictOK || e.Call != 1 || e.API != string(p) || e.Mode != map[bool]string{false: "generate", true: "stream"}[stream] {
					t.Fatalf("entry %+v", e)
				}
				var recorded []byte
				if stream {
					var s string
					_ = json.Unmarshal(e.Response, &s)
					recorded = []byte(s)
				} else {
					var b bytes.Buffer
					_ = json.Compact(&b, got)
					got = b.Bytes()
					recorded = e.Response
				}
				if !bytes.Equal(recorded, got) {
					t.Fatalf("the journal holds\n%s\nthe client got\n%s", recorded, got)
				}
				if e.Reply == nil || e.Reply.Text != "Deleting." || len(e.Reply.ToolCalls) != 1 || e.Reply.ToolCalls[0].ID != "call_1" || string(e.Reply.ToolCalls[0].Input) != `{"path":"/a"}` {
					t.Fatalf("reply %+v", e.Reply)
				}
				// The second call, through an SDK-like client, continues the
				// conversation.
				client := &provider.Client{BaseURL: base, Codec: codec}
				second := &llm.Request{Tools: tools, Messages: []model.Message{model.UserText("delete /a"),
					{Role: model.RoleAssistant, Content: []model.Part{model.Text("Deleting."), model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`))}},
					{Role: model.RoleTool, Content: []model.Part{model.ToolResult("call_1", "deleteFile", model.JSONOutput(json.RawMessage(`{"deleted":true}`)))}}}}
				var resp *llm.Response
				var err error
				if stream {
					resp, err = llm.Collect(context.Background(), client, second)
				} else {
					resp, err = client.Generate(context.Background(), second)
				}
				if err != nil || provider.Text(model.Message{Content: resp.Content}) != "Done." {
					t.Fatalf("second call: %v %+v", err, resp)
				}
				e2 := <-f.exchanges
				if e2.Conversation != e.Conversation || e2.Call != 2 || e2.Reply == nil || e2.Reply.Text != "Done." || len(e2.Findings) != 0 {
					t.Fatalf("second entry %+v (first in %s)", e2, e.Conversation)
				}
				if sim.Calls() != 2 || len(sim.Problems()) != 0 {
					t.Fatalf("simulator: %d calls, problems %v", sim.Calls(), sim.Problems())
				}
			})
		}
	}
}

// danglingBody is a request whose call was approved but has no result.
func danglingBody(t *testing.T, p wire.Profile) []byte {
	codec, _ := provider.Lookup(p)
	req := &llm.Request{Tools: tools, Messages: []model.Message{model.UserText("delete /a"),
		{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`))}}}}
	body, err := codec.EncodeRequest(req, false)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestViolations: a request the provider would reject is linted as it
// passes; forwarded, the upstream's 400 comes back; with Refuse, the proxy
// answers the provider's exact 400 itself and the upstream never sees it.
func TestViolations(t *testing.T) {
	open, refusing := newFixture(t, false), newFixture(t, true)
	for _, p := range wire.Profiles {
		t.Run(string(p), func(t *testing.T) {
			codec, _ := provider.Lookup(p)
			body := danglingBody(t, p)
			simA, baseA := open.conversation(t, "v-"+string(p), twoTurns(p))
			status, upstream := post(t, baseA+codec.Path(), body)
			e := <-open.exchanges
			if status != 400 || simA.Calls() != 1 || e.Verdict != record.VerdictViolation || e.Status != 400 || e.ErrorBody != string(upstream) {
				t.Fatalf("forwarded: HTTP %d %s; entry %+v", status, upstream, e)
			}
			if len(e.Findings) != 1 || e.Findings[0].Check != "WIRE-01" || e.Findings[0].Kind != "dangling" || e.Findings[0].Path == "" {
				t.Fatalf("findings %+v", e.Findings)
			}

			simB, baseB := refusing.conversation(t, "v-"+string(p), twoTurns(p))
			status, refused := post(t, baseB+codec.Path(), body)
			e = <-refusing.exchanges
			if status != 400 || simB.Calls() != 0 || e.Verdict != record.VerdictRefused || e.ErrorBody != string(refused) {
				t.Fatalf("refused: HTTP %d %s; upstream calls %d; entry %+v", status, refused, simB.Calls(), e)
			}
			if !strings.Contains(string(refused), e.Findings[0].Provider.Message) {
				t.Fatalf("refusal %s does not carry %q", refused, e.Findings[0].Provider.Message)
			}
			// The simulator answers the provider's body too: the same, but
			// for the request id Anthropic puts in its envelope.
			if p != wire.AnthropicMessages && !bytes.Equal(refused, upstream) {
				t.Errorf("the proxy refused with\n%s\nthe simulator with\n%s", refused, upstream)
			}
			// A clean request still goes through a refusing proxy.
			first, _ := codec.EncodeRequest(&llm.Request{Tools: tools, Messages: []model.Message{model.UserText("delete /a")}}, false)
			if status, got := post(t, baseB+codec.Path(), first); status != 200 || simB.Calls() != 1 {
				t.Fatalf("clean request through a refusing proxy: HTTP %d %s", status, got)
			}
			<-refusing.exchanges
		})
	}
	// The journal is a transcript lint reads: the violations again.
	res, err := lint.Read(bytes.NewReader(open.journal.bytes()), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 3 || len(res.Findings) != 3 || res.Findings[0].Conversation == "" || res.Findings[0].Call != 1 {
		t.Fatalf("lint of the journal: %d requests, findings %+v", res.Requests, res.Findings)
	}
}

// TestConversations: interleaved conversations are told apart by their
// prompts, or by the X-Ack-Conversation header.
func TestConversations(t *testing.T) {
	f := newFixture(t, false)
	codec, _ := provider.Lookup(wire.OpenAIChat)
	_, a := f.conversation(t, "a", twoTurns(wire.OpenAIChat))
	_, b := f.conversation(t, "b", twoTurns(wire.OpenAIChat))
	ask := func(base, text string, header string) record.Entry {
		msgs := []model.Message{model.UserText(text)}
		body, _ := codec.EncodeRequest(&llm.Request{Messages: msgs}, false)
		req, _ := http.NewRequest(http.MethodPost, base+codec.Path(), bytes.NewReader(body))
		if header != "" {
			req.Header.Set(record.ConversationHeader, header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return <-f.exchanges
	}
	follow := func(base, text string) record.Entry {
		msgs := []model.Message{model.UserText(text),
			{Role: model.RoleAssistant, Content: []model.Part{model.Text("Deleting."), model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`))}},
			{Role: model.RoleTool, Content: []model.Part{model.ToolResult("call_1", "deleteFile", model.TextOutput("ok"))}}}
		body, _ := codec.EncodeRequest(&llm.Request{Messages: msgs}, false)
		post(t, base+codec.Path(), body)
		return <-f.exchanges
	}
	e1 := ask(a, "first conversation", "")
	e2 := ask(b, "second conversation", "")
	e3 := follow(b, "second conversation")
	e4 := follow(a, "first conversation")
	if e1.Conversation == e2.Conversation || e3.Conversation != e2.Conversation || e4.Conversation != e1.Conversation || e3.Call != 2 || e4.Call != 2 {
		t.Fatalf("conversations %s/%d %s/%d %s/%d %s/%d", e1.Conversation, e1.Call, e2.Conversation, e2.Call, e3.Conversation, e3.Call, e4.Conversation, e4.Call)
	}
	_, c := f.conversation(t, "c", twoTurns(wire.OpenAIChat))
	e5 := ask(c, "first conversation", "ticket-42")
	if e5.Conversation != "ticket-42" || e5.Call != 1 {
		t.Fatalf("named conversation %s/%d", e5.Conversation, e5.Call)
	}
}

// TestBounds: an oversized request is refused in the provider's envelope;
// an unreachable upstream is a 502 and a journal line.
func TestBounds(t *testing.T) {
	j := &journal{}
	done := make(chan record.Entry, 1)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	p, err := record.New(record.Options{Upstream: deadURL, Journal: j, MaxBody: 1 << 10, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	big := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":%q}]}`, strings.Repeat("x", 2<<10))
	status, body := post(t, srv.URL+"/v1/chat/completions", []byte(big))
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"error":{"message":"record: the request body is larger than 1024 bytes"`) {
		t.Fatalf("oversized: HTTP %d %s", status, body)
	}
	status, body = post(t, srv.URL+"/v1/messages", []byte(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	e := <-done
	if status != http.StatusBadGateway || !strings.Contains(string(body), `"type":"error"`) || e.Verdict != record.VerdictUnreachable || e.API != "anthropic-messages" {
		t.Fatalf("unreachable: HTTP %d %s; entry %+v", status, body, e)
	}
	if _, err := record.New(record.Options{Upstream: "ftp://x"}); err == nil {
		t.Error("an ftp upstream was accepted")
	}
}

// TestOnlyTheAPIIsForwarded: a method no model API has, a path with a dot
// segment, an encoded dot or slash never reaches the upstream; each is
// refused with an error that says why.
func TestOnlyTheAPIIsForwarded(t *testing.T) {
	reached := make(chan string, 10)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Method + " " + r.URL.EscapedPath()
	}))
	defer upstream.Close()
	p, err := record.New(record.Options{Upstream: upstream.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	for _, c := range []struct {
		method, path string
		status       int
		why          string
	}{
		{"CONNECT", "/models", http.StatusMethodNotAllowed, "CONNECT is not a method of the model APIs"},
		{"TRACE", "/models", http.StatusMethodNotAllowed, "TRACE is not a method"},
		{"GET", "/../../admin", http.StatusBadRequest, "is not clean"},
		{"GET", "/a/%2e%2e/%2E%2E/admin", http.StatusBadRequest, "an encoded dot, slash or backslash"},
		{"POST", "/chat%2fcompletions", http.StatusBadRequest, "an encoded dot, slash or backslash"},
		{"GET", "//evil.example/x", http.StatusBadRequest, "is not clean"},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", c.method, c.path)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		conn.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.why) {
			t.Errorf("%s %s: HTTP %d %s", c.method, c.path, resp.StatusCode, body)
		}
	}
	select {
	case got := <-reached:
		t.Errorf("the upstream was reached: %s", got)
	default:
	}
	// A clean path is forwarded under the base path.
	resp, err := http.Get(srv.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := <-reached; got != "GET /v1/models" {
		t.Errorf("forwarded as %s", got)
	}
}

// TestCutReplyIsNotDecoded: an answer past --max-response is journaled cut,
// marked so, and never decoded.
func TestCutReplyIsNotDecoded(t *testing.T) {
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	done := make(chan record.Entry, 1)
	p, err := record.New(record.Options{Upstream: sim.URL, MaxResponse: 64, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	m, err := simulator.New(simulator.Script{Provider: wire.OpenAIChat, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: strings.Repeat("long ", 100), ChunkSize: 8}}}})
	if err != nil {
		t.Fatal(err)
	}
	base, err := sim.Add("cut", m)
	if err != nil {
		t.Fatal(err)
	}
	codec, _ := provider.Lookup(wire.OpenAIChat)
	body, _ := codec.EncodeRequest(&llm.Request{Messages: []model.Message{model.UserText("talk")}}, true)
	status, got := post(t, srv.URL+strings.TrimPrefix(base, sim.URL)+codec.Path(), body)
	e := <-done
	if status != 200 || len(got) <= 64 {
		t.Fatalf("the client did not get the whole answer: HTTP %d, %d bytes", status, len(got))
	}
	var text string
	_ = json.Unmarshal(e.Response, &text)
	if !e.Truncated || len(text) != 64 || e.Reply != nil || !strings.Contains(e.Note, "cut, not decoded") {
		t.Errorf("entry: truncated %v, %d bytes, reply %v, note %q", e.Truncated, len(text), e.Reply, e.Note)
	}
}

// TestOldConversationNamesAreDropped: past the conversations remembered
// for grouping, the oldest name is forgotten (its next request starts it
// again at call 1), so names never pile up.
func TestOldConversationNamesAreDropped(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	done := make(chan record.Entry, 1)
	p, err := record.New(record.Options{Upstream: deadURL, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	send := func(name string) record.Entry {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set(record.ConversationHeader, name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return <-done
	}
	if e := send("first"); e.Call != 1 {
		t.Fatalf("first: call %d", e.Call)
	}
	if e := send("first"); e.Call != 2 {
		t.Fatalf("first again: call %d", e.Call)
	}
	for i := range 1024 {
		send(fmt.Sprintf("n%d", i))
	}
	if e := send("first"); e.Call != 1 || e.Conversation != "first" {
		t.Errorf("a forgotten name: %s call %d, want first call 1", e.Conversation, e.Call)
	}
}

// TestStreamJournaledInLinearMemory: a streamed answer of many small
// deltas is journaled and decoded with allocations a small multiple of
// its size (joining the deltas into one string, delta by delta, was
// quadratic: a 19 MB stream allocated 357 GB and took 8 minutes).
func TestStreamJournaledInLinearMemory(t *testing.T) {
	chunk := `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("a", 50) + `"},"finish_reason":null}]}` + "\n\n"
	n := (4 << 20) / len(chunk)
	size := n * len(chunk)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range n {
			_, _ = io.WriteString(w, chunk)
		}
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	done := make(chan record.Entry, 1)
	p, err := record.New(record.Options{Upstream: up.URL, Journal: io.Discard, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	e := <-done
	runtime.ReadMemStats(&after)
	if e.Reply == nil || len(e.Reply.Text) != 50*n {
		t.Fatalf("the reply was not decoded whole: %q", e.Note)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 40*uint64(size) {
		t.Errorf("journaling a %d-byte stream allocated %d bytes (%d times its size)", size, alloc, alloc/uint64(size))
	}
}

// sseUpstream serves one stream of about size bytes of OpenAI Chat
// Completions deltas, written from one buffer.
func sseUpstream(t *testing.T, size int) (*httptest.Server, int) {
	chunk := []byte(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("é", 200) + `"},"finish_reason":null}]}` + "\n\n")
	n := size / len(chunk)
	end := []byte(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range n {
			_, _ = w.Write(chunk)
		}
		_, _ = w.Write(end)
	}))
	t.Cleanup(up.Close)
	return up, n*len(chunk) + len(end)
}

// counter counts what is written to it and keeps none of it.
type counter struct {
	mu sync.Mutex
	n  int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += int64(len(p))
	return len(p), nil
}

// TestStreamHeldInABoundedWindow: the proxy holds a bounded window of a
// stream whatever its length and --max-response: a 36 MiB stream, journaled
// up to the default 32 MiB, allocates a few MiB (it held the 32 MiB in
// memory, and copied it twice more to journal it: 8 streams of 100 MB
// took 1.1 GB).
func TestStreamHeldInABoundedWindow(t *testing.T) {
	up, size := sseUpstream(t, 36<<20)
	var lines counter
	done := make(chan record.Entry, 1)
	p, err := record.New(record.Options{Upstream: up.URL, Journal: &lines, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	e := <-done
	runtime.ReadMemStats(&after)
	if got != int64(size) {
		t.Fatalf("the client got %d bytes of %d", got, size)
	}
	if !e.Truncated || e.Reply != nil || lines.n < record.DefaultMaxResponse {
		t.Errorf("entry: truncated %v, reply %v, a journal line of %d bytes (want the first %d bytes of the stream)", e.Truncated, e.Reply != nil, lines.n, record.DefaultMaxResponse)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("passing and journaling a %d-byte stream allocated %d bytes, want a bounded window (under 8 MiB)", size, alloc)
	}
}

// TestLongStreamJournaledWhole: a stream longer than the proxy's window
// (kept in a file past it) is journaled as received, byte for byte, and
// decoded.
func TestLongStreamJournaledWhole(t *testing.T) {
	var raw bytes.Buffer
	up, size := sseUpstream(t, 3<<20)
	var j journal
	done := make(chan record.Entry, 1)
	p, err := record.New(record.Options{Upstream: up.URL, Journal: &j, OnExchange: func(e record.Entry) { done <- e }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(&raw, resp.Body)
	resp.Body.Close()
	e := <-done
	deltas := strings.Count(raw.String(), "chat.completion.chunk") - 1
	if raw.Len() != size || e.Truncated || e.Reply == nil || len(e.Reply.Text) != deltas*400 {
		t.Fatalf("client %d bytes of %d, truncated %v, reply %v: %s", raw.Len(), size, e.Truncated, e.Reply != nil, e.Note)
	}
	var line record.Entry
	if err := json.Unmarshal(bytes.TrimSpace(j.b.Bytes()), &line); err != nil {
		t.Fatalf("the journal line does not read back: %v", err)
	}
	var text string
	if err := json.Unmarshal(line.Response, &text); err != nil || text != raw.String() {
		t.Errorf("the journaled response (%d bytes, %v) is not the stream as received (%d bytes)", len(text), err, raw.Len())
	}
	if line.Reply == nil || line.Reply.Text != e.Reply.Text || line.Verdict != record.VerdictOK {
		t.Errorf("the journal line: verdict %s, reply %v", line.Verdict, line.Reply != nil)
	}
}
