package chatsim

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/approval-conformance-kit/ack/limits"
)

// Server is a loopback HTTP server for scripted conversations, each mounted
// under its own path.
type Server struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:41234.
	URL string

	srv    *http.Server
	ln     net.Listener
	limits limits.Limits

	mu    sync.Mutex
	convs map[string]*Conversation
}

// DefaultLimits are the limits of the servers NewServer starts: the time
// a client may take to send headers and the largest request body (413
// beyond). A program sets them once, before it starts servers
// (conformance run --header-timeout, --max-request-bytes).
var DefaultLimits = limits.Default()

// NewServer starts a server on 127.0.0.1 with a free port, with
// DefaultLimits.
func NewServer() (*Server, error) { return NewServerWith(DefaultLimits) }

// NewServerWith starts a server on 127.0.0.1 with a free port, with these
// limits.
func NewServerWith(lim limits.Limits) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("chatsim: listen: %w", err)
	}
	lim = lim.WithDefaults()
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, convs: map[string]*Conversation{}, limits: lim}
	s.srv = lim.Server(s, func(w http.ResponseWriter, r *http.Request, status int, msg string) {
		if status == http.StatusRequestEntityTooLarge {
			// The conversation reads it (up to the limit) and keeps the
			// client's oversized request among its problems.
			s.ServeHTTP(w, r)
			return
		}
		writeError(w, status, "chatsim: "+msg)
	})
	go func() { _ = s.srv.Serve(ln) }() // Serve returns when Close is called
	return s, nil
}

// Mount serves the conversation and returns its chat URL.
func (s *Server) Mount(c *Conversation) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	id := hex.EncodeToString(b)
	s.mu.Lock()
	s.convs[id] = c
	s.mu.Unlock()
	return s.URL + "/chat/" + id
}

// Unmount stops serving the conversation at url.
func (s *Server) Unmount(url string) {
	id := strings.TrimPrefix(url, s.URL+"/chat/")
	s.mu.Lock()
	delete(s.convs, id)
	s.mu.Unlock()
}

// ServeHTTP routes /chat/<id> to its conversation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutPrefix(r.URL.Path, "/chat/")
	if !ok || id == "" || strings.Contains(id, "/") {
		writeError(w, http.StatusNotFound, "chatsim: no such path; conversations live under /chat/<id>")
		return
	}
	s.mu.Lock()
	c := s.convs[id]
	s.mu.Unlock()
	if c == nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("chatsim: no conversation %q", id))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.limits.RequestBytes)
	c.ServeHTTP(w, r)
}

// Close stops the server; held streams end with it.
func (s *Server) Close() error {
	return s.srv.Close()
}
