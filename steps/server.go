package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/target"
)

// serverWorld is the server-role part of a scenario: the harness plays a
// conforming chat client against the target's chat endpoint, whose agent
// calls the scenario's simulated model and runs its tools through the
// harness. Each request the client posts is one turn of the scenario.
type serverWorld struct {
	protocol string
	dialect  string
	codec    chat.Codec
	chat     target.Chat
	*thread
	// threads are the conversations the client holds on the endpoint,
	// each under its own chat id (the protocol's thread id); thread is the
	// one shown.
	threads   []*thread
	exchanges []*chatExchange
	// noReasons: the protocol's requests carry no denial reason.
	noReasons bool
	// resumeOnly: the client answers AG-UI interrupts by resume entries
	// alone, where the protocol defines an interrupt's answer; TanStack's
	// client also marks the answer on the call (its part, its tool
	// message), which lets a server that ignores resume entries pass.
	resumeOnly bool
}

// resumeOnlyVariant names, after a comma, the variant of the AG-UI
// interrupt dialect whose client answers by resume entries alone.
const resumeOnlyVariant = "resume entries only"

// thread is one conversation of the client: its UI messages, as a
// conforming client of the protocol keeps them.
type thread struct {
	id       string
	messages []chat.Message
	// resume are the AG-UI resume entries the next request carries.
	resume []chat.Resume
	// asked holds, per call, the client's messages as they stood when the
	// call's approval was requested: what a stale tab still shows.
	asked     map[string][]chat.Message
	lastRunID string
	users     int
	// cur is the index of the assistant message the stream writes to (-1:
	// none yet).
	cur int
}

func newThread(id string) *thread {
	return &thread{id: id, asked: map[string][]chat.Message{}, cur: -1}
}

// streamingClient posts the client's requests: no overall timeout, as a
// stream lasts as long as its turn (each request has its own deadline).
var streamingClient = &http.Client{}

// chatExchange is one request the client posted to the chat endpoint and
// what came back; the report's evidence holds each (journal.jsonl's
// chatRequest).
type chatExchange struct {
	N int `json:"n"`
	// Role says whose request it is: the harness's client (server role).
	Role    string        `json:"role"`
	Request *chat.Request `json:"-"`
	// Raw is the request body as the protocol encodes it.
	Raw    json.RawMessage `json:"body"`
	Status int             `json:"status"`
	// Body is the error answer of a request the endpoint refused.
	Body   string       `json:"error,omitempty"`
	Events []chat.Event `json:"streamed,omitempty"`
	// StreamErr is why the stream could not be read to its end.
	StreamErr string `json:"streamError,omitempty"`
}

// serverSteps holds the steps of the server role.
type serverSteps struct{ world func() *world }

func (s *serverSteps) sw() (*serverWorld, error) {
	w := s.world()
	if w.server == nil {
		return nil, errors.New(`the scenario must say which protocol the chat endpoint speaks first ("the chat endpoint speaks ...")`)
	}
	return w.server, nil
}

func (s *serverSteps) speaks(_ context.Context, spoken string) error {
	w := s.world()
	protocol, variant, _ := strings.Cut(spoken, ", ")
	if variant != "" && (protocol != chat.ProtocolAGUI || variant != resumeOnlyVariant) {
		return fmt.Errorf("the chat endpoint speaks %q: the only client variant is %q, of %q", spoken, resumeOnlyVariant, chat.ProtocolAGUI)
	}
	if _, err := protocols.Lookup(protocol); err != nil {
		return err
	}
	if err := w.requireFeature("serverProtocol:"+protocol, "a chat endpoint speaking "+protocol); err != nil {
		return err
	}
	if w.server != nil {
		return errors.New("the chat endpoint's protocol is already set")
	}
	dialect := w.info.Features.ServerDialects[protocol]
	codec, err := protocols.LookupDialect(protocol, dialect)
	if err != nil {
		return &harnessError{err: fmt.Errorf("the target declares serverDialects[%q]: %w", protocol, err)}
	}
	first := newThread(w.conversation)
	w.server = &serverWorld{protocol: protocol, dialect: dialect, codec: codec, thread: first, threads: []*thread{first}, noReasons: !carriesReasons(codec),
		resumeOnly: variant == resumeOnlyVariant}
	return nil
}

// carriesReasons reports whether the protocol's requests carry a denial's
// reason: TanStack AI's clients before 0.11 answer with approved alone.
func carriesReasons(codec chat.Codec) bool {
	no := false
	req := &chat.Request{Messages: []chat.Message{{ID: "m", Role: chat.RoleAssistant, Parts: []chat.Part{{Type: chat.PartToolCall, ToolCallID: "c", ToolName: "t",
		Input: json.RawMessage("{}"), State: chat.ApprovalResponded, Approval: &chat.Approval{ID: "a", InterruptID: "i", Approved: &no, Reason: "why"}}}}},
		Resume: []chat.Resume{{InterruptID: "i", Reason: "why"}}}
	body, err := codec.EncodeRequest(req)
	if err != nil {
		return false
	}
	dec, err := codec.DecodeRequest(body)
	if err != nil {
		return false
	}
	for _, r := range dec.Resume {
		if r.Reason == "why" {
			return true
		}
	}
	for _, m := range dec.Messages {
		for _, p := range m.Parts {
			if p.Approval != nil && p.Approval.Reason == "why" {
				return true
			}
		}
	}
	return false
}

// noDenialReasons reports whether a denial's reason cannot reach the
// target: it declares so, or the protocol its chat endpoint is driven in
// carries none.
func (w *world) noDenialReasons() bool {
	return w.info.Features.NoDenialReasons || (w.server != nil && w.server.noReasons)
}

// open opens the chat endpoint the first time the client posts: the
// scenario's tools and options are known by then.
func (s *serverSteps) open(ctx context.Context) (*serverWorld, error) {
	sw, err := s.sw()
	if err != nil {
		return nil, err
	}
	if sw.chat != nil {
		return sw, nil
	}
	w := s.world()
	srv := target.ServerOf(w.suite.Target)
	if srv == nil {
		return nil, &harnessError{err: errors.New("the target declares the server role but has none")}
	}
	// The agent behind the endpoint gets what a turn of the agent role
	// gets: the model, the tools with their callbacks, the options.
	req, err := w.turnRequest(json.RawMessage("[]"))
	if err != nil {
		return nil, err
	}
	cfg := target.ChatConfig{Conversation: w.conversation, Protocol: sw.protocol, Dialect: sw.dialect,
		Model: req.Model, Tools: req.Tools, Options: req.Options, Harness: req.Harness}
	octx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	if sw.chat, err = srv.NewChat(octx, cfg); err != nil {
		return nil, &harnessError{err: fmt.Errorf("opening a chat endpoint: %w", err)}
	}
	return sw, nil
}

// post sends the client's messages (and resume entries) as the next
// request, reads the stream to its end and applies it, as one turn.
func (s *serverSteps) post(ctx context.Context, msgs []chat.Message) error {
	sw, err := s.open(ctx)
	if err != nil {
		return err
	}
	w := s.world()
	x := &chatExchange{N: len(sw.exchanges) + 1, Role: target.RoleServer}
	req := &chat.Request{ThreadID: sw.id, RunID: fmt.Sprintf("run-%d", x.N), Messages: chat.Clone(msgs), Resume: sw.resume}
	if sw.resumeOnly {
		answersOnResumeOnly(req)
	}
	if len(sw.resume) > 0 {
		req.ParentRunID = sw.lastRunID
	}
	sw.resume = nil
	sw.lastRunID = req.RunID
	x.Request = req
	body, err := sw.codec.EncodeRequest(req)
	if err != nil {
		return fmt.Errorf("encoding request %d: %w", x.N, err)
	}
	x.Raw = body
	sw.exchanges = append(sw.exchanges, x)

	// The turn's request, as the evidence and the assertions read it, is
	// the client's history in the canonical model: over a provider wire,
	// which drops result types, it says what the client holds of each
	// call (what the server streamed to it).
	hist, err := model.EncodeMessages(uiHistory(msgs))
	if err != nil {
		return fmt.Errorf("request %d: %w", x.N, err)
	}
	rec := &turnRecord{N: len(w.turns) + 1, Request: hist}
	w.turns = append(w.turns, rec)
	w.harness.beginTurn(rec.N, w.options.Concurrency)
	rec.FirstModelCall = w.sim.Calls() + 1
	defer func() { rec.LastModelCall = w.sim.Calls() }()
	resp := &target.TurnResponse{}
	rec.Response = resp

	pctx, cancel := context.WithTimeout(ctx, w.suite.timeout())
	defer cancel()
	// A chat endpoint at its bound of requests in flight answers 503
	// without acting on the request: it is sent again, with backoff, within
	// the step's timeout, before the answer counts.
	hresp, retries, err := limits.Send(pctx, streamingClient, func() (*http.Request, error) {
		hreq, err := http.NewRequestWithContext(pctx, http.MethodPost, sw.chat.URL(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "text/event-stream")
		return hreq, nil
	})
	if err != nil {
		herr := &harnessError{err: fmt.Errorf("posting request %d to the chat endpoint: %w", x.N, err), timeout: errors.Is(pctx.Err(), context.DeadlineExceeded)}
		rec.Err = herr.Error()
		return herr
	}
	defer hresp.Body.Close()
	x.Status = hresp.StatusCode
	if hresp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(hresp.Body, 4<<10))
		x.Body = strings.TrimSpace(string(b))
		resp.Error = &target.TurnError{Code: "InvalidMessages", Message: fmt.Sprintf("HTTP %d: %s%s", x.Status, x.Body, limits.RetriedNote(retries))}
		return nil
	}
	sw.cur = -1
	err = sw.codec.ReadEvents(pctx, hresp.Body, func(ev chat.Event) error {
		x.Events = append(x.Events, ev)
		sw.apply(ev)
		switch ev.Type {
		case chat.EventFinish:
			resp.FinishReason = ev.FinishReason
		case chat.EventError:
			resp.Error = &target.TurnError{Code: "Other", Message: ev.ErrorText}
		}
		return nil
	})
	if err != nil {
		x.StreamErr = err.Error()
		if errors.Is(pctx.Err(), context.DeadlineExceeded) {
			herr := &harnessError{timeout: true, err: fmt.Errorf("reading the stream of request %d: %w", x.N, err)}
			rec.Err = herr.Error()
			return herr
		}
	}
	if resp.FinishReason == "" && resp.Error == nil {
		resp.FinishReason = "unknown"
	}
	resp.Messages = streamMessages(x.Events)
	return nil
}

// uiHistory is the client's UI messages in the canonical model: user and
// assistant text, calls with their approval requests, and a tool message
// per assistant message with each call's outcome the client holds.
func uiHistory(msgs []chat.Message) []model.Message {
	var out []model.Message
	for _, m := range msgs {
		text := ""
		assistant := model.Message{Role: model.RoleAssistant}
		tool := model.Message{Role: model.RoleTool}
		for _, p := range m.Parts {
			switch p.Type {
			case chat.PartText:
				text += p.Text
			case chat.PartToolCall:
				input := p.Input
				if len(input) == 0 {
					input = json.RawMessage("{}")
				}
				call := model.ToolCall(p.ToolCallID, p.ToolName, input)
				call.ProviderExecuted = p.ProviderExecuted
				assistant.Content = append(assistant.Content, call)
				if p.Approval != nil && p.Approval.ID != "" {
					assistant.Content = append(assistant.Content, model.ApprovalRequest(p.Approval.ID, p.ToolCallID))
				}
				switch p.State {
				case chat.OutputAvailable:
					out := p.Output
					if len(out) == 0 {
						out = json.RawMessage("null")
					}
					tool.Content = append(tool.Content, model.ToolResult(p.ToolCallID, p.ToolName, model.JSONOutput(out)))
				case chat.OutputError:
					tool.Content = append(tool.Content, model.ToolResult(p.ToolCallID, p.ToolName, model.ErrorTextOutput(p.ErrorText)))
				case chat.OutputDenied:
					reason := ""
					if p.Approval != nil {
						reason = p.Approval.Reason
					}
					tool.Content = append(tool.Content, model.ToolResult(p.ToolCallID, p.ToolName, model.DeniedOutput(reason)))
				}
			}
		}
		if m.Role != chat.RoleAssistant {
			msg := model.UserText(text)
			if m.Role == chat.RoleSystem {
				msg = model.SystemText(text)
			}
			out = append(out, msg)
			continue
		}
		if text != "" {
			assistant.Content = append([]model.Part{model.Text(text)}, assistant.Content...)
		}
		if len(assistant.Content) > 0 {
			out = append(out, assistant)
		}
		if len(tool.Content) > 0 {
			out = append(out, tool)
		}
	}
	return out
}

// streamMessages are a request's turn as its stream reports it, in the
// canonical model: the assistant's text, calls and approval requests, then
// the outcome of each call (a result, a denial, an error). In the server
// role they stand for the messages a turn returns: over a provider wire,
// which drops result types, they tell what the server made of each call.
func streamMessages(evs []chat.Event) []model.Message {
	assistant := model.Message{Role: model.RoleAssistant}
	tool := model.Message{Role: model.RoleTool}
	names := map[string]string{}
	text := ""
	for _, ev := range evs {
		if ev.ToolName != "" {
			names[ev.ToolCallID] = ev.ToolName
		}
		switch ev.Type {
		case chat.EventTextDelta:
			text += ev.Delta
		case chat.EventToolCallEnd:
			input := ev.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			assistant.Content = append(assistant.Content, model.ToolCall(ev.ToolCallID, names[ev.ToolCallID], input))
		case chat.EventApprovalRequested:
			if ev.Approval != nil {
				assistant.Content = append(assistant.Content, model.ApprovalRequest(ev.Approval.ID, ev.ToolCallID))
			}
		case chat.EventToolResult:
			out := ev.Output
			if len(out) == 0 {
				out = json.RawMessage("null")
			}
			tool.Content = append(tool.Content, model.ToolResult(ev.ToolCallID, names[ev.ToolCallID], model.JSONOutput(out)))
		case chat.EventToolDenied:
			tool.Content = append(tool.Content, model.ToolResult(ev.ToolCallID, names[ev.ToolCallID], model.DeniedOutput("")))
		case chat.EventToolError:
			tool.Content = append(tool.Content, model.ToolResult(ev.ToolCallID, names[ev.ToolCallID], model.ErrorTextOutput(ev.ErrorText)))
		}
	}
	if text != "" {
		assistant.Content = append([]model.Part{model.Text(text)}, assistant.Content...)
	}
	var out []model.Message
	if len(assistant.Content) > 0 {
		out = append(out, assistant)
	}
	if len(tool.Content) > 0 {
		out = append(out, tool)
	}
	return out
}

// apply applies one stream event to the client's messages, as a conforming
// client does: events about a call find its part wherever it is, and a
// part's state never moves back.
func (sw *serverWorld) apply(ev chat.Event) {
	switch ev.Type {
	case chat.EventMessageStart:
		if n := len(sw.messages); n > 0 && ev.MessageID != "" && sw.messages[n-1].ID == ev.MessageID && sw.messages[n-1].Role == chat.RoleAssistant {
			sw.cur = n - 1
			return
		}
		id := ev.MessageID
		if id == "" {
			id = fmt.Sprintf("msg-assistant-%d", len(sw.messages)+1)
		}
		sw.messages = append(sw.messages, chat.Message{ID: id, Role: chat.RoleAssistant})
		sw.cur = len(sw.messages) - 1
	case chat.EventTextDelta:
		m := sw.assistant()
		if n := len(m.Parts); n > 0 && m.Parts[n-1].Type == chat.PartText {
			m.Parts[n-1].Text += ev.Delta
		} else {
			m.Parts = append(m.Parts, chat.Part{Type: chat.PartText, Text: ev.Delta})
		}
	case chat.EventToolCallStart:
		sw.call(ev.ToolCallID, ev.ToolName)
	case chat.EventToolCallArgs:
		if p := sw.call(ev.ToolCallID, ev.ToolName); p.State.Rank() <= chat.InputStreaming.Rank() {
			p.InputText += ev.Delta
			setState(p, chat.InputStreaming)
		}
	case chat.EventToolCallEnd:
		p := sw.call(ev.ToolCallID, ev.ToolName)
		switch {
		case len(ev.Input) > 0:
			p.Input = append(json.RawMessage(nil), ev.Input...)
		case json.Valid([]byte(p.InputText)):
			p.Input = json.RawMessage(p.InputText)
		}
		setState(p, chat.InputComplete)
	case chat.EventApprovalRequested:
		if ev.Approval == nil {
			return
		}
		p := sw.call(ev.ToolCallID, ev.ToolName)
		if len(p.Input) == 0 && len(ev.Input) > 0 {
			p.Input = append(json.RawMessage(nil), ev.Input...)
		}
		a := *ev.Approval
		a.Approved = nil
		p.Approval = &a
		setState(p, chat.ApprovalRequested)
		sw.asked[ev.ToolCallID] = chat.Clone(sw.messages)
	case chat.EventToolResult:
		p := sw.call(ev.ToolCallID, ev.ToolName)
		p.Output = append(json.RawMessage(nil), ev.Output...)
		setState(p, chat.OutputAvailable)
	case chat.EventToolError:
		p := sw.call(ev.ToolCallID, ev.ToolName)
		p.ErrorText = ev.ErrorText
		setState(p, chat.OutputError)
	case chat.EventToolDenied:
		setState(sw.call(ev.ToolCallID, ev.ToolName), chat.OutputDenied)
	}
}

func (sw *serverWorld) assistant() *chat.Message {
	if sw.cur < 0 || sw.cur >= len(sw.messages) {
		sw.apply(chat.Event{Type: chat.EventMessageStart})
	}
	return &sw.messages[sw.cur]
}

// find returns the part of a call, wherever it is.
func (sw *serverWorld) find(id string) *chat.Part {
	for i := len(sw.messages) - 1; i >= 0; i-- {
		for j := range sw.messages[i].Parts {
			if p := &sw.messages[i].Parts[j]; p.Type == chat.PartToolCall && p.ToolCallID == id {
				return p
			}
		}
	}
	return nil
}

// call returns the part of a call, creating it in the current message.
func (sw *serverWorld) call(id, name string) *chat.Part {
	if p := sw.find(id); p != nil {
		if p.ToolName == "" {
			p.ToolName = name
		}
		return p
	}
	m := sw.assistant()
	m.Parts = append(m.Parts, chat.Part{Type: chat.PartToolCall, ToolCallID: id, ToolName: name, State: chat.InputStreaming, History: []chat.ToolState{chat.InputStreaming}})
	return &m.Parts[len(m.Parts)-1]
}

func setState(p *chat.Part, s chat.ToolState) {
	if s.Rank() <= p.State.Rank() || p.State.Terminal() {
		return
	}
	p.State = s
	p.History = append(p.History, s)
}

// complete reports whether every tool call of the last assistant message
// has an outcome or an answer: a conforming client continues then.
func (sw *serverWorld) complete() bool {
	for i := len(sw.messages) - 1; i >= 0; i-- {
		m := sw.messages[i]
		if m.Role != chat.RoleAssistant {
			continue
		}
		calls := 0
		for _, p := range m.Parts {
			if p.Type != chat.PartToolCall {
				continue
			}
			calls++
			if !p.State.Terminal() && p.State != chat.ApprovalResponded && !p.ProviderExecuted {
				return false
			}
		}
		return calls > 0
	}
	return false
}

func (s *serverSteps) send(ctx context.Context, text string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	sw.users++
	sw.messages = append(sw.messages, chat.Message{ID: fmt.Sprintf("msg-user-%d", sw.users), Role: chat.RoleUser, Parts: []chat.Part{{Type: chat.PartText, Text: text}}})
	return s.post(ctx, sw.messages)
}

// answerPart answers a call's approval on its part, and, where the
// protocol answers interrupts (AG-UI), with a resume entry naming the
// interrupt the server sent.
func (sw *serverWorld) answerPart(p *chat.Part, approved bool, reason string) {
	p.Approval.Approved = &approved
	p.Approval.Reason = reason
	setState(p, chat.ApprovalResponded)
	if sw.protocol == chat.ProtocolAGUI && p.Approval.InterruptID != "" {
		sw.resume = append(sw.resume, chat.Resume{InterruptID: p.Approval.InterruptID, Approved: approved, Reason: reason})
	}
}

// answersOnResumeOnly takes off the calls the answers the request's resume
// entries carry: each call answered by a resume entry goes as the server
// asked it (approval-requested, without approved or reason), so the answer
// rides only where the AG-UI interrupt protocol puts it.
func answersOnResumeOnly(req *chat.Request) {
	resumed := map[string]bool{}
	for _, r := range req.Resume {
		resumed[r.InterruptID] = true
	}
	for i := range req.Messages {
		for j := range req.Messages[i].Parts {
			p := &req.Messages[i].Parts[j]
			if p.Type != chat.PartToolCall || p.State != chat.ApprovalResponded || p.Approval == nil || !resumed[p.Approval.InterruptID] {
				continue
			}
			p.Approval.Approved, p.Approval.Reason = nil, ""
			p.State = chat.ApprovalRequested
			if n := len(p.History); n > 0 && p.History[n-1] == chat.ApprovalResponded {
				p.History = p.History[:n-1]
			}
		}
	}
}

// answer is the user answering approvals in the chat; the client sends the
// continuation once every call of the last assistant message is complete.
func (s *serverSteps) answer(ctx context.Context, verb, ids, reason string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	if s.world().info.Features.NoDenialReasons {
		reason = "" // the SDK's approval API takes none
	}
	for _, id := range parseIDs(ids) {
		p := sw.find(id)
		if p == nil || p.Approval == nil || p.State != chat.ApprovalRequested {
			return blocked("the client holds no approval request for %s to answer (its calls: %s)", id, sw.describe())
		}
		sw.answerPart(p, verb == "approves", reason)
	}
	if !sw.complete() {
		return nil
	}
	return s.post(ctx, sw.messages)
}

// staleAnswer is a stale tab answering a call again: it still shows the
// conversation as it stood when the approval was requested, and sends it
// with the new answer. No conforming client sends it from one tab; two tabs
// of one conversation do.
func (s *serverSteps) staleAnswer(ctx context.Context, callID, verb string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	snap, ok := sw.asked[callID]
	if !ok {
		return fmt.Errorf("the chat endpoint never asked approval for %s", callID)
	}
	msgs := chat.Clone(snap)
	stale := &serverWorld{protocol: sw.protocol, thread: &thread{messages: msgs, cur: -1}}
	p := stale.find(callID)
	stale.answerPart(p, verb == "approving", "")
	sw.resume = stale.resume
	return s.post(ctx, msgs)
}

// trimsOutput is an application that trimmed a call's output from the
// chat history it keeps (to save context, or by a storage bug), then the
// user sends a new message: the call goes back approved, without its
// output. No conforming client sends it; an application's own persistence
// does.
func (s *serverSteps) trimsOutput(ctx context.Context, callID, text string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	p := sw.find(callID)
	if p == nil || p.State != chat.OutputAvailable || p.Approval == nil || p.Approval.Approved == nil {
		return blocked("the client holds no approved output of %s to trim (its calls: %s)", callID, sw.describe())
	}
	p.Output = nil
	p.State = chat.ApprovalResponded
	p.History = append(p.History, chat.ApprovalResponded)
	return s.send(ctx, text)
}

// answerUnderID is a client answering a call under an approval id the
// server never issued (and, for AG-UI, resuming an interrupt of that id):
// the request it sends asks and answers an approval of its own making.
func (s *serverSteps) answerUnderID(ctx context.Context, callID, approvalID string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	p := sw.find(callID)
	if p == nil || p.Approval == nil || p.State != chat.ApprovalRequested {
		return blocked("the client holds no approval request for %s to answer (its calls: %s)", callID, sw.describe())
	}
	p.Approval.ID = approvalID
	if p.Approval.InterruptID != "" {
		p.Approval.InterruptID = "interrupt-" + approvalID
	}
	sw.answerPart(p, true, "")
	return s.post(ctx, sw.messages)
}

// answersSwapped is a client that sends the user's answers to two calls
// each on the other call: the approval of the first (its id, signature and
// interrupt, approved) rides on the second call, the denial of the second
// on the first.
func (s *serverSteps) answersSwapped(ctx context.Context, approvedID, deniedID string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	a, d := sw.find(approvedID), sw.find(deniedID)
	for id, p := range map[string]*chat.Part{approvedID: a, deniedID: d} {
		if p == nil || p.Approval == nil || p.State != chat.ApprovalRequested {
			return blocked("the client holds no approval request for %s to answer (its calls: %s)", id, sw.describe())
		}
	}
	sw.answerPart(a, true, "")
	sw.answerPart(d, false, "")
	a.Approval, d.Approval = d.Approval, a.Approval
	return s.post(ctx, sw.messages)
}

// restart closes the chat endpoint; the client's next request opens it
// again with the scenario's toolkit as it is then (a deploy between a
// request and its answer).
func (s *serverSteps) restart(ctx context.Context) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	if sw.chat != nil {
		cctx, cancel := context.WithTimeout(ctx, s.world().suite.timeout())
		defer cancel()
		if err := sw.chat.Close(cctx); err != nil {
			return &harnessError{err: fmt.Errorf("closing the chat endpoint: %w", err)}
		}
		sw.chat = nil
	}
	return nil
}

// secondChat is the user opening a second conversation on the same chat
// endpoint (a new chat id: one server, several conversations) and sending
// its first message there.
func (s *serverSteps) secondChat(ctx context.Context, text string) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	if len(sw.threads) > 1 {
		return errors.New("the scenario opens a second chat twice")
	}
	t := newThread(s.world().conversation + "#2")
	sw.threads = append(sw.threads, t)
	sw.thread = t
	return s.send(ctx, text)
}

// firstChat shows the first conversation again: the user's next actions
// act on it.
func (s *serverSteps) firstChat(context.Context) error {
	sw, err := s.sw()
	if err != nil {
		return err
	}
	sw.thread = sw.threads[0]
	return nil
}

func (sw *serverWorld) describe() string {
	var parts []string
	for _, m := range sw.messages {
		for _, p := range m.Parts {
			if p.Type == chat.PartToolCall {
				parts = append(parts, fmt.Sprintf("%s=%s", p.ToolCallID, p.State))
			}
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// problems are the server-role findings that fail a scenario whatever its
// steps say: a request whose stream broke off.
func (sw *serverWorld) problems() []problem {
	if sw == nil {
		return nil
	}
	var out []problem
	for _, x := range sw.exchanges {
		if x.StreamErr != "" {
			out = append(out, problem{detail: fmt.Sprintf("chat endpoint: the stream of request %d does not decode: %s", x.N, x.StreamErr)})
		}
	}
	return out
}

// close ends the chat endpoint.
func (sw *serverWorld) close(ctx context.Context) {
	if sw == nil || sw.chat == nil {
		return
	}
	_ = sw.chat.Close(ctx) // the scenario is over; a failure changes nothing
}
