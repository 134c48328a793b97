package events

import (
	"encoding/json"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
)

func TestFromMessages(t *testing.T) {
	denied := model.ToolResult("c0", "deleteFile", model.DeniedOutput("no"))
	ran := model.ToolResult("c1", "readFile", model.JSONOutput(json.RawMessage(`{"text":"x"}`)))
	msgs := []model.Message{
		{Role: model.RoleTool, Content: []model.Part{denied}},
		{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall("c1", "readFile", json.RawMessage(`{}`))}},
		{Role: model.RoleTool, Content: []model.Part{ran}},
		{Role: model.RoleAssistant, Content: []model.Part{
			model.Text("deleting"),
			model.ApprovalRequest("a2", "c2"),
			model.ToolCall("c2", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
		}},
	}
	got := FromMessages(msgs, "tool-calls")
	want := []string{
		"tool-result c0", "start-step", "tool-call c1", "tool-result c1", "finish-step tool-calls",
		"start-step", "text-delta deleting", "tool-call c2", "tool-approval-request c2", "finish-step tool-calls",
		"finish tool-calls",
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		s := string(e.Type)
		switch {
		case e.Part != nil:
			s += " " + e.Part.ToolCallID
		case e.Text != "":
			s += " " + e.Text
		case e.FinishReason != "":
			s += " " + e.FinishReason
		}
		if s != want[i] {
			t.Errorf("event %d: %q, want %q", i, s, want[i])
		}
	}
	if got[0].Part == &msgs[0].Content[0] {
		t.Error("an event shares its part with the message")
	}
}

func TestFromMessagesTextOnly(t *testing.T) {
	got := FromMessages([]model.Message{{Role: model.RoleAssistant, Content: []model.Part{model.Text("hi")}}}, "stop")
	if len(got) != 4 || got[2].FinishReason != "stop" || got[3].Type != model.EventFinish {
		t.Errorf("events %+v", got)
	}
}
