package reference

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
)

// sign binds an approval request to its call: id, tool name and input.
// Whitespace and key order in the input do not matter.
func (a *Agent) sign(approvalID, toolCallID, toolName string, input json.RawMessage) string {
	mac := hmac.New(sha256.New, a.secret)
	mac.Write([]byte("ack-approval-v1\n"))
	mac.Write([]byte(approvalID + "\n" + toolCallID + "\n" + toolName + "\n"))
	mac.Write(canonicalJSON(input))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// verify reports whether sig is this agent's signature of the call.
func (a *Agent) verify(sig, approvalID, toolCallID, toolName string, input json.RawMessage) bool {
	if sig == "" {
		return false
	}
	want := a.sign(approvalID, toolCallID, toolName, input)
	return hmac.Equal([]byte(sig), []byte(want))
}

// canonicalJSON re-encodes a JSON value with sorted keys and no spaces.
// Invalid JSON is returned as it came, so it can only match itself.
func canonicalJSON(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return raw
	}
	return out
}
