package transcript

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/wire"
)

// Reading one request body: its fields and arrays as the candidate formats
// allow them, until the format is decided and the request finished.

// journalKeys mark a journal entry.
var journalKeys = map[string]bool{"call": true, "verdict": true, "prompt": true, "wire": true, "errorBody": true, "reply": true, "violations": true, "chatRequest": true}

// object reads an object (the '{' is consumed): a request body, or a
// journal entry with its prompt and wire body.
func (rd *reader) object(req *Request, cands set) error {
	var tools, system json.RawMessage
	var toolsAt int64
	var journal Entry
	isJournal := rd.opts.Format == Journal
	for rd.dec.More() {
		at := rd.dec.InputOffset()
		kt, err := rd.dec.Token()
		if err != nil {
			return rd.syntax(err, at)
		}
		key, _ := kt.(string)
		if journalKeys[key] {
			isJournal = true
		}
		if h, ok := keyHints[key]; ok && !isJournal && cands&h != 0 {
			cands &= h
		}
		switch key {
		case "messages", "input", "contents":
			if isJournal {
				break
			}
			if err := rd.messages(req, key, cands); err != nil {
				return err
			}
			continue
		case "prompt":
			sub := &Request{N: req.N, Offset: rd.dec.InputOffset(), Kind: Prompt}
			pt, err := rd.dec.Token()
			if err != nil {
				return rd.syntax(err, at)
			}
			if pt == nil {
				continue // no prompt recorded
			}
			if pt != json.Delim('[') {
				return &Error{Offset: sub.Offset, Field: "prompt", Msg: fmt.Sprintf("want [, got %v", pt)}
			}
			rd.names, rd.pending = map[string]string{}, nil
			rd.recorded = true
			err = rd.array(sub, "prompt", one(Canonical))
			rd.recorded = false
			if err != nil {
				return err
			}
			if err := rd.finish(sub, one(Canonical)); err != nil {
				return err
			}
			sub.Kind = Prompt
			req.Prompt = sub
			continue
		case "wire":
			wt, err := rd.dec.Token()
			if err != nil {
				return rd.syntax(err, at)
			}
			if wt != json.Delim('{') {
				req.Notes = append(req.Notes, Note{Offset: at, Field: "wire", Text: "the wire body is not a JSON object: not checked"})
				if err := rd.skipAfter(wt); err != nil {
					return err
				}
				continue
			}
			// A provider's body, or the kit's canonical model API's: a prompt.
			sub := &Request{N: req.N, Offset: at, Kind: Prompt}
			saved := rd.names
			rd.names, rd.partCalls, rd.pending = map[string]string{}, map[string]bool{}, nil
			rd.recorded = true
			err = rd.object(sub, setOf(OpenAIChat, OpenAIResponses, AnthropicMessages, Canonical))
			rd.recorded = false
			if err != nil {
				return err
			}
			rd.names = saved
			req.Wire = sub
			continue
		case "chatRequest":
			n, err := rd.chatRequest(req)
			if err != nil {
				return err
			}
			journal.Call = n
			continue
		case "resume":
			var raw json.RawMessage
			if err := rd.dec.Decode(&raw); err != nil {
				return rd.syntax(err, at)
			}
			entries, err := decodeResume(raw)
			if err != nil {
				return &Error{Offset: at, Field: "resume", Msg: strings.TrimPrefix(err.Error(), "agui: ")}
			}
			req.Resume = entries
			continue
		case "model":
			var v any
			if err := rd.dec.Decode(&v); err != nil {
				return rd.syntax(err, at)
			}
			// A provider body names its model; a driver-protocol turn
			// carries an endpoint object.
			if providers := setOf(OpenAIChat, OpenAIResponses, AnthropicMessages); !isJournal && cands&providers != 0 {
				if _, ok := v.(string); ok {
					cands &= providers
				}
			}
			continue
		case "previous_response_id":
			var v any
			if err := rd.dec.Decode(&v); err != nil {
				return rd.syntax(err, at)
			}
			if id, ok := v.(string); ok && id != "" {
				req.Stored = true
				req.Notes = append(req.Notes, Note{Offset: at, Field: key, Text: fmt.Sprintf("continues the stored response %s: results of its calls are not paired", id)})
			}
			continue
		case "stream":
			var b any
			if err := rd.dec.Decode(&b); err != nil {
				return rd.syntax(err, at)
			}
			req.Stream = b == true
			continue
		case "tools":
			// Read with or without Keep: a tool that does not decode makes
			// the same error either way, at the tools' position.
			if err := rd.dec.Decode(&tools); err != nil {
				return rd.syntax(err, at)
			}
			toolsAt = rd.dec.InputOffset() - int64(len(tools)) // where the tools' value begins
			continue
		case "system":
			if !rd.opts.Keep {
				break
			}
			if err := rd.dec.Decode(&system); err != nil {
				return rd.syntax(err, at)
			}
			continue
		case "reply":
			if !rd.opts.Keep {
				break
			}
			var reply simulator.Reply
			if err := rd.dec.Decode(&reply); err != nil {
				return &Error{Offset: at, Field: "reply", Msg: err.Error()}
			}
			journal.Reply = &reply
			continue
		case "scenario", "conversation", "mode", "verdict", "errorBody", "api", "path":
			var s any
			if err := rd.dec.Decode(&s); err != nil {
				return rd.syntax(err, at)
			}
			str, _ := s.(string)
			switch key {
			case "scenario":
				journal.Scenario = str
			case "conversation":
				journal.Conversation = str
			case "mode":
				journal.Mode = str
			case "verdict":
				journal.Verdict = str
			case "errorBody":
				journal.ErrorBody = str
			case "api":
				journal.API = str
			case "path":
				journal.Path = str
			}
			continue
		case "call", "turn", "status":
			var num json.Number
			if err := rd.dec.Decode(&num); err != nil {
				return &Error{Offset: at, Field: key, Msg: "want a number"}
			}
			v, _ := num.Int64()
			switch key {
			case "call":
				journal.Call = int(v)
			case "turn":
				journal.Turn = int(v)
			case "status":
				journal.Status = int(v)
			}
			continue
		}
		if err := rd.skip(); err != nil {
			return err
		}
	}
	if _, err := rd.dec.Token(); err != nil { // '}'
		return rd.syntax(err, rd.dec.InputOffset())
	}
	if isJournal {
		req.Format, req.Kind = Journal, Prompt
		_ = json.Unmarshal(tools, &journal.Tools) // names, when the entry lists them
		req.Journal = &journal
		if req.Prompt == nil && req.Wire == nil && req.Chat == nil {
			return &Error{Offset: req.Offset, Msg: "a journal entry needs its prompt, its wire body or its chat request"}
		}
		if req.Wire != nil && req.Wire.Format == "" {
			return &Error{Offset: req.Wire.Offset, Field: "wire", Msg: "the wire body holds no messages or input"}
		}
		return nil
	}
	if req.Format == "" && len(rd.pending) == 0 && req.Prefix == "" && req.Messages == nil {
		return &Error{Offset: req.Offset, Msg: "no messages (want a conversation, a provider request body with messages or input, UI messages, a RunAgentInput, or a journal entry)"}
	}
	if err := rd.finish(req, cands); err != nil {
		return err
	}
	return rd.keepExtras(req, tools, toolsAt, system)
}

// messages reads the value of a body's "messages" or "input".
func (rd *reader) messages(req *Request, key string, cands set) error {
	at := rd.dec.InputOffset()
	switch key {
	case "messages":
		cands &^= setOf(OpenAIResponses, Gemini)
	case "contents":
		cands &= one(Gemini)
	default:
		cands &= one(OpenAIResponses)
	}
	if cands == 0 {
		return &Error{Offset: at, Field: key, Msg: fmt.Sprintf("a %s body has no %q", rd.opts.Format.Describe(), key)}
	}
	tok, err := rd.dec.Token()
	if err != nil {
		return rd.syntax(err, at)
	}
	if s, ok := tok.(string); ok && key == "input" {
		req.Prefix, req.Format = "input", OpenAIResponses
		m := model.UserText(s)
		if rd.opts.OnMessage != nil {
			rd.opts.OnMessage(req, &Message{Message: m, Source: 0, Sources: []int{0}, Offset: at})
		}
		req.Count++
		if rd.opts.Keep {
			req.Messages = append(req.Messages, Message{Message: m, Source: 0, Sources: []int{0}, Offset: at})
		}
		req.View = &wire.View{Profile: wire.OpenAIResponses, Entries: []wire.Entry{{Role: "message", Canonical: 0}}}
		req.ViewSource, req.ViewOffset = []int{0}, []int64{at}
		return nil
	}
	if tok != json.Delim('[') {
		return &Error{Offset: at, Field: key, Msg: fmt.Sprintf("want an array, got %v", tok)}
	}
	return rd.array(req, key, cands)
}

// minimalLimit is the size above which an element read before its format
// is known is kept as a stand-in holding only its role (it is plain text:
// anything else would have told the format).
const minimalLimit = 4 << 10

// array reads the elements of a messages array (the '[' is consumed),
// telling the format from them when it is not known yet.
func (rd *reader) array(req *Request, prefix string, cands set) error {
	req.Prefix = prefix
	for i := 0; rd.dec.More(); i++ {
		at := rd.dec.InputOffset()
		var raw json.RawMessage
		if err := rd.dec.Decode(&raw); err != nil {
			return rd.syntax(err, at)
		}
		e := element{prefix: prefix, index: i, offset: at, raw: raw}
		s := cands
		if _, forced := cands.single(); !forced || rd.opts.Format == "" {
			// Every element is classified, so that a message of another
			// format is an error rather than read wrong.
			s = classify(raw)
			if cands&s == 0 {
				return &Error{Offset: at, Field: e.path(), Msg: fmt.Sprintf("this message is %s, but the messages before it are %s", describeSet(s), describeSet(cands))}
			}
			cands &= s
		}
		if req.Format == "" {
			if f, ok := cands.single(); ok {
				if err := rd.decide(req, f); err != nil {
					return err
				}
			} else {
				rd.pending = append(rd.pending, rd.standIn(e, s))
				continue
			}
		}
		if err := rd.decodeElement(req, e); err != nil {
			return err
		}
	}
	if _, err := rd.dec.Token(); err != nil { // ']'
		return rd.syntax(err, rd.dec.InputOffset())
	}
	rd.cands = cands
	return nil
}

func describeSet(s set) string {
	if f, ok := s.single(); ok {
		return "in the " + f.Describe() + " format"
	}
	return "one of " + s.names()
}

// standIn keeps an element whose format is not known yet: whole when it is
// small or the content is kept, otherwise its role alone.
func (rd *reader) standIn(e element, s set) element {
	if rd.opts.Keep || rd.opts.OnMessage != nil || len(e.raw) <= minimalLimit {
		return e
	}
	var p probe
	if json.Unmarshal(e.raw, &p) != nil || p.Role == "" {
		return e
	}
	role, _ := json.Marshal(p.Role)
	if s.has(UIMessages) && !s.has(Canonical) {
		e.raw = json.RawMessage(`{"id":"","role":` + string(role) + `,"parts":[]}`)
	} else {
		e.raw = json.RawMessage(`{"role":` + string(role) + `,"content":""}`)
	}
	return e
}

// decide fixes the request's format and decodes the elements read before.
func (rd *reader) decide(req *Request, f Format) error {
	req.Format = f
	pending := rd.pending
	rd.pending = nil
	for _, e := range pending {
		if err := rd.decodeElement(req, e); err != nil {
			return err
		}
	}
	return nil
}

// finish settles the format of a body whose messages never told it, and
// its kind and profile.
func (rd *reader) finish(req *Request, cands set) error {
	if req.Format == "" {
		c := cands
		if rd.cands != 0 && c&rd.cands != 0 {
			c &= rd.cands
		}
		f, ok := c.first()
		if !ok {
			return &Error{Offset: req.Offset, Msg: "cannot tell the format"}
		}
		if err := rd.decide(req, f); err != nil {
			return err
		}
	}
	rd.cands = 0
	req.Names = rd.names
	if p, ok := req.Format.Provider(); ok {
		req.Kind, req.Profile = Prompt, p
		if req.View == nil {
			req.View = &wire.View{Profile: p}
		}
	} else {
		if req.Kind == "" {
			req.Kind = History
			if req.Format == Gemini {
				req.Kind = Prompt // a request body that reached Gemini
			}
		}
		req.Profile = rd.opts.Profile
		if req.Format == Gemini {
			req.Notes = append(req.Notes, Note{Offset: req.Offset, Field: req.Prefix,
				Text: fmt.Sprintf("Gemini's own error texts are not on record: the pairing rules of %s apply (--provider), and its answer is quoted", req.Profile)})
		}
	}
	if len(req.Resume) > 0 {
		if m := resumeAnswers(req.Resume, answered(req.Messages)); len(m.Content) > 0 {
			req.Messages = append(req.Messages, Message{Message: m, Source: -1, Offset: req.Offset})
		}
	}
	return nil
}

// keepExtras decodes the tools (and Anthropic's system prompt) of a body
// and, with Options.Keep, keeps them. Without Keep the tools are decoded
// only to find the error they would make, so that a transcript reads the
// same (one verdict, one position: toolsAt, where the tools begin) with
// and without Keep.
func (rd *reader) keepExtras(req *Request, tools json.RawMessage, toolsAt int64, system json.RawMessage) error {
	if !rd.opts.Keep {
		system = nil
	}
	if len(tools) == 0 && len(system) == 0 {
		return nil
	}
	p, ok := req.Format.Provider()
	if !ok {
		return nil
	}
	codec, err := provider.Lookup(p)
	if err != nil {
		return err
	}
	key := `"messages":[]`
	if req.Format == OpenAIResponses {
		key = `"input":[]`
	}
	body := "{" + key
	if len(tools) > 0 {
		body += `,"tools":` + string(tools)
	}
	if len(system) > 0 && req.Format == AnthropicMessages {
		body += `,"system":` + string(system)
	}
	d, err := codec.DecodeRequest([]byte(body + "}"))
	if err != nil {
		at := req.Offset
		if len(tools) > 0 && strings.Contains(err.Error(), "tools") {
			at = toolsAt
		}
		return &Error{Offset: at, Msg: strings.TrimPrefix(err.Error(), "request body: ")}
	}
	if !rd.opts.Keep {
		return nil
	}
	req.Tools = d.Request.Tools
	if len(d.Request.Messages) > 0 { // the system prompt
		sys := make([]Message, 0, len(req.Messages)+1)
		sys = append(sys, Message{Message: d.Request.Messages[0], Source: -1, Offset: req.Offset})
		req.Messages = append(sys, req.Messages...)
	}
	return nil
}
