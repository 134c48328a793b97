package target

import "testing"

func TestFeaturesHas(t *testing.T) {
	f := Features{Modes: []Mode{Stream}, DynamicPolicy: true, DenialPolicy: "abort-remaining"}
	for name, want := range map[string]bool{
		"mode:stream": true, "mode:generate": false, "dynamicPolicy": true, "concurrency": false,
		"denialPolicy:abort-remaining": true, "denialPolicy:independent": false,
		"toolErrors:result": true, "toolErrors:turn-error": false, "nonsense": false,
	} {
		if got := f.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
	if !(Features{}).Has("denialPolicy:independent") {
		t.Error("an undeclared denial policy should count as independent")
	}
}

func TestTurnResponseValidate(t *testing.T) {
	for _, tc := range []struct {
		r  TurnResponse
		ok bool
	}{
		{TurnResponse{FinishReason: "stop"}, true},
		{TurnResponse{}, false},
		{TurnResponse{Error: &TurnError{Code: "ToolNotFound"}}, true},
		{TurnResponse{Error: &TurnError{Code: "Weird"}}, false},
	} {
		if err := tc.r.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: %v", tc.r, err)
		}
	}
}
