package report

// Result is the overall outcome of a run, as the CLI's exit code reports
// it: 0 for pass, 1 for fail, 2 for incomplete.
type Result string

// The results.
const (
	// ResultPass: every MUST check passes or does not apply, and every
	// scenario could be run. SHOULD failures (warnings) do not change it.
	ResultPass Result = "pass"
	// ResultFail: at least one MUST check failed.
	ResultFail Result = "fail"
	// ResultIncomplete: no MUST check failed, but a scenario errored or
	// timed out, so the run cannot certify the target.
	ResultIncomplete Result = "incomplete"
	// ResultInterrupted: the run stopped before its end (a signal, its
	// deadline, a target that stopped answering); what it holds is partial.
	ResultInterrupted Result = "interrupted"
)

// Result returns the overall outcome of the run, from its checks and
// scenarios.
func (r *Run) Result() Result {
	switch {
	case r.Interrupted != "":
		return ResultInterrupted
	case r.Failed():
		return ResultFail
	case !r.Certified():
		return ResultIncomplete
	}
	return ResultPass
}

// FailingChecks returns the ids of the checks that fail the run: the MUST
// checks whose verdict is fail and, at level should or may, the checks
// down to that level that warned (a SHOULD or MAY check's failure, or a
// MUST check's whose harm did not show); in the order of r.Checks (the
// catalogue's after Aggregate).
func (r *Run) FailingChecks() []string {
	var ids []string
	for _, c := range r.Checks {
		if r.failsRun(c) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// FailedMustChecks is FailingChecks, by its older name: at level should
// or may the checks it returns are not all MUST checks that failed.
func (r *Run) FailedMustChecks() []string { return r.FailingChecks() }
