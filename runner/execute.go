package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/steps"
	"github.com/approval-conformance-kit/ack/tagexpr"
)

// order returns the selected scenarios in the order they run: file by
// file (the compiled YAML scenarios, then the features), each file's
// scenarios in file order or, with a seed, shuffled by it as godog
// shuffles them (a new source seeded with the seed for each file, over the
// file's scenarios that match the tags; those of other shards are then
// left out). A seed of -1 is a random one.
func (st *suite) order(selected map[string]bool, expr *tagexpr.Expr, seed int64) []*steps.Scenario {
	if seed == -1 {
		seed = time.Now().UTC().UnixNano()
	}
	var out []*steps.Scenario
	for _, f := range st.files {
		var matching []*steps.Scenario
		for _, sc := range f.scenarios {
			if l := listed(sc.Pickle); expr.Match(l.Tags) {
				matching = append(matching, sc)
			}
		}
		if seed != 0 {
			shuffled := make([]*steps.Scenario, len(matching))
			for i, v := range rand.New(rand.NewSource(seed)).Perm(len(matching)) {
				shuffled[v] = matching[i]
			}
			matching = shuffled
		}
		for _, sc := range matching {
			if selected[steps.ScenarioID(sc.Pickle.Uri, sc.Pickle.Name)] {
				out = append(out, sc)
			}
		}
	}
	return out
}

// runScenarios runs the scenarios in order, concurrency of them at once,
// and starts none once ctx has ended.
func runScenarios(ctx context.Context, suite *steps.Suite, scenarios []*steps.Scenario, concurrency int) {
	if concurrency <= 1 {
		for _, sc := range scenarios {
			if ctx.Err() != nil {
				return
			}
			suite.RunScenario(ctx, sc)
		}
		return
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, concurrency)
	for _, sc := range scenarios {
		slots <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			suite.RunScenario(ctx, sc)
		}()
	}
	wg.Wait()
}

// runGodog runs the selected scenarios through godog, for godog's own
// output in opts.Format (pretty, progress, cucumber, junit) on
// opts.Output. Godog parses the suite again and runs each scenario with
// the suite's steps (steps.Suite.InitializeScenario); the verdicts are
// those of a run without it.
func runGodog(ctx context.Context, st *suite, suite *steps.Suite, selected map[string]bool, expr *tagexpr.Expr, opts Options) error {
	var (
		mu      sync.Mutex
		unknown []string
	)
	inSuite := map[string]bool{}
	for _, l := range st.all {
		inSuite[l.ID] = true
	}
	accept := func(p *godog.Scenario) bool {
		st.restore(p)
		id := steps.ScenarioID(p.Uri, p.Name)
		if !inSuite[id] {
			mu.Lock()
			unknown = append(unknown, id)
			mu.Unlock()
		}
		return selected[id] && ctx.Err() == nil
	}
	gd := godog.TestSuite{
		Name:                "approval-conformance",
		ScenarioInitializer: func(sc *godog.ScenarioContext) { suite.InitializeScenario(sc, accept) },
		Options: &godog.Options{
			Format:          opts.Format,
			Output:          opts.Output,
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
	if gd.Run() == 2 {
		return errors.New("godog could not run the suite (bad options or unreadable features; see its output)")
	}
	if len(unknown) > 0 {
		return fmt.Errorf("the runner's list of the suite lacks %q: it would have been run whatever the tags and shard", unknown[0])
	}
	return nil
}
