package report

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

// The JUnit structure as a CI reader sees it, decoded independently of
// the writer's types.
type readSuites struct {
	XMLName  xml.Name    `xml:"testsuites"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Suites   []readSuite `xml:"testsuite"`
}

type readSuite struct {
	Name       string         `xml:"name,attr"`
	Tests      int            `xml:"tests,attr"`
	Failures   int            `xml:"failures,attr"`
	Errors     int            `xml:"errors,attr"`
	Skipped    int            `xml:"skipped,attr"`
	Time       string         `xml:"time,attr"`
	Timestamp  string         `xml:"timestamp,attr"`
	Properties []readProperty `xml:"properties>property"`
	Cases      []readCase     `xml:"testcase"`
}

type readProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type readCase struct {
	Name       string         `xml:"name,attr"`
	Classname  string         `xml:"classname,attr"`
	Time       string         `xml:"time,attr"`
	Properties []readProperty `xml:"properties>property"`
	Failure    *readProblem   `xml:"failure"`
	Error      *readProblem   `xml:"error"`
	Skipped    *readProblem   `xml:"skipped"`
	SystemOut  string         `xml:"system-out"`
}

type readProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

func parseJUnit(t *testing.T, doc []byte) readSuites {
	t.Helper()
	var s readSuites
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, doc)
	}
	return s
}

func (s readSuites) find(t *testing.T, name string) readCase {
	t.Helper()
	for _, su := range s.Suites {
		for _, c := range su.Cases {
			if strings.HasPrefix(c.Name, name) {
				return c
			}
		}
	}
	t.Fatalf("no testcase %q", name)
	return readCase{}
}

func (c readCase) property(name string) string {
	for _, p := range c.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func TestJUnitMapsVerdicts(t *testing.T) {
	doc := render(t, synthRun(), FormatJUnit)
	if !bytes.HasPrefix(doc, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML declaration: %.60s", doc)
	}
	s := parseJUnit(t, doc)
	if s.Tests != 6 || s.Failures != 1 || s.Errors != 2 || s.Skipped != 1 {
		t.Errorf("totals: %d tests, %d failures, %d errors, %d skipped; want 6, 1, 2, 1", s.Tests, s.Failures, s.Errors, s.Skipped)
	}
	var names []string
	for _, su := range s.Suites {
		names = append(names, su.Name)
		if su.Tests != len(su.Cases) {
			t.Errorf("suite %s says %d tests, holds %d", su.Name, su.Tests, len(su.Cases))
		}
		if su.Timestamp != "2026-11-22T14:05:01" {
			t.Errorf("suite %s: timestamp %q", su.Name, su.Timestamp)
		}
		for _, c := range su.Cases {
			if _, err := strconv.ParseFloat(c.Time, 64); err != nil {
				t.Errorf("%s: time %q", c.Name, c.Time)
			}
		}
	}
	if got := strings.Join(names, " "); got != "a.feature b.feature scenarios/c.yaml" {
		t.Errorf("one suite per source file: %s", got)
	}

	fail := s.find(t, "fails")
	switch {
	case fail.Failure == nil:
		t.Fatal("a failing scenario has no <failure>")
	case fail.Failure.Type != "fail" || !strings.HasPrefix(fail.Failure.Message, "PRE-02, WIRE-01: turn 2 failed"):
		t.Errorf("failure type %q, message %q", fail.Failure.Type, fail.Failure.Message)
	case fail.Classname != "a":
		t.Errorf("classname %q", fail.Classname)
	}
	for _, want := range []string{
		"Failed step: the turn added an \"execution-denied\" result",
		"Message: turn 2 failed",
		"Problems:\n  - WIRE-01: model call 2",
		"  - 1 scripted turn(s) left unconsumed",
		"Checks: PRE-02 fail, WIRE-01 fail",
		// Markup comes back as written; characters XML cannot hold as U+FFFD.
		"<script>alert(1)</script> & \"quotes\" 'single' `tool_use` ```js ]]> \uFFFD\uFFFD\x7f \uFFFD|",
	} {
		if !strings.Contains(fail.Failure.Body, want) {
			t.Errorf("the failure body lacks %q:\n%s", want, fail.Failure.Body)
		}
	}
	if !strings.Contains(fail.SystemOut, "Model calls (3):") || !strings.Contains(fail.SystemOut, "assistant  tool-call call_1 deleteFile") {
		t.Errorf("the failure's system-out lacks the evidence:\n%s", fail.SystemOut)
	}
	if fail.property("check:WIRE-01") != "fail" || fail.property("verdict") != "fail" {
		t.Errorf("properties %+v", fail.Properties)
	}

	warn := s.find(t, "warns")
	if warn.Failure != nil || warn.Error != nil || warn.Skipped != nil {
		t.Errorf("a warning does not fail the testcase: %+v", warn)
	}
	if !strings.HasPrefix(warn.SystemOut, "WARNING") || !strings.Contains(warn.SystemOut, "the approval's reason reached the model") {
		t.Errorf("warning system-out: %q", warn.SystemOut)
	}
	if warn.property("verdict") != "warn" || warn.property("check:PRE-12") != "warn" {
		t.Errorf("warning properties %+v", warn.Properties)
	}

	for name, typ := range map[string]string{"errors": "error", "times out": "timeout"} {
		c := s.find(t, name)
		if c.Error == nil || c.Error.Type != typ || c.Failure != nil {
			t.Errorf("%s: want <error type=%q>, got %+v", name, typ, c)
		} else if !strings.Contains(c.Error.Body, "Verdict: "+typ) {
			t.Errorf("%s: error body %q", name, c.Error.Body)
		}
	}
	na := s.find(t, "does not apply")
	if na.Skipped == nil || na.Skipped.Message != "the target does not declare the abort-remaining denial policy" {
		t.Errorf("not applicable: %+v", na.Skipped)
	}
	pass := s.find(t, "passes")
	if pass.Failure != nil || pass.Error != nil || pass.Skipped != nil || pass.SystemOut != "" {
		t.Errorf("a passing testcase carries %+v", pass)
	}
	// Markup from the run stays text: the only elements are JUnit's.
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && !strings.Contains(" testsuites testsuite properties property testcase failure error skipped system-out ", " "+se.Name.Local+" ") {
			t.Errorf("unexpected element <%s>: markup from the run is not escaped", se.Name.Local)
		}
	}
	// Bodies read as written (CDATA), not as one line of &#xA; entities.
	if bytes.Contains(doc, []byte("&#xA;")) {
		t.Error("newlines are written as entities")
	}
}

func TestJUnitOfARealRun(t *testing.T) {
	r := fixture(t, "late-resolution")
	s := parseJUnit(t, render(t, r, FormatJUnit))
	st := r.ScenarioTotals()
	if s.Tests != len(r.Scenarios) || s.Failures != st[Fail] || s.Errors != st[Error]+st[Timeout] || s.Skipped != st[NotApplicable] {
		t.Errorf("totals %d/%d/%d/%d, want %d/%d/%d/%d", s.Tests, s.Failures, s.Errors, s.Skipped, len(r.Scenarios), st[Fail], st[Error]+st[Timeout], st[NotApplicable])
	}
	if s.Failures == 0 {
		t.Fatal("the late-resolution fixture should fail")
	}
	if len(s.Suites) < 5 {
		t.Errorf("%d suites", len(s.Suites))
	}
	if f, _ := strconv.ParseFloat(s.Time, 64); f <= 0 {
		t.Errorf("total time %q", s.Time)
	}
}
