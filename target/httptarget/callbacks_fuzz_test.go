package httptarget

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
)

type echoHarness struct{}

func (echoHarness) Execute(_ context.Context, req target.ExecuteRequest) (json.RawMessage, error) {
	if req.ToolCallID == "boom" {
		return nil, errors.New("the tool failed")
	}
	return req.Input, nil
}

func (echoHarness) Policy(context.Context, target.PolicyRequest) (bool, error) { return true, nil }

// FuzzCallbacks: every callback a target makes (a tool to run, a policy to
// evaluate), whatever its body, gets an answer that fits its schema or the
// error envelope; never a panic.
func FuzzCallbacks(f *testing.F) {
	cb, err := startCallbacks("127.0.0.1:0", limits.Default())
	if err != nil {
		f.Fatal(err)
	}
	defer cb.close()
	tools := []target.Tool{{Name: "t", Approval: target.ApprovalDynamic}}
	release := cb.register(echoHarness{}, tools)
	defer release()
	urls := []string{tools[0].ExecuteURL, tools[0].PolicyURL}
	for i, body := range []string{
		`{"toolCallId":"c1","input":{"path":"/a"}}`,
		`{"toolCallId":"c1","input":{},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Add(uint8(0), []byte(`{"toolCallId":"boom","input":null}`))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		rec := httptest.NewRecorder()
		cb.ServeHTTP(rec, httptest.NewRequest("POST", urls[int(kind)%2], strings.NewReader(string(body))))
		msg := []string{driver.MsgExecuteCallbackResult, driver.MsgPolicyCallbackResult}[int(kind)%2]
		if rec.Code != 200 {
			msg = driver.MsgError
		}
		if err := driver.Validate(msg, rec.Body.Bytes()); err != nil {
			t.Fatalf("%d answer is not a %s (%v): %s", rec.Code, msg, err, rec.Body)
		}
	})
}
