package report

import (
	"bytes"
	_ "embed" // the page template
	"fmt"
	"hash/fnv"
	"html/template"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
)

// report.html is one self-contained page: inline CSS, a few lines of inline
// JavaScript for filtering and expanding, no external font, script or
// image, so that it reads the same offline, attached to a CI run. Every
// value goes through html/template, which escapes it for its context.

//go:embed report.html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower": strings.ToLower,
}).Parse(htmlSource))

// Bounds of report.html: a JSON block longer than htmlJSONMax is cut (the
// whole is in report.json), and at most htmlCallsMax model calls of a
// scenario are shown.
const (
	htmlJSONMax  = 40000
	htmlCallsMax = 50
)

type htmlPage struct {
	Target        string
	Headline      headline
	Started       string
	Duration      string
	Seed          int64
	Level         string
	Info          [][2]string
	ScenarioCount int
	CheckCount    int
	ScenarioTally []htmlTally
	CheckTally    []htmlTally
	Groups        []htmlGroup
	Bad           []htmlScenario
	Features      []htmlFeature
	Baseline      *htmlBaseline
}

// htmlBaseline is what the run's baseline did.
type htmlBaseline struct {
	Text  string
	Lines []string
}

type htmlTally struct {
	Verdict string
	N       int
}

type htmlGroup struct {
	Title  string
	Checks []htmlCheck
}

type htmlCheck struct {
	ID, Level, Verdict, Rule, Source string
	Passed, Applicable               int
	Percent                          int
	Tally                            string
}

type htmlFeature struct {
	Name      string
	Source    string
	Tally     []htmlTally
	Scenarios []htmlScenario
}

type htmlScenario struct {
	ID, Anchor, Name, Feature, Source string
	Verdict, Duration                 string
	FailedStep, Message               string
	Checks                            []htmlCheckVerdict
	CheckIDs                          []string
	Failing                           []string
	Problems                          []Problem
	Search                            string
	Calls                             []htmlCall
	CallsLeft                         int
	ToolRuns                          []string
	Turns                             []htmlTurn
	HasEvidence                       bool
	Listed                            bool // among the scenarios that did not pass
}

type htmlCheckVerdict struct{ ID, Verdict string }

type htmlCall struct {
	Title  string
	Bad    bool
	Lines  []line
	Prompt string
}

type htmlTurn struct {
	Title string
	JSON  string
}

func encodeHTML(r *Run) ([]byte, error) {
	p := htmlPage{
		Target:        r.Target,
		Headline:      headlineOf(r),
		Duration:      formatDuration(r.Duration),
		Seed:          r.Seed,
		Level:         string(r.Level),
		Info:          targetFields(r.TargetInfo),
		ScenarioCount: len(r.Scenarios),
		CheckCount:    len(r.Checks),
		ScenarioTally: tally(r.ScenarioTotals()),
		CheckTally:    tally(r.Totals()),
	}
	if !r.Started.IsZero() {
		p.Started = r.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if r.Baseline != nil {
		p.Baseline = &htmlBaseline{Text: capitalize(baselineText(r.Baseline)), Lines: baselineLines(r.Baseline)}
	}
	groupOf := map[string]int{}
	for _, c := range r.Checks {
		title := c.Group
		for _, g := range checks.Groups {
			if g.Prefix == c.Group {
				title = g.Title + " (" + g.Prefix + ")"
			}
		}
		i, ok := groupOf[title]
		if !ok {
			i = len(p.Groups)
			groupOf[title] = i
			p.Groups = append(p.Groups, htmlGroup{Title: title})
		}
		hc := htmlCheck{ID: c.ID, Level: string(c.Level), Verdict: string(c.Verdict), Rule: c.Rule, Source: c.Source, Passed: c.Passed, Applicable: applicable(c)}
		if hc.Applicable > 0 {
			hc.Percent = 100 * hc.Passed / hc.Applicable
		}
		hc.Tally = checkTally(c)
		p.Groups[i].Checks = append(p.Groups[i].Checks, hc)
	}

	featureOf := map[string]int{}
	counts := []map[Verdict]int{}
	for _, s := range sortedScenarios(r) {
		hs := htmlScenarioOf(s)
		if notPassed(s) {
			p.Bad = append(p.Bad, hs)
		}
		src := s.Source
		i, ok := featureOf[src]
		if !ok {
			i = len(p.Features)
			featureOf[src] = i
			p.Features = append(p.Features, htmlFeature{Name: s.Feature, Source: src})
			counts = append(counts, map[Verdict]int{})
		}
		hs.Calls, hs.Turns, hs.ToolRuns = nil, nil, nil // the list shows evidence only once, above
		p.Features[i].Scenarios = append(p.Features[i].Scenarios, hs)
		counts[i][s.Verdict]++
	}
	for i := range p.Features {
		p.Features[i].Tally = tally(counts[i])
	}
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func tally(t map[Verdict]int) []htmlTally {
	var out []htmlTally
	for _, v := range verdictOrder {
		if t[v] > 0 {
			out = append(out, htmlTally{Verdict: string(v), N: t[v]})
		}
	}
	return out
}

func htmlScenarioOf(s Scenario) htmlScenario {
	hs := htmlScenario{
		ID:         s.ID,
		Anchor:     anchor(s.ID),
		Name:       s.Name,
		Feature:    s.Feature,
		Source:     s.Source,
		Verdict:    string(s.Verdict),
		Duration:   formatDuration(s.Duration),
		FailedStep: s.FailedStep,
		Message:    s.Message,
		Problems:   htmlProblems(s.Problems),
		CheckIDs:   s.Checks,
		Failing:    failingChecks(s),
		Listed:     notPassed(s),
	}
	if hs.Name == "" {
		hs.Name = s.ID
	}
	for _, cv := range checkVerdictList(s) {
		hs.Checks = append(hs.Checks, htmlCheckVerdict{ID: cv[0], Verdict: cv[1]})
	}
	hs.Search = strings.ToLower(strings.Join(append([]string{s.ID, string(s.Verdict)}, s.Checks...), " "))
	if ev := s.Evidence; ev != nil {
		hs.HasEvidence = len(ev.ModelCalls)+len(ev.ToolRuns)+len(ev.Turns) > 0
		for i, e := range ev.ModelCalls {
			if i == htmlCallsMax {
				hs.CallsLeft = len(ev.ModelCalls) - i
				break
			}
			mc := viewModelCall(i, e)
			hc := htmlCall{Title: mc.Title, Bad: mc.Bad}
			hc.Lines = append(hc.Lines, mc.Prompt...)
			hc.Lines = append(hc.Lines, mc.Reply...)
			hc.Lines = append(hc.Lines, mc.Issues...)
			if len(mc.JSON) > 0 {
				hc.Prompt = boundedJSON(mc.JSON)
			}
			hs.Calls = append(hs.Calls, hc)
		}
		for _, e := range ev.ToolRuns {
			hs.ToolRuns = append(hs.ToolRuns, toolRunText(e))
		}
		for i, e := range ev.Turns {
			d := decodeEntry(e)
			t := htmlTurn{Title: turnText(i, e)}
			if d.err == nil {
				t.JSON = boundedJSON(d.raw)
			}
			hs.Turns = append(hs.Turns, t)
		}
	}
	return hs
}

// boundedJSON pretty-prints raw JSON, cut at htmlJSONMax bytes.
func boundedJSON(raw []byte) string {
	s := indentRaw(raw)
	if len(s) > htmlJSONMax {
		cut := strings.LastIndexByte(s[:htmlJSONMax], '\n')
		if cut < 0 {
			cut = htmlJSONMax
		}
		s = s[:cut] + fmt.Sprintf("\n… %d more bytes (the whole is in report.json)", len(s)-cut)
	}
	return s
}

// anchor makes an element id for a scenario: readable, and unique even
// when two ids slug alike.
func anchor(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("s-%s-%08x", slug(id), h.Sum32())
}

// htmlProblems drops the check id a problem's detail starts with, as the
// page shows it as a chip before the detail.
func htmlProblems(ps []Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		if p.Check != "" {
			p.Detail = strings.TrimPrefix(p.Detail, p.Check+": ")
		}
		out[i] = p
	}
	return out
}
