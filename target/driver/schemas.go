package driver

import (
	"embed"
	"fmt"
	"mime"
	"net/http"
	"sync"

	"github.com/approval-conformance-kit/ack/jsonschema"
)

// schemaFiles are docs/schemas/driver/*.schema.json; a test keeps the
// copies in step.
//
//go:generate sh -c "cp ../../docs/schemas/driver/*.schema.json schemas/"
//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// The messages a target sends, by the name of their schema
// (docs/schemas/driver/<name>.schema.json).
const (
	MsgInfo                  = "info"
	MsgTurnResponse          = "turn-response"
	MsgSessionCreated        = "session-created"
	MsgActionResult          = "action-result"
	MsgClientState           = "client-state"
	MsgExecuteCallback       = "execute-callback-request"
	MsgPolicyCallback        = "policy-callback-request"
	MsgError                 = "error"
	MsgTurnRequest           = "turn-request"
	MsgSessionRequest        = "session-request"
	MsgSendRequest           = "send-request"
	MsgApprovalRequest       = "approval-request"
	MsgToolOutputRequest     = "tool-output-request"
	MsgWaitRequest           = "wait-request"
	MsgExecuteCallbackResult = "execute-callback-result"
	MsgPolicyCallbackResult  = "policy-callback-result"
	MsgChatRequest           = "chat-request"
	MsgChatCreated           = "chat-created"
)

var schemas sync.Map // name -> func() (*jsonschema.Schema, error)

// Schema returns the compiled JSON Schema of a driver message.
func Schema(name string) (*jsonschema.Schema, error) {
	f, _ := schemas.LoadOrStore(name, sync.OnceValues(func() (*jsonschema.Schema, error) {
		doc, err := schemaFiles.ReadFile("schemas/" + name + ".schema.json")
		if err != nil {
			return nil, fmt.Errorf("driver protocol: no schema for the message %q", name)
		}
		return jsonschema.Compile(doc)
	}))
	return f.(func() (*jsonschema.Schema, error))()
}

// Validate checks a message's body against its schema; the error names
// the field ("/messages/2/role: ...").
func Validate(name string, body []byte) error {
	s, err := Schema(name)
	if err != nil {
		return err
	}
	return s.Validate(body)
}

// CheckJSON reports a Content-Type that is not application/json.
func CheckJSON(h http.Header) error {
	ct := h.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		if ct == "" {
			return fmt.Errorf("the answer has no Content-Type (want application/json)")
		}
		return fmt.Errorf("the answer's Content-Type is %q, not application/json", ct)
	}
	return nil
}
