package provider

import (
	"encoding/json"
	"testing"
)

var stringCases = []string{
	`"plain"`, `""`, `  "spaced"  `, `"esc\"aped"`, `"line\nbreak"`, `"caf\u00e9"`, "\"caf\xc3\xa9\"", "\"bad\xff\"",
	`null`, ` null `, `nul`, `"unterminated`, `"a" "b"`, `"a" x`, `[]`, `{}`, `["a"]`, `12`, `true`, ``, ` `, "\"tab\t\"", `"\u0000"`,
}

// UnmarshalString is json.Unmarshal into a string, faster.
func TestUnmarshalStringIsJSONUnmarshal(t *testing.T) {
	for _, in := range stringCases {
		var want string
		wantOK := json.Unmarshal([]byte(in), &want) == nil
		got, ok := UnmarshalString([]byte(in))
		if ok != wantOK || got != want {
			t.Errorf("UnmarshalString(%q) = %q, %v; json.Unmarshal gives %q, %v", in, got, ok, want, wantOK)
		}
	}
}

// OutputFromText skips the parse only of text no JSON value starts as.
func TestMayBeJSONValue(t *testing.T) {
	for _, in := range append(stringCases, `{"a":1}`, ` [1]`, `-1`, `0`, `false`, `Deleted.`, `"quoted"`, "\n\t{}", `1e400`) {
		var v any
		if json.Unmarshal([]byte(in), &v) == nil && !mayBeJSONValue(in) {
			if _, str := v.(string); !str {
				t.Errorf("%q is JSON but was taken for text", in)
			}
		}
	}
}

func FuzzUnmarshalString(f *testing.F) {
	for _, in := range stringCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want string
		wantOK := json.Unmarshal(in, &want) == nil
		if got, ok := UnmarshalString(in); ok != wantOK || got != want {
			t.Fatalf("UnmarshalString(%q) = %q, %v; json.Unmarshal gives %q, %v", in, got, ok, want, wantOK)
		}
		var v any
		if json.Unmarshal(in, &v) == nil && !mayBeJSONValue(string(in)) {
			if _, str := v.(string); !str {
				t.Fatalf("%q is JSON but was taken for text", in)
			}
		}
	})
}
