package reference

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies a turn error. The codes are those of the driver protocol.
type Code string

// The error codes.
const (
	// ToolkitRequired: approvals are pending but no tools were given.
	ToolkitRequired Code = "ToolkitRequired"
	// ToolNotFound: an approved call names a tool not in the toolkit.
	ToolNotFound Code = "ToolNotFound"
	// InvalidApproval: an approval request was not issued by this runtime,
	// or its call was altered after it was issued.
	InvalidApproval Code = "InvalidApproval"
	// MissingToolResults: a call in the history has neither a result nor an
	// answered approval, so the model cannot be called.
	MissingToolResults Code = "MissingToolResults"
	// InvalidMessages: the history is malformed.
	InvalidMessages Code = "InvalidMessages"
	// ToolExecution: a tool failed in a way that fails the turn.
	ToolExecution Code = "ToolExecution"
	// ModelError: the model call failed.
	ModelError Code = "Model"
	// Other: anything else.
	Other Code = "Other"
)

// Error is a turn error.
type Error struct {
	Code    Code
	Message string
	// Tools names the tools concerned (the pending approvals of
	// ToolkitRequired, the missing tool of ToolNotFound).
	Tools []string
	// Available lists the toolkit's tools, for ToolNotFound.
	Available []string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of err, Other if it is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Other
}

func toolkitRequired(names []string) *Error {
	return &Error{Code: ToolkitRequired, Tools: names,
		Message: "Toolkit required to resolve pending tool approvals: " + strings.Join(names, ", ")}
}

func toolNotFound(name string, available []string) *Error {
	return &Error{Code: ToolNotFound, Tools: []string{name}, Available: available,
		Message: fmt.Sprintf("tool %q is not in the toolkit (available: %s)", name, strings.Join(available, ", "))}
}
