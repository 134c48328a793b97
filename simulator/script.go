// Package simulator is a scripted mock LLM that behaves like real providers.
//
// A Script is an ordered list of turns; each turn may expect things of the
// prompt it receives and replies with text, tool calls, a finish reason, or
// an error. Before a turn is consumed, the prompt is validated against the
// provider profile in force (openai-chat by default): a prompt with a
// dangling, orphan, duplicate or misplaced tool result is answered with that
// provider's exact HTTP 400 body, journaled, and reported as a problem with
// its check id (WIRE-01, WIRE-02).
//
// Turns are consumed exactly once: a call past the end of the script is an
// error, and turns left unconsumed are reported by Problems. Every call is
// journaled with its prompt, reply and verdict.
//
// Model is the in-process simulator, an llm.Model, in the spirit of
// net/http/httptest.
package simulator

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/wire"
)

// Script is what the simulated model will do, turn by turn.
type Script struct {
	// Provider is the profile whose rules every prompt is checked against.
	Provider wire.Profile `json:"provider,omitempty"`
	Turns    []Turn       `json:"turns"`
}

// Turn is one model call: what the prompt must satisfy and the reply.
type Turn struct {
	Expect *Expect `json:"expect,omitempty"`
	Reply  Reply   `json:"reply"`
	// Optional turns end the script: a valid implementation may or may not
	// call the model for them, so they are not reported when unconsumed.
	Optional bool `json:"optional,omitempty"`
}

// Reply is the model's answer to one call.
type Reply struct {
	// Text is the assistant text, if any.
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls the model makes, in order.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ProviderResults are results of provider-executed tools the provider
	// reports in this reply (for example after an MCP approval).
	ProviderResults []ProviderResult `json:"providerResults,omitempty"`
	// FinishReason defaults to tool-calls when there are local tool calls,
	// stop otherwise.
	FinishReason string    `json:"finishReason,omitempty"`
	Usage        llm.Usage `json:"usage,omitzero"`
	// Error, when set, answers the call with an HTTP error instead.
	Error *ErrorReply `json:"error,omitempty"`
	// Latency delays the reply (for users' own agents; tests use Gate).
	Latency time.Duration `json:"latency,omitempty"`
	// ChunkSize splits streamed text and tool input into pieces of this many
	// bytes; 0 sends each in one piece.
	ChunkSize int `json:"chunkSize,omitempty"`
	// Gate, when set, holds the reply until the channel is closed or
	// receives, so a test controls when a call returns (and, in stream mode,
	// when the stream ends: the events before the finish are sent first).
	Gate <-chan struct{} `json:"-"`
}

// ToolCall is a tool call in a reply.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// ProviderExecuted marks a call the provider runs itself.
	ProviderExecuted bool `json:"providerExecuted,omitempty"`
	// ApprovalID, for a provider-executed call, makes the provider ask for
	// approval with this id (as OpenAI's mcp_approval_request does).
	ApprovalID string `json:"approvalId,omitempty"`
}

// ProviderResult is a provider-executed tool's result in a reply.
type ProviderResult struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Output     json.RawMessage `json:"output"`
	// ApprovalID names the approval the call ran on, when it needed one
	// (OpenAI's mcp_call carries it as approval_request_id).
	ApprovalID string `json:"approvalId,omitempty"`
}

// ErrorReply is an HTTP error the simulated provider answers with.
type ErrorReply struct {
	Status int `json:"status"`
	// Body is sent verbatim; when empty, a provider envelope is built from
	// Type and Message.
	Body    string `json:"body,omitempty"`
	Type    string `json:"type,omitempty"`
	Message string `json:"message,omitempty"`
}

// Expect is what a turn requires of the prompt it receives. Every field is
// optional; a field left out is not checked.
type Expect struct {
	// Results: the prompt holds a result for each call, of the given type.
	Results []ResultExpect `json:"results,omitempty"`
	// NoResults: the prompt holds no result for these calls.
	NoResults []string `json:"noResults,omitempty"`
	// NoApprovalParts: the prompt holds no approval request or response,
	// except responses of provider-executed calls.
	NoApprovalParts bool `json:"noApprovalParts,omitempty"`
	// ProviderApprovals: the prompt forwards these provider-executed
	// approval responses.
	ProviderApprovals []ProviderApprovalExpect `json:"providerApprovals,omitempty"`
	// Messages: the prompt has exactly this many messages.
	Messages *int `json:"messages,omitempty"`
	// LastRole: the prompt's last message has this role.
	LastRole string `json:"lastRole,omitempty"`
	// Contains: some text or tool output in the prompt contains each string.
	Contains []string `json:"contains,omitempty"`
	// NotContains: no text or tool output in the prompt contains any string.
	NotContains []string `json:"notContains,omitempty"`
	// Tools: the tools offered, in any order.
	Tools []string `json:"tools,omitempty"`
	// Check is the check id blamed when an expectation fails.
	Check string `json:"check,omitempty"`
	// FieldChecks blames another check for the expectations of a field
	// (by its JSON name: "noApprovalParts", "contains", ...).
	FieldChecks map[string]string `json:"fieldChecks,omitempty"`
}

// Checks lists the checks the expectation can blame, each once, in the
// order they first appear.
func (e *Expect) Checks() []string {
	if e == nil {
		return nil
	}
	var out []string
	add := func(c string) {
		for _, x := range out {
			if x == c {
				return
			}
		}
		if c != "" {
			out = append(out, c)
		}
	}
	item := func(own, field string) {
		if own == "" {
			own = e.checkOf(field)
		}
		add(own)
	}
	for _, r := range e.Results {
		c := e.resultChecks(r)
		add(c.present)
		if r.Type != "" {
			add(c.typ)
		}
		if r.Reason != nil {
			add(c.reason)
		}
	}
	for _, p := range e.ProviderApprovals {
		item(p.Check, "providerApprovals")
	}
	for field, set := range map[string]bool{
		"noResults": len(e.NoResults) > 0, "noApprovalParts": e.NoApprovalParts, "messages": e.Messages != nil,
		"lastRole": e.LastRole != "", "contains": len(e.Contains) > 0, "notContains": len(e.NotContains) > 0, "tools": e.Tools != nil,
	} {
		if set {
			add(e.checkOf(field))
		}
	}
	sort.Strings(out)
	return out
}

// ResultExpect is an expected tool result in the prompt.
type ResultExpect struct {
	ToolCallID string `json:"toolCallId"`
	// Type is the output type (json, text, error-text, error-json,
	// execution-denied); empty accepts any.
	Type string `json:"type,omitempty"`
	// Reason, when set, is the execution-denied reason expected.
	Reason *string `json:"reason,omitempty"`
	// Value, when set, is the JSON value expected (compared by value).
	Value json.RawMessage `json:"value,omitempty"`
	// TextContains, when set, must be part of a text or error-text value.
	TextContains string `json:"textContains,omitempty"`
	// Text, when set, must be the whole text or error-text value, exactly
	// (for normative texts such as the skipped-call result).
	Text *string `json:"text,omitempty"`
	// Check, when set, is blamed instead of the Expect's check: for a
	// missing result, and for its value and text.
	Check string `json:"check,omitempty"`
	// TypeCheck, when set, is blamed for a result of another type than
	// Type (an execution-denied type is DEN-01's rule, whatever check
	// wants the result to be there); Check by default.
	TypeCheck string `json:"typeCheck,omitempty"`
	// ReasonCheck, when set, is blamed for a denial reason other than
	// Reason (DEN-02's rule); Check by default.
	ReasonCheck string `json:"reasonCheck,omitempty"`
	// ReasonInText reads the reason from the result's text, whatever its
	// type (for targets whose results carry no type: a denial is an
	// ordinary result whose text carries the reason).
	ReasonInText bool `json:"reasonInText,omitempty"`
}

// ProviderApprovalExpect is an expected forwarded provider approval.
type ProviderApprovalExpect struct {
	ApprovalID string `json:"approvalId"`
	Approved   bool   `json:"approved"`
	// Check, when set, is blamed instead of the Expect's check.
	Check string `json:"check,omitempty"`
}

// Validate reports the first structural problem of the script.
func (s Script) Validate() error {
	if _, err := wire.ParseProfile(string(s.Provider)); err != nil {
		return fmt.Errorf("provider: %w", err)
	}
	for i, t := range s.Turns {
		if err := t.Reply.validate(); err != nil {
			return fmt.Errorf("turns[%d].reply.%w", i, err)
		}
		if i > 0 && s.Turns[i-1].Optional && !t.Optional {
			return fmt.Errorf("turns[%d]: a required turn cannot follow an optional one", i)
		}
	}
	return nil
}

func (r Reply) validate() error {
	if r.Error != nil {
		if r.Error.Status < 400 || r.Error.Status > 599 {
			return fmt.Errorf("error.status: %d is not an HTTP error status", r.Error.Status)
		}
		return nil
	}
	seen := map[string]bool{}
	for i, c := range r.ToolCalls {
		if c.ID == "" {
			return fmt.Errorf("toolCalls[%d].id: missing", i)
		}
		if c.Name == "" {
			return fmt.Errorf("toolCalls[%d].name: missing", i)
		}
		if seen[c.ID] {
			return fmt.Errorf("toolCalls[%d].id: %q is used twice in one reply", i, c.ID)
		}
		seen[c.ID] = true
		if len(c.Input) > 0 && !json.Valid(c.Input) {
			return fmt.Errorf("toolCalls[%d].input: not valid JSON", i)
		}
		if c.ApprovalID != "" && !c.ProviderExecuted {
			return fmt.Errorf("toolCalls[%d].approvalId: only a provider-executed call carries the provider's approval id", i)
		}
	}
	if r.ChunkSize < 0 {
		return fmt.Errorf("chunkSize: must not be negative")
	}
	return nil
}
