//go:build !mutation

package chatserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/protocols"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/reference/chatclient"
	"github.com/approval-conformance-kit/ack/reference/chatserver"
	"github.com/approval-conformance-kit/ack/simulator"
)

// The reference client and the reference server, end to end over loopback
// in every protocol: two calls that need approval, one approved and one
// denied, a continuation sent once, the tool run once, the model told of the
// denial, and the final text shown.
func TestEndToEnd(t *testing.T) {
	for _, codec := range protocols.All() {
		t.Run(codec.Name(), func(t *testing.T) {
			keepB := "keep b"
			sim, err := simulator.New(simulator.Script{Turns: []simulator.Turn{
				{Reply: simulator.Reply{Text: "Deleting both.", ToolCalls: []simulator.ToolCall{
					{ID: "call_A", Name: "deleteFile", Input: json.RawMessage(`{"path":"/a"}`)},
					{ID: "call_B", Name: "deleteFile", Input: json.RawMessage(`{"path":"/b"}`)},
				}}},
				{Expect: &simulator.Expect{Results: []simulator.ResultExpect{
					{ToolCallID: "call_A", Type: string(model.OutputJSON)},
					{ToolCallID: "call_B", Type: string(model.OutputExecutionDenied), Reason: &keepB},
				}}, Reply: simulator.Reply{Text: "Deleted a; kept b."}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			var runs atomic.Int32
			srv := httptest.NewServer(&chatserver.Server{Agent: reference.New(), Codec: codec, Model: sim, Tools: []reference.Tool{{
				Name: "deleteFile", Approval: reference.Always,
				Execute: func(_ context.Context, c reference.Call) (json.RawMessage, error) {
					runs.Add(1)
					return json.RawMessage(`{"deleted":true}`), nil
				},
			}}})
			defer srv.Close()

			client := chatclient.New(&chatclient.HTTPTransport{URL: srv.URL, Codec: codec})
			defer client.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			if err := client.SendMessage("delete a and b"); err != nil {
				t.Fatal(err)
			}
			st, err := client.WaitIdle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]string{}
			for _, m := range st.Messages {
				for _, p := range m.Parts {
					if p.Type == chat.PartToolCall && p.State == chat.ApprovalRequested {
						ids[p.ToolCallID] = p.Approval.ID
						if p.Approval.Signature == "" {
							t.Errorf("%s: the approval request lost its signature", p.ToolCallID)
						}
					}
				}
			}
			if len(ids) != 2 || st.Error != "" {
				t.Fatalf("approvals shown = %v (error %q)\n%+v", ids, st.Error, st.Messages)
			}
			if err := client.AddToolApprovalResponse(ids["call_A"], true, ""); err != nil {
				t.Fatal(err)
			}
			if st := client.State(); st.Requests != 1 {
				t.Fatalf("the first answer sent a request (%d requests)", st.Requests)
			}
			if err := client.AddToolApprovalResponse(ids["call_B"], false, "keep b"); err != nil {
				t.Fatal(err)
			}
			st, err = client.WaitIdle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Requests != 2 || st.Error != "" {
				t.Fatalf("requests = %d, error %q", st.Requests, st.Error)
			}
			if runs.Load() != 1 {
				t.Fatalf("the tool ran %d times, want 1", runs.Load())
			}
			if p := sim.Problems(); len(p) > 0 || sim.Remaining() != 0 {
				t.Fatalf("simulator problems %v, %d turns left", p, sim.Remaining())
			}
			var text strings.Builder
			states := map[string]chat.ToolState{}
			for _, m := range st.Messages {
				for _, p := range m.Parts {
					text.WriteString(p.Text)
					if p.Type == chat.PartToolCall {
						states[p.ToolCallID] = p.State
					}
				}
			}
			if !strings.Contains(text.String(), "Deleted a; kept b.") {
				t.Errorf("the final text is missing: %q", text.String())
			}
			if states["call_A"] != chat.OutputAvailable {
				t.Errorf("call_A ended %s, want output-available", states["call_A"])
			}
			if s := states["call_B"]; s != chat.OutputDenied && s != chat.ApprovalResponded {
				t.Errorf("call_B ended %s, want output-denied or approval-responded", s)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	codec, _ := protocols.Lookup(chat.ProtocolUIMessageStream)
	srv := httptest.NewServer(&chatserver.Server{Agent: reference.New(), Codec: codec})
	defer srv.Close()
	for _, tc := range []struct {
		method, body string
		status       int
		want         string
	}{
		{"GET", "", 405, "only POST"},
		{"POST", "{", 400, "does not decode"},
		{"POST", `{"messages":[{"id":"1","role":"assistant","parts":[{"type":"tool-x","toolCallId":"c","state":"bogus"}]}]}`, 400, "messages[0].parts[0].state"},
		{"POST", `{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"` + strings.Repeat("x", chatserver.MaxRequestBody) + `"}]}]}`, 413, "reading the body"},
	} {
		req := httptest.NewRequest(tc.method, srv.URL, strings.NewReader(tc.body))
		req.RequestURI = ""
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s %.40q: %d %q, want %d with %q", tc.method, tc.body, resp.StatusCode, b.String(), tc.status, tc.want)
		}
	}
}
