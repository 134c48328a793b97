package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: any input is read or refused with an *Error, never a panic;
// with and without Keep, the same requests.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("../lint/testdata/*/*")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"messages":[`))
	f.Add([]byte(`[{"role":"tool","content":[]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n, kept int
		err := Read(bytes.NewReader(data), Options{}, func(*Request) error { n++; return nil })
		var te *Error
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("error %v is not a *transcript.Error", err)
		}
		errKeep := Read(bytes.NewReader(data), Options{Keep: true}, func(*Request) error { kept++; return nil })
		if (err == nil) != (errKeep == nil) || n != kept {
			t.Fatalf("without Keep: %d requests, %v; with Keep: %d requests, %v", n, err, kept, errKeep)
		}
		if err == nil {
			_, _ = ReadConversations(bytes.NewReader(data), Options{})
		}
	})
}

// A tool whose function has no name (found by FuzzRead) reads the same
// with and without Keep: one error, at the position of the tools.
func TestNamelessToolOneVerdict(t *testing.T) {
	data := []byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\n \"tools\":[{\"type\":\"function\",\"function\":{\"parameters\":{}}}]}")
	want := int64(bytes.Index(data, []byte(`[{"type":"function"`)))
	for _, keep := range []bool{false, true} {
		err := Read(bytes.NewReader(data), Options{Keep: keep}, func(*Request) error { return nil })
		var te *Error
		if !errors.As(err, &te) || te.Offset != want || !strings.Contains(te.Msg, "tools[0].function.name: missing") {
			t.Errorf("keep %v: %v, want byte %d: tools[0].function.name: missing", keep, err, want)
		}
	}
}
