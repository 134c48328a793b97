// Package adkgo drives Google's Agent Development Kit for Go
// (google.golang.org/adk/v2) as a target of the Approval Conformance Kit,
// in the test's own process: each turn is one runner.Run of an llmagent on
// the conversation's ADK session, its tools ADK function tools whose
// confirmation ADK asks for (functiontool.Config.RequireConfirmation), its
// model the kit's model as an ADK model.LLM (the canonical path).
//
// ADK keeps the conversation in its session, not in the request: each turn
// sends ADK only what is new (the user's text, the answers to its
// confirmations as adk_request_confirmation function responses), and the
// target declares a session-held history. A turn whose earlier history is
// not the one the session holds (a scenario that rewrites or invents
// history) cannot be expressed and is not applicable; replays, unknown ids
// and forged answers reach ADK as they are.
package adkgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/events"
)

// SDKVersion is the ADK version the adapter is built and certified with
// (go.mod pins it).
const SDKVersion = "v2.2.0"

const (
	appName   = "ack"
	userID    = "user"
	agentName = "agent"
)

// Target is ADK Go as a conformance target.
type Target struct {
	sessions session.Service

	mu    sync.Mutex
	convs map[string]*conversation
	order []string
}

// conversation is what the target knows of one conversation: its ADK
// session and the history the session holds, in the canonical model.
type conversation struct {
	mu      sync.Mutex
	session string
	history []model.Message
}

// maxConversations bounds the conversations kept; the oldest goes first.
const maxConversations = 4096

// New returns the target, with an in-memory ADK session service.
func New() *Target {
	return &Target{sessions: session.InMemoryService(), convs: map[string]*conversation{}}
}

// Info implements target.Target.
func (t *Target) Info(context.Context) (*target.Info, error) {
	return &target.Info{
		Name:       "adk-go",
		Version:    "0.1.0",
		SDK:        "google.golang.org/adk/v2",
		SDKVersion: SDKVersion,
		Roles:      []string{target.RoleAgent},
		Features: target.Features{
			Modes:           []target.Mode{target.Generate, target.Stream},
			DenialPolicy:    "independent",
			ToolErrors:      "result",
			ModelAPIs:       []string{target.APICanonical},
			UntypedResults:  true,
			NoDenialReasons: true,
			SessionHistory:  true,
		},
	}, nil
}

// Agent implements target.Target.
func (t *Target) Agent() target.Agent { return t }

// Client implements target.Target: ADK has no chat client.
func (t *Target) Client() target.Client { return nil }

// Close implements target.Target.
func (t *Target) Close() error { return nil }

// conversationFor returns the conversation of an id, new when unknown.
func (t *Target) conversationFor(id string) *conversation {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.convs[id]; ok {
		return c
	}
	if len(t.order) >= maxConversations {
		delete(t.convs, t.order[0])
		t.order = t.order[1:]
	}
	c := &conversation{}
	t.convs[id] = c
	t.order = append(t.order, id)
	return c
}

// Turn implements target.Agent: the new input of the turn goes to ADK's
// runner on the conversation's session; the events it yields are the
// turn's answer.
func (t *Target) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	msgs, err := model.DecodeMessagesAt(req.Messages, "messages")
	if err != nil {
		return turnError("InvalidMessages", err), nil
	}
	if req.Model.Local == nil {
		return nil, errors.New("the turn has no in-process model (the ADK adapter runs in-process, on the canonical path)")
	}
	conv := t.conversationFor(req.Conversation)
	conv.mu.Lock()
	defer conv.mu.Unlock()

	earlier, input := split(msgs)
	if !isPrefix(earlier, conv.history) {
		return turnError(target.CodeNotExpressible, errors.New("session-held history: ADK keeps the conversation in its session, and this turn's earlier messages are not the ones the session holds (a history the application rewrote or wrote itself tests the application's store, not ADK)")), nil
	}
	if conv.session == "" {
		s, err := t.sessions.Create(ctx, &session.CreateRequest{AppName: appName, UserID: userID})
		if err != nil {
			return nil, fmt.Errorf("create an ADK session: %w", err)
		}
		conv.session = s.Session.ID()
	}
	content, err := newContent(input)
	if err != nil {
		return turnError(target.CodeNotExpressible, err), nil
	}
	instruction := ""
	for _, m := range msgs {
		if m.Role == model.RoleSystem {
			instruction += systemText(m)
		}
	}
	ag, err := t.agent(req, instruction)
	if err != nil {
		return turnError("Other", err), nil
	}
	r, err := runner.New(runner.Config{AppName: appName, Agent: ag, SessionService: t.sessions})
	if err != nil {
		return nil, fmt.Errorf("ADK runner: %w", err)
	}
	var evs []*session.Event
	var runErr error
	mode := agent.StreamingModeNone
	if req.Mode == target.Stream {
		mode = agent.StreamingModeSSE
	}
	for ev, err := range r.Run(ctx, userID, conv.session, content, agent.RunConfig{StreamingMode: mode}) {
		if err != nil {
			runErr = err
			break
		}
		if ev != nil && !ev.Partial {
			evs = append(evs, ev)
		}
	}
	added, finish := answer(evs)
	conv.history = append(append(append([]model.Message(nil), earlier...), input...), added...)
	if runErr != nil {
		code := "Other"
		if isModelError(runErr) {
			code = "Model"
		}
		resp := turnError(code, runErr)
		return resp, nil
	}
	resp := &target.TurnResponse{Messages: added, FinishReason: finish}
	if req.Mode == target.Stream {
		resp.Events = events.FromMessages(added, finish)
	}
	return resp, nil
}

func turnError(code string, err error) *target.TurnResponse {
	return &target.TurnResponse{Error: &target.TurnError{Code: code, Message: err.Error(), SDKError: err.Error()}}
}

// split cuts a conversation into its earlier history (up to its last
// assistant message) and the turn's input after it.
func split(msgs []model.Message) (earlier, input []model.Message) {
	last := -1
	for i, m := range msgs {
		if m.Role == model.RoleAssistant {
			last = i
		}
	}
	if last < 0 {
		// No assistant message: the system messages lead, the rest is input.
		n := 0
		for n < len(msgs) && msgs[n].Role == model.RoleSystem {
			n++
		}
		return msgs[:n], msgs[n:]
	}
	return msgs[:last+1], msgs[last+1:]
}

// isPrefix reports whether p is a prefix of h (equal message by message).
func isPrefix(p, h []model.Message) bool {
	if len(p) > len(h) {
		return false
	}
	for i := range p {
		a, err1 := json.Marshal(p[i])
		b, err2 := json.Marshal(h[i])
		if err1 != nil || err2 != nil || string(a) != string(b) {
			return false
		}
	}
	return true
}

func systemText(m model.Message) string {
	var b strings.Builder
	for _, p := range m.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// newContent is the turn's input as one ADK user content: the user's text,
// each approval answer as the function response to ADK's
// adk_request_confirmation call of that id ({"confirmed": approved}: ADK's
// ToolConfirmation has no reason), and a tool result the application
// supplies as the function response to its call.
func newContent(input []model.Message) (*genai.Content, error) {
	c := &genai.Content{Role: genai.RoleUser}
	for i, m := range input {
		switch m.Role {
		case model.RoleUser, model.RoleTool:
		default:
			return nil, fmt.Errorf("messages: a %s message after the last assistant message has no place in ADK's input", m.Role)
		}
		for j, p := range m.Content {
			switch p.Type {
			case model.PartText:
				c.Parts = append(c.Parts, genai.NewPartFromText(p.Text))
			case model.PartToolApprovalResponse:
				c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
					ID: p.ApprovalID, Name: toolconfirmation.FunctionCallName,
					Response: map[string]any{"confirmed": p.Approved},
				}})
			case model.PartToolResult:
				resp, err := responseOf(p.Output)
				if err != nil {
					return nil, fmt.Errorf("input[%d].content[%d]: %w", i, j, err)
				}
				c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: p.ToolCallID, Name: p.ToolName, Response: resp}})
			default:
				return nil, fmt.Errorf("input[%d].content[%d]: a %s part has no place in ADK's user content", i, j, p.Type)
			}
		}
	}
	if len(c.Parts) == 0 {
		return nil, errors.New("the turn brings no new input for ADK's session")
	}
	return c, nil
}

// responseOf is a tool output as an ADK function response.
func responseOf(o *model.ToolOutput) (map[string]any, error) {
	if o == nil {
		return map[string]any{}, nil
	}
	switch o.Type {
	case model.OutputErrorText, model.OutputErrorJSON, model.OutputExecutionDenied:
		text := o.TextValue()
		if text == "" {
			text = string(o.Value)
		}
		if o.Type == model.OutputExecutionDenied {
			text = "denied: " + o.Reason
		}
		return map[string]any{"error": text}, nil
	}
	var v any
	if len(o.Value) > 0 {
		if err := json.Unmarshal(o.Value, &v); err != nil {
			return nil, err
		}
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return map[string]any{"result": v}, nil
}

// agent builds the turn's llmagent: the kit's model, the instruction, and
// a function tool per tool of the turn, which runs in the harness.
func (t *Target) agent(req *target.TurnRequest, instruction string) (agent.Agent, error) {
	var tools []tool.Tool
	if req.Toolkit == target.ToolkitProvided {
		for _, spec := range req.Tools {
			ft, err := functionTool(spec, req.Harness)
			if err != nil {
				return nil, err
			}
			tools = append(tools, ft)
		}
	}
	return llmagent.New(llmagent.Config{
		Name:  agentName,
		Model: kitModel{m: req.Model.Local},
		// A provider, so that ADK does not read the text as a template.
		InstructionProvider: func(agent.ReadonlyContext) (string, error) { return instruction, nil },
		Tools:               tools,
	})
}

// functionTool is a tool of the turn as an ADK function tool: it asks for
// confirmation when the tool's approval is always, and runs in the harness.
func functionTool(spec target.Tool, h target.Harness) (tool.Tool, error) {
	cfg := functiontool.Config{Name: spec.Name, Description: spec.Description, RequireConfirmation: spec.Approval == target.ApprovalAlways}
	if len(spec.InputSchema) > 0 {
		var s jsonschema.Schema
		if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema: %w", spec.Name, err)
		}
		cfg.InputSchema = &s
	}
	if spec.Approval == target.ApprovalDynamic {
		return nil, fmt.Errorf("tool %s: a dynamic policy is not declared (ADK's RequireConfirmationProvider gets the input only)", spec.Name)
	}
	return functiontool.New(cfg, func(ctx agent.Context, args map[string]any) (any, error) {
		if h == nil {
			return nil, errors.New("no harness to run the tool")
		}
		input, err := json.Marshal(orEmpty(args))
		if err != nil {
			return nil, err
		}
		out, err := h.Execute(ctx, target.ExecuteRequest{ToolName: spec.Name, ToolCallID: ctx.FunctionCallID(), Input: input})
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, fmt.Errorf("tool %s: output: %w", spec.Name, err)
		}
		return v, nil
	})
}

// answer lays ADK's events out as the turn's added messages: a model event
// is an assistant message (its text and function calls); ADK's
// adk_request_confirmation calls become approval requests (the approval id
// is the confirmation call's id, the call its original function call's)
// on the assistant message of their call; a function response event is a
// tool message, but for the placeholder error of a call that waits for
// confirmation (ADK marks it in the event's requested confirmations): that
// call has no result yet.
func answer(events []*session.Event) ([]model.Message, string) {
	var out []model.Message
	finish := "stop"
	pending := false
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		switch {
		case ev.Author == userID:
			continue // the input, echoed
		case ev.Content.Role == genai.RoleModel:
			msg := model.Message{Role: model.RoleAssistant}
			for _, p := range ev.Content.Parts {
				switch {
				case p.FunctionCall != nil && p.FunctionCall.Name == toolconfirmation.FunctionCallName:
					orig, err := toolconfirmation.OriginalCallFrom(p.FunctionCall)
					if err != nil {
						continue
					}
					req := model.ApprovalRequest(p.FunctionCall.ID, orig.ID)
					if !attach(out, req) {
						msg.Content = append(msg.Content, req)
					}
					pending = true
				case p.FunctionCall != nil:
					input, _ := json.Marshal(orEmpty(p.FunctionCall.Args))
					msg.Content = append(msg.Content, model.ToolCall(p.FunctionCall.ID, p.FunctionCall.Name, input))
				case p.Text != "" && p.Thought:
					msg.Content = append(msg.Content, model.Part{Type: model.PartReasoning, Text: p.Text})
				case p.Text != "":
					msg.Content = append(msg.Content, model.Text(p.Text))
				}
			}
			if len(msg.Content) > 0 {
				out = append(out, msg)
			}
		default:
			msg := model.Message{Role: model.RoleTool}
			for _, p := range ev.Content.Parts {
				fr := p.FunctionResponse
				if fr == nil {
					continue
				}
				if _, waits := ev.Actions.RequestedToolConfirmations[fr.ID]; waits {
					continue
				}
				o, err := outputOf(fr.Response)
				if err != nil {
					o = model.ErrorTextOutput(err.Error())
				}
				msg.Content = append(msg.Content, model.ToolResult(fr.ID, fr.Name, o))
			}
			if len(msg.Content) > 0 {
				out = append(out, msg)
			}
		}
	}
	if pending {
		finish = "tool-calls"
	}
	return out, finish
}

// attach puts an approval request on the latest assistant message that
// holds its call; false when none does.
func attach(msgs []model.Message, req model.Part) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != model.RoleAssistant {
			continue
		}
		for _, p := range msgs[i].Content {
			if p.Type == model.PartToolCall && p.ToolCallID == req.ToolCallID {
				msgs[i].Content = append(msgs[i].Content, req)
				return true
			}
		}
	}
	return false
}
