// Package tagexpr parses and evaluates tag expressions, the filter of
// conformance run --tags: which scenarios to run, by their tags.
//
// The syntax is Cucumber's, with godog's older forms kept as synonyms:
//
//	@PRE-01                      a scenario tagged @PRE-01
//	not @should, ~@should        a scenario not tagged @should
//	@stream and not @should      both (also: @stream && ~@should)
//	@REQ-01 or @REQ-02           either (also: @REQ-01,@REQ-02 and ||)
//	(@PRE-01 or @PRE-02) and @stream
//
// "not" and "~" bind tightest, then ",", then "and" ("&&"), then "or"
// ("||"): "@a,@b && @c" is "(@a or @b) and @c", as godog reads it. A tag
// starts with "@". A malformed expression is an error that says what was
// expected and where; it never panics.
package tagexpr

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Expr is a parsed tag expression.
type Expr struct {
	src  string
	root node
}

// Parse parses a tag expression. The empty expression (or only blanks)
// matches every scenario.
func Parse(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	e := &Expr{src: src}
	if len(toks) == 0 {
		e.root = always{}
		return e, nil
	}
	p := &parser{src: src, toks: toks}
	root, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.toks) {
		t := p.toks[p.pos]
		return nil, p.errorf(t, "unexpected %s (want \"and\", \"or\" or the end)", t.describe())
	}
	e.root = root
	return e, nil
}

// Match reports whether a scenario with these tags (each with its "@")
// matches the expression.
func (e *Expr) Match(tags []string) bool { return e.root.eval(tags) }

// String returns the expression as it was written.
func (e *Expr) String() string { return e.src }

// Tags lists the tags the expression names (each with its "@"), in the
// order it names them first.
func (e *Expr) Tags() []string {
	var out []string
	var walk func(node)
	walk = func(n node) {
		switch n := n.(type) {
		case tagNode:
			if !slices.Contains(out, string(n)) {
				out = append(out, string(n))
			}
		case notNode:
			walk(n.x)
		case andNode:
			walk(n.l)
			walk(n.r)
		case orNode:
			walk(n.l)
			walk(n.r)
		}
	}
	walk(e.root)
	return out
}

// Error is a malformed expression: what is wrong, and at which column
// (1-based, in runes; 0 for the end).
type Error struct {
	Expr   string
	Column int
	Reason string
}

func (e *Error) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("tag expression %q: %s at the end", e.Expr, e.Reason)
	}
	return fmt.Sprintf("tag expression %q: %s at column %d", e.Expr, e.Reason, e.Column)
}

type kind int

const (
	tagTok kind = iota
	notTok
	andTok
	orTok
	commaTok
	openTok
	closeTok
)

type token struct {
	kind kind
	text string
	col  int
}

func (t token) describe() string {
	if t.kind == tagTok {
		return "tag " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

func lex(src string) ([]token, error) {
	rs := []rune(src)
	var out []token
	for i := 0; i < len(rs); {
		r := rs[i]
		col := i + 1
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')' || r == ',' || r == '~':
			k := map[rune]kind{'(': openTok, ')': closeTok, ',': commaTok, '~': notTok}[r]
			out = append(out, token{k, string(r), col})
			i++
		case r == '&' || r == '|':
			if i+1 >= len(rs) || rs[i+1] != r {
				return nil, &Error{src, col, fmt.Sprintf("%q alone is not an operator (want %q)", string(r), string([]rune{r, r}))}
			}
			k := andTok
			if r == '|' {
				k = orTok
			}
			out = append(out, token{k, string([]rune{r, r}), col})
			i += 2
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !strings.ContainsRune("(),~&|", rs[j]) {
				j++
			}
			word := string(rs[i:j])
			switch word {
			case "not":
				out = append(out, token{notTok, word, col})
			case "and":
				out = append(out, token{andTok, word, col})
			case "or":
				out = append(out, token{orTok, word, col})
			default:
				if !strings.HasPrefix(word, "@") {
					return nil, &Error{src, col, fmt.Sprintf("%q is not a tag (a tag starts with @, e.g. @%s)", word, word)}
				}
				if word == "@" {
					return nil, &Error{src, col, `"@" without a tag name`}
				}
				out = append(out, token{tagTok, word, col})
			}
			i = j
		}
	}
	return out, nil
}

type parser struct {
	src  string
	toks []token
	pos  int
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &Error{p.src, t.col, fmt.Sprintf(format, args...)}
}

func (p *parser) peek(k kind) bool { return p.pos < len(p.toks) && p.toks[p.pos].kind == k }

func (p *parser) or() (node, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek(orTok) {
		p.pos++
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
	return left, nil
}

func (p *parser) and() (node, error) {
	left, err := p.list()
	if err != nil {
		return nil, err
	}
	for p.peek(andTok) {
		p.pos++
		right, err := p.list()
		if err != nil {
			return nil, err
		}
		left = andNode{left, right}
	}
	return left, nil
}

func (p *parser) list() (node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek(commaTok) {
		p.pos++
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
	return left, nil
}

func (p *parser) unary() (node, error) {
	if p.pos >= len(p.toks) {
		prev := "the start"
		if p.pos > 0 {
			prev = p.toks[p.pos-1].describe()
		}
		return nil, &Error{p.src, 0, fmt.Sprintf("a tag, \"not\" or \"(\" must follow %s", prev)}
	}
	t := p.toks[p.pos]
	switch t.kind {
	case tagTok:
		p.pos++
		return tagNode(t.text), nil
	case notTok:
		p.pos++
		inner, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notNode{inner}, nil
	case openTok:
		p.pos++
		inner, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.peek(closeTok) {
			if p.pos >= len(p.toks) {
				return nil, &Error{p.src, 0, fmt.Sprintf("the \"(\" at column %d is not closed", t.col)}
			}
			return nil, p.errorf(p.toks[p.pos], "unexpected %s (want \")\")", p.toks[p.pos].describe())
		}
		p.pos++
		return inner, nil
	}
	return nil, p.errorf(t, "unexpected %s (want a tag, \"not\" or \"(\")", t.describe())
}

type node interface{ eval(tags []string) bool }

type always struct{}

func (always) eval([]string) bool { return true }

type tagNode string

func (n tagNode) eval(tags []string) bool { return slices.Contains(tags, string(n)) }

type notNode struct{ x node }

func (n notNode) eval(tags []string) bool { return !n.x.eval(tags) }

type andNode struct{ l, r node }

func (n andNode) eval(tags []string) bool { return n.l.eval(tags) && n.r.eval(tags) }

type orNode struct{ l, r node }

func (n orNode) eval(tags []string) bool { return n.l.eval(tags) || n.r.eval(tags) }

// maxClauses bounds the size of Legacy's rewriting.
const maxClauses = 256

// Legacy writes the expression in godog's own filter syntax: "&&" between
// clauses, "," between the tags of a clause, "~" for not (an AND of ORs,
// which every expression can be rewritten to). It reports false when the
// rewriting would exceed a few hundred clauses; the empty expression is "".
func (e *Expr) Legacy() (string, bool) {
	if _, ok := e.root.(always); ok {
		return "", true
	}
	cnf, ok := toCNF(nnf(e.root, false))
	if !ok {
		return "", false
	}
	clauses := make([]string, len(cnf))
	for i, c := range cnf {
		clauses[i] = strings.Join(c, ",")
	}
	return strings.Join(clauses, " && "), true
}

// nnf pushes negations down to the tags: a node of tagNode, notNode of a
// tagNode, andNode and orNode only.
func nnf(n node, negate bool) node {
	switch x := n.(type) {
	case tagNode:
		if negate {
			return notNode{x}
		}
		return x
	case notNode:
		return nnf(x.x, !negate)
	case andNode:
		if negate {
			return orNode{nnf(x.l, true), nnf(x.r, true)}
		}
		return andNode{nnf(x.l, false), nnf(x.r, false)}
	case orNode:
		if negate {
			return andNode{nnf(x.l, true), nnf(x.r, true)}
		}
		return orNode{nnf(x.l, false), nnf(x.r, false)}
	}
	return n
}

// toCNF turns a node in negation normal form into clauses of literals
// ("@a", "~@a").
func toCNF(n node) ([][]string, bool) {
	switch x := n.(type) {
	case tagNode:
		return [][]string{{string(x)}}, true
	case notNode:
		return [][]string{{"~" + string(x.x.(tagNode))}}, true
	case andNode:
		l, ok := toCNF(x.l)
		if !ok {
			return nil, false
		}
		r, ok := toCNF(x.r)
		if !ok || len(l)+len(r) > maxClauses {
			return nil, false
		}
		return append(l, r...), true
	case orNode:
		l, ok := toCNF(x.l)
		if !ok {
			return nil, false
		}
		r, ok := toCNF(x.r)
		if !ok || len(l)*len(r) > maxClauses {
			return nil, false
		}
		out := make([][]string, 0, len(l)*len(r))
		for _, a := range l {
			for _, b := range r {
				out = append(out, append(slices.Clone(a), b...))
			}
		}
		return out, true
	}
	return nil, false
}
