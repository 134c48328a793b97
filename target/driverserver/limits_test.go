package driverserver_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// countingTarget's sessions report their Close on a channel.
type countingTarget struct {
	target.Target
	closed chan string
}

func (c countingTarget) Client() target.Client { return c }

func (c countingTarget) NewSession(context.Context, target.SessionConfig) (target.Session, error) {
	return countingSession{closed: c.closed}, nil
}

type countingSession struct {
	target.Session
	closed chan string
}

func (s countingSession) Close(context.Context) error {
	s.closed <- "closed"
	return nil
}

const session = `{"chatURL":"http://127.0.0.1:1/chat","protocol":"ui-message-stream","tools":[]}`

// Client sessions are bounded in number, and one unused for long is
// closed: a server cannot be made to hold sessions for ever.
func TestSessionsAreBounded(t *testing.T) {
	closed := make(chan string, 3)
	clk := &clock{now: time.Unix(1e9, 0)}
	srv, err := driverserver.NewServer(countingTarget{closed: closed}, nil,
		driverserver.WithLimits(limits.Limits{Sessions: 2, SessionIdle: time.Minute}), driverserver.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for i := range 2 {
		if status, code, msg := do(t, "POST", srv.URL+"/v1/client/sessions", session); status != 200 {
			t.Fatalf("session %d: %d %s %s", i+1, status, code, msg)
		}
	}
	status, code, msg := do(t, "POST", srv.URL+"/v1/client/sessions", session)
	if status != http.StatusTooManyRequests || code != "TooManySessions" || !strings.Contains(msg, "--max-sessions") {
		t.Errorf("a third session: %d %s %q", status, code, msg)
	}
	select {
	case <-closed:
		t.Fatal("a session was closed before its time")
	default:
	}
	// Unused for longer than SessionIdle: closed at the next request, and
	// room for new ones.
	clk.advance(2 * time.Minute)
	if status, _, msg := do(t, "POST", srv.URL+"/v1/client/sessions", session); status != 200 {
		t.Fatalf("after the idle sessions closed: %d %s", status, msg)
	}
	if len(closed) != 2 {
		t.Fatalf("%d idle sessions closed, want 2", len(closed))
	}
}

// loopingAgent calls its model until the model refuses.
type loopingAgent struct{ calls int }

func (a *loopingAgent) Info(context.Context) (*target.Info, error) {
	return &target.Info{Name: "loops"}, nil
}
func (a *loopingAgent) Agent() target.Agent   { return a }
func (a *loopingAgent) Client() target.Client { return nil }
func (a *loopingAgent) Close() error          { return nil }
func (a *loopingAgent) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	for {
		if _, err := req.Model.Local.Generate(ctx, &llm.Request{Messages: []model.Message{model.UserText("again")}}); err != nil {
			return nil, err
		}
		a.calls++
	}
}

// A turn's model calls are bounded whatever the target's own step limit.
func TestModelCallsOfATurnAreBounded(t *testing.T) {
	loops := &loopingAgent{}
	sim, err := simulator.New(simulator.Script{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := driverserver.NewServer(loops, func(target.ModelEndpoint) (llm.Model, error) { return endless{sim}, nil },
		driverserver.WithLimits(limits.Limits{Steps: 7}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	status, code, msg := do(t, "POST", srv.URL+"/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"http://127.0.0.1:1/v1","api":"openai-chat"},"messages":[]}`)
	if status != 500 || code != "Internal" || !strings.Contains(msg, "model call 8 of the turn refused: this server allows 7 model calls a turn (--max-steps)") || loops.calls != 7 {
		t.Errorf("%d %s %q after %d calls", status, code, msg, loops.calls)
	}
}

// endless answers every call.
type endless struct{ *simulator.Model }

func (endless) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	return &llm.Response{Content: []model.Part{model.Text("more")}, FinishReason: "stop"}, nil
}

// bigAgent answers with a turn larger than the server may write.
type bigAgent struct{ loopingAgent }

func (a *bigAgent) Agent() target.Agent { return a }
func (a *bigAgent) Turn(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
	msgs := []model.Message{{Role: model.RoleAssistant, Content: []model.Part{model.Text(strings.Repeat("x", 5000))}}}
	return &target.TurnResponse{Messages: msgs, FinishReason: "stop"}, nil
}

func TestTurnAnswerIsBounded(t *testing.T) {
	srv, err := driverserver.NewServer(&bigAgent{}, func(target.ModelEndpoint) (llm.Model, error) { return endless{}, nil },
		driverserver.WithLimits(limits.Limits{ReplyBytes: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	status, code, msg := do(t, "POST", srv.URL+"/v1/agent/turn", `{"mode":"generate","model":{"baseURL":"http://127.0.0.1:1/v1","api":"openai-chat"},"messages":[]}`)
	if status != 500 || code != "Internal" || !strings.Contains(msg, "is larger than 1000 bytes (the limit, --max-reply-bytes)") {
		t.Errorf("%d %s %q", status, code, msg)
	}
}
