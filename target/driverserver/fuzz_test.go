package driverserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driver"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/inprocess"
)

// refuse is a transport that reaches nothing: callbacks named by a fuzzed
// turn go nowhere.
type refuse struct{}

func (refuse) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in the fuzz test")
}

// FuzzRequests: every driver request the adapter side reads (a turn, a
// session, send, approval, tool-output, wait), whatever its body, gets an
// answer: a 2xx, or an error envelope that fits its schema; never a panic.
func FuzzRequests(f *testing.F) {
	h := driverserver.NewHandler(inprocess.New(reference.New(), "reference"),
		func(target.ModelEndpoint) (llm.Model, error) { return simulator.New(simulator.Script{}) },
		driverserver.WithCallbackClient(&http.Client{Transport: refuse{}}))
	defer h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", driver.PathSessions, strings.NewReader(`{"chatURL":"http://127.0.0.1:1/chat","protocol":"ui-message-stream","tools":[]}`)))
	var created driver.SessionCreated
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.SessionID == "" {
		f.Fatalf("a session: %d %s", rec.Code, rec.Body)
	}
	session := driver.PathSessions + "/" + created.SessionID
	paths := []string{driver.PathTurn, driver.PathSessions, session + "/send", session + "/approval", session + "/tool-output", session + "/wait"}
	for i, body := range []string{
		`{"mode":"generate","model":{"baseURL":"http://127.0.0.1:1/v1","api":"openai-chat"},"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","approval":"always","executeURL":"http://127.0.0.1:1/x"}]}`,
		`{"chatURL":"http://127.0.0.1:1/chat","protocol":"ag-ui","tools":[]}`,
		`{"text":"hi"}`, `{"approvalId":"a","approved":true,"reason":"no"}`, `{"toolCallId":"c","output":{"ok":true}}`,
		`{"until":"idle","timeoutMs":1}`,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Add(uint8(0), []byte(`{"mode":"stream","options":{"maxSteps":1000000}}`))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req := httptest.NewRequest("POST", paths[int(kind)%len(paths)], strings.NewReader(string(body))).WithContext(ctx)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 == 2 {
			if rec.Code != http.StatusNoContent && !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%d answer is not JSON: %s", rec.Code, rec.Body)
			}
			return
		}
		if err := driver.Validate(driver.MsgError, rec.Body.Bytes()); err != nil {
			t.Fatalf("%d answer is not the error envelope (%v): %s", rec.Code, err, rec.Body)
		}
	})
}
