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
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
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
