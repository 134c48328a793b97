package dashboard

import (
	"bytes"
	_ "embed" // the page template
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/report"
)

//go:embed dashboard.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("dashboard").Parse(pageSource))

// Options shape the page.
type Options struct {
	// Base is the certified folders' folder as a link from the page
	// ("certified" for reports/dashboard.html).
	Base string
}

// Bounds of the evidence the page shows: the scenarios listed for a check
// of a certification, and the length of one message.
const (
	scenariosMax = 4
	messageMax   = 420
)

// harmMarks are the cell texts of a MUST failure by harm (the colour is
// not the only sign).
var harmMarks = map[checks.Harm]string{
	checks.RanAgainstAnswer: "RUN",
	checks.Forged:           "FRG",
	checks.Crashed:          "CRS",
	checks.Lost:             "LST",
	checks.Refused:          "400",
}

type page struct {
	Generated string
	Certs     int
	SDKs      int
	Lines     int
	Failing   int
	Families  []family
	Checks    []column
	Rows      []row
	Trends    []trend
	Sections  []section
	Legend    []legend
}

type family struct {
	Name string
	Span int
}

type column struct {
	ID, Level, Rule string
}

type legend struct {
	Class, Mark, Text string
}

type cellView struct {
	Class, Mark, Title, Href string
}

type row struct {
	ID, SDK, Version, Path, Line, Result, ResultClass, Counts string
	First                                                     bool // the first row of its SDK
	Failing                                                   bool
	Cells                                                     []cellView
	// Trend, when set, makes the row its line's trend row.
	Trend *trend
}

// trend is a line's releases, check by check: in the grid, a row of its
// own after the line's releases (each cell better, worse, moved or the
// same from the oldest release to the newest); in the list, what moved.
type trend struct {
	Line, Anchor string
	Versions     []string
	Cells        []cellView
	Moved        []string
}

type section struct {
	ID, SDK, Version, Path, Line, Result, ResultClass, Counts string
	Report, Findings, Baseline                                string
	Features                                                  []feature
	Checks                                                    []checkView
	FindingLinks                                              []findingLink
	Started                                                   string
}

type feature struct {
	Name, Value string
}

type findingLink struct {
	ID, Title, Href string
	Cells           int
}

type checkView struct {
	Anchor, ID, Level, Verdict, Class, Harm string
	Scenarios                               []scenarioView
	More                                    int
}

type scenarioView struct {
	ID, Verdict, Findings, Message, Harm, HarmEvidence, Graded string
}

// Render makes the page.
func Render(certs []Cert, o Options) ([]byte, error) {
	if len(certs) == 0 {
		return nil, errNoCerts
	}
	base := strings.TrimSuffix(o.Base, "/")
	if base != "" {
		base += "/"
	}
	p := page{Certs: len(certs)}
	for _, c := range checks.All() {
		fam, _, _ := strings.Cut(c.ID, "-")
		if n := len(p.Families); n > 0 && p.Families[n-1].Name == fam {
			p.Families[n-1].Span++
		} else {
			p.Families = append(p.Families, family{Name: fam, Span: 1})
		}
		p.Checks = append(p.Checks, column{ID: c.ID, Level: string(c.Level), Rule: c.Rule})
	}
	sdks := map[string]bool{}
	lines := map[string][]Cert{}
	var lineOrder []string
	newest := ""
	for i, c := range certs {
		sdks[c.Adapter] = true
		if _, ok := lines[c.Line()]; !ok {
			lineOrder = append(lineOrder, c.Line())
		}
		lines[c.Line()] = append(lines[c.Line()], c)
		if d := c.Run.Started.UTC().Format("2006-01-02"); d > newest {
			newest = d
		}
		res, resClass := result(c.Run)
		r := row{ID: c.ID, SDK: c.SDK, Version: c.Version, Path: c.Path, Line: c.Line(), Result: res, ResultClass: resClass,
			Counts: counts(c.Run), First: i == 0 || certs[i-1].Adapter != c.Adapter}
		for _, col := range p.Checks {
			cv := cellOf(c, col.ID)
			if cv.Class != "nr" && cv.Class != "pass" && cv.Class != "na" {
				cv.Href = "#" + checkAnchor(c.ID, col.ID)
			}
			if strings.HasPrefix(cv.Class, "h-") || cv.Class == "fail" {
				r.Failing = true
			}
			r.Cells = append(r.Cells, cv)
		}
		if r.Failing {
			p.Failing++
		}
		p.Rows = append(p.Rows, r)
		p.Sections = append(p.Sections, sectionOf(c, base))
	}
	p.SDKs = len(sdks)
	p.Lines = len(lineOrder)
	p.Generated = newest
	for _, name := range lineOrder {
		p.Trends = append(p.Trends, trendOf(name, lines[name], p.Checks))
	}
	// Each line of more than one release gets its trend row after its
	// last release's row.
	var rows []row
	for i, r := range p.Rows {
		rows = append(rows, r)
		if i+1 < len(p.Rows) && p.Rows[i+1].Line == r.Line {
			continue
		}
		for j := range p.Trends {
			if t := &p.Trends[j]; t.Line == r.Line && len(t.Versions) > 1 {
				rows = append(rows, row{Line: t.Line, Trend: t, Cells: t.Cells})
			}
		}
	}
	p.Rows = rows
	p.Legend = []legend{
		{"pass", "✓", "pass"},
		{"h-ran-against-answer", harmMarks[checks.RanAgainstAnswer], "MUST fails: a tool ran against the user's answer"},
		{"h-forged", harmMarks[checks.Forged], "MUST fails: a forged approval was honoured"},
		{"h-crashed", harmMarks[checks.Crashed], "MUST fails: the runtime crashed or gave an unclear error"},
		{"h-lost", harmMarks[checks.Lost], "MUST fails: an answer or result was lost"},
		{"h-refused", harmMarks[checks.Refused], "MUST fails: the provider refused the prompt (HTTP 400)"},
		{"fail", "✕", "fails (no harm named)"},
		{"warn", "!", "warns (a SHOULD check, or a MUST one whose harm the run does not show)"},
		{"na", "–", "not applicable (the SDK declares it lacks what the check needs)"},
		{"ne", "◼", "not evaluated (stopped on an earlier failure)"},
		{"err", "E", "error or timeout"},
		{"nr", "", "not run on this path"},
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return b.Bytes(), nil
}

// checkAnchor is the id of a check's evidence in a certification's
// section.
func checkAnchor(id, check string) string { return "ev-" + id + "-" + check }

// result is a run's headline verdict, as its badge gives it.
func result(r *report.Run) (text, class string) {
	b := report.BadgeOf(r)
	class = "r-pass"
	switch {
	case r.Failed():
		class = "r-fail"
	case r.Result() != report.ResultPass:
		class = "r-other"
	}
	return b.Message, class
}

func counts(r *report.Run) string {
	t := r.Totals()
	var parts []string
	for _, v := range []report.Verdict{report.Pass, report.Fail, report.Warn, report.Error, report.Timeout, report.NotApplicable, report.NotEvaluated} {
		if t[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", t[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

// cellOf is one check's cell of a certification: its verdict, and for a
// failure the gravest harm its failed MUST assertions show.
func cellOf(c Cert, id string) cellView {
	var ck *report.Check
	for i := range c.Run.Checks {
		if c.Run.Checks[i].ID == id {
			ck = &c.Run.Checks[i]
		}
	}
	title := id + " on " + c.ID + ": "
	if ck == nil || len(ck.Scenarios) == 0 {
		return cellView{Class: "nr", Title: title + "not run on this path"}
	}
	switch ck.Verdict {
	case report.Pass:
		return cellView{Class: "pass", Mark: "✓", Title: title + fmt.Sprintf("pass (%d scenarios)", len(ck.Scenarios))}
	case report.Warn:
		return cellView{Class: "warn", Mark: "!", Title: title + fmt.Sprintf("warn in %d of %d scenarios", ck.Warned, len(ck.Scenarios))}
	case report.NotApplicable:
		return cellView{Class: "na", Mark: "–", Title: title + "not applicable"}
	case report.NotEvaluated:
		return cellView{Class: "ne", Mark: "◼", Title: title + "not evaluated"}
	case report.Error, report.Timeout:
		return cellView{Class: "err", Mark: "E", Title: title + string(ck.Verdict)}
	}
	h := gravestHarm(c.Run, id)
	t := title + fmt.Sprintf("fail in %d of %d scenarios", ck.Failed, len(ck.Scenarios))
	if h == "" {
		return cellView{Class: "fail", Mark: "✕", Title: t}
	}
	return cellView{Class: "h-" + string(h), Mark: harmMarks[h], Title: t + "; harm: " + string(h)}
}

// gravestHarm is the gravest harm of a check's failed MUST assertions in
// a run (not graded down).
func gravestHarm(r *report.Run, id string) checks.Harm {
	best := -1
	for _, s := range r.Scenarios {
		for _, f := range s.Findings {
			if f.Check != id || f.Outcome != report.OutcomeFail || f.Harm == "" || f.Graded != "" {
				continue
			}
			if i := slices.Index(checks.Harms, checks.Harm(f.Harm)); i >= 0 && (best < 0 || i < best) {
				best = i
			}
		}
	}
	if best < 0 {
		return ""
	}
	return checks.Harms[best]
}

// trendOf is a line's trend: for each check of the catalogue, how its
// verdict went from the line's oldest release to its newest.
func trendOf(name string, certs []Cert, cols []column) trend {
	t := trend{Line: name, Anchor: "trend-" + Slug(name)}
	for _, c := range certs {
		t.Versions = append(t.Versions, c.Version)
	}
	for _, col := range cols {
		var seq []cellView
		for _, c := range certs {
			seq = append(seq, cellOf(c, col.ID))
		}
		first, last := seq[0], seq[len(seq)-1]
		var verdicts []string
		moved := false
		for i, cv := range seq {
			verdicts = append(verdicts, t.Versions[i]+" "+label(cv.Class))
			if i > 0 && cv.Class != seq[i-1].Class {
				moved = true
			}
		}
		cell := cellView{Class: "t-same", Title: col.ID + " across " + name + ": " + strings.Join(verdicts, ", ")}
		switch {
		case first.Class == "nr" && last.Class == "nr" && !moved:
			cell.Class, cell.Title = "nr", col.ID+" across "+name+": not run"
		case rank(last.Class) < rank(first.Class):
			cell.Class, cell.Mark = "t-better", "▲"
		case rank(last.Class) > rank(first.Class):
			cell.Class, cell.Mark = "t-worse", "▼"
		case moved:
			cell.Class, cell.Mark = "t-moved", "↕"
		default:
			cell.Mark = "="
		}
		if moved || cell.Class == "t-better" || cell.Class == "t-worse" {
			t.Moved = append(t.Moved, col.ID+" ("+label(first.Class)+" → "+label(last.Class)+")")
		}
		t.Cells = append(t.Cells, cell)
	}
	return t
}

// label names a cell's verdict in words.
func label(class string) string {
	switch class {
	case "pass":
		return "pass"
	case "warn":
		return "warn"
	case "fail":
		return "fail"
	case "na":
		return "not applicable"
	case "ne":
		return "not evaluated"
	case "err":
		return "error"
	case "nr":
		return "not run"
	}
	if h, ok := strings.CutPrefix(class, "h-"); ok {
		return "fail (" + h + ")"
	}
	return class
}

// rank orders cell classes from good to bad.
func rank(class string) int {
	switch class {
	case "pass", "na", "nr":
		return 0
	case "warn", "ne":
		return 1
	case "fail", "err":
		return 2
	}
	if h, ok := strings.CutPrefix(class, "h-"); ok {
		return 3 + len(checks.Harms) - slices.Index(checks.Harms, checks.Harm(h))
	}
	return 0
}

// sectionOf is a certification's section: what it drove, its files, and
// the evidence of each check that fails or warns.
func sectionOf(c Cert, base string) section {
	res, resClass := result(c.Run)
	dir := base + c.ID + "/"
	s := section{ID: c.ID, SDK: c.SDK, Version: c.Version, Path: c.Path, Line: c.Line(), Result: res, ResultClass: resClass,
		Counts: counts(c.Run), Report: dir + "report.md", Started: c.Run.Started.UTC().Format("2006-01-02")}
	if c.HasFindings {
		s.Findings = dir + findingsFile
	}
	if c.Baseline != nil {
		s.Baseline = dir + baselineFile
	}
	s.Features = features(c.Run.TargetInfo)
	cited := map[string]int{}
	for _, sig := range baseline.Signatures(c.Baseline) {
		cited[sig.Finding] = len(sig.Entries) + sig.Shared
	}
	var ids []string
	for id := range cited {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return findingLess(ids[i], ids[j]) })
	for _, id := range ids {
		fl := findingLink{ID: id, Cells: cited[id]}
		if h, ok := c.Findings[id]; ok {
			fl.Title = h.Title
			fl.Href = s.Findings + "#" + h.Anchor
		} else if s.Findings != "" {
			fl.Href = s.Findings
		}
		s.FindingLinks = append(s.FindingLinks, fl)
	}
	for _, ck := range c.Run.Checks {
		if ck.Verdict != report.Fail && ck.Verdict != report.Warn && ck.Verdict != report.Error && ck.Verdict != report.Timeout {
			continue
		}
		cv := cellOf(c, ck.ID)
		view := checkView{Anchor: checkAnchor(c.ID, ck.ID), ID: ck.ID, Level: string(ck.Level), Verdict: string(ck.Verdict), Class: cv.Class}
		if h, ok := strings.CutPrefix(cv.Class, "h-"); ok {
			view.Harm = h
		}
		for _, sc := range c.Run.Scenarios {
			v := sc.CheckVerdicts[ck.ID]
			if v != report.Fail && v != report.Warn && v != report.Error && v != report.Timeout {
				continue
			}
			if len(view.Scenarios) == scenariosMax {
				view.More++
				continue
			}
			view.Scenarios = append(view.Scenarios, scenarioOf(c, sc, ck.ID, v))
		}
		s.Checks = append(s.Checks, view)
	}
	sort.SliceStable(s.Checks, func(i, j int) bool { return catalogueIndex(s.Checks[i].ID) < catalogueIndex(s.Checks[j].ID) })
	return s
}

func catalogueIndex(id string) int {
	return slices.IndexFunc(checks.All(), func(c checks.Check) bool { return c.ID == id })
}

// findingLess orders finding ids by letters, then number.
func findingLess(a, b string) bool {
	la, na := splitID(a)
	lb, nb := splitID(b)
	if la != lb {
		return la < lb
	}
	return na < nb
}

func splitID(id string) (string, int) {
	i := strings.IndexAny(id, "0123456789")
	if i < 0 {
		return id, 0
	}
	n := 0
	fmt.Sscanf(id[i:], "%d", &n)
	return id[:i], n
}

// scenarioOf is one scenario's evidence for a check: its verdict, the
// findings its baseline entry cites, and its first failed assertion.
func scenarioOf(c Cert, sc report.Scenario, check string, v report.Verdict) scenarioView {
	out := scenarioView{ID: sc.ID, Verdict: string(v)}
	if c.Baseline != nil {
		var ids []string
		for _, e := range c.Baseline.Entries {
			if (e.Check == "" || e.Check == check) && matches(e.Scenario, sc.ID) {
				for _, id := range e.Findings() {
					if !slices.Contains(ids, id) {
						ids = append(ids, id)
					}
				}
			}
		}
		out.Findings = strings.Join(ids, ", ")
	}
	for _, f := range sc.Findings {
		if f.Check == check && f.Outcome == report.OutcomeFail {
			out.Message = clip(f.Message, messageMax)
			out.Harm = f.Harm
			out.HarmEvidence = clip(f.HarmEvidence, messageMax)
			out.Graded = clip(f.Graded, messageMax)
			return out
		}
	}
	if out.Message == "" {
		out.Message = clip(sc.Message, messageMax)
	}
	return out
}

// matches is a baseline entry's scenario pattern (a trailing * matches any
// suffix).
func matches(pattern, id string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(id, prefix)
	}
	return pattern == id
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + " …"
}

// features lists what a certification drove, from its target's info:
// roles, modes, model APIs, chat protocols, and each declared feature.
func features(info any) []feature {
	m := infoMap(info)
	if m == nil {
		return nil
	}
	var out []feature
	if roles := join(m["roles"]); roles != "" {
		out = append(out, feature{"roles", roles})
	}
	f, _ := m["features"].(map[string]any)
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := join(f[k]); v != "" {
			out = append(out, feature{k, v})
		}
	}
	return out
}

// join renders a feature's value: a list joined, a boolean as yes or no,
// an object as its fields.
func join(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, join(e))
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+": "+join(x[k]))
		}
		return strings.Join(parts, "; ")
	}
	data, _ := json.Marshal(v) // numbers
	return string(data)
}
