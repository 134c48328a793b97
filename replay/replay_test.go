package replay_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/replay"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
	"github.com/approval-conformance-kit/ack/transcript"
)

func read(t *testing.T, path string) []*transcript.Conversation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cs, err := transcript.ReadConversations(f, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ref() target.Target { return inprocess.New(reference.New(), "reference") }

// mutant is the mutant served by its own program (the kit built with its
// change), replayed over HTTP with a simulator of the test's own.
func mutant(t *testing.T, name string) replay.Options {
	t.Helper()
	m, err := mutants.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mutants.NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	srv, err := b.Serve(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ht.Close() })
	sim, err := simhttp.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	n := 0
	return replay.Options{Target: ht, Serve: func(id string, m *simulator.Model) (string, error) {
		n++
		return sim.Add(fmt.Sprintf("%s-%d", id, n), m)
	}}
}

func run(t *testing.T, c *transcript.Conversation, opts replay.Options) *replay.Result {
	t.Helper()
	res, err := replay.Run(context.Background(), c, opts)
	if err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	return res
}

// TestReplayReproduces: the late-resolution mutant's own journal replayed
// against the mutant gives the same model calls, refusal included; against
// the reference it diverges at the refused call, with both sides.
func TestReplayReproduces(t *testing.T) {
	conv := read(t, "../lint/testdata/journal/broken-late-resolution.jsonl")[1]
	res := run(t, conv, mutant(t, "late-resolution"))
	if res.Divergence != nil || res.Recorded != 2 || res.Replayed != 2 {
		t.Fatalf("against its own mutant: %d/%d calls, divergence %v, turns %v", res.Recorded, res.Replayed, res.Divergence, res.Turns)
	}
	res = run(t, conv, replay.Options{Target: ref()})
	d := res.Divergence
	if d == nil || d.Call != 2 || d.Turn != 2 {
		t.Fatalf("against the reference: divergence %v, turns %v", d, res.Turns)
	}
	if !strings.Contains(d.What, "the prompt differs in length: 2 item(s) recorded, 3 replayed") ||
		!strings.Contains(d.Recorded, "(the prompt ends after 2 item(s))") ||
		!strings.Contains(d.Replayed, `#3 tool result for call_1: {"ok":true}`) {
		t.Fatalf("divergence:\n%s", d)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "an approval is assumed") {
		t.Errorf("notes %v", res.Notes)
	}
}

// TestReplayRecorded: conversations recorded by the proxy in each wire
// format replay identically against the reference, in-process and over
// HTTP (the simulator in the recorded wire format, the reference behind
// driver protocol v1); a mutant that resolves too late diverges at the
// second call, the provider refusing its prompt.
func TestReplayRecorded(t *testing.T) {
	convs := read(t, "../lint/testdata/journal/clean-recorded.jsonl")
	sim, err := simhttp.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	n := 0
	serve := func(name string, m *simulator.Model) (string, error) {
		n++
		return sim.Add(fmt.Sprintf("%s-%d", name, n), m)
	}
	srv, err := driverserver.Listen("127.0.0.1:0", ref(), all.Models)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	overHTTP, err := httptarget.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()
	for _, c := range convs {
		t.Run(string(c.Profile), func(t *testing.T) {
			for _, opts := range []replay.Options{{Target: ref()}, {Target: overHTTP, Serve: serve}, {Target: ref(), Mode: target.Stream}} {
				res := run(t, c, opts)
				if res.Divergence != nil || res.Replayed != 2 {
					t.Fatalf("%d calls; divergence %v; turns %v", res.Replayed, res.Divergence, res.Turns)
				}
			}
			res := run(t, c, mutant(t, "late-resolution"))
			d := res.Divergence
			if d == nil || d.Call != 2 || !strings.Contains(d.What, "the prompt differs in length: 7 item(s) recorded, 5 replayed") || !strings.Contains(d.Recorded, "#6 tool result for call_a") {
				t.Fatalf("late resolution: %v", d)
			}
		})
	}
}

// TestReplayRunsTwice: a target that runs an approved call twice diverges
// there.
func TestReplayRunsTwice(t *testing.T) {
	c := read(t, "../lint/testdata/journal/clean-recorded.jsonl")[0]
	res := run(t, c, mutant(t, "executes-twice"))
	d := res.Divergence
	if d == nil || d.Turn != 2 || !strings.Contains(d.Replayed, "ran 2 times") {
		t.Fatalf("divergence %v", d)
	}
}

// TestReplayBody: a logged request body is a conversation too: its
// assistant messages are the recorded replies, and the request itself the
// last call, whose prompt is compared.
func TestReplayBody(t *testing.T) {
	c := read(t, "../lint/testdata/openai-chat/clean-multi-turn.json")[0]
	res := run(t, c, replay.Options{Target: ref()})
	if res.Divergence != nil || res.Replayed != 6 {
		t.Fatalf("%d calls; divergence %v; turns %v", res.Replayed, res.Divergence, res.Turns)
	}
	c = read(t, "../lint/testdata/openai-chat/broken-dangling-after-denial.json")[0]
	res = run(t, c, replay.Options{Target: ref()})
	d := res.Divergence
	if d == nil || d.Call != 2 || !strings.Contains(d.Replayed, "tool result for call_B") {
		t.Fatalf("divergence %v", d)
	}
}
