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
	"fmt"
	"path"
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
	// PreferCanonical runs every agent scenario through the canonical
	// model API when the target declares it, rather than through the
	// provider wire of the scenario's profile.
	PreferCanonical bool
	// Record receives the result of every scenario.
	Record func(report.Scenario)

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

func (s *Suite) slowToolHold() time.Duration {
	if s.SlowToolHold > 0 {
		return s.SlowToolHold
	}
	return 25 * time.Millisecond
}

// verdict computes the result of a scenario. Each check's verdict is the
// worst outcome of its own assertions; the scenario's is the worst of its
// checks'. A step that asserts nothing and fails (the scenario could not be
// set up or driven on) is an error of the scenario, unless a check had
// already failed, which then explains why it could not go on.
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
	var herr *harnessError
	switch {
	case infoErr != nil:
		res.Verdict, res.Message = report.Error, "the target's info could not be read: "+infoErr.Error()
		return res
	case w == nil:
		res.Verdict, res.Message = report.Error, "the scenario did not start"
		return res
	case w.na != nil:
		res.Verdict, res.Message = report.NotApplicable, w.na.reason
		return res
	}
	w.drainAt(true)
	if w.sim != nil {
		if n := w.sim.Unconsumed(); n > 0 {
			w.notes = append(w.notes, fmt.Sprintf("%d scripted model turn(s) were never asked for (the model was called %d time(s))", n, w.sim.Calls()))
		}
	}
	w.verdict(&res)
	for _, f := range res.Findings {
		if f.Outcome == report.OutcomeFail {
			detail := f.Check + ": " + strings.TrimPrefix(f.Message, f.Check+": ")
			switch {
			case f.Graded != "":
				detail += " [warning: " + f.Graded + "]"
			case f.Harm != "" && f.HarmEvidence != "" && f.HarmEvidence != f.Message:
				detail += " [harm: " + f.Harm + ": " + f.HarmEvidence + "]"
			case f.Harm != "":
				detail += " [harm: " + f.Harm + "]"
			}
			res.Problems = append(res.Problems, report.Problem{Check: f.Check, Detail: detail, Harm: f.Harm})
		}
	}
	res.Verdict = report.Pass
	if len(res.CheckVerdicts) == 0 {
		res.Verdict = report.NotApplicable
	}
	for _, v := range res.CheckVerdicts {
		res.Verdict = report.Worse(res.Verdict, v)
	}
	all := true
	for _, v := range res.CheckVerdicts {
		if v != report.NotApplicable {
			all = false
		}
	}
	if all && len(res.CheckVerdicts) > 0 {
		res.Verdict = report.NotApplicable
		res.Message = "every assertion of the scenario is not applicable to the target"
	}
	if first, ok := w.firstFailure(); ok {
		res.FailedStep, res.Message = first.step, first.describe()
	}
	switch {
	case errors.As(stepErr, &herr):
		if res.Verdict != report.Fail {
			res.Verdict = report.Error
			if herr.timeout {
				res.Verdict = report.Timeout
			}
		}
		if res.Verdict != report.Fail {
			res.FailedStep, res.Message = failedStep, herr.Error()
		} else {
			res.Notes = append(res.Notes, fmt.Sprintf("the scenario stopped at %q: %v", failedStep, herr))
		}
	case stepErr != nil && w.failed():
		res.Notes = append(res.Notes, fmt.Sprintf("the scenario could not go on at %q: %v", failedStep, stepErr))
	case stepErr != nil:
		res.Verdict, res.FailedStep = report.Error, failedStep
		res.Message = "the scenario could not go on: " + stepErr.Error()
	case len(res.CheckVerdicts) == 0:
		res.Verdict, res.Message = report.Error, "the scenario made no assertion the target could be judged by"
	case res.Verdict == report.Pass && len(w.notes) > 0 && !w.failed():
		res.Verdict = report.Error
		res.Message = "the target did not follow the scenario's script, and no assertion of the scenario says which rule that breaks (the scenario is incomplete): " + strings.Join(w.notes, "; ")
	}
	if res.Verdict != report.Pass && res.Verdict != report.NotApplicable {
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
	if w.server != nil {
		for _, x := range w.server.exchanges {
			ev.ChatRequests = append(ev.ChatRequests, x)
		}
	}
	return ev
}
