// Package barehttp is the yardstick of the HTTP benchmarks: a bare
// net/http handler that reads a request with the simulator's size limit,
// decodes its JSON with encoding/json and answers a reply recorded from the
// simulator, encoding it again with encoding/json (as generic JSON values),
// event by event with a flush after each when the reply was a stream. With
// Replay it writes the recorded bytes as they are, encoding nothing: a
// stricter yardstick than any server that builds its replies.
package barehttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/approval-conformance-kit/ack/provider"
)

// Handler answers every POST with the recorded reply.
type Handler struct {
	contentType string
	events      []event // the reply, in the pieces the simulator flushed
	replay      bool
}

// event is one piece of a reply: its SSE event name and its data (the
// whole body of a reply that is not a stream), decoded when it is JSON.
type event struct {
	raw   []byte // the event as it was recorded
	name  string
	data  string // data that is not JSON, written as it is
	value any
}

// New returns a handler answering reply: a JSON body, or with stream the
// SSE stream as the simulator wrote it.
func New(reply []byte, stream, replay bool) (*Handler, error) {
	h := &Handler{contentType: "application/json", replay: replay}
	if !stream {
		v, ok := decodeValue(reply)
		if !ok {
			return nil, errors.New("barehttp: the reply is not JSON")
		}
		h.events = []event{{raw: reply, value: v}}
		return h, nil
	}
	h.contentType = "text/event-stream"
	for _, raw := range strings.SplitAfter(string(reply), "\n\n") {
		if raw == "" {
			continue
		}
		ev := event{raw: []byte(raw)}
		for _, line := range strings.Split(strings.TrimSpace(raw), "\n") {
			if name, ok := strings.CutPrefix(line, "event: "); ok {
				ev.name = name
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				ev.value, _ = decodeValue([]byte(data))
				ev.data = data
			}
		}
		h.events = append(h.events, ev)
	}
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, provider.MaxRequestBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", h.contentType)
	if h.contentType == "application/json" {
		if h.replay {
			_, _ = w.Write(h.events[0].raw)
			return
		}
		out, err := json.Marshal(h.events[0].value)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(out)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	for _, ev := range h.events {
		switch {
		case h.replay:
			_, _ = w.Write(ev.raw)
		case ev.value == nil:
			_, _ = io.WriteString(w, "data: "+ev.data+"\n\n")
		default:
			out, err := json.Marshal(ev.value)
			if err != nil {
				return
			}
			if ev.name != "" {
				_, _ = io.WriteString(w, "event: "+ev.name+"\n")
			}
			_, _ = io.WriteString(w, "data: ")
			_, _ = w.Write(out)
			_, _ = io.WriteString(w, "\n\n")
		}
		if f != nil {
			f.Flush()
		}
	}
}

// decodeValue decodes JSON keeping numbers as written.
func decodeValue(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// SameJSON reports whether two replies hold the same JSON, event by event
// for streams: what a handler answers compared with what was recorded.
func SameJSON(a, b []byte, stream bool) bool {
	if !stream {
		return jsonEqual(a, b)
	}
	ea, eb := strings.Split(strings.TrimSpace(string(a)), "\n\n"), strings.Split(strings.TrimSpace(string(b)), "\n\n")
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		la, lb := strings.Split(ea[i], "\n"), strings.Split(eb[i], "\n")
		if len(la) != len(lb) {
			return false
		}
		for j := range la {
			da, oka := strings.CutPrefix(la[j], "data: ")
			db, okb := strings.CutPrefix(lb[j], "data: ")
			if oka != okb || (oka && da != db && !jsonEqual([]byte(da), []byte(db))) || (!oka && la[j] != lb[j]) {
				return false
			}
		}
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	va, oka := decodeValue(a)
	vb, okb := decodeValue(b)
	if !oka || !okb {
		return false
	}
	ja, _ := json.Marshal(va) // decoded JSON always encodes
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
