package canonical

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// A request body that decodes encodes again into a body that decodes to the
// same request (nothing is lost), and nothing panics.
func FuzzDecodeRequest(f *testing.F) {
	body, _ := Codec{}.EncodeRequest(&llm.Request{Messages: []model.Message{
		model.SystemText("s"), model.UserText("hi"),
		{Role: model.RoleAssistant, Content: []model.Part{model.Text("x"), model.ToolCall("c1", "t", []byte(`{"a":1}`)), model.ApprovalRequest("a1", "c1")}},
		{Role: model.RoleTool, Content: []model.Part{model.ApprovalResponse("a1", false, "no"), model.ToolResult("c1", "t", model.DeniedOutput("no"))}},
	}, Tools: []llm.ToolDef{{Name: "t", InputSchema: []byte(`{"type":"object"}`)}}}, true)
	f.Add(body)
	f.Add([]byte(`{"messages":[],"options":{"toolChoice":{"type":"tool","toolName":"t"},"seed":1}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Codec{}.DecodeRequest(body)
		if err != nil {
			return
		}
		again, err := Codec{}.EncodeRequest(d.Request, d.Stream)
		if err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
		d2, err := Codec{}.DecodeRequest(again)
		if err != nil {
			t.Fatalf("a re-encoded request does not decode: %v\n%s", err, again)
		}
		if diff := cmp.Diff(d.Request, d2.Request); diff != "" {
			t.Fatalf("the request changed on the way (-first +second):\n%s", diff)
		}
	})
}
