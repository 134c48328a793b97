// Package steps holds the conformance suite's step definitions: the Gherkin
// vocabulary of features/ and scenarios/, bound to a target through the
// target interfaces, with the simulator as the model and a harness that
// runs the tools and records every run.
//
// Each scenario gets a fresh world: a simulator, a harness, a conversation.
// Steps arrange tools and the model's script, run turns as the user acts,
// and assert on what the target answered, what the model received (the
// simulator's journal), and what ran (the harness's timeline). Whatever the
// steps say, a scenario also fails on the simulator's problems (a prompt
// the provider would reject: WIRE-01, WIRE-02; a script not followed) and on
// a call run twice within one turn (WIRE-03).
package steps

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
)

// errSkip marks a scenario that does not apply to the target.
var errSkip = godog.ErrSkip

// Wiring connects a turn to the target's transport: it sets the model
// endpoint and the tool URLs an HTTP target needs. The in-process target
// needs none.
type Wiring interface {
	Prepare(req *target.TurnRequest, sim *simulator.Model, h target.Harness) error
}

// Suite binds the step definitions to a target.
type Suite struct {
	// Target is the implementation under test.
	Target target.Target
	// Timeout bounds each turn (10s when zero).
	Timeout time.Duration
	// SlowToolHold is how long a slow tool holds a run when no concurrency
	// violation releases it first (25ms when zero).
	SlowToolHold time.Duration
	// Wiring prepares turns for an HTTP target; nil for in-process ones.
	Wiring Wiring
	// Record receives the result of every scenario.
	Record func(report.Scenario)
	// Shard, when set, runs only the scenarios it accepts (by id); the
	// others are neither run nor recorded.
	Shard func(id string) bool

	infoOnce sync.Once
	info     *target.Info
	infoErr  error
}

func (s *Suite) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Second
}

// Info returns the target's info, asking it once.
func (s *Suite) Info(ctx context.Context) (*target.Info, error) {
	s.infoOnce.Do(func() {
		ictx, cancel := context.WithTimeout(ctx, s.timeout())
		defer cancel()
		s.info, s.infoErr = s.Target.Info(ictx)
		if s.infoErr == nil && s.info == nil {
			s.infoErr = errors.New("the target returned no info")
		}
	})
	return s.info, s.infoErr
}

// InitializeScenario registers the steps and hooks for one scenario; godog
// calls it once per scenario, so the world it creates is the scenario's own.
func (s *Suite) InitializeScenario(sc *godog.ScenarioContext) {
	if s.SlowToolHold == 0 {
		s.SlowToolHold = 25 * time.Millisecond
	}
	var (
		w          *world
		started    time.Time
		failedStep string
		stepErr    error
		infoErr    error
	)
	sc.Before(func(ctx context.Context, pickle *godog.Scenario) (context.Context, error) {
		started = time.Now()
		info, err := s.Info(ctx)
		if err != nil {
			infoErr = err
			info = &target.Info{}
		}
		w = newWorld(s, info)
		if s.Shard != nil && !s.Shard(ScenarioID(pickle.Uri, pickle.Name)) {
			w.outOfShard = true
			w.na = &notApplicable{reason: "in another shard"}
		}
		for _, t := range pickle.Tags {
			switch t.Name {
			case "@agent":
				w.requireRole(target.RoleAgent)
			case "@client":
				w.requireRole(target.RoleClient)
			}
		}
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		if err != nil && !errors.Is(err, godog.ErrSkip) && failedStep == "" {
			failedStep, stepErr = st.Text, err
		}
		return ctx, nil
	})
	sc.After(func(ctx context.Context, pickle *godog.Scenario, err error) (context.Context, error) {
		if w != nil {
			w.client.close(context.WithoutCancel(ctx))
		}
		if w != nil && w.outOfShard {
			return ctx, nil
		}
		res := s.verdict(w, pickle, started, failedStep, stepErr, infoErr)
		if s.Record != nil {
			s.Record(res)
		}
		if err == nil && (res.Verdict == report.Fail || res.Verdict == report.Warn) {
			return ctx, errors.New(res.Message)
		}
		return ctx, nil
	})
	register(sc, func() *world { return w }, func() error { return infoErr })
}

// verdict computes the result of a scenario.
func (s *Suite) verdict(w *world, pickle *godog.Scenario, started time.Time, failedStep string, stepErr, infoErr error) report.Scenario {
	var tags []string
	for _, t := range pickle.Tags {
		tags = append(tags, strings.TrimPrefix(t.Name, "@"))
	}
	res := report.Scenario{
		ID:       ScenarioID(pickle.Uri, pickle.Name),
		Feature:  strings.TrimSuffix(path.Base(pickle.Uri), path.Ext(pickle.Uri)),
		Name:     pickle.Name,
		Source:   pickle.Uri,
		Tags:     tags,
		Checks:   checks.IDs(tags),
		Duration: time.Since(started),
	}
	should := slices.Contains(tags, "should")
	outcome := report.Pass
	var herr *harnessError
	switch {
	case infoErr != nil:
		outcome, res.Message = report.Error, "the target's info could not be read: "+infoErr.Error()
	case w != nil && w.na != nil:
		outcome, res.Message = report.NotApplicable, w.na.reason
	case errors.As(stepErr, &herr):
		outcome, res.FailedStep, res.Message = report.Error, failedStep, herr.Error()
		if herr.timeout {
			outcome = report.Timeout
		}
	case stepErr != nil:
		outcome, res.FailedStep, res.Message = report.Fail, failedStep, stepErr.Error()
	}

	res.CheckVerdicts = map[string]report.Verdict{}
	for _, id := range res.Checks {
		res.CheckVerdicts[id] = outcome
	}
	if w != nil && (outcome == report.Pass || outcome == report.Fail) {
		var unattributed []string
		for _, p := range w.problems() {
			res.Problems = append(res.Problems, report.Problem{Check: p.check, Detail: p.detail})
			if p.check == "" {
				unattributed = append(unattributed, p.detail)
				continue
			}
			if _, known := checks.Lookup(p.check); !known {
				continue
			}
			if !slices.Contains(res.Checks, p.check) {
				res.Checks = append(res.Checks, p.check)
			}
			res.CheckVerdicts[p.check] = report.Fail
		}
		if outcome == report.Pass && len(res.Problems) > 0 {
			var details []string
			for _, p := range res.Problems {
				details = append(details, p.Detail)
			}
			res.Message = strings.Join(details, "; ")
			if len(unattributed) > 0 {
				for _, id := range res.Checks {
					res.CheckVerdicts[id] = report.Fail
				}
			}
		}
		checks.SortIDs(res.Checks)
	}
	if should {
		for id, v := range res.CheckVerdicts {
			if v == report.Fail {
				res.CheckVerdicts[id] = report.Warn
			}
		}
	}
	for id, v := range res.CheckVerdicts {
		if c, ok := checks.Lookup(id); ok && v == report.Fail && c.Level != checks.Must {
			res.CheckVerdicts[id] = report.Warn
		}
	}
	res.Verdict = outcome
	if outcome == report.Pass || outcome == report.Fail {
		res.Verdict = report.Pass
		for _, v := range res.CheckVerdicts {
			res.Verdict = report.Worse(res.Verdict, v)
		}
		if len(res.CheckVerdicts) == 0 {
			res.Verdict = outcome
			if len(res.Problems) > 0 {
				res.Verdict = report.Fail
			}
		}
	}
	if w != nil && res.Verdict != report.Pass && res.Verdict != report.NotApplicable {
		res.Evidence = w.evidence()
	}
	return res
}

// ScenarioID names a scenario across runs: its file and its name.
func ScenarioID(uri, name string) string {
	return path.Base(uri) + ": " + name
}

// evidence collects what the scenario observed.
func (w *world) evidence() *report.Evidence {
	ev := &report.Evidence{}
	if w.sim != nil {
		for _, e := range w.sim.Journal() {
			ev.ModelCalls = append(ev.ModelCalls, e)
		}
	}
	for _, r := range w.harness.runsSnapshot() {
		ev.ToolRuns = append(ev.ToolRuns, r)
	}
	for _, t := range w.turns {
		ev.Turns = append(ev.Turns, t)
	}
	if w.client != nil && w.client.conv != nil {
		for _, r := range w.client.conv.Requests() {
			ev.ChatRequests = append(ev.ChatRequests, r)
		}
	}
	return ev
}
