package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"
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

// writeJSONString, a chunk at a time, writes what jsonString writes of the
// whole, wherever a chunk's end cuts a character.
func TestWriteJSONStringInChunks(t *testing.T) {
	unit := "é €😀\xff\xc3 a\"b\\\n"
	for _, n := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200_000} {
		in := []byte(strings.Repeat(unit, n/len(unit)+1)[:n])
		var b bytes.Buffer
		if err := writeJSONString(&b, iotest.OneByteReader(bytes.NewReader(in))); err != nil {
			t.Fatal(err)
		}
		if want := jsonString(in); !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%d bytes one at a time: differs from jsonString", n)
		}
		b.Reset()
		if err := writeJSONString(&b, bytes.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		if want := jsonString(in); !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%d bytes: differs from jsonString", n)
		}
	}
}
