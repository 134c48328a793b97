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
func Guard(h http.Handler, l Limits, refuse Refuse) http.Handler {
	l = l.WithDefaults()
	slots := make(chan struct{}, l.InFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		default:
			w.Header().Set("Retry-After", "1")
			refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("%d requests are being served, the most this server serves at once (--max-in-flight); retry", l.InFlight))
			return
		}
		if r.ContentLength > l.RequestBytes {
			w.Header().Set("Connection", "close")
			refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("%v: its Content-Length is %d", &TooLarge{What: "the request body", Limit: l.RequestBytes, Flag: "max-request-bytes"}, r.ContentLength))
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(l.BodyTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline once the body is
// read to its end, or closed.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	if !b.lifted {
		b.lifted = true
		b.lift()
	}
	return b.ReadCloser.Close()
}
