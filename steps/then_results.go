package steps

import (
	"context"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/model"
)

// The assertions of the results the messages a turn returns hold (PRE-01, PRE-02, PART-01, DEN-01).

func (t *then) firstMessageHolds(_ context.Context, ids string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if len(last.Response.Messages) == 0 || last.Response.Messages[0].Role != model.RoleTool {
		return fmt.Errorf("the turn's first message is not a tool message of results (messages: %s)", summarize(last.Response.Messages))
	}
	first := model.IndexOf(last.Response.Messages[:1])
	all := model.IndexOf(last.Response.Messages)
	var missing error
	for _, id := range parseIDs(ids) {
		if _, ok := all.Result(id); !ok {
			// Where a result that was never added goes is not this rule's.
			if missing == nil {
				missing = t.world().missingResult(last, id, fmt.Sprintf("turn %d added no result for %s (messages: %s)", last.N, id, summarize(last.Response.Messages)))
			}
			continue
		}
		if _, ok := first.Result(id); !ok {
			return fmt.Errorf("the turn's first message holds no result for %s (messages: %s)", id, summarize(last.Response.Messages))
		}
	}
	return missing
}

func (t *then) turnAddedResult(_ context.Context, typ, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	res, ok := model.IndexOf(last.Response.Messages).Result(callID)
	if !ok {
		return t.world().missingResult(last, callID, fmt.Sprintf("turn %d added no result for %s (messages: %s)", last.N, callID, summarize(last.Response.Messages)))
	}
	if t.world().info.Features.UntypedResults {
		return &naError{why: "the target declares untyped results: the type of its result for " + callID + " is not its own"}
	}
	if string(res.Output.Type) != typ {
		// A result of another type than the answer asked tells the model
		// something else happened: the answer is lost.
		return harmed(checks.Lost, fmt.Errorf("the turn's result for %s is of type %s, want %s", callID, res.Output.Type, typ))
	}
	return nil
}

// summarize renders messages briefly for an assertion message.
func summarize(msgs []model.Message) string {
	var parts []string
	for _, m := range msgs {
		var kinds []string
		for _, p := range m.Content {
			k := string(p.Type)
			if p.ToolCallID != "" {
				k += " " + p.ToolCallID
			}
			kinds = append(kinds, k)
		}
		parts = append(parts, fmt.Sprintf("%s[%s]", m.Role, strings.Join(kinds, ", ")))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// turnAddedOne: each call has exactly one result among the turn's messages
// (what the application stores and sends next time).
func (t *then) turnAddedOne(_ context.Context, ids string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	ix := model.IndexOf(last.Response.Messages)
	var missing error
	for _, id := range parseIDs(ids) {
		switch n := len(ix.Results[id]); n {
		case 1:
		case 0:
			if missing == nil {
				missing = t.world().missingResult(last, id, fmt.Sprintf("turn %d added no result for %s, want exactly one (messages: %s)", last.N, id, summarize(last.Response.Messages)))
			}
		default:
			return harmedIf(checks.Refused, refusalFor(last.FirstModelCall, id), fmt.Errorf("the turn added %d result(s) for %s, want exactly one (messages: %s)", n, id, summarize(last.Response.Messages)))
		}
	}
	return missing
}

func (t *then) turnHoldsNoResult(_ context.Context, callID string) error {
	last, err := t.world().lastOK()
	if err != nil {
		return err
	}
	if n := len(model.IndexOf(last.Response.Messages).Results[callID]); n > 0 {
		return fmt.Errorf("the turn added %d result(s) for %s, want none", n, callID)
	}
	return nil
}

func resultIDs(parts []model.Part) string {
	var ids []string
	for _, p := range parts {
		ids = append(ids, p.ToolCallID)
	}
	return "[" + strings.Join(ids, " ") + "]"
}
