package limits

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// Refuse writes a server's own error answer (its API's error body) with
// a status and a message.
type Refuse func(w http.ResponseWriter, r *http.Request, status int, msg string)

// Server returns an http.Server for h that keeps the bounds every server
// of the kit keeps, whatever h does: headers within HeaderTimeout, a body
// within BodyTimeout, kept-alive connections closed after IdleTimeout
// without a request, and what Guard adds. refuse writes the server's own
// error answers.
func (l Limits) Server(h http.Handler, refuse Refuse) *http.Server {
	l = l.WithDefaults()
	return &http.Server{
		Handler:           Guard(h, l, refuse),
		ReadHeaderTimeout: l.HeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    1 << 20,
	}
}

// Guard wraps h: at most l.InFlight requests are served at once (the next
// gets 503 at once, with Retry-After), a request that declares a
// Content-Length over l.RequestBytes gets 413 before a byte of its body is
// read, and a body must arrive within l.BodyTimeout (the connection's read
// deadline, lifted once the body is read, so that a long answer is never
// cut by it).
//
// A refused request's connection is closed after the answer, and so is
// one whose body did not arrive in time or was not read to its end: what
// is left of the body is never read. (net/http reads up to 256 KiB of an
// unread body, with no deadline, to keep a connection alive: a client
// that trickles its body would hold the connection as long as it likes.)
func Guard(h http.Handler, l Limits, refuse Refuse) http.Handler {
	l = l.WithDefaults()
	slots := make(chan struct{}, l.InFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", "1")
			refuseAndClose(w, r, refuse, http.StatusServiceUnavailable, fmt.Sprintf("%d requests are being served, the most this server serves at once (--max-in-flight); retry", l.InFlight))
			return
		}
		if r.ContentLength > l.RequestBytes {
			refuseAndClose(w, r, refuse, http.StatusRequestEntityTooLarge, fmt.Sprintf("%v: its Content-Length is %d", &TooLarge{What: "the request body", Limit: l.RequestBytes, Flag: "max-request-bytes"}, r.ContentLength))
			return
		}
		if hasBody(r) {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(l.BodyTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body,
					lift: func() { _ = rc.SetReadDeadline(time.Time{}) },
					end:  func() { closeAfter(w) },
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

func hasBody(r *http.Request) bool { return r.Body != nil && r.Body != http.NoBody }

// refuseAndClose writes a refusal and closes the connection after it,
// reading nothing more of the request's body.
func refuseAndClose(w http.ResponseWriter, r *http.Request, refuse Refuse, status int, msg string) {
	w.Header().Set("Connection", "close")
	refuse(w, r, status, msg)
	if hasBody(r) {
		closeAfter(w)
	}
}

// closeAfter closes the connection after the answer and ends any read of
// the request's body at once: what is left of it is not read.
func closeAfter(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// deadlineBody lifts the connection's read deadline once the body is
// read to its end; a body that fails first (its deadline passed, the
// client went away) closes the connection.
type deadlineBody struct {
	io.ReadCloser
	lift, end func()
	done      bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		if err == io.EOF {
			b.lift()
		} else {
			b.end()
		}
	}
	return n, err
}

// Close before the body's end lets net/http read what is left, within the
// body's deadline: the connection lives on if it all came, and is closed
// if it did not.
func (b *deadlineBody) Close() error {
	if b.done {
		return b.ReadCloser.Close()
	}
	b.done = true
	err := b.ReadCloser.Close()
	if err == nil {
		b.lift()
	} else {
		b.end()
	}
	return err
}
