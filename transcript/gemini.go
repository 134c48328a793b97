package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/approval-conformance-kit/ack/model"
)

// gContent is one Gemini content: a role and its parts.
type gContent struct {
	Role  string  `json:"role"`
	Parts []gPart `json:"parts"`
}

type gPart struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiCalls pairs Gemini's calls with their responses: by id when they
// have one, else by name, in order (the k-th call of a name is NAME#k, and
// a response without an id answers the earliest call of its name still
// unanswered).
type geminiCalls struct {
	count   map[string]int
	waiting map[string][]string
	orphans int
}

func (g *geminiCalls) call(id, name string) string {
	if id != "" {
		return id
	}
	g.count[name]++
	id = fmt.Sprintf("%s#%d", name, g.count[name])
	g.waiting[name] = append(g.waiting[name], id)
	return id
}

func (g *geminiCalls) response(id, name string) string {
	if id != "" {
		return id
	}
	if w := g.waiting[name]; len(w) > 0 {
		g.waiting[name] = w[1:]
		return w[0]
	}
	g.orphans++
	return fmt.Sprintf("%s#unmatched-%d", name, g.orphans)
}

// geminiContent reads one Gemini content: a model turn's functionCall parts
// are calls, a user (or function) turn's functionResponse parts the results
// of the calls they answer, its text a user message after them.
func (rd *reader) geminiContent(req *Request, e element) error {
	var c gContent
	if err := json.Unmarshal(e.raw, &c); err != nil {
		return err
	}
	if rd.gemini == nil {
		rd.gemini = &geminiCalls{count: map[string]int{}, waiting: map[string][]string{}}
	}
	var msgs []model.Message
	switch c.Role {
	case "model":
		m := model.Message{Role: model.RoleAssistant}
		for k, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				if p.FunctionCall.Name == "" {
					return fmt.Errorf(".parts[%d].functionCall.name: missing", k)
				}
				if p.FunctionCall.ID == "" {
					rd.note(req, e, "gemini-ids", fmt.Sprintf("%s.parts[%d]", e.path(), k), "function calls without an id: paired with their responses by name, in order (their ids here are NAME#N)")
				}
				args := p.FunctionCall.Args
				if !present(args) {
					args = json.RawMessage("{}")
				}
				m.Content = append(m.Content, model.ToolCall(rd.gemini.call(p.FunctionCall.ID, p.FunctionCall.Name), p.FunctionCall.Name, args))
			case p.Text != nil && *p.Text != "":
				m.Content = append(m.Content, model.Text(*p.Text))
			}
		}
		msgs = append(msgs, m)
	case "user", "function", "":
		tool := model.Message{Role: model.RoleTool}
		text := ""
		for k, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				if p.FunctionResponse.Name == "" && p.FunctionResponse.ID == "" {
					return fmt.Errorf(".parts[%d].functionResponse.name: missing", k)
				}
				out := p.FunctionResponse.Response
				if !present(out) {
					out = json.RawMessage("null")
				}
				id := rd.gemini.response(p.FunctionResponse.ID, p.FunctionResponse.Name)
				tool.Content = append(tool.Content, model.ToolResult(id, p.FunctionResponse.Name, model.JSONOutput(out)))
			case p.Text != nil:
				text += *p.Text
			}
		}
		if len(tool.Content) > 0 {
			msgs = append(msgs, tool)
		}
		if text != "" || len(tool.Content) == 0 {
			msgs = append(msgs, model.UserText(text))
		}
	default:
		return fmt.Errorf(".role: unknown Gemini role %q (want user, model or function)", c.Role)
	}
	rd.add(req, e, msgs, false)
	return nil
}
