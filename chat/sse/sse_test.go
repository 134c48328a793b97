package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t *testing.T, in string) []string {
	t.Helper()
	r := NewReader(strings.NewReader(in))
	var out []string
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, string(ev.Data))
	}
}

func TestReaderFraming(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"plain", "data: {\"a\":1}\n\ndata: 2\n\n", []string{`{"a":1}`, "2"}},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", []string{"x", "y"}},
		{"no space", "data:x\n\n", []string{"x"}},
		{"multi-line", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"comments and fields", ": ping\nevent: message\nid: 7\nretry: 10\ndata: z\n\n", []string{"z"}},
		{"empty events skipped", "\n\nevent: x\n\ndata: q\n\n", []string{"q"}},
		{"cut at end", "data: last", []string{"last"}},
		{"done marker", "data: [DONE]\n\n", []string{"[DONE]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(t, c.in)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestReaderIndexAndFields(t *testing.T) {
	r := NewReader(strings.NewReader("event: e\nid: 9\ndata: a\n\ndata: b\n\n"))
	ev, err := r.Next()
	if err != nil || ev.Name != "e" || ev.ID != "9" || ev.Index != 1 {
		t.Fatalf("first = %+v, %v", ev, err)
	}
	ev, err = r.Next()
	if err != nil || ev.Name != "" || ev.Index != 2 {
		t.Fatalf("second = %+v, %v", ev, err)
	}
}

func TestReaderLimit(t *testing.T) {
	r := NewReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	r.max = 10
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	r = NewReader(strings.NewReader(strings.Repeat("data: xxxx\n", 10) + "\n"))
	r.max = 20
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "event 1") {
		t.Fatalf("err = %v, want ErrTooLarge naming event 1", err)
	}
}

func TestWriteData(t *testing.T) {
	var b bytes.Buffer
	if err := WriteData(&b, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if b.String() != "data: {\"x\":1}\n\n" {
		t.Fatalf("wrote %q", b.String())
	}
	if err := WriteData(&b, []byte("a\nb")); err == nil {
		t.Fatal("a payload with a newline must be refused")
	}
}

func FuzzReader(f *testing.F) {
	f.Add("data: x\n\n")
	f.Add(": c\r\ndata:y\r\n\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReader(strings.NewReader(in))
		for i := 0; i < 1000; i++ {
			if _, err := r.Next(); err != nil {
				return
			}
		}
	})
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// An event leaves in one write, named or not, and reads back.
func TestWriteNamedJSON(t *testing.T) {
	var w countingWriter
	flushed := 0
	if err := WriteNamedJSON(&w, "message_start", map[string]string{"text": "a\nb"}, func() { flushed++ }); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&w, []int{1}, nil); err != nil {
		t.Fatal(err)
	}
	want := "event: message_start\ndata: {\"text\":\"a\\nb\"}\n\ndata: [1]\n\n"
	if w.String() != want || w.writes != 2 || flushed != 1 {
		t.Fatalf("wrote %q in %d writes, %d flushes; want %q in 2 writes, 1 flush", w.String(), w.writes, flushed, want)
	}
	if err := WriteNamedJSON(&w, "a\nb", 1, nil); err == nil {
		t.Fatal("an event name with a line break was written")
	}
	if err := WriteJSON(&w, func() {}, nil); err == nil {
		t.Fatal("a value JSON cannot encode was written")
	}
}
