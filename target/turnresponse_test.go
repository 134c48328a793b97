package target

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTurnResponseErrorsNameTheMessage(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"messages":[{"role":"assistant","content":[{"type":"text","text":"x"}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","output":{"type":"json","value":1}}]}],"finishReason":"stop"}`, "messages[1].content[0].toolName"},
		{`{"messages":[{"role":"assistant","content":[{"type":"text","text":"x","extra":1}]}],"finishReason":"stop"}`, "messages[0].content[0]"},
		{`{"messages":[],"finishReason":"stop","surprise":true}`, "surprise"},
	} {
		var r TurnResponse
		err := json.Unmarshal([]byte(c.body), &r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %s", c.body, err, c.want)
		}
	}
	var ok TurnResponse
	if err := json.Unmarshal([]byte(`{"messages":[{"role":"assistant","content":[{"type":"text","text":"hi"}]}],"finishReason":"stop","state":{"k":1}}`), &ok); err != nil {
		t.Fatal(err)
	}
	if len(ok.Messages) != 1 || ok.FinishReason != "stop" || string(ok.State) != `{"k":1}` {
		t.Errorf("decoded %+v", ok)
	}
}
