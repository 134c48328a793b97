package runner

import (
	"fmt"
	"regexp"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

// modeSuffix matches the mode at the end of a scenario's name: "(stream)"
// or "(..., stream)".
var modeSuffix = regexp.MustCompile(`(\(|, )(generate|stream)\)$`)

// compareModes holds PRE-08 (stream mode resolves approvals exactly as
// generate mode does) across the two rows of a scenario that runs in both
// modes: a check that passes in generate mode and fails in stream mode
// fails PRE-08 in the stream row, with both verdicts as evidence. A check
// that fails in both modes is the same in both: not PRE-08's failure.
func compareModes(run *report.Run) {
	type pair struct{ generate, stream int }
	pairs := map[string]*pair{}
	for i, s := range run.Scenarios {
		m := modeSuffix.FindStringSubmatch(s.Name)
		if m == nil {
			continue
		}
		key := s.Source + "\x00" + modeSuffix.ReplaceAllString(s.Name, "$1<mode>)")
		p := pairs[key]
		if p == nil {
			p = &pair{generate: -1, stream: -1}
			pairs[key] = p
		}
		if m[2] == "generate" {
			p.generate = i
		} else {
			p.stream = i
		}
	}
	for _, p := range pairs {
		if p.generate < 0 || p.stream < 0 {
			continue
		}
		g, s := &run.Scenarios[p.generate], &run.Scenarios[p.stream]
		var differ []string
		for _, id := range s.Checks {
			if id == "PRE-08" {
				continue
			}
			sv, gv := s.CheckVerdicts[id], g.CheckVerdicts[id]
			if (sv == report.Fail || sv == report.Warn) && gv == report.Pass {
				differ = append(differ, fmt.Sprintf("%s %s in stream mode, pass in generate mode", id, sv))
			}
		}
		if len(differ) == 0 {
			continue
		}
		checks.SortIDs(differ)
		msg := fmt.Sprintf("stream mode resolves differently from generate mode (%s)", differ[0])
		if len(differ) > 1 {
			msg += fmt.Sprintf(" and %d more", len(differ)-1)
		}
		s.Findings = append(s.Findings, report.Finding{Check: "PRE-08", Step: "(generate and stream rows compared)", Outcome: report.OutcomeFail, Message: msg})
		s.Problems = append(s.Problems, report.Problem{Check: "PRE-08", Detail: "PRE-08: " + msg})
		if s.CheckVerdicts == nil {
			s.CheckVerdicts = map[string]report.Verdict{}
		}
		s.CheckVerdicts["PRE-08"] = report.Fail
		if !contains(s.Checks, "PRE-08") {
			s.Checks = append(s.Checks, "PRE-08")
			checks.SortIDs(s.Checks)
		}
		s.Verdict = report.Worse(s.Verdict, report.Fail)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
