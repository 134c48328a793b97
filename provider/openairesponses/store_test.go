package openairesponses_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/approval-conformance-kit/ack/chat/sse"
	"github.com/approval-conformance-kit/ack/llm"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider/openairesponses"
	"github.com/approval-conformance-kit/ack/wire"
)

var reply = &llm.Response{Content: []model.Part{
	model.Text("Deleting."),
	model.ToolCall("call_1", "deleteFile", json.RawMessage(`{"path":"/a"}`)),
}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 5, OutputTokens: 2}}

func stream(t *testing.T, resp *llm.Response) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := openairesponses.Codec{}.NewStreamWriter(&buf, nil, true)
	w.Write(llm.StreamEvent{Type: llm.StreamTextDelta, Text: "Delet"})
	w.Write(llm.StreamEvent{Type: llm.StreamTextDelta, Text: "ing."})
	for _, p := range resp.Content[1:] {
		w.Write(llm.StreamEvent{Type: llm.StreamToolInputStart, ToolCallID: p.ToolCallID, ToolName: p.ToolName})
		w.Write(llm.StreamEvent{Type: llm.StreamToolInputDelta, ToolCallID: p.ToolCallID, Delta: string(p.Input)})
		q := p
		w.Write(llm.StreamEvent{Type: llm.StreamPart, Part: &q})
	}
	if err := w.Write(llm.StreamEvent{Type: llm.StreamFinish, FinishReason: resp.FinishReason, Usage: resp.Usage}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type streamEvent struct {
	Type           string `json:"type"`
	SequenceNumber int    `json:"sequence_number"`
	OutputIndex    *int   `json:"output_index"`
	Item           *struct {
		ID string `json:"id"`
	} `json:"item"`
	Response *struct {
		Output []struct {
			ID string `json:"id"`
		} `json:"output"`
	} `json:"response"`
}

// The stream numbers its events from 0, and its items keep their ids from
// output_item.added to response.completed (clients refer to them later).
func TestStreamItemIDsAndSequence(t *testing.T) {
	r := sse.NewReader(bytes.NewReader(stream(t, reply)))
	added, done := map[int]string{}, map[int]string{}
	var completed []string
	for seq := 0; ; seq++ {
		raw, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var ev streamEvent
		if err := json.Unmarshal(raw.Data, &ev); err != nil {
			t.Fatal(err)
		}
		if raw.Name != ev.Type {
			t.Errorf("event: %s carries type %s", raw.Name, ev.Type)
		}
		if ev.SequenceNumber != seq {
			t.Errorf("%s: sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
		}
		switch ev.Type {
		case "response.output_item.added":
			added[*ev.OutputIndex] = ev.Item.ID
		case "response.output_item.done":
			done[*ev.OutputIndex] = ev.Item.ID
		case "response.completed":
			for _, it := range ev.Response.Output {
				completed = append(completed, it.ID)
			}
		}
	}
	if len(completed) != 2 {
		t.Fatalf("response.completed lists %d items", len(completed))
	}
	for i, id := range completed {
		if id == "" || added[i] != id || done[i] != id {
			t.Errorf("item %d: added %q, done %q, completed %q", i, added[i], done[i], id)
		}
	}
}

func resolve(t *testing.T, s *openairesponses.Store, body string) []byte {
	t.Helper()
	out, err := s.Resolve([]byte(body))
	if err != nil {
		t.Fatalf("resolve %s: %v", body, err)
	}
	return out
}

// Items and responses the store kept are found by item_reference and by
// previous_response_id, JSON and streamed; unknown ones get the provider's
// answer; store: false keeps nothing.
func TestStore(t *testing.T) {
	codec := openairesponses.Codec{}
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			s := openairesponses.NewStore()
			first := []byte(`{"model":"m","input":"delete a"}`)
			if got := resolve(t, s, string(first)); !bytes.Equal(got, first) {
				t.Errorf("a body without references changed: %s", got)
			}
			var out []byte
			if streamed {
				out = stream(t, reply)
				if err := s.KeepStream(first, out); err != nil {
					t.Fatal(err)
				}
				// The completed response holds the items.
				r := sse.NewReader(bytes.NewReader(out))
				for {
					ev, err := r.Next()
					if err != nil {
						t.Fatal(err)
					}
					if ev.Name == "response.completed" {
						var e struct {
							Response json.RawMessage `json:"response"`
						}
						_ = json.Unmarshal(ev.Data, &e)
						out = e.Response
						break
					}
				}
			} else {
				var err error
				if out, err = codec.EncodeResponse(reply); err != nil {
					t.Fatal(err)
				}
				if err := s.Keep(first, out); err != nil {
					t.Fatal(err)
				}
			}
			var resp struct {
				ID     string `json:"id"`
				Output []struct {
					ID string `json:"id"`
				} `json:"output"`
			}
			if err := json.Unmarshal(out, &resp); err != nil {
				t.Fatal(err)
			}
			msgID := resp.Output[0].ID

			// By reference: the AI SDK's way with store on.
			body := resolve(t, s, `{"model":"m","input":[{"role":"user","content":"delete a"},{"type":"item_reference","id":"`+msgID+`"},`+
				`{"type":"function_call","call_id":"call_1","name":"deleteFile","arguments":"{\"path\":\"/a\"}"},`+
				`{"type":"function_call_output","call_id":"call_1","output":"{\"deleted\":true}"}]}`)
			d, err := codec.DecodeRequest(body)
			if err != nil {
				t.Fatalf("decode %s: %v", body, err)
			}
			if len(d.Request.Messages) != 3 || textOf(d.Request.Messages[1]) != "Deleting." || len(d.Request.Messages[1].Content) != 2 {
				t.Errorf("resolved prompt %+v", d.Request.Messages)
			}
			if vs := wire.Check(d.View, "r"); len(vs) > 0 {
				t.Errorf("violations %v", vs)
			}

			// By chaining: only the new item is sent.
			chained := `{"model":"m","previous_response_id":"` + resp.ID + `","input":[{"type":"function_call_output","call_id":"call_1","output":"done"}]}`
			body = resolve(t, s, chained)
			if d, err = codec.DecodeRequest(body); err != nil {
				t.Fatal(err)
			}
			if len(d.Request.Messages) != 3 || d.Request.Messages[2].Role != model.RoleTool {
				t.Errorf("chained prompt %+v", d.Request.Messages)
			}
			if vs := wire.Check(d.View, "r"); len(vs) > 0 {
				t.Errorf("violations %v", vs)
			}
			// Without its chain, the same output is an orphan.
			d, _ = codec.DecodeRequest([]byte(`{"input":[{"type":"function_call_output","call_id":"call_1","output":"done"}]}`))
			if vs := wire.Check(d.View, "r"); len(vs) != 1 || vs[0].Kind != wire.Orphan {
				t.Errorf("unchained: %v", vs)
			}
		})
	}
}

func textOf(m model.Message) string {
	for _, p := range m.Content {
		if p.Type == model.PartText {
			return p.Text
		}
	}
	return ""
}

func TestStoreUnknownNames(t *testing.T) {
	s := openairesponses.NewStore()
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"input":[{"type":"item_reference","id":"msg_x"}]}`, 404,
			`{"error":{"message":"Item with id 'msg_x' not found.","type":"invalid_request_error","param":"input","code":null}}`},
		{`{"previous_response_id":"resp_x","input":[]}`, 400,
			`{"error":{"message":"Previous response with id 'resp_x' not found.","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}}`},
	} {
		_, err := s.Resolve([]byte(c.body))
		var re *openairesponses.ResolveError
		if !errors.As(err, &re) || re.Status != c.status || string(re.Body) != c.want {
			t.Errorf("%s: %v %+v", c.body, err, re)
		}
	}
	// store: false keeps nothing.
	out, _ := openairesponses.Codec{}.EncodeResponse(reply)
	if err := s.Keep([]byte(`{"input":"x","store":false}`), out); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(out, &resp)
	if _, err := s.Resolve([]byte(`{"previous_response_id":"` + resp.ID + `","input":[]}`)); err == nil {
		t.Error("a response kept with store: false was found")
	}
	// Bodies that are not requests are left for the decoder to report.
	for _, b := range []string{`item_reference`, `{"input":5,"x":"item_reference"}`} {
		if got, err := s.Resolve([]byte(b)); err != nil || string(got) != b {
			t.Errorf("%s: %s %v", b, got, err)
		}
	}
}

// Resolve never panics, and what it returns for a decodable body still
// decodes.
func FuzzResolve(f *testing.F) {
	f.Add([]byte(`{"input":[{"type":"item_reference","id":"a"}]}`))
	f.Add([]byte(`{"previous_response_id":"r","input":"hi"}`))
	s := openairesponses.NewStore()
	out, _ := openairesponses.Codec{}.EncodeResponse(reply)
	_ = s.Keep([]byte(`{"input":"x"}`), out)
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := s.Resolve(body)
		if err != nil {
			return
		}
		if _, derr := (openairesponses.Codec{}).DecodeRequest(body); derr == nil {
			if _, err := (openairesponses.Codec{}).DecodeRequest(got); err != nil {
				t.Fatalf("%s decodes; resolved to %s it does not: %v", body, got, err)
			}
		}
	})
}

// KeepStream finds the response in a whole stream or its end, with CRLF
// line ends too, and never panics on anything else.
func FuzzKeepStream(f *testing.F) {
	out, _ := openairesponses.Codec{}.EncodeResponse(reply)
	completed := []byte("event: response.completed\r\ndata: {\"type\":\"response.completed\",\"response\":" + string(out) + "}\r\n\r\n")
	s := openairesponses.NewStore()
	if err := s.KeepStream([]byte(`{"input":"x"}`), completed); err != nil {
		f.Fatal(err)
	}
	if err := s.KeepStream([]byte(`{"input":"x"}`), []byte("event: response.created\ndata: {}\n\n")); err == nil {
		f.Fatal("a stream without response.completed was kept")
	}
	f.Add(completed)
	f.Add([]byte("data: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\",\"output\":[{\"id\":\"i\"}]}}"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		_ = openairesponses.NewStore().KeepStream([]byte(`{"input":"x"}`), stream)
	})
}

// A continuation by previous_response_id with an output missing its output
// gets the provider's 400, naming the item as sent (before the chain).
func TestChainedMissingOutputNamesTheItemAsSent(t *testing.T) {
	s := openairesponses.NewStore()
	reqBody := []byte(`{"model":"m","input":"delete a"}`)
	out, err := openairesponses.Codec{}.EncodeResponse(reply)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keep(reqBody, out); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(out, &resp)
	_, err = s.Resolve([]byte(`{"model":"m","previous_response_id":"` + resp.ID + `","input":[{"type":"function_call_output","call_id":"call_1","output":"ok"},{"type":"function_call_output","call_id":"call_9"}]}`))
	var re *openairesponses.ResolveError
	want := `{"error":{"message":"Missing required parameter: 'input[1].output'.","type":"invalid_request_error","param":"input[1].output","code":"missing_required_parameter"}}`
	if !errors.As(err, &re) || re.Status != 400 || string(re.Body) != want {
		t.Fatalf("err = %v (%+v), want the provider's 400 %s", err, re, want)
	}
}
