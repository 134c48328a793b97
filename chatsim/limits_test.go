package chatsim

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/limits"
)

// The chat server refuses a body past its limit with 413, naming the
// flag, and drops a client that never finishes its headers.
func TestServerLimits(t *testing.T) {
	s, err := NewServerWith(limits.Limits{RequestBytes: 100, HeaderTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conv := NewConversation(lines{})
	url := s.Mount(conv)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"messages":"`+strings.Repeat("x", 200)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized body: %d", resp.StatusCode)
	}
	if p := conv.Problems(); len(p) != 1 || !strings.Contains(p[0], "the request body is larger than 100 bytes (the limit, --max-request-bytes)") {
		t.Errorf("problems %v", p)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /chat/x HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute)) // only so that a broken server fails, not hangs
	if _, err := bufio.NewReader(conn).ReadString('\n'); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("a half-sent request holds its connection")
		}
	}
}
