package baseline

import (
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/report"
)

func run() *report.Run {
	return &report.Run{Scenarios: []report.Scenario{
		{ID: "a.feature: one (stream)", Checks: []string{"PRE-01", "PRE-08"}, Verdict: report.Fail,
			CheckVerdicts: map[string]report.Verdict{"PRE-01": report.Fail, "PRE-08": report.Fail}},
		{ID: "a.feature: two", Checks: []string{"PRE-02"}, Verdict: report.Pass, CheckVerdicts: map[string]report.Verdict{"PRE-02": report.Pass}},
		{ID: "b.feature: three", Checks: []string{"WIRE-04"}, Verdict: report.Warn, CheckVerdicts: map[string]report.Verdict{"WIRE-04": report.Warn}},
		{ID: "c.feature: four", Checks: []string{"REQ-01"}, Verdict: report.Timeout, CheckVerdicts: map[string]report.Verdict{"REQ-01": report.Timeout}},
	}}
}

func TestApply(t *testing.T) {
	f, err := Parse("base.yaml", []byte(`expectedFailures:
  - scenario: "a.feature: one (stream)"
    check: PRE-08
    reason: stream mode is broken
  - scenario: "a.feature: two"
    reason: it used to fail
  - scenario: "c.feature: *"
    reason: the target hangs there
  - scenario: "z.feature: gone"
    reason: filtered out
`))
	if err != nil {
		t.Fatal(err)
	}
	o := Apply(f, run())
	if len(o.Expected) != 2 || o.Expected[0].Check != "PRE-08" || o.Expected[1].Scenario != "c.feature: four" {
		t.Errorf("expected %+v", o.Expected)
	}
	if len(o.Unexpected) != 1 || o.Unexpected[0].Check != "PRE-01" {
		t.Errorf("unexpected %+v", o.Unexpected)
	}
	if len(o.Stale) != 1 || o.Stale[0].Scenario != "a.feature: two" {
		t.Errorf("stale %+v", o.Stale)
	}
	if len(o.NotRun) != 1 || o.NotRun[0].Scenario != "z.feature: gone" {
		t.Errorf("not run %+v", o.NotRun)
	}
	if o.OK() {
		t.Error("a run with an unexpected failure and a stale entry is OK")
	}
}

func TestEmptyBaseline(t *testing.T) {
	o := Apply(nil, run())
	if len(o.Unexpected) != 3 || o.OK() {
		t.Errorf("unexpected %+v", o.Unexpected)
	}
}

func TestParseErrors(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"no reason":     {"expectedFailures:\n  - scenario: x\n", "b.yaml:2: reason: say why"},
		"unknown field": {"expectedFailures:\n  - scenario: x\n    reason: y\n    why: z\n", "b.yaml:4: why: unknown field"},
		"unknown check": {"expectedFailures:\n  - scenario: x\n    check: PRE-99\n    reason: y\n", `b.yaml:2: check: unknown check "PRE-99"`},
		"duplicate":     {"expectedFailures:\n  - {scenario: x, reason: y}\n  - {scenario: x, reason: z}\n", "already listed on line 2"},
		"top field":     {"expectedFailure:\n  - {scenario: x, reason: y}\n", "b.yaml:1: expectedFailure: unknown field (allowed: expectedFailures)"},
		"empty":         {"", "b.yaml: the file is empty (a baseline is \"expectedFailures:\""},
		"blank":         {"\n# nothing\n", "b.yaml: the file is empty"},
		"not a list":    {"expectedFailures: 3\n", `b.yaml:1: expectedFailures: want a list of entries, not "3"`},
		"a list":        {"- scenario: x\n", "b.yaml:1: a baseline is a mapping with the key expectedFailures, not a list"},
		"not text":      {"expectedFailures:\n  - scenario: [a, b]\n    reason: y\n", "b.yaml:2: expectedFailures[0].scenario: want text, not a list"},
		"two docs":      {"expectedFailures: []\n---\nexpectedFailures: []\n", "b.yaml:2: a second YAML document"},
		"syntax":        {"expectedFailures:\n  - scenario: \"x\n", "b.yaml:2:"},
		"not a mapping": {"expectedFailures:\n  - just text\n", `b.yaml:2: expectedFailures[0]: an entry is a mapping with scenario, check and reason, not "just text"`},
	} {
		_, err := Parse("b.yaml", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
}

func TestEmptyListIsNoExpectedFailure(t *testing.T) {
	for _, doc := range []string{"expectedFailures: []\n", "expectedFailures:\n"} {
		f, err := Parse("b.yaml", []byte(doc))
		if err != nil || len(f.Entries) != 0 {
			t.Errorf("%q: %v, %v", doc, f, err)
		}
	}
}

// An entry that names no scenario of the suite (misspelled) is named and
// fails the run; one filtered out by tags is only not run.
func TestApplySuiteFindsUnknownEntries(t *testing.T) {
	f, err := Parse("base.yaml", []byte(`expectedFailures:
  - scenario: "a.feature: one (stream)"
    reason: broken
  - scenario: "z.feature: gone"
    reason: filtered out
  - scenario: "a.feature: onw (stream)"
    reason: misspelled
`))
	if err != nil {
		t.Fatal(err)
	}
	suite := []string{"a.feature: one (stream)", "a.feature: two", "b.feature: three", "c.feature: four", "z.feature: gone"}
	o := ApplySuite(f, run(), suite)
	if len(o.Unknown) != 1 || o.Unknown[0].Scenario != "a.feature: onw (stream)" || o.Unknown[0].Line != 6 {
		t.Errorf("unknown %+v", o.Unknown)
	}
	if len(o.NotRun) != 1 || o.NotRun[0].Scenario != "z.feature: gone" {
		t.Errorf("not run %+v", o.NotRun)
	}
	if o.OK() {
		t.Error("a baseline with an unknown entry is OK")
	}
}

// A first baseline from a run lists every failure that fails it (a MUST
// check's fail, an error or timeout: not a warning), each with an empty
// reason and what failed beside it; it does not load until the reasons
// are written, and then holds the run.
func TestFromRun(t *testing.T) {
	r := run()
	r.Scenarios[0].FailedStep = `"call_1" has run 1 time`
	r.Scenarios[0].Message = "it ran 0 times\nafter the turn"
	data := FromRun(r)
	text := string(data)
	for _, want := range []string{
		`- scenario: "a.feature: one (stream)"`, "check: PRE-01", "check: PRE-08", `- scenario: "c.feature: four"`,
		`reason: "" # PRE-01 fail at: "call_1" has run 1 time; why: it ran 0 times after the turn`,
		"The file does not load until every reason is written.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the baseline lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "WIRE-04") || strings.Contains(text, "a.feature: two") {
		t.Errorf("a warning or a pass is listed:\n%s", text)
	}
	if _, err := Parse("init.yaml", data); err == nil || !strings.Contains(err.Error(), "reason: say why") {
		t.Errorf("a baseline whose reasons are not written loads: %v", err)
	}
	filled := strings.ReplaceAll(text, `reason: ""`, `reason: "traced: sdk.go:12"`)
	f, err := Parse("init.yaml", []byte(filled))
	if err != nil {
		t.Fatalf("with its reasons written: %v\n%s", err, filled)
	}
	if len(f.Entries) != 3 {
		t.Errorf("%d entries, want 3", len(f.Entries))
	}
	if o := Apply(f, r); !o.OK() || len(o.Expected) != 3 {
		t.Errorf("the baseline does not hold the run it came from: %+v", o)
	}
	empty := FromRun(&report.Run{})
	if f, err := Parse("empty.yaml", empty); err != nil || len(f.Entries) != 0 {
		t.Errorf("a run with no failure: %v %q", err, empty)
	}
}

// CheckSuite names every entry that matches no scenario of the suite, by
// its line, with the id it most likely meant.
func TestCheckSuite(t *testing.T) {
	f, err := Parse("base.yaml", []byte(`expectedFailures:
  - scenario: "a.feature: one (steam)"
    reason: a typo
  - scenario: "a.featur: *"
    reason: a typo in a pattern
  - scenario: "a.feature: two"
    reason: fine
`))
	if err != nil {
		t.Fatal(err)
	}
	suite := []string{"a.feature: one (stream)", "a.feature: one (generate)", "a.feature: two"}
	err = f.CheckSuite(suite)
	if err == nil {
		t.Fatal("misspelled entries pass")
	}
	for _, want := range []string{`base.yaml:2: "a.feature: one (steam)" names no scenario of the suite (did you mean "a.feature: one (stream)"?)`, `base.yaml:4: "a.featur: *" names no scenario of the suite (did you mean "a.feature: *"?)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "base.yaml:6") {
		t.Errorf("a sound entry is named:\n%v", err)
	}
	if err := (&File{}).CheckSuite(suite); err != nil {
		t.Errorf("an empty baseline: %v", err)
	}
}
