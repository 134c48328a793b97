package reference

import (
	"regexp"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference/internal/fault"
)

// DecodeHistory decodes a conversation as the reference runtime accepts it
// from a client: strictly. A malformed approval (a wrong type, a missing id)
// is an *Error with code InvalidMessages that names the message and field.
func (a *Agent) DecodeHistory(data []byte) ([]model.Message, error) {
	if a.faults.Has(fault.LenientApproved) {
		// The mutant reads "approved" the way a careless JavaScript check
		// does: any non-empty string counts as true.
		data = quotedApproved.ReplaceAll(data, []byte(`"approved":true`))
	}
	msgs, err := model.DecodeMessages(data)
	if err != nil {
		return nil, &Error{Code: InvalidMessages, Message: err.Error(), Err: err}
	}
	return msgs, nil
}

var quotedApproved = regexp.MustCompile(`"approved"\s*:\s*"[^"]+"`)
