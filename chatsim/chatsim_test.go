package chatsim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/chat"
)

// lines is a test codec: JSON requests, one JSON event per line.
type lines struct{}

func (lines) Name() string                                  { return "lines" }
func (lines) EncodeRequest(r *chat.Request) ([]byte, error) { return json.Marshal(r) }
func (lines) DecodeRequest(b []byte) (*chat.Request, error) {
	var r chat.Request
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	return &r, nil
}
func (lines) ResponseHeaders() map[string]string {
	return map[string]string{"Content-Type": "application/x-ndjson"}
}
func (lines) NewWriter(w io.Writer, flush func(), _ *chat.Request) chat.EventWriter {
	return &lineWriter{w: w, flush: flush}
}
func (lines) ReadEvents(_ context.Context, r io.Reader, yield func(chat.Event) error) error {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var ev chat.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return err
		}
		if err := yield(ev); err != nil {
			return err
		}
	}
	return sc.Err()
}

type lineWriter struct {
	w     io.Writer
	flush func()
}

func (l *lineWriter) Write(ev chat.Event) error {
	b, _ := json.Marshal(ev)
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		return err
	}
	l.flush()
	return nil
}
func (l *lineWriter) Close() error { return nil }

func post(t *testing.T, url string, req *chat.Request) (*http.Response, error) {
	t.Helper()
	b, _ := json.Marshal(req)
	return http.Post(url, "application/json", bytes.NewReader(b))
}

func yes() *bool { v := true; return &v }

func TestScriptedTurnsAndJournal(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conv := NewConversation(lines{})
	url := srv.Mount(conv)
	if _, err := conv.Append(Turn{Events: []chat.Event{{Type: chat.EventTextDelta, Delta: "hi"}, {Type: chat.EventFinish, FinishReason: "stop"}}}); err != nil {
		t.Fatal(err)
	}
	req := &chat.Request{Messages: []chat.Message{
		{ID: "u1", Role: "user", Parts: []chat.Part{{Type: "text", Text: "go"}}},
		{ID: "a1", Role: "assistant", Parts: []chat.Part{
			{Type: "tool-call", ToolCallID: "A", State: chat.ApprovalResponded, Approval: &chat.Approval{ID: "approval_A", Approved: yes()}},
			{Type: "tool-call", ToolCallID: "B", State: chat.ApprovalRequested, Approval: &chat.Approval{ID: "approval_B"}},
			{Type: "tool-call", ToolCallID: "B", State: chat.ApprovalRequested},
		}},
		{ID: "u2", Role: "user", Parts: []chat.Part{{Type: "text", Text: "never mind"}}},
	}}
	resp, err := post(t, url, req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"delta":"hi"`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	reqs := conv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("journal has %d requests", len(reqs))
	}
	r := reqs[0]
	if len(r.Answers) != 1 || r.Answers[0].ToolCallID != "A" || !r.Answers[0].Approved || r.Answers[0].Via != "parts" {
		t.Errorf("answers %+v", r.Answers)
	}
	if len(r.Dangling) != 2 || r.Dangling[0] != "B" || len(r.Duplicates) != 1 || r.Duplicates[0] != "B" {
		t.Errorf("dangling %v duplicates %v", r.Dangling, r.Duplicates)
	}
	if p := conv.Problems(); len(p) != 0 {
		t.Errorf("problems %v", p)
	}

	// A request past the end of the script is refused and reported.
	resp, err = post(t, url, &chat.Request{})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("extra request: %d", resp.StatusCode)
	}
	if p := conv.Problems(); len(p) != 1 || !strings.Contains(p[0], "past the end of the script") {
		t.Errorf("problems %v", p)
	}
}

func TestResumeAnswers(t *testing.T) {
	issuedInts := map[string]issued{"int_A": {toolCallID: "A", approvalID: "approval_A"}}
	msgs := []chat.Message{{Role: "assistant", Parts: []chat.Part{{Type: "tool-call", ToolCallID: "A", State: chat.ApprovalResponded, Approval: &chat.Approval{ID: "approval_A", InterruptID: "int_A", Approved: no()}}}}}
	var rec Request
	analyze(&rec, &chat.Request{
		Messages: msgs,
		Resume:   []chat.Resume{{InterruptID: "int_A", Approved: false, Reason: "no"}, {InterruptID: "int_orphan", Approved: true}},
	}, chat.ProtocolAGUI, issuedInts)
	if len(rec.Answers) != 2 || rec.Answers[0].ToolCallID != "A" || rec.Answers[0].Approved || rec.Answers[0].Via != "resume" || rec.Answers[1].ApprovalID != "int_orphan" || rec.Answers[1].ToolCallID != "" {
		t.Errorf("answers %+v", rec.Answers)
	}

	// The interrupt form takes no answer on the parts, and a resume entry
	// naming the approval id instead of the interrupt's answers nothing.
	rec = Request{}
	analyze(&rec, &chat.Request{Messages: msgs, Resume: []chat.Resume{{InterruptID: "approval_A", Approved: true}}}, chat.ProtocolAGUI, issuedInts)
	if len(rec.Answers) != 1 || rec.Answers[0].ToolCallID != "" || rec.Answers[0].ApprovalID != "approval_A" {
		t.Errorf("answers %+v", rec.Answers)
	}

	// The legacy form and the UI message stream take the parts' answer,
	// and no resume entry.
	for _, proto := range []string{chat.ProtocolAGUILegacy, chat.ProtocolUIMessageStream} {
		rec = Request{}
		analyze(&rec, &chat.Request{Messages: msgs, Resume: []chat.Resume{{InterruptID: "int_A", Approved: true}}}, proto, issuedInts)
		if len(rec.Answers) != 1 || rec.Answers[0].Via != "parts" || rec.Answers[0].Approved {
			t.Errorf("%s: answers %+v", proto, rec.Answers)
		}
	}
}

func TestHeldStreamEndsOnRelease(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conv := NewConversation(lines{})
	url := srv.Mount(conv)
	turn, _ := conv.Append(Turn{Hold: true, Events: []chat.Event{{Type: chat.EventTextDelta, Delta: "first"}, {Type: chat.EventFinish, FinishReason: "stop"}}})
	resp, err := post(t, url, &chat.Request{})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	line, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(line, "first") {
		t.Fatalf("first event: %q %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := conv.WaitHolding(ctx); err != nil || h != turn {
		t.Fatalf("holding %d %v", h, err)
	}
	got := make(chan string, 1)
	go func() {
		rest, _ := io.ReadAll(rd)
		got <- string(rest)
	}()
	select {
	case s := <-got:
		t.Fatalf("the stream ended before the release: %q", s)
	default:
	}
	if err := conv.Release(turn); err != nil {
		t.Fatal(err)
	}
	if s := <-got; !strings.Contains(s, `"finish"`) {
		t.Errorf("after the release: %q", s)
	}
	if err := conv.Release(turn); err == nil {
		t.Error("a second release was accepted")
	}
	if _, ok := conv.Holding(); ok {
		t.Error("still holding after the release")
	}
}

// A turn held open after its finish delivers every event, then keeps the
// response open until released.
func TestHeldOpenStreamDeliversTheFinish(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conv := NewConversation(lines{})
	url := srv.Mount(conv)
	turn, _ := conv.Append(Turn{HoldOpen: true, Events: []chat.Event{{Type: chat.EventTextDelta, Delta: "first"}, {Type: chat.EventFinish, FinishReason: "stop"}}})
	resp, err := post(t, url, &chat.Request{})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	for _, want := range []string{"first", `"finish"`} {
		line, err := rd.ReadString('\n')
		if err != nil || !strings.Contains(line, want) {
			t.Fatalf("want %s before the release, got %q %v", want, line, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := conv.WaitHolding(ctx); err != nil || h != turn {
		t.Fatalf("holding %d %v", h, err)
	}
	if err := conv.Release(turn); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(rd); err != nil || len(rest) != 0 {
		t.Errorf("after the release: %q %v", rest, err)
	}
	if _, ok := conv.Holding(); ok {
		t.Error("still holding after the release")
	}
}

func TestOptionalTurns(t *testing.T) {
	conv := NewConversation(lines{})
	ev := []chat.Event{{Type: chat.EventFinish}}
	conv.Append(Turn{Events: ev, Optional: true})
	if p := conv.Problems(); len(p) != 0 {
		t.Errorf("an unused optional turn is a problem: %v", p)
	}
	conv.Append(Turn{Events: ev})
	if p := conv.Problems(); len(p) != 1 || !strings.Contains(p[0], "1 scripted chat response(s) left unused") {
		t.Errorf("the optional turn was not dropped for the required one: %v", p)
	}
	if _, err := conv.Append(Turn{}); err == nil {
		t.Error("an empty turn was accepted")
	}
}

func TestRouting(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := srv.Mount(NewConversation(lines{}))
	for _, tc := range []struct {
		method, url string
		status      int
	}{
		{"GET", url, http.StatusMethodNotAllowed},
		{"POST", srv.URL + "/chat/nope", http.StatusNotFound},
		{"POST", srv.URL + "/elsewhere", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tc.method, tc.url, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.url, resp.StatusCode, tc.status)
		}
	}
	srv.Unmount(url)
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("after Unmount: %d", resp.StatusCode)
	}
}

func TestUndecodableRequestIsAProblem(t *testing.T) {
	srv, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conv := NewConversation(lines{})
	resp, err := http.Post(srv.Mount(conv), "application/json", strings.NewReader("{nope"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d", resp.StatusCode)
	}
	if p := conv.Problems(); len(p) != 1 || !strings.Contains(p[0], "does not decode") {
		t.Errorf("problems %v", p)
	}
}
