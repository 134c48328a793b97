package steps

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/target"
)

// scenarioRun is one run of a scenario: its world and what its steps
// did. RunScenario drives it; so does godog, through InitializeScenario.
type scenarioRun struct {
	suite *Suite
	sc    *Scenario
	defs  []stepDef

	w          *world
	started    time.Time
	failedStep string
	stepErr    error
	infoErr    error
	finished   bool
	// current is the step under way, for godog's runs.
	current int
}

func (s *Suite) newRun(sc *Scenario) *scenarioRun {
	r := &scenarioRun{suite: s, sc: sc}
	r.defs = definitions(func() *world { return r.w })
	return r
}

// start gives the scenario a fresh world: a simulator, a harness, a
// conversation of its own.
func (r *scenarioRun) start(ctx context.Context) {
	r.started = time.Now()
	info, err := r.suite.Info(ctx)
	if err != nil {
		r.infoErr = err
		info = &target.Info{}
	}
	pickle := r.sc.Pickle
	r.w = newWorld(r.suite, info)
	r.w.conversation = ScenarioID(pickle.Uri, pickle.Name)
	for _, t := range pickle.Tags {
		switch t.Name {
		case "@agent":
			r.w.requireRole(target.RoleAgent)
		case "@client":
			r.w.requireRole(target.RoleClient)
		case "@server":
			r.w.requireRole(target.RoleServer)
		case "@partial-batch":
			r.w.requireWholeBatches()
		}
	}
}

// beforeStep notes the step under way.
func (r *scenarioRun) beforeStep(i int) {
	r.current = i
	if r.w != nil {
		r.w.step = r.sc.steps[i].step.Text
	}
}

// step runs the i-th step and returns its outcome.
func (r *scenarioRun) step(ctx context.Context, i int) error {
	b := &r.sc.steps[i]
	if b.undefined != nil {
		return b.undefined
	}
	return call(ctx, r.defs, b, r.w, r.infoErr)
}

// afterStep gathers what the step made the simulator and the harness see,
// and keeps the first step that could not go on.
func (r *scenarioRun) afterStep(i int, err error) {
	if r.w != nil && r.w.na == nil {
		r.w.drain()
	}
	if stops(err) && r.failedStep == "" {
		r.failedStep, r.stepErr = r.sc.steps[i].step.Text, err
		if r.w != nil && i < len(r.sc.steps)-1 {
			r.w.stoppedAt = r.sc.steps[i].step.Text
		}
	}
}

// finish closes the scenario's client session, judges the scenario and
// records its result.
func (r *scenarioRun) finish(ctx context.Context) {
	r.finished = true
	if r.w != nil {
		r.w.client.close(context.WithoutCancel(ctx))
		r.w.server.close(context.WithoutCancel(ctx))
	}
	res := r.suite.verdict(r.w, r.sc.Pickle, r.started, r.failedStep, r.stepErr, r.infoErr)
	if r.suite.Record != nil {
		r.suite.Record(res)
	}
}

// stops says whether a step's outcome stops the scenario: any error but
// godog.ErrSkip (the scenario does not apply: the steps left are not run,
// and the scenario is not a failure).
func stops(err error) bool { return err != nil && !errors.Is(err, godog.ErrSkip) }

// RunScenario runs a prepared scenario in a world of its own and records
// its result (Record), as godog runs a scenario in strict mode: the steps
// run in order, each with the context of the run; after a step fails, or
// finds that the scenario does not apply (godog.ErrSkip), the steps left
// are not run. A step that has no definition, or several, fails whether or
// not it would run. A panic in a step fails the step with the panic's
// value. A scenario without steps is judged as one that asserted nothing.
func (s *Suite) RunScenario(ctx context.Context, sc *Scenario) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := s.newRun(sc)
	// one runs the i-th step, starting the scenario first.
	one := func(i int, skip bool) (err error) {
		defer func() {
			if e := recover(); e != nil {
				err = errors.New(fmt.Sprint(e))
			}
		}()
		if i == 0 {
			r.start(ctx)
		}
		r.beforeStep(i)
		if b := &sc.steps[i]; skip && b.undefined == nil {
			return nil
		}
		return r.step(ctx, i)
	}
	var scenarioErr error
	for i := range sc.steps {
		err := one(i, scenarioErr != nil)
		r.afterStep(i, err)
		if !r.finished && !stops(scenarioErr) && (i == len(sc.steps)-1 || stops(err)) {
			r.finish(ctx)
		}
		if scenarioErr == nil || stops(err) {
			scenarioErr = err
		}
	}
	if !r.finished {
		r.start(ctx)
		r.finish(ctx)
	}
}

// anyStep is the one step definition the suite gives godog: every step's
// text matches it, and the scenario's prepared steps say what it runs.
var anyStep = regexp.MustCompile(`^(.*)$`)

// InitializeScenario binds the suite to a godog scenario, for runs that
// want godog's own output: godog calls it once per scenario. The scenario
// runs as RunScenario runs it, but for the steps after one that stops the
// scenario, which godog skips, defined or not. Scenarios that accept
// rejects are skipped and not recorded.
func (s *Suite) InitializeScenario(gsc *godog.ScenarioContext, accept func(*godog.Scenario) bool) {
	var r *scenarioRun
	index := map[string]int{}
	gsc.Before(func(ctx context.Context, pickle *godog.Scenario) (context.Context, error) {
		if accept != nil && !accept(pickle) {
			return ctx, godog.ErrSkip
		}
		r = s.newRun(Prepare(pickle))
		for i, st := range pickle.Steps {
			index[st.Id] = i
		}
		r.start(ctx)
		return ctx, nil
	})
	gsc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		if r != nil {
			r.beforeStep(index[st.Id])
		}
		return ctx, nil
	})
	gsc.Step(anyStep, func(ctx context.Context, _ string) error {
		if r == nil {
			return errors.New("the scenario did not start")
		}
		return r.step(ctx, r.current)
	})
	gsc.StepContext().After(func(ctx context.Context, st *godog.Step, _ godog.StepResultStatus, err error) (context.Context, error) {
		if r != nil {
			r.afterStep(index[st.Id], err)
		}
		return ctx, nil
	})
	gsc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		if r == nil || r.finished {
			return ctx, nil
		}
		r.finish(ctx)
		return ctx, nil
	})
}
