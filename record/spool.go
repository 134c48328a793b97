package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// window is what of an answer the proxy holds in memory: the rest of a
// streamed answer (up to MaxResponse) goes to a temporary file, so that
// what a stream costs the proxy's memory does not grow with its length.
const window = 256 << 10

// spool keeps the first bytes of an answer, up to a limit: the first
// window in memory, the rest of a stream in a temporary file that no
// other process sees (it is unlinked as soon as it is made, where the
// system allows: a proxy killed at any moment leaves nothing behind).
type spool struct {
	limit  int64
	stream bool // past the window, to a file (a JSON answer stays in memory)
	mem    []byte
	file   *os.File
	remove string // the file's name, when it could not be unlinked at once
	n      int64
	cut    bool
	err    error // the file failed: what came after is cut
}

// Write keeps what of b fits under the limit; it never fails (a spool
// that cannot keep more marks itself cut).
func (s *spool) Write(b []byte) {
	if room := s.limit - s.n; int64(len(b)) > room {
		b, s.cut = b[:max(room, 0)], true
	}
	if len(b) == 0 {
		return
	}
	if s.file == nil && (!s.stream || len(s.mem)+len(b) <= window) {
		s.mem = append(s.mem, b...)
		s.n += int64(len(b))
		return
	}
	if s.file == nil && s.err == nil {
		s.file, s.err = os.CreateTemp("", "ack-record-*")
		if s.err == nil && os.Remove(s.file.Name()) != nil {
			s.remove = s.file.Name()
		}
	}
	if s.err == nil {
		_, s.err = s.file.Write(b)
	}
	if s.err != nil {
		s.cut = true
		return
	}
	s.n += int64(len(b))
}

// inMemory reports whether all that was kept is in memory.
func (s *spool) inMemory() bool { return s.file == nil }

// reader reads what was kept, from its start.
func (s *spool) reader() (io.Reader, error) {
	if s.file == nil {
		return bytes.NewReader(s.mem), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(s.mem), io.LimitReader(s.file, s.n-int64(len(s.mem)))), nil
}

// note says why the spool cut the answer short of its limit, if it did.
func (s *spool) note() string {
	if s.err == nil {
		return ""
	}
	return fmt.Sprintf("the answer past its first %d bytes could not be kept for the journal: %v", s.n, s.err)
}

// close lets what was kept go.
func (s *spool) close() {
	s.mem = nil
	if s.file != nil {
		s.file.Close()
		if s.remove != "" {
			os.Remove(s.remove)
		}
		s.file = nil
	}
}

// writeJSONString writes what r gives as a JSON string, as jsonString
// does, a chunk at a time: a character cut by a chunk's end waits for the
// next chunk.
func writeJSONString(w io.Writer, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	buf := make([]byte, 64<<10)
	out := make([]byte, 0, 80<<10)
	carry := 0
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	for {
		n, err := br.Read(buf[carry:])
		n += carry
		end := n
		if err == nil {
			end = wholeRunes(buf[:n])
		}
		if end > 0 {
			out = appendEscaped(out[:0], buf[:end])
			if _, werr := w.Write(out); werr != nil {
				return werr
			}
		}
		carry = copy(buf, buf[end:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, `"`)
	return err
}

// wholeRunes returns how much of b ends on a character's end: b less a
// last character it holds only the start of.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}
