package scenario

import (
	"sort"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/suggest"
)

// Which check each expectation asserts: the natural check of a field, the
// block's and the scenario's, and the scopes that name them.

// naturalChecks are the checks whose rule an expectation field tests,
// whatever the block's check says. Those marked fixed are assertions of
// that check alone (their step says so): checks cannot charge them to
// another.
var naturalChecks = map[string]struct {
	check string
	fixed bool
}{
	"approvals":                   {"REQ-01", false},
	"uniqueApprovalIds":           {"REQ-02", true},
	"everyCallAccounted":          {"REQ-06", true},
	"everyCallAccountedOrRefused": {"REQ-06", true},
	"streamMatches":               {"REQ-07", true},
	"events":                      {"REQ-07", false},
	"streamResults":               {"PRE-08", true},
	"maxConcurrent":               {"PRE-07", true},
	"policyAsked":                 {"REQ-04", true},
	"policySaw":                   {"REQ-04", true},
	"policySawCallId":             {"REQ-04", true},
	"resolvedOnce":                {"PRE-11", false},
	"notRunAgain":                 {"PRE-03", false},
	"failedAsDeclared":            {"ERR-02", false},
	"noLostSideEffects":           {"PRE-13", false},
	// A model reply's expectations.
	"noApprovalParts":   {"PRE-12", false},
	"providerApprovals": {"PROV-01", false},
}

// scope is a block of expectations: a turn's expect, or a model reply's.
type scope struct {
	path     string
	check    string
	checks   map[string]string
	lines    map[string]int
	line     int
	consumed map[string]bool
}

func (s *scope) lineOf(field string) int {
	if l := s.lines[field]; l > 0 {
		return l
	}
	return s.line
}

// resolve finds the check of an expectation: own (an item's explicit
// check), checks["field.item"], checks[field], the field's natural check,
// the block's check, the scenario's only check.
func (c *compiler) resolve(s *scope, field, item, own, natural string) (string, error) {
	nat, hasNat := naturalChecks[field]
	if natural == "" && hasNat {
		natural = nat.check
	}
	var id, from string
	switch {
	case own != "":
		id, from = own, field+" (the item's check)"
	case item != "" && s.checks[field+"."+item] != "":
		id, from = s.checks[field+"."+item], "checks."+field+"."+item
		s.consumed[field+"."+item] = true
	case s.checks[field] != "":
		id, from = s.checks[field], "checks."+field
		s.consumed[field] = true
	case natural != "":
		id = natural
	case s.check != "":
		id, from = s.check, "check"
	case len(c.f.Checks) == 1:
		id = c.f.Checks[0]
	default:
		return "", c.failAt(s.lineOf(field), s.path+"."+field,
			"which check does this assert? name it in checks: {%s: ID}, give the block a check, or list a single check in the scenario's checks", field)
	}
	if hasNat && nat.fixed && id != nat.check {
		return "", c.failAt(s.lineOf(field), s.path+"."+field, "%s is always an assertion of %s; %s cannot charge it to %s", field, nat.check, from, id)
	}
	if err := c.known(s.lineOf(field), s.path+"."+field, id); err != nil {
		return "", err
	}
	if !c.listed[id] {
		return "", c.failAt(s.lineOf(field), s.path+"."+field, "this asserts %s, which the scenario's checks do not list: list it", id)
	}
	c.asserted[id] = true
	return id, nil
}

// known refuses a check id that is not an agent check of the catalogue.
func (c *compiler) known(line int, field, id string) error {
	ch, ok := checks.Lookup(id)
	if !ok {
		return c.failAt(line, field, "unknown check %q%s (see conformance checks)", id, suggest.Hint(id, checkIDs()))
	}
	if ch.Role != checks.Agent {
		return c.failAt(line, field, "%s is a %s check; YAML scenarios drive the agent role", id, ch.Role)
	}
	return nil
}

// newScope makes the scope of a block and checks its check names.
func (c *compiler) newScope(path string, line int, lines map[string]int, check string, byField map[string]string) (*scope, error) {
	s := &scope{path: path, check: check, checks: byField, lines: lines, line: line, consumed: map[string]bool{}}
	if check != "" {
		if err := c.known(s.lineOf("check"), path+".check", check); err != nil {
			return nil, err
		}
	}
	for k, v := range byField {
		if err := c.known(s.lineOf("checks"), path+".checks."+k, v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// unconsumed refuses a checks entry that names no expectation of the block.
func (c *compiler) unconsumed(s *scope) error {
	keys := make([]string, 0, len(s.checks))
	for k := range s.checks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !s.consumed[k] {
			return c.failAt(s.lineOf("checks"), s.path+".checks."+k, "no expectation of this block is %q (write a field name, or field.item for one id of a list or map)", k)
		}
	}
	return nil
}

// requireAuto notes an assertion the compiler added, charged to id: the
// check joins the scenario's checks.
func (c *compiler) requireAuto(id string) {
	if !c.listed[id] {
		c.auto[id] = true
	}
	c.asserted[id] = true
}
