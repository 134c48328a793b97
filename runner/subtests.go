package runner

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/steps"
	"github.com/approval-conformance-kit/ack/tagexpr"
)

// SubtestName is the name of a scenario's subtest in a run with
// Options.TestingT: the checks its tags name, then its id, as in
// "PRE-01,PRE-03 pre_resolution.feature: a denied call does not run
// (stream)". go test writes the spaces as underscores; its -run pattern
// matches a subtest's name anywhere, so "TestConformance/PRE-01" selects
// the scenarios of PRE-01 and "TestConformance/pre_resolution" those of a
// file.
func SubtestName(tags []string, id string) string {
	ids := checks.IDs(tags)
	if len(ids) == 0 {
		return id
	}
	return strings.Join(ids, ",") + " " + id
}

// subtest is a scenario's subtest while godog runs the scenario: it waits
// for the scenario's result, judges it, and ends.
type subtest struct {
	result chan *report.Scenario // nil: the scenario was not recorded
	done   chan struct{}
}

// runSubtests runs the selected scenarios through godog, as runGodog does,
// each one in a subtest of opts.TestingT named by SubtestName. When godog
// starts a scenario, its subtest starts (go test's -run may leave it out:
// then the scenario is not run, and not recorded); when godog has run it
// and the suite has judged it, the subtest gets the result, which
// opts.Judge reports on the subtest's *testing.T (a failure, a skip, a
// log), and the next scenario starts once the subtest has ended.
func runSubtests(ctx context.Context, st *suite, suite *steps.Suite, selected map[string]bool, expr *tagexpr.Expr, opts Options) error {
	var (
		mu      sync.Mutex
		results = map[string]report.Scenario{}
		running = map[string]*subtest{}
	)
	record := suite.Record
	suite.Record = func(s report.Scenario) {
		mu.Lock()
		results[s.ID] = s
		mu.Unlock()
		if record != nil {
			record(s)
		}
	}
	// accept starts the scenario's subtest: false when the scenario is not
	// selected, or go test's -run leaves its subtest out.
	accept := func(p *godog.Scenario) bool {
		st.restore(p)
		id := steps.ScenarioID(p.Uri, p.Name)
		if !selected[id] || ctx.Err() != nil {
			return false
		}
		var tags []string
		for _, t := range p.Tags {
			tags = append(tags, t.Name)
		}
		sub := &subtest{result: make(chan *report.Scenario, 1), done: make(chan struct{})}
		started := make(chan bool, 1)
		go func() {
			defer close(sub.done)
			ran := false // t.Run returns true for a subtest -run leaves out
			opts.TestingT.Run(SubtestName(tags, id), func(t *testing.T) {
				ran = true
				started <- true
				s := <-sub.result
				if s == nil {
					t.Skip("not run: the run was interrupted")
				}
				if opts.Judge != nil {
					opts.Judge(t, *s)
				}
			})
			if !ran {
				started <- false
			}
		}()
		if !<-started {
			<-sub.done
			return false
		}
		mu.Lock()
		running[id] = sub
		mu.Unlock()
		return true
	}
	out, format := opts.Output, opts.Format
	if out == nil || format == "" {
		out, format = io.Discard, "progress"
	}
	gd := godog.TestSuite{
		Name: "approval-conformance",
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			suite.InitializeScenario(sc, accept)
			sc.After(func(ctx context.Context, p *godog.Scenario, _ error) (context.Context, error) {
				id := steps.ScenarioID(p.Uri, p.Name)
				mu.Lock()
				sub := running[id]
				delete(running, id)
				s, ok := results[id]
				mu.Unlock()
				if sub == nil {
					return ctx, nil
				}
				if ok {
					sub.result <- &s
				} else {
					sub.result <- nil
				}
				<-sub.done
				return ctx, nil
			})
		},
		Options: &godog.Options{
			Format:          format,
			Output:          out,
			FS:              st.fsys,
			Paths:           st.paths,
			FeatureContents: st.contents,
			Tags:            prefilter(expr),
			Strict:          true,
			Concurrency:     max(opts.Concurrency, 1),
			Randomize:       opts.Seed,
			DefaultContext:  ctx,
			NoColors:        true,
		},
	}
	status := gd.Run()
	// A subtest whose scenario godog left without its after hook (it
	// should not) ends as not run, rather than blocking its test.
	mu.Lock()
	left := running
	running = map[string]*subtest{}
	mu.Unlock()
	for _, sub := range left {
		sub.result <- nil
		<-sub.done
	}
	if status == 2 {
		return errors.New("godog could not run the suite (bad options or unreadable features)")
	}
	return nil
}
