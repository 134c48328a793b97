package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/chat"
	"github.com/approval-conformance-kit/ack/chat/agui"
	"github.com/approval-conformance-kit/ack/chat/uistream"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/reference/chatserver"
	"github.com/approval-conformance-kit/ack/wire"

	// The provider wire formats register themselves.
	_ "github.com/approval-conformance-kit/ack/provider/all"
)

// decodeElement decodes element i of a messages (or input) array in the
// request's format and adds what it holds to the request.
func (rd *reader) decodeElement(req *Request, e element) error {
	var err error
	switch req.Format {
	case Canonical:
		err = rd.canonical(req, e)
	case OpenAIChat, AnthropicMessages, OpenAIResponses:
		err = rd.providerElement(req, e)
	case UIMessages:
		err = rd.uiMessage(req, e)
	case AGUI:
		err = rd.aguiMessage(req, e)
	case LangChain:
		err = rd.langchainMessage(req, e)
	case Gemini:
		err = rd.geminiContent(req, e)
	default:
		err = fmt.Errorf("no decoder for format %q", req.Format)
	}
	if err != nil {
		msg := elementMessage(err, e)
		if rd.recorded {
			// A journal records what was sent, malformed or not (the kit's
			// error scenarios send such messages on purpose): the message is
			// noted and left out, the rest of the entry checked.
			req.Notes = append(req.Notes, Note{Offset: e.offset, Field: e.path(), Text: "does not decode (" + msg + "): not checked"})
			return nil
		}
		return &Error{Offset: e.offset, Field: e.path(), Msg: msg}
	}
	return nil
}

// element is one element of a messages array as read.
type element struct {
	prefix string // "messages", "input", "prompt", or "" for a bare array
	index  int
	offset int64
	raw    json.RawMessage
}

func (e element) path() string { return fmt.Sprintf("%s[%d]", e.prefix, e.index) }

// elementMessage rewrites a decoder's error about a one-element body
// ("messages[0].content: ...") to name the element in the transcript.
func elementMessage(err error, e element) string {
	msg := err.Error()
	var de *model.DecodeError
	if errors.As(err, &de) {
		path := strings.Replace(de.Path, "message", e.path(), 1)
		if path == "" {
			path = e.path()
		}
		return path + ": " + de.Reason
	}
	for _, p := range []string{"uistream: ", "agui: ", "request body: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	for _, stub := range []string{"messages[0]", "input[0]", "messages[1]"} {
		if strings.HasPrefix(msg, stub) {
			return e.path() + strings.TrimPrefix(msg, stub)
		}
	}
	if strings.HasPrefix(msg, ".") {
		return e.path() + msg // a field of the element
	}
	return e.path() + ": " + msg
}

// add appends canonical messages decoded from element e. Messages of the
// provider formats that the provider's own decoder would join (consecutive
// tool messages; a Responses item run of one role) are joined. Without
// Options.Keep, a provider body keeps no messages: its view is enough.
func (rd *reader) add(req *Request, e element, msgs []model.Message, join bool) {
	_, isProvider := req.Format.Provider()
	for _, m := range msgs {
		rd.nameResults(&m)
		req.Count++
		if rd.opts.OnMessage != nil {
			rd.opts.OnMessage(req, &Message{Message: m, Source: e.index, Sources: []int{e.index}, Offset: e.offset})
		}
		if isProvider && !rd.opts.Keep {
			continue // the provider's view holds what its rules need
		}
		if !rd.opts.Keep {
			m = skeleton(m)
		}
		if n := len(req.Messages); join && n > 0 && req.Messages[n-1].Role == m.Role && req.Messages[n-1].Source == e.index-1 &&
			(m.Role == model.RoleTool || (req.Format == OpenAIResponses && m.Role == model.RoleAssistant)) {
			req.Messages[n-1].Content = append(req.Messages[n-1].Content, m.Content...)
			req.Messages[n-1].Source = e.index
			req.Messages[n-1].Sources = append(req.Messages[n-1].Sources, e.index)
			continue
		}
		req.Messages = append(req.Messages, Message{Message: m, Source: e.index, Sources: []int{e.index}, Offset: e.offset})
	}
}

// nameResults fills the tool names of results from their calls (the wires
// name a result's call by id only) and remembers the calls' names.
func (rd *reader) nameResults(m *model.Message) {
	for i := range m.Content {
		p := &m.Content[i]
		switch p.Type {
		case model.PartToolCall:
			if _, ok := rd.names[p.ToolCallID]; !ok {
				rd.names[p.ToolCallID] = p.ToolName
			}
		case model.PartToolResult:
			if p.ToolName == "" {
				p.ToolName = rd.names[p.ToolCallID]
			}
		}
	}
}

// skeleton keeps what the providers' rules and the lint look at: roles,
// part types, ids, names, decisions, output types.
func skeleton(m model.Message) model.Message {
	s := model.Message{Role: m.Role, Content: make([]model.Part, len(m.Content))}
	for i, p := range m.Content {
		q := model.Part{Type: p.Type, ToolCallID: p.ToolCallID, ToolName: p.ToolName, ProviderExecuted: p.ProviderExecuted,
			ApprovalID: p.ApprovalID, Approved: p.Approved}
		if p.Output != nil {
			q.Output = &model.ToolOutput{Type: p.Output.Type}
		}
		s.Content[i] = q
	}
	return s
}

func (rd *reader) canonical(req *Request, e element) error {
	m, err := rd.lenientMessage(req, e)
	if err != nil {
		return err
	}
	rd.add(req, e, []model.Message{m}, false)
	return nil
}

// providerElement decodes one message (or input item) with the provider's
// own request decoder, as a body of one element, and keeps the entry of the
// provider's view it makes.
func (rd *reader) providerElement(req *Request, e element) error {
	profile, _ := req.Format.Provider()
	codec, err := provider.Lookup(profile)
	if err != nil {
		return err
	}
	key := "messages"
	if req.Format == OpenAIResponses {
		key = "input"
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(e.raw, &head) == nil && head.Type == "item_reference" {
			req.Stored = true
			req.Notes = append(req.Notes, Note{Offset: e.offset, Field: e.path(),
				Text: fmt.Sprintf("item_reference %s names an item the provider stored: not checked, and results of calls it may hold are not paired", head.ID)})
			return nil
		}
	}
	body := make([]byte, 0, len(e.raw)+len(key)+6)
	body = append(append(append(append(body, `{"`...), key...), `":[`...), e.raw...)
	body = append(body, "]}"...)
	d, err := codec.DecodeRequest(body)
	if err != nil {
		return err
	}
	base := len(req.Messages)
	rd.add(req, e, d.Request.Messages, true)
	if req.View == nil {
		req.View = &wire.View{Profile: profile}
	}
	for _, en := range d.View.Entries {
		if rd.opts.Keep {
			en.Canonical = canonicalAfterJoin(req, base, en.Canonical)
			for k := range en.Results {
				en.Results[k].Canonical = canonicalAfterJoin(req, base, en.Results[k].Canonical)
			}
		} else { // the messages are not kept: the view is all there is
			en.Canonical = -1
			for k := range en.Results {
				en.Results[k].Canonical = -1
			}
		}
		req.View.Entries = append(req.View.Entries, en)
		req.ViewSource = append(req.ViewSource, e.index)
		req.ViewOffset = append(req.ViewOffset, e.offset)
	}
	return nil
}

// canonicalAfterJoin maps a canonical index of a one-element body to the
// request's canonical index, once add has joined messages.
func canonicalAfterJoin(req *Request, base, i int) int {
	if i < 0 {
		return i
	}
	if base+i >= len(req.Messages) {
		return len(req.Messages) - 1
	}
	return base + i
}

func (rd *reader) uiMessage(req *Request, e element) error {
	e = rd.legacyUI(req, e)
	body := append(append([]byte(`{"messages":[`), e.raw...), "]}"...)
	cr, err := uistream.Codec{}.DecodeRequest(body)
	if err != nil {
		return err
	}
	return rd.chatMessages(req, e, cr)
}

// chatMessages adds decoded chat messages in the canonical model, answers
// bound to their calls.
func (rd *reader) chatMessages(req *Request, e element, cr *chat.Request) error {
	msgs, outcomes, err := chatserver.Convert(cr)
	if err != nil {
		return err
	}
	bindAnswers(cr, msgs)
	rd.add(req, e, msgs, false)
	recordParts(req, e, outcomes)
	return nil
}

// bindAnswers marks the approval responses decoded from chat messages with
// the call they answer: a UI part carries its answer, so the response
// cannot miss its request.
func bindAnswers(cr *chat.Request, msgs []model.Message) {
	calls := map[string]string{} // approval id -> call id
	for _, m := range cr.Messages {
		for _, p := range m.Parts {
			if p.Approval != nil {
				calls[p.Approval.ID] = p.ToolCallID
			}
		}
	}
	for i := range msgs {
		for j := range msgs[i].Content {
			p := &msgs[i].Content[j]
			if p.Type == model.PartToolApprovalResponse && p.ToolCallID == "" {
				p.ToolCallID = calls[p.ApprovalID]
			}
		}
	}
}

// aguiMessage reads one RunAgentInput message. Messages with TanStack parts
// hold their calls' states; otherwise an assistant message's toolCalls are
// calls, and a tool message is the outcome of its call, read where it
// stands (a placeholder of an approval answer, or a result).
func (rd *reader) aguiMessage(req *Request, e element) error {
	var head struct {
		Role       string          `json:"role"`
		ToolCallID string          `json:"toolCallId"`
		Parts      json.RawMessage `json:"parts"`
	}
	if err := json.Unmarshal(e.raw, &head); err != nil {
		return err
	}
	if head.Role != "tool" {
		body := append(append([]byte(`{"messages":[`), e.raw...), "]}"...)
		cr, err := agui.Codec{}.DecodeRequest(body)
		if err != nil {
			return err
		}
		if present(head.Parts) {
			for _, m := range cr.Messages {
				for _, p := range m.Parts {
					if p.Type == chat.PartToolCall {
						rd.partCalls[p.ToolCallID] = true
					}
				}
			}
		}
		return rd.chatMessages(req, e, cr)
	}
	if head.ToolCallID == "" {
		return errors.New("messages[0].toolCallId: missing on a tool message")
	}
	if rd.partCalls[head.ToolCallID] {
		return nil // the call's parts already say what the client knows of it
	}
	// The outcome is read against a stand-in for its call.
	stub, _ := json.Marshal(map[string]any{"role": "assistant", "toolCalls": []any{map[string]any{
		"id": head.ToolCallID, "type": "function", "function": map[string]string{"name": "_", "arguments": "{}"}}}})
	body := bytes.Join([][]byte{[]byte(`{"messages":[`), stub, []byte(","), e.raw, []byte("]}")}, nil)
	cr, err := agui.Codec{}.DecodeRequest(body)
	if err != nil {
		return err
	}
	msgs, err := chatserver.ToModelMessages(cr)
	if err != nil {
		return err
	}
	bindAnswers(cr, msgs)
	var out []model.Message
	for _, m := range msgs {
		if m.Role == model.RoleTool {
			for j := range m.Content {
				if m.Content[j].Type == model.PartToolResult {
					m.Content[j].ToolName = ""
				}
			}
			out = append(out, m)
		}
	}
	rd.add(req, e, out, false)
	return nil
}

// decodeResume reads AG-UI resume entries with the AG-UI codec.
func decodeResume(raw json.RawMessage) ([]chat.Resume, error) {
	body := append(append([]byte(`{"messages":[],"resume":`), raw...), '}')
	cr, err := agui.Codec{}.DecodeRequest(body)
	if err != nil {
		return nil, err
	}
	return cr.Resume, nil
}

// resumeAnswers turns AG-UI resume entries into a tool message of answers
// bound to the calls their interrupt ids name ("approval_<toolCallId>", or
// the call id itself). An entry that repeats the answer a tool message
// already carries (TanStack AI's client sends both) is the same answer.
func resumeAnswers(entries []chat.Resume, known map[string]bool) model.Message {
	m := model.Message{Role: model.RoleTool}
	for _, r := range entries {
		call := strings.TrimPrefix(r.InterruptID, "approval_")
		if approved, ok := known[call]; ok && approved == r.Approved {
			continue
		}
		p := model.ApprovalResponse(r.InterruptID, r.Approved, r.Reason)
		p.ToolCallID = call
		m.Content = append(m.Content, p)
	}
	return m
}
