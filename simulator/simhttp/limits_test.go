package simhttp_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/wire"
)

func limited(t *testing.T, l limits.Limits) *simhttp.Server {
	t.Helper()
	s, err := simhttp.ListenWith("127.0.0.1:0", l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A client that never finishes its headers does not hold a connection.
func TestHalfSentHeadersAreDropped(t *testing.T) {
	s := limited(t, limits.Limits{HeaderTimeout: 50 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /c/x/v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: ")); err != nil {
		t.Fatal(err)
	}
	// The server ends the connection; the deadline only keeps a broken
	// server from hanging the test.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the half-sent request still holds its connection")
	}
	if line != "" && !strings.Contains(line, "408") {
		t.Errorf("the server answered %q", line)
	}
}

// A server serves at most Sessions conversations: adding one more stops
// the oldest; and each model gets the server's call and journal bounds.
func TestConversationsAndCallsAreBounded(t *testing.T) {
	s := limited(t, limits.Limits{Sessions: 2, Calls: 1})
	var bases []string
	for _, name := range []string{"a", "b", "c"} {
		m, err := simulator.New(simulator.Script{Provider: wire.OpenAIChat, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "x"}}, {Reply: simulator.Reply{Text: "y"}}}})
		if err != nil {
			t.Fatal(err)
		}
		base, err := s.Add(name, m)
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, base)
	}
	if status, body := post(t, bases[0]+"/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`); status != 404 || !strings.Contains(body, `no conversation \"a\"`) {
		t.Errorf("the oldest conversation: %d %s", status, body)
	}
	for i, want := range []int{200, 400} {
		status, body := post(t, bases[2]+"/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`)
		if status != want || (want == 400 && !strings.Contains(body, "--max-calls")) {
			t.Errorf("call %d: %d %s", i+1, status, body)
		}
	}
}

// A declared Content-Length over the limit is refused at once, in the
// provider's error envelope, before a byte of the body is sent; a body
// that trickles is cut by the body deadline. Neither holds the server.
func TestDeclaredAndTrickledBodiesAreBounded(t *testing.T) {
	s := limited(t, limits.Limits{RequestBytes: 1 << 20, BodyTimeout: 50 * time.Millisecond})
	m, err := simulator.New(simulator.Script{Provider: wire.OpenAIChat, Turns: []simulator.Turn{{Reply: simulator.Reply{Text: "x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("a", m); err != nil {
		t.Fatal(err)
	}
	send := func(head, body string) string {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(time.Minute)) // only so that a broken server fails, not hangs
		if _, err := conn.Write([]byte(head + "\r\n" + body)); err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(conn)
		return string(data)
	}
	got := send("POST /c/a/v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 16777216\r\n", "")
	if !strings.HasPrefix(got, "HTTP/1.1 413") || !strings.Contains(got, `"type":"invalid_request_error"`) || !strings.Contains(got, "--max-request-bytes") {
		t.Errorf("a declared 16 MiB body: %q", got)
	}
	got = send("POST /c/a/v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 1000\r\n", "{")
	if !strings.HasPrefix(got, "HTTP/1.1 400") || !strings.Contains(got, "reading the body") {
		t.Errorf("a trickled body: %q", got)
	}
	if m.Calls() != 0 {
		t.Errorf("the model was called %d times", m.Calls())
	}
}
