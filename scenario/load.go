package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/suggest"
	"github.com/approval-conformance-kit/ack/model"
)

// checkIDs are the catalogue's check ids.
func checkIDs() []string {
	var ids []string
	for _, c := range checks.All() {
		ids = append(ids, c.ID)
	}
	return ids
}

// Error is a loading error: the file, the line (0 if unknown), the field
// and what is wrong.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error implements error: "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors are the loading errors of several files, at most one per file,
// in the files' order: a directory's every bad file is named at once.
type Errors []*Error

// Error implements error: one error a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// fieldError is an error found while walking the YAML, before the file name
// is known.
type fieldError struct {
	line  int
	field string
	msg   string
}

func (e *fieldError) Error() string { return fmt.Sprintf("line %d: %s: %s", e.line, e.field, e.msg) }

func asFieldError(err error, target **fieldError) bool { return errors.As(err, target) }

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// Parse reads one scenario file.
func Parse(file string, data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, &Error{File: file, Line: fe.line, Field: fe.field, Msg: fe.msg}
		}
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			if m := yamlLine.FindStringSubmatch(te.Errors[0]); m != nil {
				line := 0
				fmt.Sscan(m[1], &line)
				return nil, &Error{File: file, Line: line, Msg: m[2]}
			}
			return nil, &Error{File: file, Msg: te.Errors[0]}
		}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line := 0
			fmt.Sscan(m[1], &line)
			return nil, &Error{File: file, Line: line, Msg: m[2]}
		}
		return nil, &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Msg: "a scenario file holds one document; found a second"}
	}
	f.Path = file
	if f.ID == "" {
		f.ID = strings.TrimSuffix(path.Base(file), path.Ext(file))
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	// Compiling checks what only the whole scenario can say: which check
	// each expectation asserts, which calls exist by each turn.
	if _, err := Compile(&f); err != nil {
		return nil, err
	}
	return &f, nil
}

// LoadFS reads every *.yaml and *.yml file under dir in fsys, sorted by
// path. Scenario ids must be unique. When files do not load, the error is
// Errors: every bad file, each with its first error.
func LoadFS(fsys fs.FS, dir string) ([]*File, error) {
	var paths []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	sort.Strings(paths)
	var files []*File
	var errs Errors
	ids := map[string]string{}
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			errs = append(errs, &Error{File: p, Msg: err.Error()})
			continue
		}
		f, err := Parse(p, data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				e = &Error{File: p, Msg: err.Error()}
			}
			errs = append(errs, e)
			continue
		}
		if other, dup := ids[f.ID]; dup {
			errs = append(errs, &Error{File: p, Line: f.line, Field: "id", Msg: fmt.Sprintf("the id %q is also used by %s", f.ID, other)})
			continue
		}
		ids[f.ID] = p
		files = append(files, f)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return files, nil
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// validate checks what YAML types cannot: required fields, allowed values,
// references between tools, calls and turns.
func (f *File) validate() error {
	fail := func(line int, field, format string, args ...any) error {
		return &Error{File: f.Path, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if !idPattern.MatchString(f.ID) {
		return fail(f.line, "id", "%q is not a valid id (letters, digits, '.', '_', '-')", f.ID)
	}
	if f.Title == "" {
		return fail(f.line, "title", "missing")
	}
	if len(f.Checks) == 0 {
		return fail(f.line, "checks", "name at least one check id")
	}
	for _, c := range f.Checks {
		if ch, ok := checks.Lookup(c); !ok {
			return fail(f.line, "checks", "unknown check %q%s (see conformance checks)", c, suggest.Hint(c, checkIDs()))
		} else if ch.Role != checks.Agent {
			return fail(f.line, "checks", "%s is a %s check; YAML scenarios drive the agent role", c, ch.Role)
		}
	}
	for _, tag := range f.Tags {
		if _, ok := checks.Lookup(tag); ok {
			return fail(f.line, "tags", "%s is a check: list it in checks", tag)
		}
		if !idPattern.MatchString(tag) {
			return fail(f.line, "tags", "%q is not a valid tag (letters, digits, '.', '_', '-')", tag)
		}
	}
	for _, m := range f.Modes {
		if m != "generate" && m != "stream" {
			return fail(f.line, "modes", "%q is not generate or stream", m)
		}
	}
	switch f.Provider {
	case "", "openai-chat", "openai-responses", "anthropic-messages":
	default:
		return fail(f.line, "provider", "%q is not openai-chat, openai-responses or anthropic-messages", f.Provider)
	}
	switch f.DenialPolicy {
	case "", "independent", "abort-remaining":
	default:
		return fail(f.line, "denialPolicy", "%q is not independent or abort-remaining", f.DenialPolicy)
	}
	if f.Options.Concurrency < 0 || f.Options.MaxSteps < 0 {
		return fail(f.line, "options", "concurrency and maxSteps must not be negative")
	}
	tools := map[string]*Tool{}
	for i := range f.Tools {
		t := &f.Tools[i]
		field := fmt.Sprintf("tools[%d]", i)
		if t.Name == "" {
			return fail(t.line, field+".name", "missing")
		}
		if tools[t.Name] != nil {
			return fail(t.line, field+".name", "the tool %q is defined twice", t.Name)
		}
		tools[t.Name] = t
		if _, err := t.approval(); err != nil {
			return fail(lineOf(&t.Approval, t.line), field+".approval", "%v", err)
		}
		if err := jsonOrEmpty(&t.InputSchema); err != nil {
			return fail(lineOf(&t.InputSchema, t.line), field+".inputSchema", "%v", err)
		}
		if err := jsonOrEmpty(&t.Returns); err != nil {
			return fail(lineOf(&t.Returns, t.line), field+".returns", "%v", err)
		}
		if t.Fails != "" && !isEmpty(&t.Returns) {
			return fail(t.line, field, "a tool either returns or fails, not both")
		}
		if t.Provider && (t.Slow || t.Fails != "") {
			return fail(t.line, field, "a provider tool runs at the provider: slow and fails do not apply")
		}
		if t.Provider && f.Provider != "openai-responses" {
			return fail(t.line, field+".provider", "only the openai-responses profile carries a provider's tool calls and approvals: set provider: openai-responses")
		}
	}
	if f.Exchanges != nil {
		if f.Exchanges.Count < 1 || f.Exchanges.Count > 10000 {
			return fail(f.line, "exchanges.count", "must be between 1 and 10000")
		}
		if tools[f.Exchanges.Tool] == nil {
			return fail(f.line, "exchanges.tool", "no tool named %q", f.Exchanges.Tool)
		}
	}
	if !isEmpty(&f.History) {
		raw, err := nodeJSON(&f.History)
		if err != nil {
			return fail(f.History.Line, "history", "%v", err)
		}
		if _, err := model.DecodeMessagesAt(raw, "history"); err != nil {
			return fail(f.History.Line, "history", "%v", err)
		}
	}
	if len(f.Turns) == 0 {
		return fail(f.line, "turns", "a scenario needs at least one turn")
	}
	calls := map[string]bool{}
	for i := range f.Turns {
		t := &f.Turns[i]
		field := fmt.Sprintf("turns[%d]", i)
		for j := range t.Model {
			r := &t.Model[j]
			rf := fmt.Sprintf("%s.model[%d]", field, j)
			if r.Error != nil && (r.Text != "" || len(r.ToolCalls) > 0) {
				return fail(r.line, rf, "a reply is either an error or text and tool calls")
			}
			if r.Error != nil && (r.Error.Status < 400 || r.Error.Status > 599) {
				return fail(r.line, rf+".error.status", "%d is not an HTTP error status", r.Error.Status)
			}
			if j > 0 && t.Model[j-1].Optional && !r.Optional {
				return fail(r.line, rf+".optional", "a required reply cannot follow an optional one")
			}
			for k, c := range r.ToolCalls {
				cf := fmt.Sprintf("%s.toolCalls[%d]", rf, k)
				if c.ID == "" || c.Tool == "" {
					return fail(r.line, cf, "a tool call needs an id and a tool")
				}
				if calls[c.ID] {
					return fail(r.line, cf+".id", "the call id %q is used twice", c.ID)
				}
				calls[c.ID] = true
				if tools[c.ID] != nil {
					return fail(r.line, cf+".id", "%q is both a call id and a tool name", c.ID)
				}
				if err := jsonOrEmpty(&c.Input); err != nil {
					return fail(lineOf(&c.Input, r.line), cf+".input", "%v", err)
				}
				tool := tools[c.Tool]
				if c.ApprovalID != "" && (tool == nil || !tool.Provider) {
					return fail(r.line, cf+".approvalId", "only a call to a provider tool carries the provider's approval id")
				}
			}
			if e := r.Expect; e != nil {
				for _, res := range e.Results {
					if err := jsonOrEmpty(&res.Value); err != nil {
						return fail(lineOf(&res.Value, r.line), rf+".expect.results.value", "%v", err)
					}
				}
			}
		}
		n := t.actions()
		if n != 1 {
			return fail(t.line, field, "a turn takes exactly one action (%s); found %d", strings.Join(actionNames, ", "), n)
		}
		if m := t.AnswersInTwoMessages; len(m) > 0 && (len(m) != 2 || len(m[0]) == 0 || len(m[1]) == 0) {
			return fail(t.line, field+".answersInTwoMessages", "give two lists of answers, one per message, neither empty")
		}
		if t.Rename != nil && (t.Rename.Call == "" || t.Rename.Tool == "") {
			return fail(t.line, field+".rename", "give the call and the tool it is renamed to")
		}
		if a := t.ApproveWithResult; a != nil {
			if _, err := objectJSON(&a.Output); err != nil || a.Call == "" {
				return fail(t.line, field+".approveWithResult", "give the call and its output (an object)")
			}
		}
		if t.Note != "" && (len(t.Approve) != 1 || len(t.Deny)+len(t.Answers) > 0) {
			return fail(t.line, field, "note goes with the approval of exactly one call")
		}
		if t.Note != "" && t.Then != "" {
			return fail(t.line, field, "note and then do not go together: note comes before the answer, then after it")
		}
		if t.Then != "" && len(t.Approve)+len(t.Deny)+len(t.Answers) == 0 {
			return fail(t.line, field+".then", "then is text sent after the answers: it goes with approve, deny or answers")
		}
		if t.Reason != "" && len(t.Approve)+len(t.Deny) == 0 {
			return fail(t.line, field+".reason", "a reason goes with approve or deny")
		}
		switch t.Toolkit {
		case "", "provided", "absent", "empty":
		default:
			return fail(t.line, field+".toolkit", "%q is not provided, absent or empty", t.Toolkit)
		}
		for _, o := range t.Omit {
			if tools[o] == nil {
				return fail(t.line, field+".omit", "no tool named %q", o)
			}
		}
		if t.Malformed != nil {
			if _, err := nodeJSON(&t.Malformed.Approval); err != nil || isEmpty(&t.Malformed.Approval) {
				return fail(t.line, field+".malformed.approval", "give the raw approval response as a mapping")
			}
		}
		for name, fg := range map[string]*Forge{"forge": t.Forge, "forgeUnsigned": t.ForgeUnsigned} {
			if fg == nil {
				continue
			}
			if tools[fg.Tool] == nil {
				return fail(t.line, field+"."+name+".tool", "no tool named %q", fg.Tool)
			}
			if fg.Call == "" {
				return fail(t.line, field+"."+name+".call", "missing: the forged call's id")
			}
			if _, err := objectJSON(&fg.Input); err != nil {
				return fail(t.line, field+"."+name+".input", "%v", err)
			}
		}
		if err := t.Expect.validate(tools); err != nil {
			return fail(t.line, field+".expect", "%v", err)
		}
	}
	return nil
}

// actionNames are the actions a turn can take.
var actionNames = []string{"say", "approve", "deny", "answers", "answersInTwoMessages", "approveTwice", "approveTwiceAcross",
	"conflict", "conflictAcross", "orphan", "resend", "replay", "malformed", "forge", "forgeUnsigned", "tamper", "rename",
	"approveWithResult", "providerAnswer"}

// actions counts the actions a turn takes (approve and deny together are
// one: the answers of one message).
func (t *Turn) actions() int {
	n := 0
	for _, set := range []bool{t.Say != "", len(t.Approve)+len(t.Deny) > 0, len(t.Answers) > 0, len(t.AnswersInTwoMessages) > 0,
		t.ApproveTwice != "", t.ApproveTwiceAcross != "", t.Conflict != "", t.ConflictAcross != "", t.Orphan != nil, t.Resend != "",
		t.Replay, t.Malformed != nil, t.Forge != nil, t.ForgeUnsigned != nil, t.Tamper != nil, t.Rename != nil,
		t.ApproveWithResult != nil, t.ProviderAnswer != nil} {
		if set {
			n++
		}
	}
	return n
}

var errorCodes = []string{"ToolkitRequired", "ToolNotFound", "InvalidApproval", "MissingToolResults", "InvalidMessages", "ToolExecution", "Model", "Other"}

var eventTypes = []string{"start-step", "text-delta", "tool-call", "tool-approval-request", "tool-result", "finish-step", "finish", "error"}

func (e *Expect) validate(tools map[string]*Tool) error {
	if e.Error != "" && !slices.Contains(errorCodes, e.Error) {
		return fmt.Errorf("error: %q is not one of %v", e.Error, errorCodes)
	}
	if e.Error != "" && e.FinishReason != "" {
		return errors.New("a turn either fails (error) or finishes (finishReason)")
	}
	for _, ev := range e.Events {
		if !slices.Contains(eventTypes, ev) {
			return fmt.Errorf("events: %q is not one of %v", ev, eventTypes)
		}
	}
	if e.NotRunWith != nil {
		if tools[e.NotRunWith.Tool] == nil {
			return fmt.Errorf("notRunWith.tool: no tool named %q", e.NotRunWith.Tool)
		}
		if _, err := nodeJSON(&e.NotRunWith.Input); err != nil {
			return fmt.Errorf("notRunWith.input: %v", err)
		}
	}
	return nil
}

// approval returns the tool's policy: always, never, fails, or a rule.
func (t *Tool) approval() (approval, error) {
	n := &t.Approval
	if isEmpty(n) {
		if t.Provider {
			return approval{kind: "never"}, nil
		}
		return approval{}, errors.New(`missing: always, never, fails, panics, or {field: ..., startsWith: ...}`)
	}
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "always", "never", "fails", "panics":
			if t.Provider && n.Value != "never" {
				return approval{}, errors.New("a provider tool's approval is asked by the provider; leave approval out")
			}
			return approval{kind: n.Value}, nil
		}
		return approval{}, fmt.Errorf("%q is not always, never, fails or panics", n.Value)
	}
	var rule struct {
		Field      string `yaml:"field"`
		StartsWith string `yaml:"startsWith"`
	}
	if err := decodeStrict(n, &rule); err != nil {
		return approval{}, err
	}
	if rule.Field == "" {
		return approval{}, errors.New("a rule needs a field")
	}
	return approval{kind: "rule", field: rule.Field, prefix: rule.StartsWith}, nil
}

type approval struct {
	kind          string
	field, prefix string
}

func isEmpty(n *yaml.Node) bool {
	return n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func lineOf(n *yaml.Node, fallback int) int {
	if n.Line > 0 {
		return n.Line
	}
	return fallback
}

// nodeJSON converts a YAML node to JSON.
func nodeJSON(n *yaml.Node) (json.RawMessage, error) {
	if isEmpty(n) {
		return json.RawMessage("null"), nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	v, err := jsonable(v)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func jsonOrEmpty(n *yaml.Node) error {
	_, err := nodeJSON(n)
	return err
}

// jsonable turns YAML-decoded values into JSON-encodable ones.
func jsonable(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			x[k] = j
		}
		return x, nil
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("the key %v is not a string", k)
			}
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[ks] = j
		}
		return m, nil
	case []any:
		for i, e := range x {
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			x[i] = j
		}
		return x, nil
	}
	return v, nil
}
