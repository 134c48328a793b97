package provider

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/approval-conformance-kit/ack/model"
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

// CallNames answers as CallName does, at every step of conversations that
// grow as a decoder builds them (messages appended, the last one growing).
func TestCallNamesIsCallName(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	roles := []model.Role{model.RoleUser, model.RoleAssistant, model.RoleTool}
	for conv := 0; conv < 2000; conv++ {
		var msgs []model.Message
		var names CallNames
		for step := 0; step < 30; step++ {
			if len(msgs) == 0 || r.Intn(3) == 0 {
				msgs = append(msgs, model.Message{Role: roles[r.Intn(len(roles))]})
			}
			id := fmt.Sprintf("c%d", r.Intn(5))
			last := &msgs[len(msgs)-1]
			if r.Intn(2) == 0 {
				last.Content = append(last.Content, model.ToolCall(id, fmt.Sprintf("tool%d", step), nil))
			} else {
				last.Content = append(last.Content, model.Text("t"))
			}
			ask := fmt.Sprintf("c%d", r.Intn(6))
			if got, want := names.Name(msgs, ask), CallName(msgs, ask); got != want {
				t.Fatalf("step %d: the name of %s is %q, CallName says %q, in %+v", step, ask, got, want, msgs)
			}
		}
	}
}
