package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	messages "github.com/cucumber/messages/go/v21"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/gherkindoc"
	"github.com/approval-conformance-kit/ack/simulator"
)

// LintError is a mistake in how a scenario is written: the suite would
// otherwise charge a target for it, or judge the target by nothing.
type LintError struct {
	// Source is the feature file (or the YAML file it was compiled from).
	Source string
	// Line is the step's line in Source (0 for the scenario as a whole).
	Line     int
	Scenario string
	Msg      string
}

func (e LintError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.Source, e.Line, e.Scenario, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Source, e.Scenario, e.Msg)
}

// alwaysOn are the checks asserted by the suite on every scenario that
// gives them something to see: every model call (WIRE-01, WIRE-02), every
// agent turn (WIRE-03), every chat request (CHAIN-05, CHAIN-06).
var alwaysOn = map[string]string{"WIRE-01": "model", "WIRE-02": "model", "WIRE-03": "turn", "CHAIN-05": "client", "CHAIN-06": "client"}

var (
	lintDefs  []stepDef
	quotedIDs = regexp.MustCompile(`"([^"]+)"`)
	// answerStep is an action that answers approvals of the named calls.
	answerStep = regexp.MustCompile(`^the user (?:approves|denies|re-sends the approval for|sends a malformed approval for|approves and denies) "`)
	// requestAssert asserts an approval request for the named calls.
	requestAssert = regexp.MustCompile(`^(?:\[[A-Z]+-\d{2}\] )?(?:(?:an approval is|approvals are) requested for |the turn asks approval for |the client shows an approval request for |the chat stream asks approval for |the turn carries the provider's approval request "[^"]+" for )`)
	// turnStep is an action that runs a turn or acts on a client.
	turnStep = regexp.MustCompile(`^(?:the user |the same request is sent again|the chat server ends the held stream|the client's tool returns )`)
)

func init() {
	lintDefs = definitions(func() *world { return nil })
	checkHandlers(lintDefs)
}

// Lint checks every scenario of a Gherkin document: each assertion is
// charged to exactly one check the scenario names; each check the scenario
// names has an assertion of its own (or is one the suite checks on every
// model call, turn or chat request the scenario makes); an approval is
// answered only after an assertion that it was requested; and every turn is
// followed by an assertion, so that no turn goes unjudged.
func Lint(uri string, src []byte) []LintError {
	doc, err := gherkindoc.Parse(uri, src)
	if err != nil {
		msg := err.Error()
		var perr *gherkindoc.Error
		if errors.As(err, &perr) {
			msg = perr.Err.Error()
		}
		return []LintError{{Source: uri, Scenario: "(file)", Msg: msg}}
	}
	return LintDocument(doc)
}

// LintDocument is Lint of a parsed document.
func LintDocument(doc *gherkindoc.Document) []LintError {
	uri := doc.URI
	lines := stepLines(doc.Doc)
	var out []LintError
	seen := map[string]bool{} // the rows of an outline repeat its mistakes
	for _, p := range doc.Pickles {
		errs := lintPickle(uri, p, lines)
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		for _, e := range errs {
			key := fmt.Sprintf("%d %s", e.Line, e.Msg)
			if !seen[key] {
				seen[key] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// stepLines maps the ids of a document's steps to their lines.
func stepLines(doc *messages.GherkinDocument) map[string]int {
	out := map[string]int{}
	add := func(steps []*messages.Step) {
		for _, s := range steps {
			out[s.Id] = int(s.Location.Line)
		}
	}
	if doc.Feature == nil {
		return out
	}
	for _, c := range doc.Feature.Children {
		if c.Background != nil {
			add(c.Background.Steps)
		}
		if c.Scenario != nil {
			add(c.Scenario.Steps)
		}
		if c.Rule != nil {
			for _, rc := range c.Rule.Children {
				if rc.Background != nil {
					add(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					add(rc.Scenario.Steps)
				}
			}
		}
	}
	return out
}

func lintPickle(uri string, p *messages.Pickle, lines map[string]int) []LintError {
	var out []LintError
	tagged := map[string]bool{}
	for _, t := range p.Tags {
		id := strings.TrimPrefix(t.Name, "@")
		if _, ok := checks.Lookup(id); ok {
			tagged[id] = true
		}
	}
	asserted := map[string]bool{}
	requested := map[string]bool{}
	seen := map[string]bool{} // what the scenario makes: model, turn, client
	pendingTurn := ""         // a turn step not yet followed by an assertion
	pendingLine := 0
	for _, st := range p.Steps {
		line := 0
		if len(st.AstNodeIds) > 0 {
			line = lines[st.AstNodeIds[0]]
		}
		fail := func(format string, args ...any) {
			out = append(out, LintError{Source: uri, Line: line, Scenario: p.Name, Msg: fmt.Sprintf(format, args...)})
		}
		def, label, ok := match(st.Text)
		if !ok {
			fail("no step matches %q", st.Text)
			continue
		}
		if def.kind == kindAssert {
			pendingTurn = ""
			if requestAssert.MatchString(st.Text) {
				// The provider's request names its approval id and its
				// call: both are requested.
				ids := quotedIDs.FindAllStringSubmatch(st.Text, -1)
				for _, m := range ids {
					requested[m[1]] = true
				}
			}
			check, err := def.check(label)
			if err != nil {
				fail("%q: %v", st.Text, err)
				continue
			}
			if !tagged[check] {
				fail("%q is an assertion of %s, which the scenario does not name in its tags", st.Text, check)
			}
			asserted[check] = true
			continue
		}
		if strings.HasPrefix(st.Text, "the model ") || strings.Contains(st.Text, "the model answers with") {
			seen["model"] = true
		}
		if st.Argument != nil && st.Argument.DocString != nil && strings.HasPrefix(st.Text, "the model ") {
			var t simulator.Turn
			if json.Unmarshal([]byte(st.Argument.DocString.Content), &t) == nil {
				for _, c := range t.Expect.Checks() {
					if !tagged[c] {
						fail("the model's script expects something of the prompt for %s, which the scenario does not name in its tags", c)
					}
					asserted[c] = true
				}
			}
		}
		if strings.HasSuffix(st.Text, "in the client") || strings.HasPrefix(st.Text, "the chat server ") {
			seen["client"] = true
		}
		if answerStep.MatchString(st.Text) && !strings.Contains(st.Text, " in the client") && !strings.Contains(st.Text, "provider approval") {
			head := st.Text
			for _, cut := range []string{" because ", " after ", " and sends ", " along with ", " and adds ", " twice", " in one message", " and denies it", " with its input edited", " under the approval id ", ": "} {
				if i := strings.Index(head, cut); i >= 0 {
					head = head[:i]
				}
			}
			ids := quotedIDs.FindAllStringSubmatch(head, -1)
			for _, m := range ids {
				if !requested[m[1]] {
					fail("%q answers %s before any assertion that an approval was requested for it", st.Text, m[1])
				}
			}
		}
		if strings.HasSuffix(st.Text, " in the client") && strings.HasPrefix(st.Text, "the user ") && !strings.HasPrefix(st.Text, "the user sends ") {
			if m := quotedIDs.FindStringSubmatch(st.Text); m != nil && !requested[m[1]] {
				fail("%q answers %s before any assertion that the client showed its approval request", st.Text, m[1])
			}
		}
		if st.Argument != nil && st.Argument.DataTable != nil && (st.Text == "the user answers:" || st.Text == "the user answers in two messages:" || strings.HasPrefix(st.Text, "the user answers and adds ")) {
			rows := st.Argument.DataTable.Rows
			col := -1
			if len(rows) > 0 {
				for i, c := range rows[0].Cells {
					if strings.TrimSpace(c.Value) == "call" {
						col = i
					}
				}
			}
			for _, r := range rows[1:] {
				if col >= 0 && col < len(r.Cells) {
					if id := strings.TrimSpace(r.Cells[col].Value); id != "" && !requested[id] {
						fail("%q answers %s before any assertion that an approval was requested for it", st.Text, id)
					}
				}
			}
		}
		if turnStep.MatchString(st.Text) {
			if !strings.HasSuffix(st.Text, " in the client") && !strings.HasPrefix(st.Text, "the chat server") && !strings.HasPrefix(st.Text, "the client") {
				seen["turn"] = true
			}
			if pendingTurn != "" {
				out = append(out, LintError{Source: uri, Line: pendingLine, Scenario: p.Name, Msg: fmt.Sprintf("%q is followed by no assertion before the next action: the turn goes unjudged", pendingTurn)})
			}
			pendingTurn, pendingLine = st.Text, line
		}
	}
	if pendingTurn != "" {
		out = append(out, LintError{Source: uri, Line: pendingLine, Scenario: p.Name, Msg: fmt.Sprintf("%q is followed by no assertion: the turn goes unjudged", pendingTurn)})
	}
	for id := range tagged {
		if asserted[id] || seen[alwaysOn[id]] {
			continue
		}
		out = append(out, LintError{Source: uri, Scenario: p.Name, Msg: fmt.Sprintf("the scenario names %s in its tags but asserts nothing of it", id)})
	}
	return out
}

// match finds the definition a step's text matches, and its check label.
func match(text string) (stepDef, string, bool) {
	for _, d := range lintDefs {
		if m := d.pattern().FindStringSubmatch(text); m != nil {
			label := ""
			if d.kind == kindAssert && len(m) > 1 {
				label = m[1]
			}
			return d, label, true
		}
	}
	return stepDef{}, "", false
}
