package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// junit.xml follows the JUnit XML that CI systems read (Jenkins' JUnit
// plugin, GitLab's unit test reports, the GitHub Actions test reporters):
// <testsuites> holding one <testsuite> per feature file, one <testcase>
// per scenario.
//
//   - fail: <failure message type="fail"> with the failed step, the
//     message and the problems in the body;
//   - error, timeout: <error type="error"|"timeout">, as the harness could
//     not drive the target (kept apart from failures);
//   - not-applicable: <skipped message=reason>;
//   - not run (an interrupted run's scenarios that did not run): a
//     <skipped message="not run: the run was interrupted (why)"> in a
//     suite of their own, every suite with an "interrupted" property and
//     the testsuites' name ending in "(interrupted)";
//   - warn (a SHOULD failure): the testcase passes, <system-out> carries
//     the warning, and the properties say verdict=warn.
//
// Every testcase has properties naming its verdict and each of its
// checks' verdicts (check:PRE-01 = pass); times are in seconds.

type junitSuites struct {
	XMLName   xml.Name     `xml:"testsuites"`
	Name      string       `xml:"name,attr"`
	Tests     int          `xml:"tests,attr"`
	Failures  int          `xml:"failures,attr"`
	Errors    int          `xml:"errors,attr"`
	Skipped   int          `xml:"skipped,attr"`
	Time      string       `xml:"time,attr"`
	Timestamp string       `xml:"timestamp,attr,omitempty"`
	Suites    []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	File       string          `xml:"file,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	File       string          `xml:"file,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitProblem   `xml:"failure,omitempty"`
	Error      *junitProblem   `xml:"error,omitempty"`
	Skipped    *junitSkipped   `xml:"skipped,omitempty"`
	SystemOut  *junitText      `xml:"system-out,omitempty"`
}

// junitText is element text written as CDATA, so that it reads as written
// in the file; encoding/xml splits a "]]>" in it across two sections.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// junitEvidenceMax bounds the evidence excerpt of each testcase.
const junitEvidenceMax = 6000

func encodeJUnit(r *Run) ([]byte, error) {
	all := junitSuites{Name: "approval-conformance: " + r.Target, Timestamp: junitTime(r.Started)}
	var total time.Duration
	var suiteTime []time.Duration
	index := map[string]int{}
	for _, s := range sortedScenarios(r) {
		src := s.Source
		if src == "" {
			src = s.Feature
		}
		i, ok := index[src]
		if !ok {
			i = len(all.Suites)
			index[src] = i
			suiteTime = append(suiteTime, 0)
			all.Suites = append(all.Suites, junitSuite{
				Name:      src,
				File:      s.Source,
				Timestamp: all.Timestamp,
				Properties: []junitProperty{
					{"target", r.Target},
					{"seed", strconv.FormatInt(r.Seed, 10)},
					{"level", string(r.Level)},
				},
			})
		}
		suite := &all.Suites[i]
		c := junitCaseOf(s)
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Error != nil:
			suite.Errors++
		case c.Skipped != nil:
			suite.Skipped++
		}
		suiteTime[i] += s.Duration
		total += s.Duration
	}
	if r.Interrupted != "" {
		all.Name += " (interrupted)"
		for i := range all.Suites {
			all.Suites[i].Properties = append(all.Suites[i].Properties, junitProperty{"interrupted", r.Interrupted})
		}
		all.Suites = append(all.Suites, junitNotRun(r))
		suiteTime = append(suiteTime, 0)
	}
	for i := range all.Suites {
		all.Suites[i].Time = seconds(suiteTime[i])
		all.Tests += all.Suites[i].Tests
		all.Failures += all.Suites[i].Failures
		all.Errors += all.Suites[i].Errors
		all.Skipped += all.Suites[i].Skipped
	}
	all.Time = seconds(r.Duration)
	if r.Duration == 0 {
		all.Time = seconds(total)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// junitNotRun is the suite of an interrupted run's scenarios that did not
// run: each a skipped testcase naming why, so that a reader of junit.xml
// alone sees the run is partial (the suite's "interrupted" property says
// why; when the run does not know which scenarios they are, one testcase
// counts them).
func junitNotRun(r *Run) junitSuite {
	why := "not run: the run was interrupted (" + r.Interrupted + ")"
	suite := junitSuite{
		Name:      "not run (the run was interrupted)",
		Timestamp: junitTime(r.Started),
		Properties: []junitProperty{
			{"target", r.Target},
			{"interrupted", r.Interrupted},
			{"notRun", strconv.Itoa(r.NotRun)},
		},
	}
	ids := r.NotRunScenarios
	if len(ids) == 0 && r.NotRun > 0 {
		ids = []string{fmt.Sprintf("%d scenarios not run", r.NotRun)}
	}
	for _, id := range ids {
		feature, _, _ := strings.Cut(id, ": ")
		suite.Cases = append(suite.Cases, junitCase{
			Name:       id,
			Classname:  strings.ReplaceAll(feature, ".", "_"),
			Time:       seconds(0),
			Properties: []junitProperty{{"verdict", "not-run"}},
			Skipped:    &junitSkipped{Message: clip(xmlText(why), 1000)},
		})
	}
	suite.Tests, suite.Skipped = len(suite.Cases), len(suite.Cases)
	return suite
}

func junitCaseOf(s Scenario) junitCase {
	class := strings.ReplaceAll(s.Feature, ".", "_")
	if class == "" {
		class = "scenarios"
	}
	c := junitCase{
		Name:      s.Name,
		Classname: class,
		Time:      seconds(s.Duration),
		File:      s.Source,
	}
	if c.Name == "" {
		c.Name = s.ID
	}
	c.Properties = append(c.Properties, junitProperty{"verdict", string(s.Verdict)})
	for _, cv := range checkVerdictList(s) {
		c.Properties = append(c.Properties, junitProperty{"check:" + cv[0], cv[1]})
	}
	msg := oneLine(s.Message)
	if bad := failingChecks(s); len(bad) > 0 && (s.Verdict == Fail || s.Verdict == Warn) {
		msg = strings.Join(bad, ", ") + ": " + msg
	}
	msg = clip(msg, 1000)
	var out []string
	switch s.Verdict {
	case Fail:
		c.Failure = &junitProblem{Message: msg, Type: string(Fail), Body: xmlText(junitBody(s))}
	case Error, Timeout:
		c.Error = &junitProblem{Message: msg, Type: string(s.Verdict), Body: xmlText(junitBody(s))}
	case NotApplicable:
		c.Skipped = &junitSkipped{Message: clip(oneLine(s.Message), 1000)}
	case Warn:
		out = append(out, "WARNING (a SHOULD check or a recommendation failed; the scenario passes)\n"+junitBody(s))
	}
	if ev := evidenceText(s.Evidence, junitEvidenceMax); ev != "" {
		out = append(out, ev)
	}
	if len(out) > 0 {
		c.SystemOut = &junitText{Text: xmlText(strings.Join(out, "\n\n"))}
	}
	return c
}

// xmlText replaces what XML 1.0 cannot hold, even in CDATA (control
// characters other than tab and newlines, invalid UTF-8), by U+FFFD.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// junitBody details why a scenario did not pass.
func junitBody(s Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scenario: %s\nVerdict: %s\n", s.ID, s.Verdict)
	var cvs []string
	for _, cv := range checkVerdictList(s) {
		cvs = append(cvs, cv[0]+" "+cv[1])
	}
	if len(cvs) > 0 {
		fmt.Fprintf(&b, "Checks: %s\n", strings.Join(cvs, ", "))
	}
	if s.FailedStep != "" {
		fmt.Fprintf(&b, "Failed step: %s\n", s.FailedStep)
	}
	if s.Message != "" {
		fmt.Fprintf(&b, "Message: %s\n", s.Message)
	}
	if len(s.Problems) > 0 {
		b.WriteString("Problems:\n")
		for _, p := range s.Problems {
			if p.Check != "" && !strings.HasPrefix(p.Detail, p.Check) {
				fmt.Fprintf(&b, "  - %s: %s\n", p.Check, p.Detail)
			} else {
				fmt.Fprintf(&b, "  - %s\n", p.Detail)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// seconds writes a duration in seconds with millisecond precision, as
// JUnit readers expect.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// junitTime writes the start time as JUnit's schema wants it: ISO 8601,
// UTC, without a zone.
func junitTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}
