package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// Conversation is a recorded conversation rebuilt from a transcript: its
// model calls in order (each prompt and what the model answered), the
// user's actions between them, and what the tools returned. Replay plays
// it again; scenario from-transcript turns it into a YAML scenario.
//
// A transcript shows what reached the model, not who decided what: every
// tool is taken to need approval, so each batch of results becomes the
// answers of a turn (an approval, with the tool returning the recorded
// output; a denial when the result is one). A call the recording left
// without a result, or whose answer it does not show, is taken as
// approved; Notes say so.
type Conversation struct {
	// ID names the conversation: a report journal's scenario, a recorded
	// journal's conversation, or the file's own.
	ID string
	// Format is the format it was read in.
	Format Format
	// Profile is the provider whose wire and rules it used.
	Profile wire.Profile
	// Tools are the tools offered (their names at least), in order of
	// first use.
	Tools []llm.ToolDef
	// History is what comes before the first turn (system prompts).
	History []model.Message
	// Messages are the whole conversation as the transcript shows it: the
	// last prompt and its reply, or the agent's input.
	Messages []model.Message
	Calls    []Call
	Turns    []Turn
	// Outputs are the recorded results, by call id.
	Outputs map[string]*model.ToolOutput
	// Notes say what the rebuilding had to assume.
	Notes []string
}

// Call is one model call.
type Call struct {
	// N is the call's number in the conversation (1-based).
	N int
	// Mode is generate or stream.
	Mode string
	// Prompt is what the model received, in the canonical model; nil when
	// the transcript does not show it (the next call of an agent's input).
	Prompt []model.Message
	// Lossy says the prompt was read from a provider's wire, which carries
	// tool outputs as text.
	Lossy bool
	// Reply is what the model answered; nil when it answered an error or
	// the transcript ends before its answer.
	Reply *simulator.Reply
	// Status and ErrorBody are the model's error answer, if it refused.
	Status    int
	ErrorBody string
	// Recorded says the transcript holds the model's answer.
	Recorded bool
	// Refused says the provider refused the prompt for breaking its rules
	// (the model itself never answered).
	Refused bool
}

// Turn is one action of the user and the model calls it led to.
type Turn struct {
	// Say is the user's message that opens the turn ("" when the turn only
	// answers approvals).
	Say string
	// Answers are the approvals answered at the start of the turn.
	Answers []Answer
	// Then is text the user sent after the answers, in the same request.
	Then string
	// Abandoned are calls left without a result or an answer when the user
	// moved on with Say.
	Abandoned []string
	// Calls are the indexes, in Conversation.Calls, of the model calls made
	// in the turn.
	Calls []int
}

// Answer is the user's answer to one call's approval.
type Answer struct {
	Call    string
	Tool    string
	Approve bool
	Reason  string
	// Known says the transcript shows the answer (an approval response, a
	// result, or a denial); otherwise an approval is assumed.
	Known bool
}

// ReadConversations reads a transcript whole and rebuilds its
// conversations: one per scenario or conversation of a journal, one for
// any other input.
func ReadConversations(r io.Reader, opts Options) ([]*Conversation, error) {
	opts.Keep = true
	var reqs []*Request
	if err := Read(r, opts, func(req *Request) error {
		reqs = append(reqs, req)
		return nil
	}); err != nil {
		return nil, err
	}
	return Rebuild(reqs), nil
}

// Rebuild groups requests into conversations and rebuilds each. The
// requests must have been read with Options.Keep.
func Rebuild(reqs []*Request) []*Conversation {
	var out []*Conversation
	groups := map[string][]*Request{}
	var order []string
	for _, r := range reqs {
		if r.Journal != nil && r.Prompt == nil && r.Wire == nil {
			continue // a chat client's request, not a model call
		}
		if r.Journal == nil {
			out = append(out, single(r))
			continue
		}
		key := r.Journal.Scenario
		if key == "" {
			key = r.Journal.Conversation
		}
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	for _, key := range order {
		out = append(out, journaled(key, groups[key]))
	}
	return out
}

// journaled rebuilds a journal's conversation from its entries.
func journaled(id string, entries []*Request) *Conversation {
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Journal.Call < entries[j].Journal.Call })
	c := &Conversation{ID: id, Format: Journal, Profile: wire.OpenAIChat, Outputs: map[string]*model.ToolOutput{}}
	if id == "" {
		c.ID = "journal"
	}
	for _, e := range entries {
		call := Call{N: len(c.Calls) + 1, Mode: e.Journal.Mode, Status: e.Journal.Status, ErrorBody: e.Journal.ErrorBody, Recorded: true,
			Refused: e.Journal.Status >= 400 && (e.Journal.Verdict == simulator.VerdictViolation || e.Journal.Verdict == "refused")}
		if call.Mode == "" {
			call.Mode = "generate"
		}
		src := e.Prompt
		if e.Wire != nil {
			if p, ok := e.Wire.Format.Provider(); ok {
				c.Profile = p
			}
			c.addTools(e.Wire.Tools)
			if src == nil {
				src, call.Lossy = e.Wire, e.Wire.Format != Canonical
			}
		} else if e.Journal.API != "" && e.Journal.API != string(provider.Canonical) {
			c.Profile = wire.Profile(e.Journal.API)
		}
		if src != nil {
			call.Prompt = plain(src.Messages)
		}
		if e.Journal.Reply != nil && (call.Status == 0 || call.Status/100 == 2) {
			call.Reply = e.Journal.Reply
		}
		for _, name := range e.Journal.Tools {
			c.addTools([]llm.ToolDef{{Name: name}})
		}
		c.Calls = append(c.Calls, call)
	}
	// The whole conversation: the last prompt and its answer.
	last := c.Calls[len(c.Calls)-1]
	full := append([]model.Message(nil), last.Prompt...)
	if last.Reply != nil {
		full = append(full, model.Message{Role: model.RoleAssistant, Content: last.Reply.Content()})
	}
	bounds := make([]int, len(c.Calls))
	for i, call := range c.Calls {
		bounds[i] = len(call.Prompt)
		if !isPrefix(call.Prompt, full) {
			c.Notes = append(c.Notes, fmt.Sprintf("model call %d's prompt is not the start of the last one's: the turns follow the last prompt", call.N))
		}
	}
	c.Messages = full
	c.turns(full, bounds, anyLossy(c.Calls))
	return c
}

// single rebuilds the conversation of one request body or agent input:
// each assistant message is the model's answer to the messages before it.
func single(r *Request) *Conversation {
	c := &Conversation{ID: "conversation", Format: r.Format, Profile: r.Profile, Outputs: map[string]*model.ToolOutput{}}
	c.addTools(r.Tools)
	msgs := plain(r.Messages)
	var bounds []int
	for i, m := range msgs {
		if m.Role != model.RoleAssistant {
			continue
		}
		reply := ReplyOf(&llm.Response{Content: m.Content})
		c.Calls = append(c.Calls, Call{N: len(c.Calls) + 1, Mode: mode(r.Stream), Prompt: msgs[:i:i], Lossy: r.Kind == Prompt && r.Format != Canonical, Reply: &reply, Recorded: true})
		bounds = append(bounds, i)
	}
	// The request itself is the next call: a prompt (its answer not
	// recorded), or an agent's input (its prompt is the agent's to make).
	next := Call{N: len(c.Calls) + 1, Mode: mode(r.Stream), Lossy: r.Kind == Prompt && r.Format != Canonical}
	if r.Kind == Prompt {
		next.Prompt = msgs
	}
	c.Calls = append(c.Calls, next)
	bounds = append(bounds, len(msgs))
	c.Messages = msgs
	c.turns(msgs, bounds, r.Kind == Prompt && r.Format != Canonical)
	return c
}

func mode(stream bool) string {
	if stream {
		return "stream"
	}
	return "generate"
}

func plain(msgs []Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Message
	}
	return out
}

func anyLossy(calls []Call) bool {
	for _, c := range calls {
		if c.Lossy {
			return true
		}
	}
	return false
}

func (c *Conversation) addTools(defs []llm.ToolDef) {
	for _, d := range defs {
		found := false
		for i := range c.Tools {
			if c.Tools[i].Name == d.Name {
				found = true
				if len(c.Tools[i].InputSchema) == 0 {
					c.Tools[i] = d
				}
			}
		}
		if !found && d.Name != "" {
			c.Tools = append(c.Tools, d)
		}
	}
}

// isPrefix reports whether a's messages start b, by role, text and ids.
func isPrefix(a, b []model.Message) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if summary(a[i]) != summary(b[i]) {
			return false
		}
	}
	return true
}

func summary(m model.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	for _, p := range m.Content {
		b.WriteString("|" + string(p.Type) + ":" + p.Text + p.ToolCallID + p.ApprovalID)
	}
	return b.String()
}

// turns walks the whole conversation and finds the user's actions between
// the model calls (bounds[k] is how many messages call k's prompt holds).
func (c *Conversation) turns(msgs []model.Message, bounds []int, lossy bool) {
	at := map[int][]int{}
	for k, b := range bounds {
		at[b] = append(at[b], k)
	}
	var cur *Turn
	pending := []model.Part{} // local calls still without a result or an answer
	answered := map[string]bool{}
	made := map[string]bool{}       // calls made so far
	requests := map[string]string{} // approval id -> call id
	open := func() *Turn {
		if cur == nil || len(cur.Calls) > 0 {
			c.Turns = append(c.Turns, Turn{})
			cur = &c.Turns[len(c.Turns)-1]
		}
		return cur
	}
	answer := func(a Answer) {
		if answered[a.Call] {
			return
		}
		answered[a.Call] = true
		t := open()
		t.Answers = append(t.Answers, a)
		for i, p := range pending {
			if p.ToolCallID == a.Call {
				pending = append(pending[:i], pending[i+1:]...)
				break
			}
		}
	}
	for i := 0; i <= len(msgs); i++ {
		for _, k := range at[i] {
			// A model call: calls still pending reached it without a result.
			for _, p := range append([]model.Part(nil), pending...) {
				answer(Answer{Call: p.ToolCallID, Tool: p.ToolName, Approve: true})
				c.Notes = append(c.Notes, fmt.Sprintf("call %s (%s) has no result when model call %d is made: its answer is not in the transcript; an approval is assumed", p.ToolCallID, p.ToolName, k+1))
			}
			t := open()
			t.Calls = append(t.Calls, k)
		}
		if i == len(msgs) {
			break
		}
		m := msgs[i]
		switch m.Role {
		case model.RoleSystem:
			if len(c.Turns) == 0 {
				c.History = append(c.History, m)
			}
		case model.RoleUser:
			text := provider.Text(m)
			if cur != nil && len(cur.Calls) == 0 && len(cur.Answers) > 0 && cur.Say == "" {
				cur.Then = join(cur.Then, text)
				continue
			}
			if cur != nil && len(cur.Calls) == 0 {
				cur.Say = join(cur.Say, text)
				continue
			}
			t := open()
			t.Say = text
			for _, p := range pending {
				t.Abandoned = append(t.Abandoned, p.ToolCallID)
				answered[p.ToolCallID] = true
			}
			pending = pending[:0]
		case model.RoleAssistant:
			for _, p := range m.Content {
				switch {
				case p.Type == model.PartToolCall && !p.ProviderExecuted && made[p.ToolCallID]:
					c.Notes = append(c.Notes, fmt.Sprintf("the call %s is made a second time: the second is not replayed", p.ToolCallID))
				case p.Type == model.PartToolCall && !p.ProviderExecuted:
					made[p.ToolCallID] = true
					pending = append(pending, p)
					c.addTools([]llm.ToolDef{{Name: p.ToolName}})
				case p.Type == model.PartToolApprovalRequest:
					requests[p.ApprovalID] = p.ToolCallID
				}
			}
		case model.RoleTool:
			for _, p := range m.Content {
				switch p.Type {
				case model.PartToolApprovalResponse:
					id := p.ToolCallID
					if id == "" {
						id = requests[p.ApprovalID]
					}
					if id != "" && !p.ProviderExecuted {
						answer(Answer{Call: id, Tool: toolOf(msgs, id), Approve: p.Approved, Reason: p.Reason, Known: true})
					}
				case model.PartToolResult:
					if p.ProviderExecuted {
						continue
					}
					if !made[p.ToolCallID] {
						c.Notes = append(c.Notes, fmt.Sprintf("the result for %s answers no call made before it: it is not replayed", p.ToolCallID))
						continue
					}
					if _, seen := c.Outputs[p.ToolCallID]; !seen && !IsApprovalPlaceholder(p.Output) {
						c.Outputs[p.ToolCallID] = p.Output
					}
					approve, reason := decision(p.Output, lossy)
					answer(Answer{Call: p.ToolCallID, Tool: toolOf(msgs, p.ToolCallID), Approve: approve, Reason: reason, Known: true})
				}
			}
		}
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func toolOf(msgs []model.Message, id string) string { return provider.CallName(msgs, id) }

// IsApprovalPlaceholder reports whether a result is a chat client's
// placeholder for an approved call that has not run yet
// ({"approved":true,"pendingExecution":true,...}, as TanStack AI's client
// sends it).
func IsApprovalPlaceholder(o *model.ToolOutput) bool {
	if o == nil {
		return false
	}
	raw := []byte(o.Value)
	if t := o.TextValue(); t != "" {
		raw = []byte(t)
	}
	var obj struct {
		Approved *bool `json:"approved"`
		Pending  *bool `json:"pendingExecution"`
	}
	return json.Unmarshal(raw, &obj) == nil && obj.Approved != nil && *obj.Approved && obj.Pending != nil && *obj.Pending
}

// DenialTexts are results that stand for a denial on a wire, where a
// denial is only text: the AI SDK's default, and TanStack AI's placeholder.
var denialTexts = []string{provider.DefaultDenialText}

// decision reads a recorded result as the user's answer: a denial result
// is a denial (with its reason), anything else an approval.
func decision(o *model.ToolOutput, lossy bool) (approve bool, reason string) {
	if o == nil {
		return true, ""
	}
	if o.Type == model.OutputExecutionDenied {
		return false, o.Reason
	}
	if !lossy {
		return true, ""
	}
	text := provider.OutputText(o)
	for _, d := range denialTexts {
		if text == d {
			return false, ""
		}
	}
	if o.IsFailure() {
		// A wire flags a failure (Anthropic's is_error) the same for a
		// denial and a tool's error; as a denial it replays the same.
		return false, text
	}
	var tanstack struct {
		Approved *bool  `json:"approved"`
		Message  string `json:"message"`
	}
	if json.Unmarshal([]byte(text), &tanstack) == nil && tanstack.Approved != nil && !*tanstack.Approved {
		return false, ""
	}
	return true, ""
}
