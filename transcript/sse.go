package transcript

import (
	"bufio"
	"bytes"
)

// sseFields are the field names of a server-sent events stream.
var sseFields = [][]byte{[]byte("data:"), []byte("event:"), []byte("id:"), []byte("retry:"), []byte(":")}

// isSSE reports whether the input starts as a server-sent events stream
// (an event log pasted as it was received).
func isSSE(br *bufio.Reader) bool {
	head, _ := br.Peek(64)
	head = bytes.TrimLeft(head, " \t\r\n")
	for _, f := range sseFields {
		if bytes.HasPrefix(head, f) {
			return true
		}
	}
	return false
}

// sseReader reads an event stream as the JSON of its events, one per line:
// the framing ("data:", the event, id and retry lines, comments, a final
// [DONE]) is blanked byte for byte, so that offsets, lines and columns stay
// the file's own.
type sseReader struct {
	r *bufio.Reader
	// blank: the rest of the current line is framing.
	blank     bool
	lineStart bool
	// spaces are the bytes of a "data:" still to blank.
	spaces int
}

func newSSEReader(r *bufio.Reader) *sseReader { return &sseReader{r: r, lineStart: true} }

func (s *sseReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if s.lineStart {
			s.lineStart = false
			head, _ := s.r.Peek(16)
			switch {
			case bytes.HasPrefix(head, []byte("data:")):
				// The field name becomes blanks; a [DONE] payload too.
				rest := bytes.TrimLeft(head[5:], " ")
				if bytes.HasPrefix(rest, []byte("[DONE]")) {
					s.blank = true
				} else {
					s.spaces = 5
				}
			case len(head) > 0 && head[0] != '\n' && head[0] != '\r':
				s.blank = true // event:, id:, retry:, a comment, or anything else
			}
		}
		b, err := s.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if s.spaces > 0 { // the "data:" of the line
			s.spaces--
			b = ' '
		}
		switch {
		case b == '\n':
			s.blank, s.lineStart = false, true
		case s.blank && b != '\r':
			b = ' '
		}
		p[n] = b
		n++
	}
	return n, nil
}
