// Command mutationreport reads what gremlins (the mutation-testing tool of
// `make mutation`) found in the reference and writes the mutation report:
// the score and every surviving mutant, each either listed as equivalent,
// with the reason, in the equivalence file, or marked unexplained. It exits
// 1 when a survivor is unexplained or an entry of the equivalence file no
// longer matches a survivor (a stale entry: the code moved, or the suite
// now kills the mutant), so that the list stays true.
//
//	go run ./internal/mutationreport -results reports/mutation/gremlins.json \
//	    -dir reference -equivalent reference/mutation-equivalent.yaml -out docs/mutation.md
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Gremlins' statuses, as its JSON writes them.
const (
	killed     = "KILLED"
	lived      = "LIVED"
	notCovered = "NOT COVERED"
	timedOut   = "TIMED OUT"
	notViable  = "NOT VIABLE"
	skipped    = "SKIPPED"
	runnable   = "RUNNABLE"
)

// results is gremlins' JSON output (unleash -o FILE).
type results struct {
	Module string `json:"go_module"`
	Files  []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Line   int    `json:"line"`
			Column int    `json:"column"`
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"mutations"`
	} `json:"files"`
}

// mutant is one mutation, read back against its source.
type mutant struct {
	File   string // from the module root, slash-separated
	Line   int
	Column int
	Type   string
	Status string
	Code   string // the line, trimmed
	Before string // the token mutated
	After  string // what the mutation made of it
	// Mutated is the line as the mutant has it (the printed syntax tree, as
	// gremlins writes it: grouping made explicit where it changed).
	Mutated string
	Entry   *entry // the equivalence entry that explains it, if any
	// RunHere: gremlins reported the mutant as not covered and
	// mutationreport ran the suite against it.
	RunHere bool
	// Rejudged: the sweep's suite let the mutant live, no entry explains
	// it, and mutationreport ran today's suite against it, which caught it
	// (-rerun-unexplained: the suite grew since the sweep).
	Rejudged bool
}

func (m *mutant) at() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Column) }

// survived reports whether the suite let the mutant live: it passed every
// scenario, or the suite never ran its line.
func (m *mutant) survived() bool { return m.Status == lived || m.Status == notCovered }

// caught reports whether the suite failed against the mutant: a scenario
// failed, or the mutant made the suite hang past gremlins' time limit.
func (m *mutant) caught() bool { return m.Status == killed || m.Status == timedOut }

// entry is one mutant of the equivalence file.
type entry struct {
	At       string `yaml:"at"`       // file:line:column when it was listed
	Mutation string `yaml:"mutation"` // gremlins' mutation type
	Code     string `yaml:"code"`     // the line, trimmed, as it was listed
	Reason   string `yaml:"reason"`   // why no rule of docs/checks.md tells it from the reference
	// Gap, instead of a reason: the mutant breaks a rule, but the kit cannot
	// see it yet; says what keeps it from the suite's view (reported, to be
	// fixed).
	Gap string `yaml:"gap"`

	file         string
	line, column int
	fileLine     int // the entry's line in the equivalence file
	used         bool
}

// replacement is what each mutation type makes of each token.
var replacement = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.NEQ: token.EQL, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ},
	"INCREMENT_DECREMENT":   {token.INC: token.DEC, token.DEC: token.INC},
	"INVERT_ASSIGNMENTS":    {token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN, token.REM_ASSIGN: token.REM_ASSIGN},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_BITWISE":        {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN":       {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN, token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"REMOVE_SELF_ASSIGNMENTS": {
		token.ADD_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.MUL_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN,
		token.AND_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN, token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN,
	},
}

// sources reads the files the mutants are in, once each.
type sources struct {
	root  string
	lines map[string][]string
	toks  map[string]map[[2]int]token.Token // by line and column
}

func newSources(root string) *sources {
	return &sources{root: root, lines: map[string][]string{}, toks: map[string]map[[2]int]token.Token{}}
}

func (s *sources) load(file string) error {
	if _, ok := s.lines[file]; ok {
		return nil
	}
	src, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(file)))
	if err != nil {
		return err
	}
	s.lines[file] = strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	toks := map[[2]int]token.Token{}
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile(file, -1, len(src)), src, func(pos token.Position, msg string) {
		err = fmt.Errorf("%s: %s", pos, msg)
	}, 0)
	for {
		pos, tok, _ := sc.Scan()
		if tok == token.EOF {
			break
		}
		p := fset.Position(pos)
		toks[[2]int{p.Line, p.Column}] = tok
	}
	s.toks[file] = toks
	return err
}

// read fills in the mutant's code and its tokens before and after.
func (s *sources) read(m *mutant) error {
	if err := s.load(m.File); err != nil {
		return err
	}
	lines := s.lines[m.File]
	if m.Line < 1 || m.Line > len(lines) {
		return fmt.Errorf("%s: the file has %d lines", m.at(), len(lines))
	}
	m.Code = strings.TrimSpace(lines[m.Line-1])
	tok, ok := s.toks[m.File][[2]int{m.Line, m.Column}]
	if !ok {
		return fmt.Errorf("%s: no token starts there (is the source the one gremlins mutated?)", m.at())
	}
	to, ok := replacement[m.Type][tok]
	if !ok {
		return fmt.Errorf("%s: %s does not mutate %q", m.at(), m.Type, tok)
	}
	m.Before, m.After = tok.String(), to.String()
	src, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(m.File)))
	if err != nil {
		return err
	}
	mutated, err := mutatedSource(src, m)
	if err != nil {
		return err
	}
	if ml := strings.Split(string(mutated), "\n"); m.Line <= len(ml) {
		m.Mutated = strings.TrimSpace(ml[m.Line-1])
	}
	return nil
}

// readResults reads gremlins' JSON; dir is the directory gremlins ran in,
// from the module root.
func readResults(r io.Reader, dir string, src *sources) ([]*mutant, error) {
	var res results
	dec := json.NewDecoder(r)
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("read gremlins' results: %w", err)
	}
	var all []*mutant
	for _, f := range res.Files {
		for _, x := range f.Mutations {
			m := &mutant{File: path.Join(dir, filepath.ToSlash(f.Name)), Line: x.Line, Column: x.Column, Type: x.Type, Status: x.Status}
			if m.Status == runnable || m.Status == skipped {
				return nil, fmt.Errorf("%s: status %s: the results are of a dry run or a diff run, not a whole sweep", m.at(), m.Status)
			}
			if err := src.read(m); err != nil {
				return nil, err
			}
			all = append(all, m)
		}
	}
	if len(all) == 0 {
		return nil, errors.New("gremlins' results hold no mutant")
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Type < b.Type
	})
	return all, nil
}

// readEquivalent reads the equivalence file; errors name the file, the
// entry's line and the field.
func readEquivalent(name string, data []byte) ([]*entry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of mutants", name, list.Line)
	}
	var entries []*entry
	for _, n := range list.Content {
		var e entry
		dec := yaml.NewDecoder(bytes.NewReader(mustMarshal(n)))
		dec.KnownFields(true)
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		e.fileLine = n.Line
		for field, v := range map[string]string{"at": e.At, "mutation": e.Mutation, "code": e.Code} {
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("%s:%d: %s is missing", name, n.Line, field)
			}
		}
		switch reason, gap := strings.TrimSpace(e.Reason) != "", strings.TrimSpace(e.Gap) != ""; {
		case !reason && !gap:
			return nil, fmt.Errorf("%s:%d: reason is missing (why the mutant breaks no rule; or gap: what keeps the kit from seeing it)", name, n.Line)
		case reason && gap:
			return nil, fmt.Errorf("%s:%d: reason and gap both given: a mutant is equivalent or a gap, not both", name, n.Line)
		}
		if _, ok := replacement[e.Mutation]; !ok {
			return nil, fmt.Errorf("%s:%d: mutation: unknown mutation type %q", name, n.Line, e.Mutation)
		}
		parts := strings.Split(e.At, ":")
		if len(parts) != 3 {
			return nil, fmt.Errorf("%s:%d: at: want file:line:column, not %q", name, n.Line, e.At)
		}
		var err1, err2 error
		e.file = parts[0]
		e.line, err1 = strconv.Atoi(parts[1])
		e.column, err2 = strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || e.line < 1 || e.column < 1 {
			return nil, fmt.Errorf("%s:%d: at: want file:line:column, not %q", name, n.Line, e.At)
		}
		entries = append(entries, &e)
	}
	return entries, nil
}

func mustMarshal(n *yaml.Node) []byte {
	b, err := yaml.Marshal(n)
	if err != nil {
		panic(err) // a node yaml.v3 decoded always encodes
	}
	return b
}

// match pairs each survivor with the entry that lists it: same file, same
// mutation type, same code and column. An entry at the survivor's line is
// taken first; then the pairs left go by distance, nearest lines first
// (code moves when lines are added above it), so that identical lines (a
// lone `continue`) keep their own entries. It returns the survivors no
// entry explains, and the entries that match no survivor.
func match(all []*mutant, entries []*entry) (unexplained []*mutant, stale []*entry) {
	same := func(e *entry, m *mutant) bool {
		return !e.used && e.file == m.File && e.Mutation == m.Type && e.Code == m.Code && e.column == m.Column
	}
	for _, m := range all {
		if !m.survived() {
			continue
		}
		for _, e := range entries {
			if same(e, m) && e.line == m.Line {
				e.used, m.Entry = true, e
				break
			}
		}
	}
	// Then the pairs left, nearest lines first.
	type pair struct {
		m    *mutant
		e    *entry
		dist int
	}
	var pairs []pair
	for _, m := range all {
		if !m.survived() || m.Entry != nil {
			continue
		}
		for _, e := range entries {
			if same(e, m) {
				pairs = append(pairs, pair{m, e, abs(e.line - m.Line)})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].dist < pairs[j].dist })
	for _, p := range pairs {
		if p.m.Entry == nil && !p.e.used {
			p.e.used, p.m.Entry = true, p.e
		}
	}
	for _, m := range all {
		if m.survived() && m.Entry == nil {
			unexplained = append(unexplained, m)
		}
	}
	for _, e := range entries {
		if !e.used {
			stale = append(stale, e)
		}
	}
	return unexplained, stale
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// counts tallies the statuses.
type counts struct{ killed, killedHere, rejudged, timedOut, lived, notCovered, notViable int }

func tally(all []*mutant) counts {
	var c counts
	for _, m := range all {
		switch m.Status {
		case killed:
			c.killed++
			if m.RunHere {
				c.killedHere++
			}
			if m.Rejudged {
				c.rejudged++
			}
		case timedOut:
			c.timedOut++
		case lived:
			c.lived++
		case notCovered:
			c.notCovered++
		case notViable:
			c.notViable++
		}
	}
	return c
}

// score is the mutants caught over the viable ones.
func (c counts) score() (caught, viable int) {
	return c.killed + c.timedOut, c.killed + c.timedOut + c.lived + c.notCovered
}

// mdCode is text in a Markdown table cell as code.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.Contains(s, "`") {
		return "``" + s + "``"
	}
	return "`" + s + "`"
}

func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// writeReport writes the Markdown report.
func writeReport(w io.Writer, all []*mutant, src *sources, equivalentFile string, stale []*entry) error {
	c := tally(all)
	caught, viable := c.score()
	var b strings.Builder
	b.WriteString("# Machine-made mutants of the reference\n\n")
	b.WriteString("Written by `make mutation` (do not edit by hand): gremlins mutates `reference/*.go`,\n")
	b.WriteString("`reference/chatclient/*.go` and `reference/chatserver/*.go` one token at a time (the reference\n")
	b.WriteString("holds no hand-written mutant: those are `mutants/`), and the whole conformance suite, in-process,\n")
	b.WriteString("under both denial policies, judges each mutant (`reference/internal/mutationsuite`). A mutant\n")
	b.WriteString("is caught when a check fails or warns, a scenario errs, or the suite hangs past gremlins' time\n")
	b.WriteString("limit; it survives when every scenario passes. Gremlins runs only the mutants on lines its\n")
	b.WriteString("reading of the suite's coverage marks as run (and a switch's case expressions lie in no covered\n")
	b.WriteString("block), so the sweep runs the suite against each other mutant that compiles too; one that\n")
	b.WriteString("survives that is *not covered*: the suite passes and, by the coverage, never runs its line. Each\n")
	fmt.Fprintf(&b, "survivor is listed in `%s` with the reason it breaks no rule of\n", equivalentFile)
	b.WriteString("[checks.md](checks.md) or, as a *kit gap*, with what keeps the kit from seeing the rule it\n")
	b.WriteString("breaks; a mutant a scenario kills is not listed. How the sweep works and how to read it:\n")
	b.WriteString("[method.md](method.md#machine-made-mutants).\n\n")
	fmt.Fprintf(&b, "**Mutation score: %d/%d** mutants caught (%.1f%%).\n\n", caught, viable, percent(caught, viable))
	b.WriteString("| status | mutants |\n|---|---:|\n")
	fmt.Fprintf(&b, "| killed (a check failed or warned) | %d |\n", c.killed)
	if c.rejudged > 0 {
		fmt.Fprintf(&b, "| of which the sweep's suite let live and today's suite kills (judged again: `-rerun-unexplained`) | %d |\n", c.rejudged)
	}
	if c.killedHere > 0 {
		fmt.Fprintf(&b, "| of which gremlins reported not covered | %d |\n", c.killedHere)
	}
	fmt.Fprintf(&b, "| timed out (the suite hung) | %d |\n", c.timedOut)
	fmt.Fprintf(&b, "| lived (every scenario passed) | %d |\n", c.lived)
	fmt.Fprintf(&b, "| not covered (the suite passed, and never runs the line) | %d |\n", c.notCovered)
	fmt.Fprintf(&b, "| not viable (does not compile; not counted) | %d |\n\n", c.notViable)

	var equivalent, gaps int
	for _, m := range all {
		switch {
		case m.Entry == nil:
		case m.Entry.Gap != "":
			gaps++
		default:
			equivalent++
		}
	}
	fmt.Fprintf(&b, "Of the %d survivors, %d are equivalent (they break no rule) and %d break a rule the kit cannot see yet (kit gaps, each saying what keeps it from the suite's view).\n\n", viable-caught, equivalent, gaps)

	writeByPackage(&b, all)
	b.WriteString("## By file\n\n| file | caught | survived | not viable |\n|---|---:|---:|---:|\n")
	type row struct{ caught, survived, notViable int }
	rows := map[string]*row{}
	var files []string
	for _, m := range all {
		r := rows[m.File]
		if r == nil {
			r = &row{}
			rows[m.File] = r
			files = append(files, m.File)
		}
		switch {
		case m.caught():
			r.caught++
		case m.survived():
			r.survived++
		default:
			r.notViable++
		}
	}
	for _, f := range files {
		r := rows[f]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d |\n", f, r.caught, r.survived, r.notViable)
	}

	b.WriteString("\n## Every survivor\n\n")
	b.WriteString("| where | mutation | the line | the mutant | status | why it survives |\n|---|---|---|---|---|---|\n")
	n := 0
	for _, m := range all {
		if !m.survived() {
			continue
		}
		n++
		why := "**unexplained**: neither listed as equivalent nor killed"
		switch {
		case m.Entry != nil && m.Entry.Gap != "":
			why = "**kit gap**: " + mdText(m.Entry.Gap)
		case m.Entry != nil:
			why = "equivalent: " + mdText(m.Entry.Reason)
		}
		fmt.Fprintf(&b, "| `%s` | %s %s→%s | %s | %s | %s | %s |\n", m.at(), m.Type, mdCode(m.Before), mdCode(m.After), mdCode(m.Code), mdCode(m.Mutated), strings.ToLower(m.Status), why)
	}
	if n == 0 {
		b.WriteString("| | | | | | none |\n")
	}
	if len(stale) > 0 {
		fmt.Fprintf(&b, "\n## Stale entries of %s\n\n", equivalentFile)
		b.WriteString("Listed as equivalent, but no surviving mutant matches them (the code moved or changed, or the suite now kills the mutant):\n\n")
		for _, e := range stale {
			fmt.Fprintf(&b, "- line %d: `%s` %s %s\n", e.fileLine, e.At, e.Mutation, mdCode(e.Code))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeByPackage writes the score of each package: the mutants caught over
// the viable ones.
func writeByPackage(b *strings.Builder, all []*mutant) {
	type row struct{ caught, viable int }
	rows := map[string]*row{}
	for _, m := range all {
		d := path.Dir(m.File)
		r := rows[d]
		if r == nil {
			r = &row{}
			rows[d] = r
		}
		switch {
		case m.caught():
			r.caught++
			r.viable++
		case m.survived():
			r.viable++
		}
	}
	b.WriteString("## By package\n\n| package | score |\n|---|---:|\n")
	for _, d := range packageDirs(all) {
		r := rows[d]
		fmt.Fprintf(b, "| `%s` | %d/%d (%.1f%%) |\n", d, r.caught, r.viable, percent(r.caught, r.viable))
	}
	b.WriteString("\n")
}

// packageDirs are the directories of the mutants' packages.
func packageDirs(ms []*mutant) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, m := range ms {
		if d := path.Dir(m.File); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	return dirs
}

func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutationreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	resultsFile := fs.String("results", "reports/mutation/gremlins.json", "gremlins' JSON results (unleash -o)")
	dir := fs.String("dir", "reference", "the directory gremlins ran in, from the module root")
	root := fs.String("root", ".", "the module root")
	equivalent := fs.String("equivalent", "reference/mutation-equivalent.yaml", "the equivalence file")
	out := fs.String("out", "docs/mutation.md", "the Markdown report to write")
	runUncovered := fs.Bool("run-uncovered", true, "run the suite against each viable mutant gremlins reports as not covered")
	rerun := fs.Bool("rerun-unexplained", false, "run today's suite against each survivor no entry explains, before calling it unexplained (the suite grew since the sweep)")
	timeout := fs.Duration("timeout", 5*time.Minute, "the time limit of each such run")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "mutationreport: %v\n", err)
		return 2
	}
	src := newSources(*root)
	f, err := os.Open(*resultsFile)
	if err != nil {
		return fail(err)
	}
	all, err := readResults(f, *dir, src)
	f.Close()
	if err != nil {
		return fail(fmt.Errorf("%s: %w", *resultsFile, err))
	}
	// Gremlins compiles only the mutants the suite reaches: the others are
	// compiled here, and one that does not compile is not viable.
	var uncovered []*mutant
	for _, m := range all {
		if m.Status == notCovered {
			uncovered = append(uncovered, m)
		}
	}
	if len(uncovered) > 0 {
		comp, err := newCompiler(*root, packageDirs(uncovered))
		if err != nil {
			return fail(err)
		}
		viable := uncovered[:0]
		for _, m := range uncovered {
			ok, err := comp.compiles(m)
			if err != nil {
				return fail(err)
			}
			if !ok {
				m.Status = notViable
				continue
			}
			viable = append(viable, m)
		}
		if *runUncovered && len(viable) > 0 {
			rn, err := newRunner(*root, *timeout, stderr)
			if err != nil {
				return fail(err)
			}
			fmt.Fprintf(stderr, "mutationreport: running the suite against the %d viable mutants gremlins reports as not covered\n", len(viable))
			for i, m := range viable {
				status, err := rn.run(m)
				if err != nil {
					rn.close()
					return fail(err)
				}
				m.Status, m.RunHere = status, true
				fmt.Fprintf(stderr, "  %d/%d %s %s: %s\n", i+1, len(viable), m.at(), m.Type, strings.ToLower(status))
			}
			rn.close()
		}
	}
	data, err := os.ReadFile(*equivalent)
	if err != nil {
		return fail(err)
	}
	entries, err := readEquivalent(*equivalent, data)
	if err != nil {
		return fail(err)
	}
	unexplained, stale := match(all, entries)
	if *rerun && len(unexplained) > 0 {
		rn, err := newRunner(*root, *timeout, stderr)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stderr, "mutationreport: running today's suite against the %d survivors no entry explains\n", len(unexplained))
		for i, m := range unexplained {
			status, err := rn.run(m)
			if err != nil {
				rn.close()
				return fail(err)
			}
			if status != notCovered {
				m.Status, m.Rejudged = status, true
			}
			fmt.Fprintf(stderr, "  %d/%d %s %s: %s\n", i+1, len(unexplained), m.at(), m.Type, strings.ToLower(m.Status))
		}
		rn.close()
		for _, e := range entries {
			e.used = false
		}
		for _, m := range all {
			m.Entry = nil
		}
		unexplained, stale = match(all, entries)
	}
	var b bytes.Buffer
	if err := writeReport(&b, all, src, *equivalent, stale); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return fail(err)
	}
	c := tally(all)
	caught, viable := c.score()
	fmt.Fprintf(stdout, "Mutation score: %d/%d caught (killed %d, timed out %d; lived %d, not covered %d; %d not viable). Report: %s\n",
		caught, viable, c.killed, c.timedOut, c.lived, c.notCovered, c.notViable, *out)
	for _, m := range unexplained {
		fmt.Fprintf(stdout, "unexplained survivor: %s %s %s→%s (%s): %s\n", m.at(), m.Type, m.Before, m.After, strings.ToLower(m.Status), m.Code)
	}
	for _, e := range stale {
		fmt.Fprintf(stdout, "stale entry: %s:%d: %s %s: %s\n", *equivalent, e.fileLine, e.At, e.Mutation, e.Code)
	}
	if len(unexplained) > 0 || len(stale) > 0 {
		fmt.Fprintf(stdout, "%d unexplained survivors, %d stale entries: kill each survivor with a scenario or list it, with the reason, in %s\n", len(unexplained), len(stale), *equivalent)
		return 1
	}
	return 0
}
