package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
)

// Compile turns a scenario into the text of a Gherkin feature that uses the
// suite's steps. The feature has one scenario outline, with a row per mode.
//
// Every assertion of the output names the one check it is charged to
// ("Then [PRE-01] ..."), except the steps whose rule is a single check's
// (their check is fixed by the step). How a check is found for each
// expectation is described on Expect; the compiler refuses a scenario in
// which an expectation has no check, a check the scenario does not list, or
// a listed check that nothing asserts. An answer to a call needs an
// assertion that its approval was requested: when the turn that made the
// call does not list it in approvals (or asksOrFails), the compiler asserts
// it there, charged to REQ-01 (PROV-01 for a provider's call), which then
// joins the scenario's checks.
func Compile(f *File) (string, error) {
	c := &compiler{f: f, tools: map[string]*Tool{}, calls: map[string]*callInfo{}, listed: map[string]bool{}, asserted: map[string]bool{}, auto: map[string]bool{}}
	for i := range f.Tools {
		c.tools[f.Tools[i].Name] = &f.Tools[i]
	}
	for _, id := range f.Checks {
		c.listed[id] = true
	}
	if err := c.compile(); err != nil {
		return "", err
	}
	return c.out.String(), nil
}

// callInfo is a tool call the scenario makes or starts with.
type callInfo struct {
	id, tool string
	// turn is the turn whose model replies make it, or whose action forges
	// it; -1 for the starting history.
	turn int
	// reply is the model call (1-based, over the scenario) that makes it.
	reply      int
	provider   bool
	approvalID string
	input      json.RawMessage
	forged     bool
}

type compiler struct {
	f        *File
	tools    map[string]*Tool
	calls    map[string]*callInfo
	listed   map[string]bool // the checks the file lists
	asserted map[string]bool // the checks some assertion is charged to
	auto     map[string]bool // the checks the compiler added
	// requested maps a turn to the calls whose approval requests it asserts
	// for the answers of later turns.
	requested map[int][]string
	// replies counts the model's replies up to the end of each turn.
	replies []int
	out     strings.Builder
	b       strings.Builder // the scenario's steps
	// lastKeyword is the keyword of the last step written: assertions
	// after the first read "And".
	lastKeyword string
	line        int // the YAML line of what is being compiled, for errors
}

func (c *compiler) fail(field, format string, args ...any) error {
	return &Error{File: c.f.Path, Line: c.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (c *compiler) failAt(line int, field, format string, args ...any) error {
	if line == 0 {
		line = c.line
	}
	return &Error{File: c.f.Path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// quote puts s in a step's double quotes; the steps' patterns allow no
// double quote inside.
func (c *compiler) quote(field, s string) (string, error) {
	if strings.ContainsAny(s, "\"\n") {
		return "", c.fail(field, "must not contain a double quote or a line break (it goes into a step's quotes)")
	}
	return `"` + s + `"`, nil
}

func (c *compiler) step(keyword, text string) {
	shown := keyword
	if keyword == "Then" && c.lastKeyword == "Then" {
		shown = "And"
	}
	c.lastKeyword = keyword
	fmt.Fprintf(&c.b, "    %s %s\n", shown, text)
}

// assert writes an assertion charged to check: labelled, unless its step
// is fixed to its check (its definition says so, and a label would be
// refused).
func (c *compiler) assert(check, text string, fixed bool) {
	if fixed {
		c.step("Then", text)
		return
	}
	c.step("Then", "["+check+"] "+text)
}

func (c *compiler) docString(keyword, text string, doc []byte) {
	c.step(keyword, text)
	c.b.WriteString("      \"\"\"\n")
	for _, line := range strings.Split(string(doc), "\n") {
		c.b.WriteString("      " + line + "\n")
	}
	c.b.WriteString("      \"\"\"\n")
}

func (c *compiler) compile() error {
	f := c.f
	if err := c.survey(); err != nil {
		return err
	}
	c.line = f.line
	if f.Provider != "" {
		c.step("Given", fmt.Sprintf("the model speaks %q", f.Provider))
	}
	c.step("Given", "the agent runs in <mode> mode")
	if f.DenialPolicy != "" {
		c.step("And", fmt.Sprintf("the target's denial policy is %q", f.DenialPolicy))
	}
	for i := range f.Tools {
		if err := c.tool(i); err != nil {
			return err
		}
	}
	if f.Options.Concurrency > 0 {
		c.step("And", fmt.Sprintf("the concurrency option is %d", f.Options.Concurrency))
	}
	if f.Options.MaxSteps > 0 {
		c.step("And", fmt.Sprintf("the step limit is %d", f.Options.MaxSteps))
	}
	if f.Exchanges != nil {
		c.step("And", fmt.Sprintf("the conversation starts with %d finished exchanges of %q", f.Exchanges.Count, f.Exchanges.Tool))
	}
	if !isEmpty(&f.History) {
		raw, err := nodeJSON(&f.History)
		if err != nil {
			return c.fail("history", "%v", err)
		}
		c.docString("And", "the conversation continues with:", indentJSON(raw))
	}
	for i := range f.Turns {
		if err := c.turn(i); err != nil {
			return err
		}
	}
	modes := f.Modes
	if len(modes) == 0 {
		modes = []string{"generate", "stream"}
	}
	c.b.WriteString("\n    Examples:\n      | mode |\n")
	for _, m := range modes {
		fmt.Fprintf(&c.b, "      | %s |\n", m)
	}

	// Every listed check is asserted, or is one the suite asserts on every
	// model call (WIRE-01, WIRE-02) or turn (WIRE-03).
	scripted := c.replies[len(c.replies)-1] > 0
	for _, id := range f.Checks {
		switch {
		case c.asserted[id]:
		case (id == "WIRE-01" || id == "WIRE-02") && scripted:
		case id == "WIRE-03":
		default:
			return c.failAt(f.lines["checks"], "checks", "%s is listed, but no expectation of the scenario asserts it", id)
		}
	}
	all := append([]string(nil), f.Checks...)
	for id := range c.auto {
		if !slices.Contains(all, id) {
			all = append(all, id)
		}
	}
	checks.SortIDs(all)
	tags := []string{"@yaml", "@agent"}
	should := true
	for _, id := range all {
		if ch, _ := checks.Lookup(id); ch.Level == checks.Must {
			should = false
		}
	}
	if should {
		tags = append(tags, "@should")
	}
	for _, t := range f.Tags {
		tags = append(tags, "@"+t)
	}
	fmt.Fprintf(&c.out, "%s\nFeature: %s\n", strings.Join(tags, " "), oneLine(f.Title))
	if f.Description != "" {
		for _, l := range strings.Split(strings.TrimSpace(f.Description), "\n") {
			fmt.Fprintf(&c.out, "  %s\n", strings.TrimSpace(l))
		}
	}
	var checkTags []string
	for _, id := range all {
		checkTags = append(checkTags, "@"+id)
	}
	fmt.Fprintf(&c.out, "\n  %s\n  Scenario Outline: %s (<mode>)\n", strings.Join(checkTags, " "), oneLine(f.Title))
	c.out.WriteString(c.b.String())
	return nil
}

// orLine is line, or fallback when it is unknown.
func orLine(line, fallback int) int {
	if line > 0 {
		return line
	}
	return fallback
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indentJSON(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return raw
	}
	return b
}
