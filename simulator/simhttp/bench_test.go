package simhttp_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/internal/barehttp"
	"github.com/approval-conformance-kit/ack/internal/benchcall"
	"github.com/approval-conformance-kit/ack/internal/cputime"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

// simTarget serves benchmark conversations on a simhttp server, a new
// conversation every benchcall.TurnsPerConversation calls.
type simTarget struct {
	srv     *simhttp.Server
	name    string
	profile wire.Profile
	n, left int
	url     string
}

func (t *simTarget) next(b *testing.B) string {
	if t.left == 0 {
		turns := make([]simulator.Turn, benchcall.TurnsPerConversation)
		for i := range turns {
			turns[i] = simulator.Turn{Reply: benchcall.Reply}
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
		t.url, t.left = base, benchcall.TurnsPerConversation
	}
	t.left--
	return t.url
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
			body, err := codec.EncodeRequest(benchcall.Request(), stream)
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

// bareFor starts a bare handler (internal/barehttp) answering what the
// simulator at simURL answers to body, checks that it does, and returns
// its URL.
func bareFor(b *testing.B, client *http.Client, simURL string, body []byte, stream, replay bool) string {
	reply := postAll(b, client, simURL, body)
	h, err := barehttp.New(reply, stream, replay)
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(l) }()
	b.Cleanup(func() { _ = hs.Close() })
	url := "http://" + l.Addr().String() + "/v1"
	if got := postAll(b, client, url, body); !barehttp.SameJSON(got, reply, stream) {
		b.Fatalf("the bare handler does not answer what the simulator does:\n%s\n%s", got, reply)
	}
	return url
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
