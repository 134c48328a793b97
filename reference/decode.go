package reference

import (
	"encoding/json"

	"github.com/approval-conformance-kit/ack/model"
)

// DecodeHistory decodes a conversation as the reference runtime accepts it
// from a client: strictly. A malformed approval (a wrong type, a missing id)
// is an *Error with code InvalidMessages that names the message and field.
func (a *Agent) DecodeHistory(data []byte) ([]model.Message, error) {
	if a.lenient {
		data = dropUnknownFields(data)
	}
	msgs, err := model.DecodeMessages(data)
	if err != nil {
		return nil, &Error{Code: InvalidMessages, Message: err.Error(), Err: err}
	}
	return msgs, nil
}

// knownFields are the fields of the canonical model a part may carry.
var knownFields = map[string]bool{
	"type": true, "text": true, "toolCallId": true, "toolName": true, "input": true, "output": true,
	"providerExecuted": true, "approvalId": true, "approved": true, "reason": true, "editedInput": true, "signature": true,
	"providerOptions": true, "data": true, "mediaType": true, "filename": true, "isAutomatic": true,
}

// dropUnknownFields removes the fields a part does not know from a JSON
// conversation, so that the strict decoder judges the rest. Input that is
// not an array of messages is left as it is, for the decoder to refuse.
func dropUnknownFields(data []byte) []byte {
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(data, &msgs) != nil {
		return data
	}
	for _, m := range msgs {
		var parts []map[string]json.RawMessage
		if json.Unmarshal(m["content"], &parts) != nil {
			continue
		}
		for _, p := range parts {
			for k := range p {
				if !knownFields[k] {
					delete(p, k)
				}
			}
		}
		if b, err := json.Marshal(parts); err == nil {
			m["content"] = b
		}
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		return data
	}
	return out
}
