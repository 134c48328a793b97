// Package probes holds implementations that test the suite itself, beside
// the mutants:
//
//   - false-positive probes differ from the reference only in ways the
//     norms allow (a turn that is one model call, stray responses refused,
//     unknown fields ignored, no denial reasons, untyped results, tool
//     failures that fail the turn) and declare what they are; the suite
//     must give them no failure;
//   - vacuity probes do nothing useful (refuse every turn, answer nothing,
//     echo their input, a chat client that never continues); every
//     scenario must fail on them unless it expects exactly that, so that no
//     scenario passes whatever the target does.
package probes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/chatclient"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// Kind says what a probe tests of the suite.
type Kind string

// The kinds of probe.
const (
	// FalsePositive probes must get no failure.
	FalsePositive Kind = "false-positive"
	// Vacuity probes must fail every scenario of their role.
	Vacuity Kind = "vacuity"
)

// Probe is one probe.
type Probe struct {
	Name string
	Kind Kind
	// What says how it differs from the reference.
	What string
	// Role is the role it probes: agent or client.
	Role string
	// New returns a fresh target of the probe.
	New func() target.Target
	// Warns are the SHOULD checks the allowed difference breaks, by their
	// own text (a false-positive probe may warn on these, never fail).
	Warns []string
	// MayPass, for a vacuity probe, names the scenarios (by name prefix)
	// that do not exercise what the probe lacks, and why.
	MayPass map[string]string
}

// All returns the probes, sorted by name.
func All() []Probe {
	out := append([]Probe(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the probe with the given name.
func Lookup(name string) (Probe, error) {
	for _, p := range all {
		if p.Name == name {
			return p, nil
		}
	}
	return Probe{}, fmt.Errorf("no probe named %q", name)
}

func reference_(name string, opts []reference.Option, adjust func(*target.Features), wrap func(target.Agent) target.Agent) func() target.Target {
	return func() target.Target {
		t := inprocess.New(reference.New(opts...), "probe "+name, inprocess.WithFeatures(adjust))
		if wrap == nil {
			return t
		}
		return agentOverride{Target: t, agent: wrap(t.Agent())}
	}
}

var all = []Probe{
	{Name: "single-step", Kind: FalsePositive, Role: target.RoleAgent,
		What: "a turn is one model call (no step loop, as Effect's generateText); it declares steps: single, and the harness plays the application's loop",
		New: reference_("single-step", nil, func(f *target.Features) { f.Steps = target.StepsSingle }, func(a target.Agent) target.Agent {
			return agentFunc(func(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
				one := *req
				one.Options.MaxSteps = 1
				return a.Turn(ctx, &one)
			})
		})},
	{Name: "refuses-orphan-responses", Kind: FalsePositive, Role: target.RoleAgent,
		What:  "refuses a message holding an approval response that matches no request, with InvalidApproval, instead of ignoring it",
		Warns: []string{"PRE-14"}, // a stray response then blocks the valid answers beside it
		New:   reference_("refuses-orphan-responses", []reference.Option{reference.WithOrphansRefused()}, func(*target.Features) {}, nil)},
	{Name: "ignores-unknown-fields", Kind: FalsePositive, Role: target.RoleAgent,
		What: "ignores the fields of a message part it does not know, instead of refusing them",
		New:  reference_("ignores-unknown-fields", []reference.Option{reference.WithLenientDecoding()}, func(*target.Features) {}, nil)},
	{Name: "no-denial-reasons", Kind: FalsePositive, Role: target.RoleAgent,
		What: "its approval API takes no denial reason (every denial result is reasonless); it declares noDenialReasons",
		New: reference_("no-denial-reasons", []reference.Option{reference.WithoutDenialReasons()},
			func(f *target.Features) { f.NoDenialReasons = true }, nil)},
	{Name: "untyped-results", Kind: FalsePositive, Role: target.RoleAgent,
		What: "its results carry no output type: a denial is an ordinary text result with the reason; it declares untypedResults",
		New: reference_("untyped-results", []reference.Option{reference.WithUntypedResults()},
			func(f *target.Features) { f.UntypedResults = true }, nil)},
	{Name: "tool-errors-fail-the-turn", Kind: FalsePositive, Role: target.RoleAgent,
		What: "a tool that fails fails the turn with ToolExecution instead of giving the model an error result; it declares toolErrors: turn-error",
		New: reference_("tool-errors-fail-the-turn", []reference.Option{reference.WithToolErrorsFailTheTurn()},
			func(f *target.Features) { f.ToolErrors = "turn-error" }, nil)},

	{Name: "refuses-every-turn", Kind: Vacuity, Role: target.RoleAgent,
		What: "refuses every turn with InvalidMessages",
		New: vacuous("refuses-every-turn", func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
			return &target.TurnResponse{Error: &target.TurnError{Code: "InvalidMessages", Message: "refused: this probe refuses every turn"}}, nil
		})},
	{Name: "does-nothing", Kind: Vacuity, Role: target.RoleAgent,
		What: "answers every turn with no message and finish reason stop, without calling the model",
		New: vacuous("does-nothing", func(context.Context, *target.TurnRequest) (*target.TurnResponse, error) {
			return &target.TurnResponse{Messages: []model.Message{}, FinishReason: "stop"}, nil
		})},
	{Name: "echoes-input", Kind: Vacuity, Role: target.RoleAgent,
		What: "answers every turn with the messages it was given, without calling the model",
		New: vacuous("echoes-input", func(_ context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
			var msgs []model.Message
			if err := json.Unmarshal(req.Messages, &msgs); err != nil {
				return &target.TurnResponse{Error: &target.TurnError{Code: "InvalidMessages", Message: err.Error()}}, nil
			}
			return &target.TurnResponse{Messages: msgs, FinishReason: "stop"}, nil
		})},
	{Name: "client-never-continues", Kind: Vacuity, Role: target.RoleClient,
		What: "a chat client that shows approvals and takes answers, but never sends a continuation",
		MayPass: map[string]string{
			"a new message while an approval is pending":        "the pending approval is answered with the new message, which is a send, not a continuation",
			"a new message while several approvals are pending": "the pending approvals are answered with the new message, which is a send, not a continuation",
			"approval requests reach the client":                "showing an approval needs no continuation",
		},
		New: func() target.Target {
			return inprocess.New(reference.New(), "probe client-never-continues",
				inprocess.WithClientOptions(chatclient.WithoutAutoContinue()))
		}},
	{Name: "server-does-nothing", Kind: Vacuity, Role: target.RoleServer,
		What: "a chat endpoint that answers every request with a stream that starts and finishes, without calling the model",
		New: func() target.Target {
			return idleServer{Target: inprocess.New(reference.New(), "probe server-does-nothing")}
		}},
}

// idleServer is a target whose chat endpoints answer every request with
// an empty stream.
type idleServer struct{ *inprocess.Target }

func (s idleServer) Server() target.Server { return s }

func (s idleServer) NewChat(_ context.Context, cfg target.ChatConfig) (target.Chat, error) {
	codec, err := protocols.LookupDialect(cfg.Protocol, cfg.Dialect)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := codec.DecodeRequest(mustRead(r))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for k, v := range codec.ResponseHeaders() {
			w.Header().Set(k, v)
		}
		ew := codec.NewWriter(w, func() {}, req)
		_ = ew.Write(chat.Event{Type: chat.EventRunStarted})
		_ = ew.Write(chat.Event{Type: chat.EventMessageStart, MessageID: "msg-idle"})
		_ = ew.Write(chat.Event{Type: chat.EventFinish, FinishReason: "stop"})
		_ = ew.Close()
	}))
	return idleChat{srv}, nil
}

func mustRead(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)) // a short read decodes as a bad request
	return b
}

type idleChat struct{ srv *httptest.Server }

func (c idleChat) URL() string { return c.srv.URL }

func (c idleChat) Close(context.Context) error {
	c.srv.Close()
	return nil
}

// vacuous is a target that declares every feature of the reference and
// answers every turn with fn; it plays no client role.
func vacuous(name string, fn func(context.Context, *target.TurnRequest) (*target.TurnResponse, error)) func() target.Target {
	return func() target.Target {
		return &vacuousTarget{name: name, turn: fn}
	}
}

type vacuousTarget struct {
	name string
	turn func(context.Context, *target.TurnRequest) (*target.TurnResponse, error)
}

func (v *vacuousTarget) Info(ctx context.Context) (*target.Info, error) {
	info, err := inprocess.New(reference.New(), "probe "+v.name).Info(ctx)
	if err != nil {
		return nil, err
	}
	info.Roles = []string{target.RoleAgent}
	info.Features.ClientProtocols = nil
	info.Features.ClientTools = false
	return info, nil
}
func (v *vacuousTarget) Agent() target.Agent   { return agentFunc(v.turn) }
func (v *vacuousTarget) Client() target.Client { return nil }
func (v *vacuousTarget) Close() error          { return nil }

// agentFunc is a function as a target.Agent.
type agentFunc func(context.Context, *target.TurnRequest) (*target.TurnResponse, error)

func (f agentFunc) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	return f(ctx, req)
}

// agentOverride is a target whose agent role is replaced.
type agentOverride struct {
	target.Target
	agent target.Agent
}

func (a agentOverride) Agent() target.Agent { return a.agent }

// Info implements target.Target: the override's target plays no server
// role (its chat endpoint would run the reference's agent, not the
// override).
func (a agentOverride) Info(ctx context.Context) (*target.Info, error) {
	info, err := a.Target.Info(ctx)
	if err != nil {
		return nil, err
	}
	var roles []string
	for _, r := range info.Roles {
		if r != target.RoleServer {
			roles = append(roles, r)
		}
	}
	info.Roles = roles
	info.Features.ServerProtocols = nil
	return info, nil
}

var _ = chat.Protocols // the client probes speak every protocol the reference client does
