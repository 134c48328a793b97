package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chatsim"
	"github.com/approval-conformance-kit/ack/target"
)

// The scripted chat server's answers: what the client role's scenarios
// make the server stream.

// againID is the id of a second approval request for a call already asked
// about (a "reapproval" row).
func againID(id string) string { return id + "_again" }

// start is the first event of a scripted answer: the message it streams
// into, unless the server starts its answers without a message id.
func (cw *clientWorld) start() []chat.Event {
	cw.answers++
	if cw.anonymous {
		return nil
	}
	return []chat.Event{{Type: chat.EventMessageStart, MessageID: fmt.Sprintf("msg-server-%d", cw.answers)}}
}

// eventsFromTable builds a scripted answer from a table whose rows are
// events: text (several text rows in a row stream one text in pieces),
// call, approval, reapproval (a second request for the call, under a new
// approval id), result, denied, error, recall.
func (c *clientSteps) eventsFromTable(table *godog.Table) ([]chat.Event, error) {
	rows, err := tableRows(table, "event")
	if err != nil {
		return nil, err
	}
	cw, err := c.cw()
	if err != nil {
		return nil, err
	}
	evs := cw.start()
	finish := "stop"
	for i, r := range rows {
		call, tool, input := r["call"], r["tool"], r["input"]
		if input == "" {
			input = "{}"
		}
		need := func(what, v string) error {
			if v == "" {
				return fmt.Errorf("row %d: a %s event needs a %s", i+1, r["event"], what)
			}
			return nil
		}
		switch r["event"] {
		case "text":
			evs = append(evs, chat.Event{Type: chat.EventTextDelta, Delta: r["text"]})
		case "call", "recall":
			if err := errors.Join(need("call", call), need("tool", tool)); err != nil {
				return nil, err
			}
			if !json.Valid([]byte(input)) {
				return nil, fmt.Errorf("row %d: the input %s is not valid JSON", i+1, input)
			}
			half := len(input) / 2
			evs = append(evs,
				chat.Event{Type: chat.EventToolCallStart, ToolCallID: call, ToolName: tool},
				chat.Event{Type: chat.EventToolCallArgs, ToolCallID: call, Delta: input[:half]},
				chat.Event{Type: chat.EventToolCallArgs, ToolCallID: call, Delta: input[half:]},
				chat.Event{Type: chat.EventToolCallEnd, ToolCallID: call, ToolName: tool, Input: json.RawMessage(input)})
			if slices.ContainsFunc(cw.tools, func(t target.ClientTool) bool { return t.Name == tool && t.ClientSide }) {
				finish = "tool-calls"
			}
		case "approval", "reapproval":
			if err := need("call", call); err != nil {
				return nil, err
			}
			a := &chat.Approval{ID: approvalID(call), InterruptID: interruptID(call)}
			if r["event"] == "reapproval" {
				a = &chat.Approval{ID: againID(approvalID(call)), InterruptID: againID(interruptID(call))}
			}
			evs = append(evs, chat.Event{Type: chat.EventApprovalRequested, ToolCallID: call, ToolName: tool, Input: json.RawMessage(input), Approval: a})
			finish = "tool-calls"
		case "result":
			if err := need("call", call); err != nil {
				return nil, err
			}
			out := r["output"]
			if out == "" {
				out = `{"ok":true}`
			}
			if !json.Valid([]byte(out)) {
				return nil, fmt.Errorf("row %d: the output %s is not valid JSON", i+1, out)
			}
			evs = append(evs, chat.Event{Type: chat.EventToolResult, ToolCallID: call, ToolName: tool, Output: json.RawMessage(out)})
		case "denied":
			if err := need("call", call); err != nil {
				return nil, err
			}
			evs = append(evs, chat.Event{Type: chat.EventToolDenied, ToolCallID: call, ToolName: tool})
		case "error":
			if err := need("call", call); err != nil {
				return nil, err
			}
			evs = append(evs, chat.Event{Type: chat.EventToolError, ToolCallID: call, ToolName: tool, ErrorText: r["text"]})
		default:
			return nil, fmt.Errorf("row %d: unknown event %q (want text, call, recall, approval, reapproval, result, denied or error)", i+1, r["event"])
		}
	}
	return append(evs, chat.Event{Type: chat.EventFinish, FinishReason: finish}), nil
}

func (c *clientSteps) answersWith(ctx context.Context, table *godog.Table) error {
	evs, err := c.eventsFromTable(table)
	if err != nil {
		return err
	}
	return c.script(ctx, chatsim.Turn{Events: evs})
}

func (c *clientSteps) answersHolding(ctx context.Context, table *godog.Table) error {
	evs, err := c.eventsFromTable(table)
	if err != nil {
		return err
	}
	return c.script(ctx, chatsim.Turn{Events: evs, Hold: true})
}

// answersHoldingOpen scripts an answer whose run finishes (an AG-UI run
// with its interrupts) while the response stays open until released.
func (c *clientSteps) answersHoldingOpen(ctx context.Context, table *godog.Table) error {
	evs, err := c.eventsFromTable(table)
	if err != nil {
		return err
	}
	return c.script(ctx, chatsim.Turn{Events: evs, HoldOpen: true})
}

func (c *clientSteps) answersText(ctx context.Context, text string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	return c.script(ctx, chatsim.Turn{Events: cw.textEvents(text)})
}

// newMessageIDs makes the server start every answer with a message id of
// its own, a continuation too: a UI message stream server built without the
// original messages does that. The rest of its behaviour stays conforming.
func (c *clientSteps) newMessageIDs(ctx context.Context) error {
	cw, err := c.ensureSession(ctx)
	if err != nil {
		return err
	}
	b := cw.conv.Behaviour()
	b.ReuseMessageID = false
	cw.conv.SetBehaviour(b)
	return nil
}

// mayAnswerText scripts an answer for a request a valid client may not make.
func (c *clientSteps) mayAnswerText(ctx context.Context, text string) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	return c.script(ctx, chatsim.Turn{Events: cw.textEvents(text), Optional: true})
}

// textEvents is a scripted answer of text only, with a message id of its
// own unless the server starts its answers without one.
func (cw *clientWorld) textEvents(text string) []chat.Event {
	return append(cw.start(),
		chat.Event{Type: chat.EventTextDelta, Delta: text},
		chat.Event{Type: chat.EventFinish, FinishReason: "stop"})
}

// anonymousAnswers makes the server start its answers without a message
// id: a UI message stream's start chunk may omit its messageId (the AI
// SDK's server sends none unless it is given one), and an AG-UI tool call
// may come without a parentMessageId (TanStack AI before 0.13 sends none).
// The client then names the message it streams into. A continuation of a
// conforming UI message stream server still streams into the message it
// continues (Behaviour.ReuseMessageID).
func (c *clientSteps) anonymousAnswers(context.Context) error {
	cw, err := c.cw()
	if err != nil {
		return err
	}
	cw.anonymous = true
	return nil
}
