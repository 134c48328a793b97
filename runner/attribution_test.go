package runner

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// stepLimitFails is the reference, except that the first turn of a
// conversation run with a step limit fails after its model calls (as an SDK
// that throws when its loop reaches the limit): the calls the model made
// never reach the conversation.
type stepLimitFails struct {
	*inprocess.Target
	mu   sync.Mutex
	seen map[string]bool
}

func (s *stepLimitFails) Agent() target.Agent { return s }

func (s *stepLimitFails) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	s.mu.Lock()
	first := !s.seen[req.Conversation]
	s.seen[req.Conversation] = true
	s.mu.Unlock()
	resp, err := s.Target.Agent().Turn(ctx, req)
	if err == nil && first && req.Options.MaxSteps > 0 {
		return &target.TurnResponse{Error: &target.TurnError{Code: "Other", Message: "the step limit was reached"}}, nil
	}
	return resp, err
}

// A result the script expects in a later turn's prompt, for a call that an
// earlier failed turn never returned, is blocked: the failure is the
// earlier turn's (REQ-06), not the later prompt's (WIRE-01).
func TestExpectedResultOfACallNeverReturnedIsBlocked(t *testing.T) {
	tgt := &stepLimitFails{Target: inprocess.New(reference.New(), "reference"), seen: map[string]bool{}}
	run, err := Run(context.Background(), Options{Target: tgt, NoFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range run.Scenarios {
		if !strings.Contains(s.ID, "step-limit-reached") {
			continue
		}
		found = true
		if v := s.CheckVerdicts["REQ-06"]; v != report.Fail {
			t.Errorf("%s: REQ-06 %s, want fail (the turn that reached its limit failed)", s.ID, v)
		}
		if v := s.CheckVerdicts["WIRE-01"]; v == report.Fail {
			t.Errorf("%s: WIRE-01 failed, but the prompt it judged holds no call without its result: %s", s.ID, s.Message)
		}
	}
	if !found {
		t.Fatal("no step-limit-reached scenario ran")
	}
}

// callsEarly is the reference, except that a turn that answers some
// pending approvals and leaves others unanswered first calls the model with
// the user's messages alone (as a client that sends while an approval
// waits): a model call the script has no reply for.
type callsEarly struct{ *inprocess.Target }

func (c callsEarly) Agent() target.Agent { return c }

func (c callsEarly) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	msgs, err := model.DecodeMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	ix := model.IndexOf(msgs)
	if len(ix.ResponseOrder) > 0 && len(ix.Responses) < len(ix.RequestOrder) {
		var users []model.Message
		for _, m := range msgs {
			if m.Role == model.RoleUser {
				users = append(users, m)
			}
		}
		if _, err := req.Model.Local.Generate(ctx, &llm.Request{Messages: users}); err != nil {
			return nil, err
		}
	}
	return c.Target.Agent().Turn(ctx, req)
}

// A model call the script has no reply for (made while an approval is
// pending, charged to REQ-03) does not shift the calls a scenario names:
// "model call 2" stays the call that got the second scripted reply.
func TestUnscriptedModelCallDoesNotShiftNumbering(t *testing.T) {
	tgt := callsEarly{inprocess.New(reference.New(), "reference")}
	defer tgt.Close()
	run, err := Run(context.Background(), Options{Target: tgt, NoScenarios: true, Paths: []string{"pre_resolution.feature"}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range run.Scenarios {
		if !strings.Contains(s.Name, "only some of the pending approvals answered") {
			continue
		}
		found = true
		if v := s.CheckVerdicts["REQ-03"]; v != report.Fail {
			t.Errorf("%s: REQ-03 %s, want fail (the model was called while an approval was pending): %v", s.ID, v, s.CheckVerdicts)
		}
		if v := s.CheckVerdicts["PRE-09"]; v != report.Pass {
			t.Errorf("%s: PRE-09 %s, want pass (the scripted calls hold every result): %s", s.ID, v, s.Message)
		}
	}
	if !found {
		t.Fatal("the scenario did not run")
	}
}

// failsClosedAtOnce is the reference, except that a turn with a dynamic
// policy calls the model, then fails closed at once, before asking any
// call's policy (as a runtime that evaluates a step's policies concurrently
// and ends the turn on the first that throws).
type failsClosedAtOnce struct{ *inprocess.Target }

func (f failsClosedAtOnce) Agent() target.Agent { return f }

func (f failsClosedAtOnce) Turn(ctx context.Context, req *target.TurnRequest) (*target.TurnResponse, error) {
	dynamic := false
	for _, tool := range req.Tools {
		dynamic = dynamic || tool.Approval == target.ApprovalDynamic
	}
	if !dynamic {
		return f.Target.Agent().Turn(ctx, req)
	}
	msgs, err := model.DecodeMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	if _, err := req.Model.Local.Generate(ctx, &llm.Request{Messages: msgs}); err != nil {
		return nil, err
	}
	return &target.TurnResponse{Error: &target.TurnError{Code: "Other", Message: "a tool's approval policy threw"}}, nil
}

// A policy the runtime never reached because the turn had already failed
// closed is not a REQ-04 failure (nothing was evaluated with the wrong
// input): the assertion is blocked.
func TestPolicyNotReachedInAFailedTurnIsBlocked(t *testing.T) {
	tgt := failsClosedAtOnce{inprocess.New(reference.New(), "reference")}
	defer tgt.Close()
	run, err := Run(context.Background(), Options{Target: tgt, NoFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range run.Scenarios {
		if !strings.Contains(s.ID, "panicking-policy-never-runs") {
			continue
		}
		found = true
		if v := s.CheckVerdicts["REQ-04"]; v == report.Fail {
			t.Errorf("%s: REQ-04 failed for a policy the failed turn never reached: %s", s.ID, s.Message)
		}
	}
	if !found {
		t.Fatal("the scenario did not run")
	}
}
