package agui

import "testing"

// canonicalJSON must write what TanStack AI's canonicalInterruptJson writes
// (the expectations are that function's output in @tanstack/ai 0.58).
func TestCanonicalJSON(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{map[string]any{"b": 1.5, "a": []any{true, nil, "x"}, "B": map[string]any{}}, `{"B":{},"a":[true,null,"x"],"b":1.5}`},
		{"<a & \"b\"\n\u0001\u2028>", `"<a & \"b\"\n\u0001` + "\u2028" + `>"`},
		{map[string]any{"\uffff": 1.0, "\U0001F600": 2.0}, `{"` + "\U0001F600" + `":2,"` + "\uffff" + `":1}`},
		{1e21, `1e+21`},
		{0.000001, `0.000001`},
	} {
		if got := canonicalJSON(tc.in); got != tc.want {
			t.Errorf("canonicalJSON(%#v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
