package steps

// then holds the assertions of the suite, one file per family of rules; the
// harm each failure causes is in harm.go.
//
//   - then_turn.go: the outcome of a turn: how it ended, or the clear
//     refusal a rule asks for (PRE-05, PRE-06, ERR-01, ERR-02).
//   - then_requests.go: the approval requests a turn issues and the
//     policies that decide them (REQ-01, REQ-02, REQ-04, REQ-06).
//   - then_results.go: the results the messages a turn returns hold
//     (PRE-01, PRE-02, PART-01, DEN-01).
//   - then_stream.go: what a turn streams: approval requests and results as
//     events (REQ-07, PRE-08, PROV-01).
//   - then_runs.go: what ran: the tool runs the harness counted, against
//     the answers (PRE-01 to PRE-03, PRE-07, PRE-11, PRE-13, PART-02,
//     SEC-01, SEC-02).
//   - then_prompt.go: what the model received: the prompts of the model
//     calls (REQ-03, PRE-01, PRE-02, PRE-12, DEN-01 to DEN-03, PART-02,
//     PROV-01, ERR-02).
type then struct{ world func() *world }
