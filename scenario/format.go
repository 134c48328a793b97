// Package scenario reads the kit's YAML scenarios and compiles each into a
// Gherkin feature that runs through the same steps and targets as the
// features of features/, and lands in the same reports.
//
// A scenario file describes the tools (name, input schema, approval policy,
// behaviour), an optional starting history in the canonical model, and the
// turns of a conversation: for each, the model's scripted replies (with
// what each prompt must contain), the user's action (say something, approve
// or deny calls by id or by tool name, or one of the hostile moves a real
// client makes), and what must be true afterwards. docs/scenarios.md
// documents the format; docs/schemas/scenario.schema.json validates it.
//
// Loading is strict: an unknown field, a wrong type, or an inconsistent
// scenario is an error naming the file, the line and the field.
package scenario

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/internal/suggest"
)

// File is one scenario file.
type File struct {
	// Path is where the file was read from.
	Path string `yaml:"-"`
	// ID names the scenario in reports; the file's name without .yaml if
	// empty.
	ID          string `yaml:"id"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	// Checks are the checks the scenario exercises. Every assertion of the
	// scenario is charged to one of them, and each is asserted.
	Checks []string `yaml:"checks"`
	// Modes are the turn modes to run in: generate, stream (both by
	// default).
	Modes []string `yaml:"modes"`
	// Provider is the model's wire profile: openai-chat (the default),
	// openai-responses or anthropic-messages.
	Provider string `yaml:"provider"`
	// DenialPolicy, when set, limits the scenario to targets declaring it.
	DenialPolicy string  `yaml:"denialPolicy"`
	Tools        []Tool  `yaml:"tools"`
	Options      Options `yaml:"options"`
	// History is the conversation before the first turn, in the canonical
	// model; finished exchanges only (approvals are asked for in a turn).
	History yaml.Node `yaml:"history"`
	// Exchanges, when set, puts that many finished exchanges (user text, a
	// call, its result) of a tool at the start of the history.
	Exchanges *Exchanges `yaml:"exchanges"`
	Turns     []Turn     `yaml:"turns"`
	// Tags are extra tags for the scenario (without @).
	Tags []string `yaml:"tags"`

	line  int
	lines map[string]int
}

// Exchanges generates a long finished history.
type Exchanges struct {
	Count int    `yaml:"count"`
	Tool  string `yaml:"tool"`
}

// Options are the turn options.
type Options struct {
	Concurrency int `yaml:"concurrency"`
	MaxSteps    int `yaml:"maxSteps"`
}

// Tool is a tool of the scenario.
type Tool struct {
	Name string `yaml:"name"`
	// InputSchema is the JSON Schema of the input.
	InputSchema yaml.Node `yaml:"inputSchema"`
	// Approval is always, never, fails (a dynamic policy that returns an
	// error), panics (one that throws), or a rule: {field: path,
	// startsWith: /etc}.
	Approval yaml.Node `yaml:"approval"`
	// Returns is the tool's output (any JSON).
	Returns yaml.Node `yaml:"returns"`
	// Fails makes the tool fail with this message.
	Fails string `yaml:"fails"`
	// Slow holds each run, to observe a concurrency bound.
	Slow bool `yaml:"slow"`
	// Provider marks a tool the provider runs itself.
	Provider bool `yaml:"provider"`

	line int
}

// Turn is one user action with its setup and its expectations.
type Turn struct {
	// Setup for this turn.
	Toolkit string   `yaml:"toolkit"` // provided, absent or empty
	Omit    []string `yaml:"omit"`    // tools left out of the toolkit
	// Model are the model's replies during this turn, in order.
	Model []ModelReply `yaml:"model"`

	// The action: exactly one of these.
	Say                  string             `yaml:"say"`
	Approve              []string           `yaml:"approve"`
	Deny                 []string           `yaml:"deny"`
	Answers              []Answer           `yaml:"answers"`
	AnswersInTwoMessages [][]Answer         `yaml:"answersInTwoMessages"`
	ApproveTwice         string             `yaml:"approveTwice"`
	ApproveTwiceAcross   string             `yaml:"approveTwiceAcross"`
	Conflict             string             `yaml:"conflict"`
	ConflictAcross       string             `yaml:"conflictAcross"`
	Orphan               *Orphan            `yaml:"orphan"`
	Resend               string             `yaml:"resend"`
	Replay               bool               `yaml:"replay"`
	Malformed            *Malformed         `yaml:"malformed"`
	Forge                *Forge             `yaml:"forge"`
	ForgeUnsigned        *Forge             `yaml:"forgeUnsigned"`
	Tamper               *Tamper            `yaml:"tamper"`
	Rename               *Rename            `yaml:"rename"`
	ApproveWithResult    *ApproveWithResult `yaml:"approveWithResult"`
	ProviderAnswer       *ProviderAnswer    `yaml:"providerAnswer"`

	// Reason is the reason given with approve or deny.
	Reason string `yaml:"reason"`
	// Note is an assistant note the client puts before a single approval.
	Note string `yaml:"note"`
	// Then is user text sent with a single approval, after it.
	Then string `yaml:"then"`

	Expect Expect `yaml:"expect"`

	line  int
	lines map[string]int
}

// Answer is one answer of a batch.
type Answer struct {
	Call    string `yaml:"call"`
	Approve bool   `yaml:"approve"`
	Reason  string `yaml:"reason"`
}

// Orphan approves a call along with an approval id that matches nothing.
type Orphan struct {
	Call       string `yaml:"call"`
	ApprovalID string `yaml:"approvalId"`
}

// Malformed sends a raw approval response for a call; "$APPROVAL" in it
// stands for the call's approval id.
type Malformed struct {
	Call     string    `yaml:"call"`
	Approval yaml.Node `yaml:"approval"`
}

// Forge adds a call with an approval request the target never issued, and
// approves it.
type Forge struct {
	Tool  string    `yaml:"tool"`
	Input yaml.Node `yaml:"input"`
	Call  string    `yaml:"call"`
}

// Tamper changes a call's input after its approval was requested, then
// approves it.
type Tamper struct {
	Call  string    `yaml:"call"`
	Input yaml.Node `yaml:"input"`
}

// Rename changes the tool name of a call after its approval was
// requested, then approves it.
type Rename struct {
	Call string `yaml:"call"`
	Tool string `yaml:"tool"`
}

// ApproveWithResult approves a call and gives its result in the same
// message, as a client that ran the tool itself would.
type ApproveWithResult struct {
	Call   string    `yaml:"call"`
	Output yaml.Node `yaml:"output"`
}

// ProviderAnswer answers a provider-executed approval.
type ProviderAnswer struct {
	ApprovalID string `yaml:"approvalId"`
	Approve    bool   `yaml:"approve"`
	// Unflagged leaves out providerExecuted: true.
	Unflagged bool `yaml:"unflagged"`
}

// ModelReply is one scripted model reply.
type ModelReply struct {
	Text      string          `yaml:"text"`
	ToolCalls []ModelToolCall `yaml:"toolCalls"`
	Error     *ModelError     `yaml:"error"`
	// Optional replies are for paths a valid target may not take.
	Optional bool `yaml:"optional"`
	// Expect is what the prompt of this call must contain.
	Expect *PromptExpect `yaml:"expect"`

	line int
}

// ModelToolCall is a tool call in a reply.
type ModelToolCall struct {
	ID    string    `yaml:"id"`
	Tool  string    `yaml:"tool"`
	Input yaml.Node `yaml:"input"`
	// ApprovalID makes a provider tool's call ask for approval.
	ApprovalID string `yaml:"approvalId"`
}

// ModelError is an HTTP error the model answers with.
type ModelError struct {
	Status  int    `yaml:"status"`
	Type    string `yaml:"type"`
	Message string `yaml:"message"`
}

// PromptExpect is what a prompt must contain. Each expectation is charged
// to one check: see Expect for how it is found.
type PromptExpect struct {
	Results           []ResultExpect           `yaml:"results"`
	NoResults         []string                 `yaml:"noResults"`
	NoApprovalParts   bool                     `yaml:"noApprovalParts"`
	ProviderApprovals []ProviderApprovalExpect `yaml:"providerApprovals"`
	Messages          *int                     `yaml:"messages"`
	LastRole          string                   `yaml:"lastRole"`
	Contains          []string                 `yaml:"contains"`
	NotContains       []string                 `yaml:"notContains"`
	// Tools are the tools the prompt offers, in any order.
	Tools []string `yaml:"tools"`
	// Check is the block's check; Checks overrides it per field.
	Check  string            `yaml:"check"`
	Checks map[string]string `yaml:"checks"`

	line  int
	lines map[string]int
}

// ResultExpect is an expected result in a prompt.
type ResultExpect struct {
	Call         string    `yaml:"call"`
	Type         string    `yaml:"type"`
	Reason       *string   `yaml:"reason"`
	Value        yaml.Node `yaml:"value"`
	TextContains string    `yaml:"textContains"`
	// Text is the whole text of a text or error-text result.
	Text *string `yaml:"text"`
	// Skipped: the result is the abort-remaining policy's skipped result,
	// word for word (PART-02).
	Skipped bool `yaml:"skipped"`
	// Check is charged with a missing result, and its value and text;
	// TypeCheck with its type (DEN-01 for execution-denied); ReasonCheck
	// with its denial reason (DEN-02).
	Check       string `yaml:"check"`
	TypeCheck   string `yaml:"typeCheck"`
	ReasonCheck string `yaml:"reasonCheck"`

	line int
}

// ProviderApprovalExpect is an expected forwarded provider approval.
type ProviderApprovalExpect struct {
	ApprovalID string `yaml:"approvalId"`
	Approved   bool   `yaml:"approved"`
	Check      string `yaml:"check"`
}

// Expect is what must be true after a turn. Each field is an assertion
// charged to one check: checks[field] (or checks["field.item"] for one
// item of a list or map), else the field's natural check (approvals is
// REQ-01's, uniqueApprovalIds REQ-02's, ...: see naturalChecks), else the
// block's check, else the scenario's only check; otherwise the scenario
// does not load.
type Expect struct {
	// Check is the block's check; Checks overrides it per field.
	Check  string            `yaml:"check"`
	Checks map[string]string `yaml:"checks"`

	FinishReason string `yaml:"finishReason"`
	// Error is the turn error code expected.
	Error string `yaml:"error"`
	// ErrorOrDenial: the turn fails with Code, or the call gets a denial
	// result.
	ErrorOrDenial *ErrorOrDenial `yaml:"errorOrDenial"`
	// ClearError: the turn is refused as invalid input, with a message.
	ClearError bool `yaml:"clearError"`
	// FinishesOrRefuses: the turn finishes (any finish reason), or is
	// refused as invalid input with a message; never a model error.
	FinishesOrRefuses bool `yaml:"finishesOrRefuses"`
	// ClearErrorOrDenial: the turn is refused with a clear error, or the
	// call gets a denial result (and does not run).
	ClearErrorOrDenial string `yaml:"clearErrorOrDenial"`
	// AsksOrFails: the turn asks approval for this call, or refuses the
	// turn with a clear error of its own.
	AsksOrFails string   `yaml:"asksOrFails"`
	Approvals   []string `yaml:"approvals"`
	NoApprovals []string `yaml:"noApprovals"`
	// Runs maps a tool name or a call id to how many times it has run so
	// far in the scenario.
	Runs map[string]int `yaml:"runs"`
	// Ran: each of these (tool names or call ids) has run, at least once.
	Ran []string `yaml:"ran"`
	// AtMostOnce: each of these (tool names or call ids) has run at most
	// once so far.
	AtMostOnce []string `yaml:"atMostOnce"`
	// NotRunAgain: none of these calls ran again after the conversation
	// held its result.
	NotRunAgain []string `yaml:"notRunAgain"`
	// FailedAsDeclared: each of these calls, whose tool fails, failed as
	// the target declares: an error result with the tool's message that
	// reaches the model, or a turn that fails with ToolExecution saying so.
	FailedAsDeclared []string `yaml:"failedAsDeclared"`
	// NotRunWith: the tool never ran with this input.
	NotRunWith *NotRunWith `yaml:"notRunWith"`
	// RanWith maps a tool name or call id to the input every run of it
	// had (it ran at least once).
	RanWith map[string]yaml.Node `yaml:"ranWith"`
	// RanAsCalled: each of these calls ran, every time with the input the
	// model's reply gave it.
	RanAsCalled []string `yaml:"ranAsCalled"`
	// NothingRan: no tool has run so far.
	NothingRan bool `yaml:"nothingRan"`
	// NoLostSideEffects: a failed turn ran no tool; a turn that succeeded
	// holds a result for every call that ran in it.
	NoLostSideEffects bool `yaml:"noLostSideEffects"`
	// RanBefore maps a tool name or call id to the model call it ran before.
	RanBefore map[string]int `yaml:"ranBefore"`
	// ModelCalls is how many times the model was called in the turn.
	ModelCalls *int `yaml:"modelCalls"`
	// MaxConcurrent bounds how many tools ran at once.
	MaxConcurrent int `yaml:"maxConcurrent"`
	// EveryCallAccounted: each call of the turn has a result or a pending
	// approval.
	EveryCallAccounted bool `yaml:"everyCallAccounted"`
	// EveryCallAccountedOrRefused: each call of the turn has a result or a
	// pending approval, or the turn refused clearly and ran nothing (a
	// failed turn stores no call, so none dangles).
	EveryCallAccountedOrRefused bool `yaml:"everyCallAccountedOrRefused"`
	// StreamMatches: the stream's approval events match the messages.
	StreamMatches bool `yaml:"streamMatches"`
	// StreamResults: in stream mode, the result events match the turn's
	// results (not applicable in generate mode).
	StreamResults bool `yaml:"streamResults"`
	// Events: the stream carries these event types, in this order (other
	// events may come between).
	Events []string `yaml:"events"`
	// UniqueApprovalIDs: every approval id in the conversation is unique.
	UniqueApprovalIDs bool `yaml:"uniqueApprovalIds"`
	// FirstMessageResults: the turn's first message holds these results.
	FirstMessageResults []string `yaml:"firstMessageResults"`
	// ResultsAdded: the turn's messages hold exactly one result for each.
	ResultsAdded []string `yaml:"resultsAdded"`
	// ResultTypes maps a call to the type of the result the turn added.
	ResultTypes map[string]string `yaml:"resultTypes"`
	// NoResultFor: the turn's messages hold no result for these calls.
	NoResultFor []string `yaml:"noResultFor"`
	// ResolvedOnce: duplicate or conflicting answers for the call were
	// resolved once (at most one run, exactly one result), or the message
	// was refused with a clear error.
	ResolvedOnce string `yaml:"resolvedOnce"`
	// PolicyAsked: the dynamic policy was asked for each call, each time
	// with its input.
	PolicyAsked []string `yaml:"policyAsked"`
	// PolicySaw: the policy was given the conversation with this text.
	PolicySaw string `yaml:"policySaw"`
	// PolicySawCallID: the policy was asked with this toolCallId.
	PolicySawCallID string `yaml:"policySawCallId"`

	line  int
	lines map[string]int
}

// ErrorOrDenial is the code and the call of Expect.ErrorOrDenial.
type ErrorOrDenial struct {
	Code string `yaml:"code"`
	Call string `yaml:"call"`
}

// NotRunWith is a tool and an input.
type NotRunWith struct {
	Tool  string    `yaml:"tool"`
	Input yaml.Node `yaml:"input"`
}

// removedFields are fields earlier versions of the format had, with what
// to write instead.
var removedFields = map[string]string{
	"level":              "removed: a check's own level decides whether its failure is a warning (the @should tag is derived from the checks)",
	"runsAtMost":         "removed: use atMostOnce: [ids] (at most once is the rule), or runs: {id: n} for an exact count",
	"noRejection":        "removed: every model call is checked against the provider's rules (WIRE-01, WIRE-02) whatever the scenario says",
	"policyAskedOnce":    "removed: use policyAsked: [ids] (each time the policy is asked, it gets the call's own input)",
	"nothingRanIfFailed": "removed: use noLostSideEffects: true",
}

// decodeStrict decodes a mapping node into v (a pointer to a struct),
// refusing keys the struct does not have, with the line of the offending
// key. Nested structs are checked by their own UnmarshalYAML or here.
func decodeStrict(n *yaml.Node, v any) error {
	if err := checkKeys(n, reflect.TypeOf(v).Elem(), ""); err != nil {
		return err
	}
	return n.Decode(v)
}

// checkKeys walks a node against a Go type, refusing unknown keys.
//
// path is the field path of n ("turns[1].expect"), which errors name.
func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		return checkKeys(n.Alias, t, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeOf(yaml.Node{}) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
				return nil
			}
			return &fieldError{line: n.Line, msg: fmt.Sprintf("want a mapping, got %s", kindName(n))}
		}
		fields := map[string]reflect.StructField{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = f
			names = append(names, tag)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			f, ok := fields[key.Value]
			field := key.Value
			if path != "" {
				field = path + "." + key.Value
			}
			if !ok {
				if hint, gone := removedFields[key.Value]; gone {
					return &fieldError{line: key.Line, field: field, msg: hint}
				}
				msg := "unknown field"
				if best, ok := suggest.Nearest(key.Value, names); ok {
					msg += fmt.Sprintf(" (did you mean %s?)", best)
				}
				return &fieldError{line: key.Line, field: field, msg: msg + " (allowed: " + strings.Join(names, ", ") + ")"}
			}
			if err := checkKeys(val, f.Type, field); err != nil {
				var fe *fieldError
				if asFieldError(err, &fe) && fe.field == "" {
					fe.field = field
				}
				return err
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, item := range n.Content {
				if err := checkKeys(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				if err := checkKeys(n.Content[i], t.Elem(), path+"."+n.Content[i-1].Value); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the value " + fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// keyLines maps the keys of a mapping node to their lines.
func keyLines(n *yaml.Node) map[string]int {
	out := map[string]int{}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = n.Content[i].Line
		}
	}
	return out
}

// UnmarshalYAML records the line of the file's top node and of its keys.
func (f *File) UnmarshalYAML(n *yaml.Node) error {
	type plain File
	f.line, f.lines = n.Line, keyLines(n)
	return decodeStrict(n, (*plain)(f))
}

// UnmarshalYAML records the tool's line.
func (t *Tool) UnmarshalYAML(n *yaml.Node) error {
	type plain Tool
	t.line = n.Line
	return n.Decode((*plain)(t))
}

// UnmarshalYAML records the turn's line and the lines of its keys.
func (t *Turn) UnmarshalYAML(n *yaml.Node) error {
	type plain Turn
	t.line, t.lines = n.Line, keyLines(n)
	return n.Decode((*plain)(t))
}

// UnmarshalYAML records the reply's line.
func (r *ModelReply) UnmarshalYAML(n *yaml.Node) error {
	type plain ModelReply
	r.line = n.Line
	return n.Decode((*plain)(r))
}

// UnmarshalYAML records the lines of the expectations.
func (e *Expect) UnmarshalYAML(n *yaml.Node) error {
	type plain Expect
	e.line, e.lines = n.Line, keyLines(n)
	return n.Decode((*plain)(e))
}

// UnmarshalYAML records the lines of the prompt's expectations.
func (e *PromptExpect) UnmarshalYAML(n *yaml.Node) error {
	type plain PromptExpect
	e.line, e.lines = n.Line, keyLines(n)
	return n.Decode((*plain)(e))
}

// UnmarshalYAML records the expected result's line.
func (r *ResultExpect) UnmarshalYAML(n *yaml.Node) error {
	type plain ResultExpect
	r.line = n.Line
	return n.Decode((*plain)(r))
}
