// Package limits holds the bounds the kit's HTTP servers enforce, so that
// no client, target or script can make one hold a connection, a body or a
// journal without end: how long a request's headers may take, how large a
// request, a reply or a journal may grow, how many model calls a turn or a
// conversation may make, how many sessions may be open and for how long
// one may sit unused. Each has a default and a command-line flag.
//
// Its clients' side is Send: a request a server refused with 503 at its
// bound of requests in flight is sent again, with backoff, within the
// call's timeout.
package limits

import (
	"flag"
	"fmt"
	"io"
	"time"
)

// Limits are the bounds of a server. A zero field takes its default.
type Limits struct {
	// HeaderTimeout bounds how long a client may take to send a request's
	// headers (half-sent requests do not hold a connection for ever).
	HeaderTimeout time.Duration
	// RequestBytes bounds a request body the server reads (413 beyond).
	RequestBytes int64
	// ReplyBytes bounds a reply the server reads from elsewhere (a model
	// reply, JSON or streamed; a target's or a callback's answer) or
	// writes (a turn's answer).
	ReplyBytes int64
	// JournalBytes bounds the request bodies a conversation's journal keeps
	// (a simulated model's calls, refused ones included).
	JournalBytes int64
	// Steps bounds the model calls of one agent turn (a turn's
	// options.maxSteps may not ask for more).
	Steps int
	// Calls bounds the model calls one simulated conversation answers.
	Calls int
	// Sessions bounds the client sessions (or conversations) open at once.
	Sessions int
	// SessionIdle closes a session unused for this long.
	SessionIdle time.Duration
	// BodyTimeout bounds how long a client may take to send a request's
	// body, once its headers are in (a body trickled a byte at a time
	// does not hold a connection and its buffer for ever).
	BodyTimeout time.Duration
	// InFlight bounds the requests a server serves at once (more get 503
	// at once): with the per-request bounds, it bounds what the server
	// holds in total.
	InFlight int
}

// The defaults.
const (
	DefaultHeaderTimeout = 10 * time.Second
	DefaultRequestBytes  = 16 << 20
	DefaultReplyBytes    = 16 << 20
	DefaultJournalBytes  = 64 << 20
	DefaultSteps         = 100
	DefaultCalls         = 1000
	DefaultSessions      = 256
	DefaultSessionIdle   = 10 * time.Minute
	DefaultBodyTimeout   = 30 * time.Second
	DefaultInFlight      = 16
	// IdleTimeout closes a kept-alive connection that sends no request
	// for this long (every server; not a flag).
	IdleTimeout = 2 * time.Minute
)

// Default returns every limit at its default.
func Default() Limits { return Limits{}.WithDefaults() }

// WithDefaults returns the limits with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.RequestBytes <= 0 {
		l.RequestBytes = DefaultRequestBytes
	}
	if l.ReplyBytes <= 0 {
		l.ReplyBytes = DefaultReplyBytes
	}
	if l.JournalBytes <= 0 {
		l.JournalBytes = DefaultJournalBytes
	}
	if l.Steps <= 0 {
		l.Steps = DefaultSteps
	}
	if l.Calls <= 0 {
		l.Calls = DefaultCalls
	}
	if l.Sessions <= 0 {
		l.Sessions = DefaultSessions
	}
	if l.SessionIdle <= 0 {
		l.SessionIdle = DefaultSessionIdle
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.InFlight <= 0 {
		l.InFlight = DefaultInFlight
	}
	return l
}

// Field names a limit, for Register.
type Field int

// The fields, as Register names their flags.
const (
	HeaderTimeout Field = iota // --header-timeout
	RequestBytes               // --max-request-bytes
	ReplyBytes                 // --max-reply-bytes
	JournalBytes               // --max-journal-bytes
	Steps                      // --max-steps
	Calls                      // --max-calls
	Sessions                   // --max-sessions
	SessionIdle                // --session-idle
	BodyTimeout                // --body-timeout
	InFlight                   // --max-in-flight
)

// Register adds a flag for each field named to fs, its default the
// field's default; after fs.Parse, l holds the values given. Check
// reports a value that is not positive.
func (l *Limits) Register(fs *flag.FlagSet, fields ...Field) {
	d := Default()
	*l = d
	for _, f := range fields {
		switch f {
		case HeaderTimeout:
			fs.DurationVar(&l.HeaderTimeout, "header-timeout", d.HeaderTimeout, "the time a client may take to send a request's headers")
		case RequestBytes:
			fs.Int64Var(&l.RequestBytes, "max-request-bytes", d.RequestBytes, "the largest request body a server reads (413 beyond)")
		case ReplyBytes:
			fs.Int64Var(&l.ReplyBytes, "max-reply-bytes", d.ReplyBytes, "the largest reply read (a model's, JSON or streamed; a target's answer) or written (a turn's answer)")
		case JournalBytes:
			fs.Int64Var(&l.JournalBytes, "max-journal-bytes", d.JournalBytes, "the request bodies one conversation's journal keeps, refused calls included; calls beyond are refused")
		case Steps:
			fs.IntVar(&l.Steps, "max-steps", d.Steps, "the most model calls of one agent turn (a turn's options.maxSteps may not ask for more)")
		case Calls:
			fs.IntVar(&l.Calls, "max-calls", d.Calls, "the most model calls one simulated conversation answers")
		case Sessions:
			fs.IntVar(&l.Sessions, "max-sessions", d.Sessions, "the most client sessions open at once")
		case SessionIdle:
			fs.DurationVar(&l.SessionIdle, "session-idle", d.SessionIdle, "a client session unused this long is closed")
		case BodyTimeout:
			fs.DurationVar(&l.BodyTimeout, "body-timeout", d.BodyTimeout, "the time a client may take to send a request's body")
		case InFlight:
			fs.IntVar(&l.InFlight, "max-in-flight", d.InFlight, "the most requests a server serves at once (503 beyond): with the per-request bounds, what it holds in total")
		}
	}
}

// Check reports the first limit that is zero or negative, by its flag.
func (l Limits) Check() error {
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"header-timeout", l.HeaderTimeout > 0}, {"max-request-bytes", l.RequestBytes > 0},
		{"max-reply-bytes", l.ReplyBytes > 0}, {"max-journal-bytes", l.JournalBytes > 0},
		{"max-steps", l.Steps > 0}, {"max-calls", l.Calls > 0},
		{"max-sessions", l.Sessions > 0}, {"session-idle", l.SessionIdle > 0},
		{"body-timeout", l.BodyTimeout > 0}, {"max-in-flight", l.InFlight > 0},
	} {
		if !c.ok {
			return fmt.Errorf("--%s: must be positive", c.name)
		}
	}
	return nil
}

// TooLarge is the error of a body past its bound.
type TooLarge struct {
	// What is too large ("the request body", "the model's reply").
	What string
	// Limit is the bound in bytes, Flag the flag that sets it.
	Limit int64
	Flag  string
}

func (e *TooLarge) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes (the limit, --%s)", e.What, e.Limit, e.Flag)
}

// Reader reads at most a limit from R, then fails with Err.
type Reader struct {
	R   io.Reader
	Err *TooLarge
	n   int64
}

// NewReader returns a reader of r that fails with a *TooLarge naming what
// and its flag once more than limit bytes come.
func NewReader(r io.Reader, limit int64, what, flag string) *Reader {
	return &Reader{R: r, Err: &TooLarge{What: what, Limit: limit, Flag: flag}}
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.n > r.Err.Limit {
		return 0, r.Err
	}
	if left := r.Err.Limit + 1 - r.n; int64(len(p)) > left {
		p = p[:left]
	}
	n, err := r.R.Read(p)
	r.n += int64(n)
	if r.n > r.Err.Limit {
		return n - int(r.n-r.Err.Limit), r.Err
	}
	return n, err
}
