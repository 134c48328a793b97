package anthropic

import (
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
)

// A request body that decodes encodes again, and nothing panics.
func FuzzDecodeRequest(f *testing.F) {
	body, _ := Codec{}.EncodeRequest(&llm.Request{Messages: []model.Message{
		model.SystemText("s"), model.UserText("hi"),
		{Role: model.RoleAssistant, Content: []model.Part{model.Text("x"), model.ToolCall("c1", "t", []byte(`{"a":1}`))}},
		{Role: model.RoleTool, Content: []model.Part{model.ToolResult("c1", "t", model.DeniedOutput("no"))}},
	}}, true)
	f.Add(body)
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := Codec{}.DecodeRequest(body)
		if err != nil {
			return
		}
		if _, err := (Codec{}).EncodeRequest(d.Request, d.Stream); err != nil {
			t.Fatalf("a decoded request does not encode: %v", err)
		}
	})
}
