package record

import (
	"encoding/json"
	"testing"
)

// jsonString reads back as the string encoding/json reads from its own
// encoding of the same bytes: escapes, control characters, invalid UTF-8.
func TestJSONString(t *testing.T) {
	for _, in := range []string{"", "plain", "data: {\"a\":\"b\\\\c\"}\n\n", "\x00\x1f\x7f\t\r", "é €\u2028\u2029 😀", "\xff\xfe bad \xc3", "<&>"} {
		var got, want string
		if err := json.Unmarshal(jsonString([]byte(in)), &got); err != nil {
			t.Fatalf("%q: %v (%s)", in, err, jsonString([]byte(in)))
		}
		std, _ := json.Marshal(in)
		_ = json.Unmarshal(std, &want)
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
