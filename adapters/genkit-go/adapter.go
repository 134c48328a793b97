// Package genkitgo drives Genkit Go (github.com/firebase/genkit/go) as a
// target of the Approval Conformance Kit, in the test's own process: each
// turn is one ai.Generate over the conversation, with the tools of the
// turn and the middleware.ToolApproval middleware, which interrupts every
// call of a tool not in its AllowedTools. An approval is the interrupted
// request restarted with {"toolApproved": true} (ai.WithToolRestarts); a
// denial is the interrupted request answered with a denial output
// (ai.WithToolResponses): Genkit has no denial of its own, so the output
// is the application's, here {"error": "denied: <reason>"}. The model is
// the kit's model as a Genkit model (the canonical path), or, with Wire,
// Genkit's compat_oai plugin over Chat Completions against the simulator
// (the wire path).
package genkitgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/events"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/firebase/genkit/go/plugins/middleware"
	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
)

// SDKVersion is the Genkit version the adapter is built and certified
// with (go.mod pins it).
const SDKVersion = "v1.7.0"

// modelName is the kit's model as Genkit knows it.
const modelName = "ack/canonical"

// Target is Genkit Go as a conformance target.
type Target struct {
	g     *genkit.Genkit
	model ai.Model
	// wire: the turn's model is Genkit's OpenAI-compatible plugin
	// (compat_oai) speaking Chat Completions to the harness's simulator.
	wire bool
}

type baseURLKey struct{}

// wireModel is the model of the compat_oai plugin the wire path uses.
const wireModel = "ack-sim/gpt-4o"

// placeholder is the plugin's base URL; each request goes to the turn's
// own base URL instead (a scenario's simulator has a URL of its own).
const placeholder = "http://127.0.0.1:9/placeholder/v1"

// Option configures a Target.
type Option func(*Target)

// Wire drives the model over the wire: Genkit's compat_oai plugin (the
// official openai-go client) against the simulator's Chat Completions
// endpoint, rather than a model of the application's own.
func Wire() Option { return func(t *Target) { t.wire = true } }

type modelKey struct{}

type refKey struct{}

// New returns the target: a Genkit instance with the kit's model defined
// (each turn's model travels in the turn's context).
func New(ctx context.Context, opts ...Option) *Target {
	t := &Target{}
	for _, o := range opts {
		o(t)
	}
	oai := &compat_oai.OpenAICompatible{
		Provider: "ack-sim",
		APIKey:   "ack",
		BaseURL:  placeholder,
		Opts:     []option.RequestOption{option.WithMiddleware(toTurnBaseURL), option.WithMaxRetries(0)},
	}
	t.g = genkit.Init(ctx, genkit.WithPlugins(&middleware.Middleware{}, oai))
	if t.wire {
		t.model = oai.DefineModel("ack-sim", "gpt-4o", ai.ModelOptions{
			Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true},
		})
		return t
	}
	t.model = genkit.DefineModel(t.g, modelName, &ai.ModelOptions{
		Label:    "the kit's model (canonical)",
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true},
	}, generate)
	return t
}

// toTurnBaseURL sends a request of the compat_oai plugin to the turn's
// base URL (in the request's context).
func toTurnBaseURL(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	base, ok := req.Context().Value(baseURLKey{}).(string)
	if !ok || base == "" {
		return nil, errors.New("the turn has no model base URL")
	}
	u, err := url.Parse(base + strings.TrimPrefix(req.URL.Path, "/placeholder/v1"))
	if err != nil {
		return nil, fmt.Errorf("model base URL: %w", err)
	}
	req.URL, req.Host = u, u.Host
	return next(req)
}

// Info implements target.Target.
func (t *Target) Info(context.Context) (*target.Info, error) {
	return &target.Info{
		Name:       "genkit-go",
		Version:    "0.1.0",
		SDK:        "github.com/firebase/genkit/go",
		SDKVersion: SDKVersion,
		Roles:      []string{target.RoleAgent},
		Features: target.Features{
			Modes:          []target.Mode{target.Generate, target.Stream},
			DenialPolicy:   "independent",
			ToolErrors:     "turn-error",
			ModelAPIs:      t.modelAPIs(),
			UntypedResults: true,
			BoundApprovals: true,
		},
	}, nil
}

func (t *Target) modelAPIs() []string {
	if t.wire {
		return []string{target.APIOpenAIChat}
	}
	return []string{target.APICanonical}
}

// Agent implements target.Target.
func (t *Target) Agent() target.Agent { return t }

// Client implements target.Target: Genkit has no chat client here.
func (t *Target) Client() target.Client { return nil }

// Close implements target.Target.
func (t *Target) Close() error { return nil }

// Turn implements target.Agent.
func (t *Target) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	msgs, err := model.DecodeMessagesAt(req.Messages, "messages")
	if err != nil {
		return turnError("InvalidMessages", err), nil
	}
	switch {
	case t.wire && req.Model.BaseURL == "":
		return nil, errors.New("the turn has no model base URL (the wire path needs acktest.Options.ServeModel)")
	case !t.wire && req.Model.Local == nil:
		return nil, errors.New("the turn has no in-process model (the canonical path runs in-process)")
	}
	history, restarts, responds, given, err := toGenkit(msgs)
	if err != nil {
		var ne notExpressible
		if errors.As(err, &ne) {
			return turnError(target.CodeNotExpressible, err), nil
		}
		return turnError("InvalidMessages", err), nil
	}
	var allowed []string
	var tools []ai.ToolRef
	if req.Toolkit == target.ToolkitProvided {
		for _, spec := range req.Tools {
			if spec.Approval == target.ApprovalDynamic {
				return turnError(target.CodeNotExpressible, fmt.Errorf("tool %s: ToolApproval decides by the tool's name only", spec.Name)), nil
			}
			if spec.Approval == target.ApprovalNever {
				allowed = append(allowed, spec.Name)
			}
			tool, err := newTool(spec, req.Harness)
			if err != nil {
				return turnError("Other", err), nil
			}
			tools = append(tools, tool)
		}
	}
	opts := []ai.GenerateOption{
		ai.WithModel(t.model),
		ai.WithMessages(history...),
		ai.WithTools(tools...),
		// callRef outermost: every tool run Genkit starts passes through
		// its WrapTool, the ones ToolApproval interrupts too.
		ai.WithUse(callRef{}, &middleware.ToolApproval{AllowedTools: allowed}),
	}
	rec := &recorder{maxTurns: defaultMaxTurns, tools: map[string]bool{}}
	for _, spec := range req.Tools {
		if req.Toolkit == target.ToolkitProvided {
			rec.tools[spec.Name] = true
		}
	}
	rec.lookup = func(name string) bool { return rec.tools[name] || genkit.LookupTool(t.g, name) != nil }
	switch {
	case req.Options.MaxSteps == 1:
		return turnError(target.CodeNotExpressible, errors.New("options.maxSteps 1: Genkit's WithMaxTurns bounds the tool-call iterations after the first model call, and 0 means its default")), nil
	case req.Options.MaxSteps > 1:
		// MaxTurns counts the model calls after the first.
		opts = append(opts, ai.WithMaxTurns(req.Options.MaxSteps-1))
		rec.maxTurns = req.Options.MaxSteps - 1
	}
	rec.resumeRuns = resumeRuns(history, restarts, responds, rec.lookup)
	if len(restarts) > 0 {
		opts = append(opts, ai.WithToolRestarts(restarts...))
	}
	if len(responds) > 0 {
		opts = append(opts, ai.WithToolResponses(responds...))
	}
	if req.Mode == target.Stream {
		// Genkit streams when given a callback; the turn's events are
		// laid out from the messages it returns.
		opts = append(opts, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
	}
	gctx := context.WithValue(ctx, recorderKey{}, rec)
	gctx = context.WithValue(gctx, modelKey{}, req.Model.Local)
	gctx = context.WithValue(gctx, baseURLKey{}, req.Model.BaseURL)
	resp, err := genkit.Generate(gctx, t.g, opts...)
	// Generate may return while tool runs it started go on (FINDINGS.md,
	// G6): the turn ends when they have, so that a run belongs to the turn
	// whose Generate started it, whatever the scheduling.
	if werr := rec.wait(ctx, strayRunWait); werr != nil {
		return nil, werr
	}
	if err != nil {
		code := "Other"
		switch {
		case isModelError(err):
			code = "Model"
		case strings.Contains(err.Error(), "tool ") && strings.Contains(err.Error(), " not found"):
			code = "ToolNotFound"
		case strings.Contains(err.Error(), "tool ") && strings.Contains(err.Error(), " failed"):
			code = "ToolExecution"
		}
		return turnError(code, err), nil
	}
	rec.mu.Lock()
	all := rec.last
	rec.mu.Unlock()
	if all == nil { // no model call: the resume ended in interrupts
		all = history
	}
	if resp.Message != nil {
		all = append(all[:len(all):len(all)], resp.Message)
	}
	added, err := answer(all, len(history), given)
	if err != nil {
		return nil, err
	}
	finish := string(resp.FinishReason)
	switch resp.FinishReason {
	case ai.FinishReasonInterrupted:
		finish = "tool-calls"
	case ai.FinishReasonLength:
		finish = "length"
	case ai.FinishReasonStop, "":
		finish = "stop"
	}
	out := &target.TurnResponse{Messages: added, FinishReason: finish}
	if req.Mode == target.Stream {
		out.Events = events.FromMessages(added, finish)
	}
	return out, nil
}

func turnError(code string, err error) *target.TurnResponse {
	return &target.TurnResponse{Error: &target.TurnError{Code: code, Message: err.Error(), SDKError: err.Error()}}
}

func isModelError(err error) bool {
	var api *llm.APIError
	var wire *openai.Error
	return errors.As(err, &api) || errors.As(err, &wire)
}

// notExpressible is an input Genkit's API has no shape for.
type notExpressible struct{ msg string }

func (e notExpressible) Error() string { return e.msg }

// callRef is the adapter's middleware: it gives a tool run its call's ref
// (Genkit's ToolContext does not carry it), so that the harness knows which
// call ran, and it keeps the messages of the turn's last model request
// (the recorder in the context), from which the turn's messages are read:
// a response's own Request is what the model plugin put there, which
// compat_oai leaves empty when it streams (FINDINGS.md).
type callRef struct{}

type recorderKey struct{}

// recorder holds the messages of the last model request of a Generate,
// and counts the tool runs Genkit starts in it and those that ended.
//
// Genkit runs each tool request of a step, and each request of a resume,
// in a goroutine of its own and returns on the first error it reads while
// the others go on (ai/generate.go l.976-1021 and l.1024-1032 for a step,
// l.1529-1560 for a resume; module github.com/firebase/genkit/go@v1.7.0):
// whether a sibling's run ends before Generate returns is up to the
// scheduler. Genkit has no option to run a step's tools one after another
// (WrapTool "may be called concurrently", ai/middleware.go l.41-43), so the
// adapter waits for every run Genkit started before it answers the turn.
// The runs are known in advance from the code that starts them: in a
// step, one per tool request whose tool Genkit finds (l.976-983), when the
// step is within the turn limit (l.465-471); in a resume, one per
// interrupted request with a restart and no response and no pending output
// (handleResumedToolRequest, l.1371-1382, l.1387-1390, l.1429-1435).
type recorder struct {
	mu   sync.Mutex
	last []*ai.Message

	tools      map[string]bool
	lookup     func(name string) bool
	maxTurns   int
	resumeRuns int
	expected   int
	ended      int
	idle       chan struct{}
}

// defaultMaxTurns is Genkit's turn limit when none is set (ai/generate.go
// l.278-279).
const defaultMaxTurns = 5

// strayRunWait bounds the wait for the tool runs a Generate started.
const strayRunWait = 30 * time.Second

// expect counts n more tool runs that Genkit will start.
func (r *recorder) expect(n int) {
	r.mu.Lock()
	r.expected += n
	r.mu.Unlock()
}

// end counts a tool run that ended.
func (r *recorder) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended++
	if r.idle != nil && r.ended >= r.expected {
		close(r.idle)
		r.idle = nil
	}
}

// wait returns when every tool run Genkit started has ended, or an error
// after d.
func (r *recorder) wait(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	if r.ended >= r.expected {
		r.mu.Unlock()
		return nil
	}
	idle := make(chan struct{})
	r.idle = idle
	expected, ended := r.expected, r.ended
	r.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-idle:
		return nil
	case <-timer.C:
		return fmt.Errorf("genkit-go adapter: %d of the %d tool runs Genkit started in this turn did not end within %s", expected-ended, expected, d)
	case <-ctx.Done():
		return fmt.Errorf("genkit-go adapter: waiting for the tool runs Genkit started: %w", ctx.Err())
	}
}

// resumeRuns is the number of tool runs a resume starts: one per tool
// request of the last model message with no pending output
// (ai/generate.go l.1371-1382), no response (l.1387-1390) and a restart
// whose tool Genkit finds (l.1429-1435).
func resumeRuns(history []*ai.Message, restarts, responds []*ai.Part, found func(string) bool) int {
	if len(restarts) == 0 || len(history) == 0 {
		return 0
	}
	last := history[len(history)-1]
	n := 0
	for _, p := range last.Content {
		if !p.IsToolRequest() {
			continue
		}
		if _, pending := p.Metadata["pendingOutput"]; pending {
			continue
		}
		if slices.ContainsFunc(responds, func(r *ai.Part) bool {
			return r.ToolResponse != nil && r.ToolResponse.Name == p.ToolRequest.Name && r.ToolResponse.Ref == p.ToolRequest.Ref
		}) {
			continue
		}
		i := slices.IndexFunc(restarts, func(r *ai.Part) bool {
			return r.ToolRequest != nil && r.ToolRequest.Name == p.ToolRequest.Name && r.ToolRequest.Ref == p.ToolRequest.Ref
		})
		if i >= 0 && found(restarts[i].ToolRequest.Name) {
			n++
		}
	}
	return n
}

type iterationKey struct{}

// Name implements ai.Middleware.
func (callRef) Name() string { return "ack/callRef" }

// New implements ai.Middleware.
func (callRef) New(context.Context) (*ai.Hooks, error) {
	return &ai.Hooks{
		WrapGenerate: func(ctx context.Context, p *ai.GenerateParams, next ai.GenerateNext) (*ai.ModelResponse, error) {
			if rec, ok := ctx.Value(recorderKey{}).(*recorder); ok && p.Iteration == 0 {
				// The resume runs first thing in iteration 0
				// (ai/generate.go l.409-410).
				rec.expect(rec.resumeRuns)
			}
			return next(context.WithValue(ctx, iterationKey{}, p.Iteration), p)
		},
		WrapTool: func(ctx context.Context, p *ai.ToolParams, next ai.ToolNext) (*ai.MultipartToolResponse, error) {
			if rec, ok := ctx.Value(recorderKey{}).(*recorder); ok {
				defer rec.end()
			}
			return next(context.WithValue(ctx, refKey{}, p.Request.Ref), p)
		},
		WrapModel: func(ctx context.Context, p *ai.ModelParams, next ai.ModelNext) (*ai.ModelResponse, error) {
			rec, ok := ctx.Value(recorderKey{}).(*recorder)
			if ok && p.Request != nil {
				rec.mu.Lock()
				rec.last = append([]*ai.Message(nil), p.Request.Messages...)
				rec.mu.Unlock()
			}
			resp, err := next(ctx, p)
			if ok && err == nil && resp != nil && resp.Message != nil {
				// The step's tools run when the step is within the turn
				// limit (ai/generate.go l.469-474): one run per request
				// whose tool Genkit finds (l.976-983).
				iteration, _ := ctx.Value(iterationKey{}).(int)
				if iteration+1 <= rec.maxTurns {
					n := 0
					for _, part := range resp.Message.Content {
						if part.IsToolRequest() && rec.lookup(part.ToolRequest.Name) {
							n++
						}
					}
					rec.expect(n)
				}
			}
			return resp, err
		},
	}, nil
}

// newTool is a tool of the turn as a Genkit tool that runs in the harness.
func newTool(spec target.Tool, h target.Harness) (ai.Tool, error) {
	var opts []ai.ToolOption
	if len(spec.InputSchema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", spec.Name, err)
		}
		opts = append(opts, ai.WithInputSchema(schema))
	}
	// The output is an object: a tool whose output type is any gets
	// Genkit's multipart response as its output schema, against which
	// Genkit validates a response to an interrupt (a denial).
	return ai.NewTool(spec.Name, spec.Description, func(tc *ai.ToolContext, input any) (map[string]any, error) {
		if h == nil {
			return nil, errors.New("no harness to run the tool")
		}
		raw, err := json.Marshal(input)
		if err != nil {
			return nil, err
		}
		ref, _ := tc.Value(refKey{}).(string)
		out, err := h.Execute(tc, target.ExecuteRequest{ToolName: spec.Name, ToolCallID: ref, Input: raw})
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, fmt.Errorf("tool %s: output: %w", spec.Name, err)
		}
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
		return map[string]any{"result": v}, nil
	}, opts...), nil
}

// generate is the kit's model as a Genkit model function.
func generate(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	m, ok := ctx.Value(modelKey{}).(llm.Model)
	if !ok {
		return nil, errors.New("no kit model in the context")
	}
	lreq := &llm.Request{}
	for i, msg := range req.Messages {
		cm, err := messageToKit(msg)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		if cm != nil {
			lreq.Messages = append(lreq.Messages, *cm)
		}
	}
	for _, td := range req.Tools {
		def := llm.ToolDef{Name: td.Name, Description: td.Description}
		if td.InputSchema != nil {
			raw, err := json.Marshal(td.InputSchema)
			if err != nil {
				return nil, err
			}
			def.InputSchema = raw
		}
		lreq.Tools = append(lreq.Tools, def)
	}
	resp, err := m.Generate(ctx, lreq)
	if err != nil {
		return nil, err
	}
	out := &ai.Message{Role: ai.RoleModel}
	for i, p := range resp.Content {
		switch p.Type {
		case model.PartText:
			out.Content = append(out.Content, ai.NewTextPart(p.Text))
		case model.PartReasoning:
			out.Content = append(out.Content, ai.NewReasoningPart(p.Text, nil))
		case model.PartToolCall:
			var input any
			if len(p.Input) > 0 {
				if err := json.Unmarshal(p.Input, &input); err != nil {
					return nil, fmt.Errorf("content[%d]: %w", i, err)
				}
			}
			out.Content = append(out.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: p.ToolName, Ref: p.ToolCallID, Input: input}))
		default:
			return nil, fmt.Errorf("content[%d]: a %s part has no place in a Genkit model message", i, p.Type)
		}
	}
	finish := ai.FinishReasonStop
	if resp.FinishReason == llm.FinishLength {
		finish = ai.FinishReasonLength
	}
	return &ai.ModelResponse{Request: req, Message: out, FinishReason: finish}, nil
}
