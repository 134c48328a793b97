// Package report holds the results of a conformance run: a verdict per
// scenario with its evidence, and a verdict per check aggregated from the
// scenarios that name it.
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/approval-conformance-kit/ack/checks"
)

// Verdict is the outcome of a scenario or a check.
type Verdict string

// The verdicts.
const (
	Pass          Verdict = "pass"
	Fail          Verdict = "fail"
	Warn          Verdict = "warn"
	NotApplicable Verdict = "not-applicable"
	Error         Verdict = "error"
	Timeout       Verdict = "timeout"
	// NotEvaluated is a check's verdict when every scenario that exercises
	// it stopped before its assertions could be evaluated (an earlier
	// failure took away what they read): it applied, and says nothing.
	NotEvaluated Verdict = "not-evaluated"
)

// severity orders verdicts for aggregation: the worst wins.
func (v Verdict) severity() int {
	switch v {
	case Fail:
		return 6
	case Error:
		return 5
	case Timeout:
		return 4
	case Warn:
		return 3
	case Pass:
		return 2
	case NotEvaluated:
		return 1
	case NotApplicable:
		return 0
	}
	return -1
}

// Worse returns the worse of two verdicts.
func Worse(a, b Verdict) Verdict {
	if b.severity() > a.severity() {
		return b
	}
	return a
}

// Scenario is the result of one scenario (one pickle: an outline row is its
// own scenario).
type Scenario struct {
	// ID identifies the scenario across runs: "feature-file:line".
	ID      string `json:"id"`
	Feature string `json:"feature"`
	Name    string `json:"name"`
	// Source is where the scenario comes from: a feature file or a YAML file.
	Source string   `json:"source"`
	Tags   []string `json:"tags"`
	// Checks are the check ids the scenario exercises, plus those its
	// failure was attributed to.
	Checks []string `json:"checks"`
	// CheckVerdicts is the verdict of the scenario for each of its checks,
	// the worst outcome of that check's own assertions: a failure counts
	// as a warning for a SHOULD or MAY check.
	CheckVerdicts map[string]Verdict `json:"checkVerdicts,omitempty"`
	Verdict       Verdict            `json:"verdict"`
	Duration      time.Duration      `json:"durationNs"`
	// FailedStep is the step that failed, if one did.
	FailedStep string `json:"failedStep,omitempty"`
	// Message says why the scenario did not pass (or why it does not apply).
	Message string `json:"message,omitempty"`
	// Problems are further findings, each naming its check.
	Problems []Problem `json:"problems,omitempty"`
	// Findings are the outcomes of the scenario's assertions, in the order
	// they were made; a check's verdict is the worst of its own.
	Findings []Finding `json:"findings,omitempty"`
	// NotEvaluated are the checks the scenario names none of whose
	// assertions could be evaluated (an earlier failure stopped them).
	NotEvaluated []string `json:"notEvaluated,omitempty"`
	// Notes are observations charged to no check (a scripted model turn
	// the target never asked for, after a failure explains why).
	Notes []string `json:"notes,omitempty"`
	// Evidence is what the scenario observed.
	Evidence *Evidence `json:"evidence,omitempty"`
	// Provenance is who produces the scenario's input: conforming (the
	// SDK's own flows, any conforming client) or out-of-contract;
	// ProvenanceWhy says why it is out-of-contract for this target.
	Provenance    string `json:"provenance,omitempty"`
	ProvenanceWhy string `json:"provenanceWhy,omitempty"`
}

// Outcome is the outcome of one assertion.
type Outcome string

// The outcomes of an assertion.
const (
	// OutcomePass: the assertion held.
	OutcomePass Outcome = "pass"
	// OutcomeFail: the assertion did not hold; its check is charged.
	OutcomeFail Outcome = "fail"
	// OutcomeBlocked: the assertion could not be evaluated, because an
	// earlier failure took away what it reads; no check is charged.
	OutcomeBlocked Outcome = "blocked"
	// OutcomeNotApplicable: the assertion does not apply to the target
	// (it declares it lacks what the assertion reads).
	OutcomeNotApplicable Outcome = "not-applicable"
)

// Finding is the outcome of one assertion of a scenario, charged to
// exactly one check.
type Finding struct {
	Check string `json:"check"`
	// Step is the step that asserted it, or that caused it for the rules
	// checked on every model call (WIRE-01, WIRE-02) and every turn
	// (WIRE-03).
	Step    string  `json:"step,omitempty"`
	Outcome Outcome `json:"outcome"`
	Message string  `json:"message,omitempty"`
	// Harm is the harm a failed MUST assertion showed in the run
	// (refused, ran-against-answer, lost, crashed, forged), and
	// HarmEvidence what in the run shows it.
	Harm         string `json:"harm,omitempty"`
	HarmEvidence string `json:"harmEvidence,omitempty"`
	// Graded says why a failed assertion of a MUST check counts as a
	// warning: it shows no harm, the run does not show its harm, or its
	// input is out-of-contract and its harm is not a safety harm.
	Graded string `json:"graded,omitempty"`
}

// Problem is a finding attributed to a check.
type Problem struct {
	Check  string `json:"check,omitempty"`
	Detail string `json:"detail"`
	// Harm is the harm the failure showed, for a MUST failure.
	Harm string `json:"harm,omitempty"`
}

// Evidence is what a scenario observed: the model calls with their prompts,
// the tool runs, and the turns.
type Evidence struct {
	ModelCalls []any `json:"modelCalls,omitempty"`
	ToolRuns   []any `json:"toolRuns,omitempty"`
	Turns      []any `json:"turns,omitempty"`
	// ChatRequests are the requests a chat client under test made to the
	// scripted chat server (client role), with what the server streamed back.
	ChatRequests []any `json:"chatRequests,omitempty"`
}

// Check is the aggregated result of one check.
type Check struct {
	checks.Check
	Verdict   Verdict  `json:"verdict"`
	Scenarios []string `json:"scenarios"`
	// Counts of the scenario verdicts behind the check.
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	Warned        int `json:"warned"`
	Errored       int `json:"errored"`
	NotApplicable int `json:"notApplicable"`
	// NotEvaluated counts the scenarios that exercise the check but stopped
	// before any of its assertions could be evaluated.
	NotEvaluated int `json:"notEvaluated,omitempty"`
}

// Run is a whole conformance run.
type Run struct {
	Target     string        `json:"target"`
	TargetInfo any           `json:"targetInfo,omitempty"`
	Started    time.Time     `json:"started"`
	Duration   time.Duration `json:"durationNs"`
	Seed       int64         `json:"seed"`
	// Level is the lowest check level required to pass, as Aggregate last
	// computed the checks ("" if it never did): a MUST check's failure
	// always fails a run; at level should, a SHOULD check's warning does
	// too; at level may, every check's.
	Level     checks.Level `json:"level,omitempty"`
	Scenarios []Scenario   `json:"scenarios"`
	Checks    []Check      `json:"checks"`
	// Suite identifies the suite the run ran and the scenarios its tags
	// selected (every shard's together); nil in a report written before
	// runs recorded it.
	Suite *Suite `json:"suite,omitempty"`
	// Shard is the part of the suite the run covered; nil when it covered
	// all of it (or for a merged run).
	Shard *Shard `json:"shard,omitempty"`
	// Interrupted says why the run stopped before its end ("" when it ran
	// to its end): a signal, its deadline, a target that stopped
	// answering. Its scenarios are those that finished before.
	Interrupted string `json:"interrupted,omitempty"`
	// NotRun counts the scenarios the run meant to run and did not, when it
	// was interrupted.
	NotRun int `json:"notRun,omitempty"`
	// NotRunScenarios are the ids of the scenarios the interrupted run
	// meant to run and did not, in order.
	NotRunScenarios []string `json:"notRunScenarios,omitempty"`
	// Baseline is what the baseline of expected failures made of the run;
	// nil when the run had none.
	Baseline *BaselineResult `json:"baseline,omitempty"`
}

// Shard names the part of a suite a run covered: the Index-th (1-based) of
// Count disjoint parts.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Scenarios counts the scenarios of the suite's selection that fell to
	// this shard: those the run ran.
	Scenarios int `json:"scenarios"`
}

// Suite identifies a suite and a selection of its scenarios, so that the
// shards of one run can be proved to cover it exactly once.
type Suite struct {
	// Digest identifies the suite's files: every feature and YAML
	// scenario, its path and its bytes (another version of the kit, or
	// other --scenarios, give another digest).
	Digest string `json:"digest"`
	// Tags is the tag expression that selected the scenarios ("" for all).
	Tags string `json:"tags,omitempty"`
	// Scenarios counts the scenarios the tags selected, in every shard.
	Scenarios int `json:"scenarios"`
	// Selection is the digest of their ids (SelectionDigest).
	Selection string `json:"selection"`
}

// SelectionDigest is the digest of a selection of scenarios by their ids,
// in any order.
func SelectionDigest(ids []string) string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	h := sha256.New()
	for _, id := range sorted {
		h.Write([]byte(id))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Aggregate computes the per-check results from the scenarios, for every
// check in the catalogue (checks no scenario names are left out), and
// records the level required to pass.
func (r *Run) Aggregate(required checks.Level) {
	if required == "" {
		required = checks.Must
	}
	r.Level = required
	byID := map[string]*Check{}
	var order []string
	for _, c := range checks.All() {
		byID[c.ID] = &Check{Check: c, Verdict: NotApplicable}
		order = append(order, c.ID)
	}
	sort.SliceStable(r.Scenarios, func(i, j int) bool { return r.Scenarios[i].ID < r.Scenarios[j].ID })
	for _, s := range r.Scenarios {
		for _, id := range s.Checks {
			c, ok := byID[id]
			if !ok {
				continue
			}
			v, ok := s.CheckVerdicts[id]
			if !ok {
				switch {
				case s.CheckVerdicts == nil, s.Verdict == Error, s.Verdict == Timeout, s.Verdict == NotApplicable:
					v = s.Verdict // the scenario as a whole judged it, or could not
				default:
					v = NotEvaluated // its assertions could not be evaluated here
				}
			}
			if v == Fail && c.Level != checks.Must {
				v = Warn
			}
			c.Verdict = Worse(c.Verdict, v)
			c.Scenarios = append(c.Scenarios, s.ID)
			switch v {
			case Pass:
				c.Passed++
			case Fail:
				c.Failed++
			case Warn:
				c.Warned++
			case Error, Timeout:
				c.Errored++
			case NotApplicable:
				c.NotApplicable++
			case NotEvaluated:
				c.NotEvaluated++
			}
		}
	}
	r.Checks = r.Checks[:0]
	for _, id := range order {
		if c := byID[id]; len(c.Scenarios) > 0 {
			r.Checks = append(r.Checks, *c)
		}
	}
}

// Totals counts checks by verdict.
func (r *Run) Totals() map[Verdict]int {
	t := map[Verdict]int{}
	for _, c := range r.Checks {
		t[c.Verdict]++
	}
	return t
}

// ScenarioTotals counts scenarios by verdict.
func (r *Run) ScenarioTotals() map[Verdict]int {
	t := map[Verdict]int{}
	for _, s := range r.Scenarios {
		t[s.Verdict]++
	}
	return t
}

// Required reports whether a check must pass for the run to pass: every
// MUST check, and the checks down to the run's level.
func (r *Run) Required(c checks.Check) bool {
	level := r.Level
	if level == "" {
		level = checks.Must
	}
	return c.Level == checks.Must || c.Level.Rank() >= level.Rank()
}

// Failed reports whether a required check failed (or, below MUST, warned).
func (r *Run) Failed() bool {
	for _, c := range r.Checks {
		if r.failsRun(c) {
			return true
		}
	}
	return false
}

// failsRun reports whether a check's verdict fails the run: a required
// check that failed, or that warned in a run whose level is below MUST. A
// MUST check warns where its failed assertions show no harm (they are
// SHOULD at most), so at level must its warning fails nothing, as a
// SHOULD check's does not.
func (r *Run) failsRun(c Check) bool {
	if !r.Required(c.Check) {
		return false
	}
	switch c.Verdict {
	case Fail:
		return true
	case Warn:
		return r.Level != "" && r.Level != checks.Must
	}
	return false
}

// Certified reports whether every required check passed (or does not
// apply), no scenario errored or timed out, and the run was not
// interrupted.
func (r *Run) Certified() bool {
	if r.Interrupted != "" {
		return false
	}
	for _, c := range r.Checks {
		// A check no scenario could evaluate (an earlier failure stopped its
		// assertions) says nothing either way: the failure that stopped it
		// is charged to its own check.
		if r.Required(c.Check) && c.Verdict != Pass && c.Verdict != NotApplicable && c.Verdict != NotEvaluated && (c.Verdict != Warn || r.failsRun(c)) {
			return false
		}
	}
	for _, s := range r.Scenarios {
		if s.Verdict == Error || s.Verdict == Timeout {
			return false
		}
	}
	return true
}

// CheckVerdict returns the verdict of a check, and false if no scenario
// named it.
func (r *Run) CheckVerdict(id string) (Verdict, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c.Verdict, true
		}
	}
	return "", false
}
