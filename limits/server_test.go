package limits

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serve starts a guarded loopback server and returns its address.
func serve(t *testing.T, l Limits, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := l.Server(h, func(w http.ResponseWriter, _ *http.Request, status int, msg string) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, msg)
	})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// raw sends a request's head (and what of its body is given) on a new
// connection and returns the connection and a reader of its answer; the
// connection has a deadline, so a test never hangs.
func raw(t *testing.T, addr, head, body string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// A Content-Length over the limit is refused before a byte of the body
// comes: the server never waits for, or holds room for, what is declared.
func TestGuardRefusesADeclaredLengthOverTheLimit(t *testing.T) {
	called := false
	addr := serve(t, Limits{RequestBytes: 1000}, func(w http.ResponseWriter, r *http.Request) { called = true })
	_, br := raw(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 16777216\r\n", "")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(msg), "larger than 1000 bytes (the limit, --max-request-bytes)") || called {
		t.Errorf("%d %q, handler called: %v", resp.StatusCode, msg, called)
	}
}

// A body that trickles past --body-timeout ends with an error where the
// handler reads it: the connection is not held for ever.
func TestGuardBoundsTheTimeABodyMayTake(t *testing.T) {
	readErr := make(chan error, 1)
	addr := serve(t, Limits{BodyTimeout: 50 * time.Millisecond}, func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
		w.WriteHeader(http.StatusBadRequest)
	})
	raw(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n", "x") // 1 byte of 100, then nothing
	select {
	case err := <-readErr:
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("reading the trickled body: %v, want a timeout", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the body read never timed out")
	}
}

// The body deadline is lifted once the body is in: an answer that takes
// longer than it (a held stream) is not cut, and its context lives on.
func TestGuardDoesNotCutALongAnswer(t *testing.T) {
	addr := serve(t, Limits{BodyTimeout: 20 * time.Millisecond}, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case <-time.After(200 * time.Millisecond): // ten times the body deadline
		case <-r.Context().Done():
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "got %s", body)
	})
	resp, err := http.Post("http://"+addr+"/", "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(got) != "got hello" {
		t.Errorf("%d %q", resp.StatusCode, got)
	}
}

// Past --max-in-flight requests at once, the next is refused at once with
// 503, and served again once one ends.
func TestGuardBoundsTheRequestsInFlight(t *testing.T) {
	entered, release := make(chan struct{}, 2), make(chan struct{})
	addr := serve(t, Limits{InFlight: 2}, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	})
	done := make(chan int, 2)
	for range 2 {
		go func() {
			resp, err := http.Get("http://" + addr + "/hold")
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	<-entered
	<-entered
	resp, err := http.Get("http://" + addr + "/now")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(msg), "--max-in-flight") {
		t.Errorf("a third request: %d %q", resp.StatusCode, msg)
	}
	close(release)
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("a held request: %d", code)
		}
	}
	resp, err = http.Get("http://" + addr + "/now")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the held ones ended: %d", resp.StatusCode)
	}
}

// answerThenClose reads the server's answer on the connection and then
// expects the server to close it: the next read ends at once, with EOF.
// (The connection's deadline fails a server that holds it.)
func answerThenClose(t *testing.T, br *bufio.Reader) int {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if b, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after its %d answer the connection is held: read %q, %v; want EOF", resp.StatusCode, b, err)
	}
	return resp.StatusCode
}

// A body that does not arrive within --body-timeout closes its
// connection once answered: the rest of the body is never waited for
// (net/http would read on, with no deadline, to keep the connection).
func TestTimedOutBodyClosesItsConnection(t *testing.T) {
	addr := serve(t, Limits{BodyTimeout: 50 * time.Millisecond}, func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
		}
	})
	for _, c := range []struct{ name, head, body string }{
		{"content-length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n", "x"},
		{"chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, br := raw(t, addr, c.head, c.body)
			if code := answerThenClose(t, br); code != http.StatusRequestTimeout {
				t.Errorf("answer %d, want 408", code)
			}
		})
	}
}

// A request refused with 503 (every slot taken) or 413 has its
// connection closed after the answer, whatever is left of its body: a
// slow client cannot hold the connections the server refused.
func TestRefusedConnectionsAreClosed(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	addr := serve(t, Limits{InFlight: 1, RequestBytes: 1000}, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			close(entered)
			<-release
		}
	})
	defer close(release)
	go func() {
		if resp, err := http.Get("http://" + addr + "/hold"); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	for _, c := range []struct{ name, head, body string }{
		{"a trickled body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n", "x"},
		{"a trickled chunked body", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n", "5\r\nhello\r\n"},
		{"no body", "GET / HTTP/1.1\r\nHost: x\r\n", ""},
		{"a whole body", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n", "{}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range 20 {
				_, br := raw(t, addr, c.head, c.body)
				if code := answerThenClose(t, br); code != http.StatusServiceUnavailable {
					t.Fatalf("answer %d, want 503", code)
				}
			}
		})
	}
}

// A declared length over the limit is refused and its connection closed,
// however little of the body comes (below net/http's 256 KiB it would read
// the rest, with no deadline).
func TestTooLargeConnectionIsClosed(t *testing.T) {
	addr := serve(t, Limits{RequestBytes: 1000}, func(http.ResponseWriter, *http.Request) {})
	_, br := raw(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n", "x")
	if code := answerThenClose(t, br); code != http.StatusRequestEntityTooLarge {
		t.Errorf("answer %d, want 413", code)
	}
}

// A request served whole keeps its connection alive: the next request on
// it is served, whether the handler read the body to its end or closed it
// after its last byte.
func TestServedConnectionsStayAlive(t *testing.T) {
	addr := serve(t, Limits{BodyTimeout: time.Minute}, func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 2)
		if r.URL.Path == "/close" {
			_, _ = io.ReadFull(r.Body, buf)
			_ = r.Body.Close()
		} else {
			buf, _ = io.ReadAll(r.Body)
		}
		_, _ = w.Write(buf)
	})
	for _, path := range []string{"/read", "/close"} {
		c, br := raw(t, addr, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n", "{}")
		for i := range 2 {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("%s: request %d: %v", path, i+1, err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != "{}" || resp.Close {
				t.Fatalf("%s: request %d: %q, close %v", path, i+1, got, resp.Close)
			}
			if _, err := io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
				t.Fatal(err)
			}
		}
	}
}
