// Package replay runs a recorded conversation again against a target: the
// recorded model replies become the simulator's script, the user's
// recorded actions are replayed turn by turn through the target interface
// (target.Agent), the tools return what they returned, and each model call
// the target makes is compared with the recorded one. The first divergence
// is reported with both sides: a prompt that differs, a call the recording
// made and the target did not (or the other way round), a prompt the
// provider refused on one side only, a turn that failed, a tool run twice.
//
// Prompts are compared as a provider's wire carries them: texts, calls
// (id, tool, input) and results (id, output as text); approval parts, which
// no provider wire carries, are left out of the comparison.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/transcript"
)

// Placeholder is the text scripted for a model call whose answer the
// transcript does not hold (the call a logged request body made).
const Placeholder = "(the transcript ends before this reply)"

// Refused is the text scripted for a model call the provider refused in the
// recording, for a target whose prompt it accepts.
const Refused = "(the provider refused this call in the recording)"

// Options configure a replay.
type Options struct {
	// Target is the implementation to replay against; it must play the
	// agent role.
	Target target.Target
	// Serve, when set, serves the simulator over HTTP for a target that
	// calls its model there (httptarget): it returns the base URL. Without
	// it the simulator is handed over in-process.
	Serve func(name string, sim *simulator.Model) (baseURL string, err error)
	// Mode forces the turn mode (generate or stream); the recorded one by
	// default.
	Mode target.Mode
	// Timeout bounds each turn (30s when zero).
	Timeout time.Duration
}

// Result is the outcome of one conversation's replay.
type Result struct {
	Conversation string
	// Recorded and Replayed count the model calls of each side.
	Recorded, Replayed int
	// Turns are the turns replayed, one line each.
	Turns []string
	// Divergence is the first difference, nil when the replay matched.
	Divergence *Divergence
	// Notes say what the replay had to assume.
	Notes []string
}

// Divergence is where the replay first differs from the recording.
type Divergence struct {
	// Turn and Call are where (1-based; Call 0 when it is not about a
	// model call).
	Turn, Call int
	// What differs, in plain words.
	What string
	// Recorded and Replayed are each side.
	Recorded, Replayed string
}

func (d *Divergence) String() string {
	where := fmt.Sprintf("turn %d", d.Turn)
	if d.Call > 0 {
		where = fmt.Sprintf("model call %d (turn %d)", d.Call, d.Turn)
	}
	return fmt.Sprintf("%s: %s\n  recorded: %s\n  replayed: %s", where, d.What, d.Recorded, d.Replayed)
}

// Run replays one conversation. An error means the target could not be
// driven; a divergence is a result.
func Run(ctx context.Context, conv *transcript.Conversation, opts Options) (*Result, error) {
	agent := opts.Target.Agent()
	if agent == nil {
		return nil, fmt.Errorf("replay: the target does not play the agent role")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	res := &Result{Conversation: conv.ID, Notes: append([]string(nil), conv.Notes...)}
	script := simulator.Script{Provider: conv.Profile}
	for i, c := range conv.Calls {
		switch {
		case c.Refused && i == len(conv.Calls)-1:
			// The recording ends on a refusal: a target whose prompt is
			// accepted gets a stand-in reply.
			script.Turns = append(script.Turns, simulator.Turn{Reply: simulator.Reply{Text: Refused}, Optional: true})
			res.Recorded++
		case c.Refused:
			res.Recorded++ // the provider refused it before the model answered: no turn
		case c.Reply != nil:
			script.Turns = append(script.Turns, simulator.Turn{Reply: *c.Reply})
			res.Recorded++
		case c.Status >= 400:
			script.Turns = append(script.Turns, simulator.Turn{Reply: simulator.Reply{Error: &simulator.ErrorReply{Status: c.Status, Body: c.ErrorBody}}})
			res.Recorded++
		default: // not recorded: the transcript ends here
			script.Turns = append(script.Turns, simulator.Turn{Reply: simulator.Reply{Text: Placeholder}, Optional: true})
			if c.Prompt != nil {
				res.Recorded++
			}
		}
	}
	sim, err := simulator.New(script)
	if err != nil {
		return nil, fmt.Errorf("replay: the recorded replies: %w", err)
	}
	endpoint := target.ModelEndpoint{API: string(conv.Profile), Local: sim}
	if opts.Serve != nil {
		base, err := opts.Serve(safeName(conv.ID), sim)
		if err != nil {
			return nil, err
		}
		endpoint = target.ModelEndpoint{API: string(conv.Profile), BaseURL: base}
	}
	h := &harness{outputs: conv.Outputs, runs: map[string]int{}}
	var tools []target.Tool
	for _, t := range conv.Tools {
		tools = append(tools, target.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Approval: target.ApprovalAlways})
	}
	history := append([]model.Message(nil), conv.History...)
	seed := MidwayHistory(conv)
	if seed != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the conversation starts mid-way (a retried or edited request, which a recording proxy records as a conversation of its own): turn 1 sends its first request's %d message(s) as the client sent them", len(seed)))
	}
	seen := 0 // simulator journal entries compared so far
	for ti, turn := range conv.Turns {
		n := ti + 1
		msgs, said, notes := action(history, turn)
		if ti == 0 && seed != nil {
			msgs, said, notes = append([]model.Message(nil), seed...), fmt.Sprintf("the recorded history (%d message(s))", len(seed)), nil
		}
		res.Notes = append(res.Notes, notes...)
		mode := opts.Mode
		if mode == "" {
			mode = target.Generate
			if len(turn.Calls) > 0 && conv.Calls[turn.Calls[0]].Mode == string(target.Stream) {
				mode = target.Stream
			}
		}
		raw, err := model.EncodeMessages(msgs)
		if err != nil {
			return nil, fmt.Errorf("replay: turn %d: %w", n, err)
		}
		tctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		resp, err := agent.Turn(tctx, &target.TurnRequest{Conversation: "replay-" + safeName(conv.ID), Mode: mode, Model: endpoint,
			Tools: tools, Toolkit: target.ToolkitProvided, Messages: raw, Harness: h})
		cancel()
		if err != nil {
			return res, fmt.Errorf("replay: turn %d: %w", n, err)
		}
		journal := sim.Journal()
		got := journal[seen:]
		seen = len(journal)
		res.Replayed += len(got)
		line := fmt.Sprintf("turn %d: %s: %d model call(s)", n, said, len(got))
		if resp.Error != nil {
			line += fmt.Sprintf(", failed %s: %s", resp.Error.Code, resp.Error.Message)
		} else {
			line += ", finish " + resp.FinishReason
		}
		res.Turns = append(res.Turns, line)
		if d := compare(conv, turn, n, got, resp); d != nil {
			res.Divergence = d
			return res, nil
		}
		if id, runs := h.twice(); id != "" {
			res.Divergence = &Divergence{Turn: n, What: "a tool call ran more than once",
				Recorded: fmt.Sprintf("call %s ran at most once", id), Replayed: fmt.Sprintf("call %s ran %d times", id, runs)}
			return res, nil
		}
		history = append(msgs, resp.Messages...)
	}
	for _, p := range sim.Problems() {
		if p.Call == 0 && p.Check == "" { // turns left unconsumed
			res.Divergence = &Divergence{Turn: len(conv.Turns), What: "the target made fewer model calls than the recording",
				Recorded: fmt.Sprintf("%d model call(s)", res.Recorded), Replayed: fmt.Sprintf("%d model call(s)", res.Replayed)}
		}
	}
	return res, nil
}

// MidwayHistory returns the first request's prompt of a conversation
// recorded from the middle: one whose first model call already holds the
// model's earlier answers (a retried or edited request, a branch, which a
// recording proxy journals as a conversation of its own). Its turns cannot
// be told apart from that prompt (two user messages would read as one), so
// it is replayed, and reproduced, from the prompt as the client sent it.
// nil for a conversation recorded from its start.
func MidwayHistory(conv *transcript.Conversation) []model.Message {
	if len(conv.Turns) == 0 || len(conv.Turns[0].Calls) == 0 {
		return nil
	}
	prompt := conv.Calls[conv.Turns[0].Calls[0]].Prompt
	for _, m := range prompt {
		if m.Role == model.RoleAssistant {
			return prompt
		}
	}
	return nil
}

// action builds the request of a turn: the history, the answers to the
// approvals the target asked for, and the user's text.
func action(history []model.Message, t transcript.Turn) (msgs []model.Message, said string, notes []string) {
	msgs = append([]model.Message(nil), history...)
	requests := map[string]string{} // call id -> approval id the target issued
	for _, m := range history {
		for _, p := range m.Content {
			if p.Type == model.PartToolApprovalRequest {
				requests[p.ToolCallID] = p.ApprovalID
			}
		}
	}
	var words []string
	var answers []model.Part
	for _, a := range t.Answers {
		id, ok := requests[a.Call]
		if !ok {
			notes = append(notes, fmt.Sprintf("the target asked no approval for %s: the recorded answer is not sent", a.Call))
			continue
		}
		answers = append(answers, model.ApprovalResponse(id, a.Approve, a.Reason))
		verb := "approve"
		if !a.Approve {
			verb = "deny"
		}
		words = append(words, verb+" "+a.Call)
	}
	if len(answers) > 0 {
		msgs = append(msgs, model.Message{Role: model.RoleTool, Content: answers})
	}
	for _, text := range []string{t.Say, t.Then} {
		if text != "" {
			msgs = append(msgs, model.UserText(text))
			words = append(words, fmt.Sprintf("say %q", clip(text, 60)))
		}
	}
	if len(words) == 0 {
		words = append(words, "continue")
	}
	return msgs, strings.Join(words, ", "), notes
}

// compare checks the model calls a turn made against the recorded ones.
func compare(conv *transcript.Conversation, turn transcript.Turn, n int, got []simulator.Entry, resp *target.TurnResponse) *Divergence {
	for j := 0; j < max(len(turn.Calls), len(got)); j++ {
		if j >= len(got) {
			rec := conv.Calls[turn.Calls[j]]
			if !rec.Recorded && rec.Prompt == nil {
				return nil // the transcript ends here: nothing to compare
			}
			replayed := "no model call: the turn finished (" + resp.FinishReason + ")"
			if resp.Error != nil {
				replayed = fmt.Sprintf("no model call: the turn failed with %s: %s", resp.Error.Code, resp.Error.Message)
			}
			return &Divergence{Turn: n, Call: rec.N, What: "the recording called the model here; the target did not", Recorded: describeCall(rec), Replayed: replayed}
		}
		e := got[j]
		if j >= len(turn.Calls) {
			return &Divergence{Turn: n, Call: e.Call, What: "the target called the model where the recording did not",
				Recorded: "no model call in this turn after the ones before", Replayed: fmt.Sprintf("a call with %d message(s)", len(e.Prompt))}
		}
		rec := conv.Calls[turn.Calls[j]]
		if rec.Prompt != nil {
			if d := diffPrompts(rec.Prompt, e.Prompt); d != "" {
				r, p := itemsOf(rec.Prompt), itemsOf(e.Prompt)
				return &Divergence{Turn: n, Call: rec.N, What: "the prompt differs " + d, Recorded: around(r, p), Replayed: around(p, r)}
			}
		}
		recRefused := rec.Status >= 400
		gotRefused := e.Verdict == simulator.VerdictViolation
		if recRefused != gotRefused && (gotRefused || isRuleError(rec.ErrorBody)) {
			d := &Divergence{Turn: n, Call: rec.N, What: "the provider's verdict differs", Recorded: "accepted", Replayed: "accepted"}
			if recRefused {
				d.Recorded = fmt.Sprintf("refused: HTTP %d %s", rec.Status, clip(rec.ErrorBody, 300))
			}
			if gotRefused {
				d.Replayed = fmt.Sprintf("refused: HTTP %d %s", e.Status, clip(e.ErrorBody, 300))
			}
			return d
		}
	}
	return nil
}

// isRuleError reports whether a recorded error body is a provider's
// refusal of the prompt's tool results (as opposed to, say, a rate limit).
func isRuleError(body string) bool {
	for _, s := range []string{"tool_call", "tool_use", "function call", "tool output", "tool_result"} {
		if strings.Contains(body, s) {
			return true
		}
	}
	return false
}

func describeCall(c transcript.Call) string {
	switch {
	case c.Reply != nil:
		return fmt.Sprintf("model call %d with %d message(s), answered", c.N, len(c.Prompt))
	case c.Status >= 400:
		return fmt.Sprintf("model call %d with %d message(s), refused: HTTP %d %s", c.N, len(c.Prompt), c.Status, clip(c.ErrorBody, 300))
	}
	return fmt.Sprintf("model call %d with %d message(s)", c.N, len(c.Prompt))
}

// harness runs the tools of a replay: each returns its recorded output.
type harness struct {
	outputs map[string]*model.ToolOutput
	mu      sync.Mutex
	runs    map[string]int
}

func (h *harness) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	h.mu.Lock()
	h.runs[req.ToolCallID]++
	h.mu.Unlock()
	out := h.outputs[req.ToolCallID]
	switch {
	case out == nil:
		return json.RawMessage(`{"ok":true}`), nil
	case out.Type == model.OutputErrorText || out.Type == model.OutputErrorJSON:
		// "Error: " is how the reference (and the AI SDK 7) prefix a
		// tool's error; the target under replay adds its own.
		return nil, fmt.Errorf("%s", strings.TrimPrefix(provider.OutputText(out), "Error: "))
	case out.Type == model.OutputText:
		s, _ := json.Marshal(out.TextValue()) // a string always marshals
		return s, nil
	case out.Type == model.OutputJSON && len(out.Value) > 0:
		return out.Value, nil
	}
	return json.RawMessage(`{"ok":true}`), nil
}

func (h *harness) Policy(context.Context, target.PolicyRequest) (bool, error) { return true, nil }

// twice returns a call that ran more than once.
func (h *harness) twice() (string, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, n := range h.runs {
		if n > 1 {
			return id, n
		}
	}
	return "", 0
}

func safeName(id string) string {
	var b strings.Builder
	for _, r := range id {
		if r < 128 && (r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 60 {
		s = s[:60]
	}
	if s == "" {
		s = "conversation"
	}
	return s
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
