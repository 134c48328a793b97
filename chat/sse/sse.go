// Package sse reads and writes server-sent events (the text/event-stream
// format of the HTML standard) as the chat protocols use them: one JSON
// payload per event in data lines.
package sse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// MaxEventSize bounds one event's data; a longer event is an error rather
// than unbounded memory.
const MaxEventSize = 16 << 20

// Reader reads events from a stream.
type Reader struct {
	br    *bufio.Reader
	max   int
	count int
}

// NewReader returns a reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: MaxEventSize}
}

// Event is one dispatched event.
type Event struct {
	// Name is the event field ("" when absent: the default "message").
	Name string
	// ID is the id field.
	ID string
	// Data is the data lines joined with "\n".
	Data []byte
	// Index counts events from 1, for error messages.
	Index int
}

// ErrTooLarge is returned for an event whose data exceeds MaxEventSize.
var ErrTooLarge = errors.New("sse: event larger than the limit")

// Next returns the next event with data, skipping comments and events
// without data lines. It returns io.EOF at the end of the stream; an event
// cut off by the end of the stream (no blank line after it) is still
// dispatched, as browsers do not, but a server that closes right after its
// last data line means it.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data bytes.Buffer
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				r.count++
				ev.Data, ev.Index = data.Bytes(), r.count
				return ev, nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData {
				r.count++
				ev.Data, ev.Index = data.Bytes(), r.count
				return ev, nil
			}
			ev = Event{}
			continue
		}
		if line[0] == ':' {
			continue // a comment, e.g. a keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > r.max {
				return Event{}, fmt.Errorf("event %d: %w (%d bytes)", r.count+1, ErrTooLarge, r.max)
			}
			data.Write(value)
			hasData = true
		case "event":
			ev.Name = string(value)
		case "id":
			ev.ID = string(value)
		}
	}
}

// readLine reads one line without its terminator (LF, CRLF or CR-LF pairs;
// a lone CR is kept as text, which the chat protocols never send).
func (r *Reader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(buf)+len(chunk) > r.max+64 {
			return nil, fmt.Errorf("event %d: %w (%d bytes)", r.count+1, ErrTooLarge, r.max)
		}
		buf = append(buf, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(buf) > 0 {
			return bytes.TrimRight(buf, "\r"), nil
		}
		return nil, err
	}
	buf = buf[:len(buf)-1]
	return bytes.TrimSuffix(buf, []byte("\r")), nil
}

// WriteData writes one event whose data is payload (which must not contain
// a newline; JSON from encoding/json never does).
func WriteData(w io.Writer, payload []byte) error {
	if bytes.ContainsAny(payload, "\r\n") {
		return errors.New("sse: payload contains a line break")
	}
	buf := make([]byte, 0, len(payload)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, payload...)
	buf = append(buf, "\n\n"...)
	_, err := w.Write(buf)
	return err
}

// WriteJSON writes v as one event's JSON data and calls flush, if set, so
// the event leaves at once.
func WriteJSON(w io.Writer, v any, flush func()) error {
	return WriteNamedJSON(w, "", v, flush)
}

// WriteNamedJSON writes v as the JSON data of one event named name (no
// event line when name is ""), in one write, and calls flush, if set.
func WriteNamedJSON(w io.Writer, name string, v any, flush func()) error {
	if strings.ContainsAny(name, "\r\n") {
		return errors.New("sse: event name contains a line break")
	}
	buf, _ := buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer buffers.Put(buf)
	buf.Reset()
	if name != "" {
		buf.WriteString("event: ")
		buf.WriteString(name)
		buf.WriteByte('\n')
	}
	buf.WriteString("data: ")
	// encoding/json escapes line breaks in strings, and Encode ends the
	// value with the first of the two newlines that end the event.
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		return fmt.Errorf("sse: encode: %w", err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	if flush != nil {
		flush()
	}
	return nil
}

// buffers hold events as they are written.
var buffers sync.Pool
