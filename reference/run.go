package reference

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// run is the state of one turn.
type run struct {
	agent *Agent
	turn  Turn
	mode  string
	yield func(model.Event) error

	yieldFailed bool
	tools       map[string]Tool
	toolNames   []string
	schemas     map[string]*jsonschema.Schema
	history     []model.Message // the conversation, growing as the turn adds to it
	added       []model.Message // what the turn added
	usage       llm.Usage
	// autoDenied holds the calls a deciding policy denied on its own, with
	// the policy's reason.
	autoDenied map[string]string

	failMu   sync.Mutex
	toolFail error // the first tool failure, when tool failures fail the turn
}

// failed returns the turn error of a failed tool, when the agent fails the
// turn on tool failures (WithToolErrorsFailTheTurn).
func (r *run) failed() error {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if r.toolFail == nil {
		return nil
	}
	return &Error{Code: ToolExecution, Message: r.toolFail.Error(), Err: r.toolFail}
}

func (r *run) do(ctx context.Context) (*Result, error) {
	if r.turn.Model == nil {
		return nil, &Error{Code: Other, Message: "no model given"}
	}
	if err := r.indexTools(); err != nil {
		return nil, err
	}
	r.history = model.Clone(r.turn.Messages)
	p, err := r.collect()
	if err != nil {
		return nil, err
	}
	// Pre-resolution: the answered calls get their results before the model
	// is called.
	if err := r.resolve(ctx, p); err != nil {
		return nil, err
	}
	if err := r.failed(); err != nil {
		return nil, err
	}
	maxSteps := r.turn.MaxSteps
	if maxSteps <= 0 {
		maxSteps = r.agent.maxSteps
	}
	res := &Result{}
	for step := 0; step < maxSteps; step++ {
		prompt := r.prompt()
		if err := r.emit(model.Event{Type: model.EventStartStep}); err != nil {
			return nil, err
		}
		resp, err := r.callModel(ctx, prompt)
		if err != nil {
			return nil, err
		}
		res.Steps++
		r.usage.InputTokens += resp.Usage.InputTokens
		r.usage.OutputTokens += resp.Usage.OutputTokens

		pending, ranLocal, err := r.handleCalls(ctx, prompt, resp)
		if err != nil {
			return nil, err
		}
		if err := r.failed(); err != nil {
			return nil, err
		}
		finish := resp.FinishReason
		if pending > 0 {
			finish = llm.FinishToolCalls
		}
		if finish == "" {
			finish = llm.FinishStop
		}
		if err := r.emit(model.Event{Type: model.EventFinishStep, FinishReason: finish}); err != nil {
			return nil, err
		}
		res.FinishReason = finish
		if pending > 0 {
			break
		}
		if !ranLocal && pending == 0 {
			break
		}
	}
	res.Messages = r.added
	res.Usage = r.usage
	if err := r.emit(model.Event{Type: model.EventFinish, FinishReason: res.FinishReason}); err != nil {
		return nil, err
	}
	return res, nil
}

func (r *run) indexTools() error {
	r.tools = map[string]Tool{}
	r.schemas = map[string]*jsonschema.Schema{}
	for _, t := range r.turn.Tools {
		if t.Name == "" {
			return &Error{Code: Other, Message: "a tool has no name"}
		}
		if _, dup := r.tools[t.Name]; dup {
			return &Error{Code: Other, Message: fmt.Sprintf("two tools are named %q", t.Name)}
		}
		r.tools[t.Name] = t
		r.toolNames = append(r.toolNames, t.Name)
		if len(t.InputSchema) > 0 {
			s, err := compileSchema(t.InputSchema)
			if err != nil {
				return &Error{Code: Other, Message: fmt.Sprintf("tool %q: input schema: %v", t.Name, err), Err: err}
			}
			r.schemas[t.Name] = s
		}
	}
	sort.Strings(r.toolNames)
	return nil
}

func (r *run) append(m model.Message) {
	r.history = append(r.history, m)
	r.added = append(r.added, m)
}

func (r *run) emit(ev model.Event) error {
	if r.yield == nil {
		return nil
	}
	if err := r.yield(ev); err != nil {
		r.yieldFailed = true
		return &Error{Code: Other, Message: "the stream's consumer stopped: " + err.Error(), Err: err}
	}
	return nil
}

// callModel calls the model with the prompt, in the turn's mode. In stream
// mode, text and tool-call events are forwarded as they arrive.
func (r *run) callModel(ctx context.Context, prompt []model.Message) (*llm.Response, error) {
	req := &llm.Request{Messages: prompt, Tools: r.toolDefs()}
	if r.mode != "stream" {
		resp, err := r.turn.Model.Generate(ctx, req)
		if err != nil {
			return nil, modelError(err)
		}
		return resp, nil
	}
	resp := &llm.Response{}
	var text *int
	err := r.turn.Model.Stream(ctx, req, func(ev llm.StreamEvent) error {
		switch ev.Type {
		case llm.StreamTextDelta:
			if text == nil {
				resp.Content = append(resp.Content, model.Text(""))
				i := len(resp.Content) - 1
				text = &i
			}
			resp.Content[*text].Text += ev.Text
			return r.emit(model.Event{Type: model.EventTextDelta, Text: ev.Text})
		case llm.StreamPart:
			if ev.Part == nil {
				return nil
			}
			text = nil
			resp.Content = append(resp.Content, ev.Part.Clone())
			if ev.Part.Type == model.PartToolCall || ev.Part.ProviderExecuted || ev.Part.Type == model.PartToolApprovalRequest {
				return r.emit(model.PartEvent(*ev.Part))
			}
		case llm.StreamFinish:
			resp.FinishReason = ev.FinishReason
			resp.Usage = ev.Usage
		}
		return nil
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, modelError(err)
	}
	return resp, nil
}

func modelError(err error) error {
	var api *llm.APIError
	if errors.As(err, &api) {
		return &Error{Code: ModelError, Message: fmt.Sprintf("the model answered HTTP %d: %s", api.Status, api.Message), Err: err}
	}
	return &Error{Code: ModelError, Message: "the model call failed: " + err.Error(), Err: err}
}

func (r *run) toolDefs() []llm.ToolDef {
	defs := make([]llm.ToolDef, 0, len(r.turn.Tools))
	for _, t := range r.turn.Tools {
		defs = append(defs, llm.ToolDef{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return defs
}

// handleCalls turns the model's reply into the assistant message, issues
// approval requests, runs the calls that need none, and appends the results.
// It returns how many approvals are pending and whether local calls ran.
func (r *run) handleCalls(ctx context.Context, prompt []model.Message, resp *llm.Response) (pending int, ranLocal bool, err error) {
	assistant := model.Message{Role: model.RoleAssistant, Content: append([]model.Part(nil), resp.Content...)}
	type planned struct {
		call    model.Part
		tool    Tool
		output  *model.ToolOutput // set when the call cannot run
		pending bool              // waits for approval
	}
	var local []*planned
	var requests []model.Part
	for _, part := range resp.Content {
		if part.Type != model.PartToolCall || part.ProviderExecuted {
			continue
		}
		pl := &planned{call: part}
		local = append(local, pl)
		tool, ok := r.tools[part.ToolName]
		if !ok {
			pl.output = model.ErrorTextOutput(fmt.Sprintf("Error: tool %q is not in the toolkit.", part.ToolName))
			continue
		}
		pl.tool = tool
		if msg := r.invalidInput(part); msg != "" {
			pl.output = model.ErrorTextOutput(msg)
			continue
		}
		need := r.needsApproval(ctx, tool, part, prompt)
		if reason, denied := r.autoDenied[part.ToolCallID]; denied {
			pl.output = model.DeniedOutput(reason)
			continue
		}
		if !need {
			continue
		}
		id := r.agent.newID()
		req := model.ApprovalRequest(id, part.ToolCallID)
		req.Signature = r.agent.sign(id, part.ToolCallID, part.ToolName, part.Input)
		requests = append(requests, req)
		pending++
		pl.pending = true
	}
	assistant.Content = append(assistant.Content, requests...)
	r.append(assistant)
	for _, req := range requests {
		if err := r.emit(model.PartEvent(req)); err != nil {
			return 0, false, err
		}
	}

	outputs := make([]*model.ToolOutput, len(local))
	var jobs []job
	for i, pl := range local {
		i, pl := i, pl
		switch {
		case pl.pending:
			continue
		case pl.output != nil:
			outputs[i] = pl.output
		default:
			jobs = append(jobs, job{run: func(ctx context.Context) {
				outputs[i] = r.execute(ctx, pl.tool, pl.call)
			}})
			ranLocal = true
		}
	}
	r.runJobs(ctx, jobs)
	if err := ctx.Err(); err != nil {
		return 0, false, &Error{Code: Other, Message: "turn canceled while running tools", Err: err}
	}
	var parts []model.Part
	for i, pl := range local {
		if outputs[i] != nil {
			parts = append(parts, model.ToolResult(pl.call.ToolCallID, pl.call.ToolName, outputs[i]))
			ranLocal = true
		}
	}
	if len(parts) > 0 {
		if err := r.addResults(model.Message{Role: model.RoleTool, Content: parts}); err != nil {
			return 0, false, err
		}
	}
	return pending, ranLocal, nil
}

// invalidInput returns an error text when the call's input does not conform
// to the tool's schema, and "" when it does.
func (r *run) invalidInput(call model.Part) string {
	if !json.Valid(call.Input) {
		return fmt.Sprintf("Error: invalid input for tool %q: not valid JSON", call.ToolName)
	}
	s, ok := r.schemas[call.ToolName]
	if !ok {
		return ""
	}
	if err := s.Validate(call.Input); err != nil {
		return fmt.Sprintf("Error: invalid input for tool %q: %v", call.ToolName, err)
	}
	return ""
}

// needsApproval evaluates the tool's policy for one call. A dynamic policy
// that fails counts as "needs approval".
func (r *run) needsApproval(ctx context.Context, tool Tool, call model.Part, prompt []model.Message) bool {
	switch tool.Approval.kind {
	case "always":
		return true
	case "dynamic":
	default:
		return false
	}
	need, err := safePolicy(ctx, r.policyFunc(tool, call.ToolCallID), PolicyInput{
		Call:     Call{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Input: call.Input},
		Messages: model.Clone(prompt),
	})
	if err != nil {
		return true // fail closed
	}
	return need
}

// policyFunc is the tool's dynamic policy as a yes-or-no question. A
// deciding policy's automatic denial is noted for the call (handleCalls
// gives it its denial result) and counts as "needs approval" everywhere
// else, so that nothing reads it as leave to run; an automatic approval
// runs the call as a call that needs none.
func (r *run) policyFunc(tool Tool, callID string) PolicyFunc {
	decide := tool.Approval.decide
	if decide == nil {
		return tool.Approval.dynamic
	}
	return func(ctx context.Context, in PolicyInput) (bool, error) {
		d, err := decide(ctx, in)
		if err != nil {
			return true, err
		}
		switch d.Outcome {
		case RunsFreely, AutoApproved:
			return false, nil
		case AsksUser:
			return true, nil
		case AutoDenied:
			if r.autoDenied == nil {
				r.autoDenied = map[string]string{}
			}
			r.autoDenied[callID] = d.Reason
			return true, nil
		}
		return true, fmt.Errorf("the policy of %q decided %q (want not-applicable, user-approval, approved or denied)", tool.Name, d.Outcome)
	}
}

func safePolicy(ctx context.Context, fn PolicyFunc, in PolicyInput) (need bool, err error) {
	if fn == nil {
		return true, errors.New("dynamic policy without a function")
	}
	defer func() {
		if p := recover(); p != nil {
			need, err = true, &policyPanic{value: p}
		}
	}()
	return fn(ctx, in)
}

// policyPanic is a dynamic policy that panicked.
type policyPanic struct{ value any }

func (p *policyPanic) Error() string { return fmt.Sprintf("policy panicked: %v", p.value) }

// execute runs a tool once and returns its output. A failure becomes an
// error-text output; a panic is contained.
func (r *run) execute(ctx context.Context, tool Tool, call model.Part) (out *model.ToolOutput) {
	if tool.Execute == nil {
		return model.ErrorTextOutput(fmt.Sprintf("Error: tool %q has no implementation.", tool.Name))
	}
	defer func() {
		if p := recover(); p != nil {
			out = model.ErrorTextOutput(fmt.Sprintf("Error: tool %q panicked: %v", tool.Name, p))
		}
	}()
	val, err := tool.Execute(ctx, Call{ToolName: call.ToolName, ToolCallID: call.ToolCallID, Input: call.Input})
	if err != nil {
		if r.agent.toolErrorsFail {
			r.failMu.Lock()
			if r.toolFail == nil {
				r.toolFail = fmt.Errorf("tool %q (call %s) failed: %w", tool.Name, call.ToolCallID, err)
			}
			r.failMu.Unlock()
		}
		return model.ErrorTextOutput("Error: " + err.Error())
	}
	if len(val) == 0 {
		val = json.RawMessage("null")
	}
	if !json.Valid(val) {
		return model.ErrorTextOutput(fmt.Sprintf("Error: tool %q returned invalid JSON.", tool.Name))
	}
	return model.JSONOutput(val)
}

// job is one tool run.
type job struct{ run func(context.Context) }

// runJobs runs the jobs, at most the turn's concurrency at once.
func (r *run) runJobs(ctx context.Context, jobs []job) {
	limit := r.turn.Concurrency
	if limit <= 0 {
		limit = len(jobs)
	}
	if limit <= 0 {
		return
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, j := range jobs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func(j job) {
			defer wg.Done()
			defer func() { <-sem }()
			j.run(ctx)
		}(j)
	}
	wg.Wait()
}
