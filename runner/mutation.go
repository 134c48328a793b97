package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/report"
)

// MutantResult is what the suite made of one mutant.
type MutantResult struct {
	Mutant mutants.Mutant
	// Caught lists the targeted checks that failed (or warned, for SHOULD
	// checks); empty means the mutant survived.
	Caught []string
	// Also lists the other checks that failed or warned.
	Also []string
}

// Mutation is the result of running the suite against every mutant.
type Mutation struct {
	Results []MutantResult
}

// Score returns how many mutants were caught, and how many there are.
func (m *Mutation) Score() (caught, total int) {
	for _, r := range m.Results {
		if len(r.Caught) > 0 {
			caught++
		}
	}
	return caught, len(m.Results)
}

// RunMutants runs the suite against every mutant with runOne (which runs
// the mutant's own program: see mutants.Builder) and scores the reports. A
// mutant is caught when at least one of the checks that target its bug
// fails, or warns if it is a SHOULD check. A run interrupted (ctx ended)
// is an error: a partial score would be wrong.
func RunMutants(ctx context.Context, all []mutants.Mutant, runOne func(context.Context, mutants.Mutant) (*report.Run, error)) (*Mutation, error) {
	results := make([]MutantResult, len(all))
	errs := make([]error, len(all))
	one := func(i int) {
		m := all[i]
		run, err := runOne(ctx, m)
		if err != nil {
			errs[i] = fmt.Errorf("mutant %s: %w", m.Name, err)
			return
		}
		if run.Interrupted != "" {
			errs[i] = fmt.Errorf("mutant %s: %s: the mutation score is not known", m.Name, run.Interrupted)
			return
		}
		res := MutantResult{Mutant: m}
		failed := map[string]bool{}
		for _, sc := range run.Scenarios {
			for id, v := range sc.CheckVerdicts {
				if v == report.Fail || v == report.Warn {
					failed[id] = true
				}
			}
		}
		for _, c := range checks.All() {
			if !failed[c.ID] {
				continue
			}
			if slices.Contains(m.Checks, c.ID) {
				res.Caught = append(res.Caught, c.ID)
			} else {
				res.Also = append(res.Also, c.ID)
			}
		}
		results[i] = res
	}
	if len(all) == 1 {
		one(0) // in the caller's goroutine (a test's run may stop it)
		if errs[0] != nil {
			return nil, errs[0]
		}
		return &Mutation{Results: results}, nil
	}
	// Mutants are independent programs, and a run spends most of its time
	// waiting (a slow tool holds each of its runs 25 ms, so that runs that
	// overlap are seen to): several per processor at once.
	workers := min(len(all), 4*runtime.GOMAXPROCS(0))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one(i)
			}
		}()
	}
	for i := range all {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Mutation{Results: results}, nil
}

// WriteMutation writes the mutation score and a line per mutant.
func WriteMutation(w io.Writer, m *Mutation) error {
	caught, total := m.Score()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tTARGETS\tCAUGHT BY\tALSO FAILS")
	for _, r := range m.Results {
		by := strings.Join(r.Caught, ",")
		if by == "" {
			by = "SURVIVED"
		}
		also := strings.Join(r.Also, ",")
		if also == "" {
			also = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Mutant.Name, strings.Join(r.Mutant.Checks, ","), by, also)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nMutation score: %d/%d mutants caught by the checks that target them.\n", caught, total)
	return err
}
