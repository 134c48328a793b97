package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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
