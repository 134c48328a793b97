package simhttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/internal/cputime"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

// benchPrompt is the prompt of every benchmarked call: an approval
// conversation's second model call (a call, its approval, its result).
var benchPrompt = []model.Message{
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

var benchReply = simulator.Reply{Text: "Deleted a; deleting b.", ToolCalls: []simulator.ToolCall{
	{ID: "call_2", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)}}}

// turnsPerConversation is how many calls one simulated conversation
// answers before the benchmark starts the next: a scenario makes a few,
// and a journal of millions would measure the journal.
const turnsPerConversation = 64

// simTarget serves benchmark conversations on a simhttp server, a new
// conversation every turnsPerConversation calls.
type simTarget struct {
	srv     *simhttp.Server
	name    string
	profile wire.Profile
	n, left int
	url     string
}

func (t *simTarget) next(b *testing.B) string {
	if t.left == 0 {
		turns := make([]simulator.Turn, turnsPerConversation)
		for i := range turns {
			turns[i] = simulator.Turn{Reply: benchReply}
		}
		sim, err := simulator.New(simulator.Script{Provider: t.profile, Turns: turns})
		if err != nil {
			b.Fatal(err)
		}
		if t.n > 0 {
			t.srv.Remove(fmt.Sprintf("%s-%d", t.name, t.n))
		}
		t.n++
		base, err := t.srv.Add(fmt.Sprintf("%s-%d", t.name, t.n), sim)
		if err != nil {
			b.Fatal(err)
		}
		t.url, t.left = base, turnsPerConversation
	}
	t.left--
	return t.url
}

// bareHandler is the yardstick: a net/http handler that reads the request
// with the same size limit, decodes its JSON with encoding/json, and
// answers, encoding with encoding/json the reply the simulator gave to the
// same request (as generic JSON values), event by event with a flush after
// each when it was a stream. With replay it writes the reply's bytes as
// recorded instead, encoding nothing: a stricter yardstick than any
// server that builds its replies.
type bareHandler struct {
	contentType string
	events      []sseEvent // the reply, in the pieces the simulator flushed
	replay      bool
}

// sseEvent is one piece of a reply: its SSE event name and its data (the
// whole body of a reply that is not a stream), decoded when it is JSON.
type sseEvent struct {
	raw   []byte // the event as the simulator wrote it
	name  string
	data  string // data that is not JSON, written as it is
	value any
}

func (h *bareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, provider.MaxRequestBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", h.contentType)
	if h.contentType == "application/json" {
		if h.replay {
			_, _ = w.Write(h.events[0].raw)
			return
		}
		out, err := json.Marshal(h.events[0].value)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(out)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, ev := range h.events {
		switch {
		case h.replay:
			_, _ = w.Write(ev.raw)
		case ev.value == nil:
			_, _ = io.WriteString(w, "data: "+ev.data+"\n\n")
		default:
			out, err := json.Marshal(ev.value)
			if err != nil {
				return
			}
			if ev.name != "" {
				_, _ = io.WriteString(w, "event: "+ev.name+"\n")
			}
			_, _ = io.WriteString(w, "data: ")
			_, _ = w.Write(out)
			_, _ = io.WriteString(w, "\n\n")
		}
		f.Flush()
	}
}

// decodeValue decodes JSON keeping numbers as written.
func decodeValue(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// postAll sends body to url and reads the whole reply.
func postAll(b *testing.B, c *http.Client, url string, body []byte) []byte {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d %s %v", url, resp.StatusCode, out, err)
	}
	return out
}

// BenchmarkModelCallOverHTTP compares one model call over loopback HTTP
// served by the simulator (decode the provider's request, lay out and
// check the prompt, consume a scripted turn, journal it, encode the reply)
// with the same call served by a bare net/http handler that decodes the
// request's JSON and encodes the same reply (the baseline), and by one that
// writes the reply's bytes as recorded (net-http-replay). The client
// is the same plain HTTP client for both: it posts the same bytes and
// reads the whole reply. Each reports ns/op, the process's CPU per call,
// and the latency of a call at the 50th and 99th percentiles.
func BenchmarkModelCallOverHTTP(b *testing.B) {
	srv, err := simhttp.NewServer()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for _, p := range append(wire.Profiles[:len(wire.Profiles):len(wire.Profiles)], provider.Canonical) {
		codec, err := provider.Lookup(p)
		if err != nil {
			b.Fatal(err)
		}
		profile := p
		if p == provider.Canonical {
			profile = wire.OpenAIChat
		}
		for _, stream := range []bool{false, true} {
			body, err := codec.EncodeRequest(&llm.Request{Messages: benchPrompt, Tools: []llm.ToolDef{{Name: "deleteFile", InputSchema: json.RawMessage(`{"type":"object"}`)}}}, stream)
			if err != nil {
				b.Fatal(err)
			}
			sim := &simTarget{srv: srv, name: fmt.Sprintf("%s-%v", p, stream), profile: profile}
			b.Run(fmt.Sprintf("%s/stream=%v/simulator", p, stream), func(b *testing.B) {
				measure(b, func() []byte { return postAll(b, client, sim.next(b)+codec.Path(), body) })
			})
			bare := bareFor(b, client, sim.next(b)+codec.Path(), body, stream, false)
			b.Run(fmt.Sprintf("%s/stream=%v/baseline=net-http", p, stream), func(b *testing.B) {
				measure(b, func() []byte { return postAll(b, client, bare, body) })
			})
			replay := bareFor(b, client, sim.next(b)+codec.Path(), body, stream, true)
			b.Run(fmt.Sprintf("%s/stream=%v/net-http-replay", p, stream), func(b *testing.B) {
				measure(b, func() []byte { return postAll(b, client, replay, body) })
			})
		}
	}
}

// bareFor starts a bare handler answering what the simulator at simURL
// answers to body, and returns its URL.
func bareFor(b *testing.B, client *http.Client, simURL string, body []byte, stream, replay bool) string {
	reply := postAll(b, client, simURL, body)
	h := &bareHandler{contentType: "application/json", replay: replay}
	if !stream {
		v, ok := decodeValue(reply)
		if !ok {
			b.Fatalf("the reply is not JSON: %s", reply)
		}
		h.events = []sseEvent{{raw: reply, value: v}}
	} else {
		h.contentType = "text/event-stream"
		for _, raw := range strings.SplitAfter(string(reply), "\n\n") {
			if raw == "" {
				continue
			}
			ev := sseEvent{raw: []byte(raw)}
			for _, line := range strings.Split(strings.TrimSpace(raw), "\n") {
				if name, ok := strings.CutPrefix(line, "event: "); ok {
					ev.name = name
				}
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					ev.value, _ = decodeValue([]byte(data))
					ev.data = data
				}
			}
			h.events = append(h.events, ev)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(l) }()
	b.Cleanup(func() { _ = hs.Close() })
	url := "http://" + l.Addr().String() + "/v1"
	if got := postAll(b, client, url, body); !sameJSON(got, reply, stream) {
		b.Fatalf("the bare handler does not answer what the simulator does:\n%s\n%s", got, reply)
	}
	return url
}

// sameJSON reports whether two replies hold the same JSON, event by event
// for streams.
func sameJSON(a, b []byte, stream bool) bool {
	if !stream {
		return model.JSONEqual(a, b)
	}
	ea, eb := strings.Split(strings.TrimSpace(string(a)), "\n\n"), strings.Split(strings.TrimSpace(string(b)), "\n\n")
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		la, lb := strings.Split(ea[i], "\n"), strings.Split(eb[i], "\n")
		if len(la) != len(lb) {
			return false
		}
		for j := range la {
			da, oka := strings.CutPrefix(la[j], "data: ")
			db, okb := strings.CutPrefix(lb[j], "data: ")
			if oka != okb || (oka && !model.JSONEqual([]byte(da), []byte(db)) && da != db) || (!oka && la[j] != lb[j]) {
				return false
			}
		}
	}
	return true
}

// measure runs call b.N times and reports the CPU per call and the p50 and
// p99 latencies.
func measure(b *testing.B, call func() []byte) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 1024)
	cpu := cputime.Start()
	for b.Loop() {
		start := time.Now()
		if len(call()) == 0 {
			b.Fatal("empty reply")
		}
		lat = append(lat, time.Since(start))
	}
	b.ReportMetric(cpu.PerOp(b.N), "cpu-ns/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}
