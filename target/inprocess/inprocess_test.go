package inprocess

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/target"
)

type failingModel struct{}

func (failingModel) Generate(context.Context, *llm.Request) (*llm.Response, error) {
	return nil, errors.New("connection reset")
}

func (failingModel) Stream(context.Context, *llm.Request, func(llm.StreamEvent) error) error {
	return errors.New("connection reset")
}

type noHarness struct{ target.Harness }

// A failed turn's message says what failed once: its code is the code,
// not a prefix of the message ("Model: Model: ...").
func TestTurnErrorMessageDoesNotRepeatItsCode(t *testing.T) {
	resp, err := RunTurn(context.Background(), reference.New(), &target.TurnRequest{
		Mode: target.Generate, Model: target.ModelEndpoint{Local: failingModel{}}, Harness: noHarness{},
		Messages: json.RawMessage(`[{"role":"user","content":"hi"}]`),
	})
	if err != nil {
		t.Fatal(err)
	}
	e := resp.Error
	if e == nil || e.Code != "Model" || strings.HasPrefix(e.Message, "Model") || !strings.Contains(e.Message, "connection reset") {
		t.Errorf("turn error %+v", e)
	}
	if got := "the turn failed with " + e.Code + ": " + e.Message; strings.Count(got, "Model") != 1 {
		t.Errorf("%q", got)
	}
}
