package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/approval-conformance-kit/ack/jsonschema"
	"github.com/approval-conformance-kit/ack/model"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/wire"
)

// idList matches a list of quoted ids: "a", "b" and "c".
const idList = `((?:"[^"]+"(?:, | and )?)+)`

var quoted = regexp.MustCompile(`"([^"]+)"`)

func parseIDs(s string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// given holds the arrangement steps.
type given struct{ world func() *world }

func (g *given) mode(_ context.Context, mode string) error {
	w := g.world()
	if err := w.requireFeature("mode:"+mode, mode+" mode"); err != nil {
		return err
	}
	w.mode = target.Mode(mode)
	return nil
}

func (g *given) toolAlways(_ context.Context, name string) error {
	return g.world().addTool(&toolSpec{name: name, approval: target.ApprovalAlways})
}

func (g *given) toolNever(_ context.Context, name string) error {
	return g.world().addTool(&toolSpec{name: name, approval: target.ApprovalNever})
}

func (g *given) toolSlow(_ context.Context, name string) error {
	return g.world().addTool(&toolSpec{name: name, approval: target.ApprovalAlways, slow: true})
}

func (g *given) toolDynamic(_ context.Context, name, field, prefix string) error {
	w := g.world()
	if err := w.requireFeature("dynamicPolicy", "dynamic approval policies"); err != nil {
		return err
	}
	return w.addTool(&toolSpec{name: name, approval: target.ApprovalDynamic, policy: prefixPolicy(field, prefix)})
}

func (g *given) toolFailingPolicy(_ context.Context, name string) error {
	w := g.world()
	if err := w.requireFeature("dynamicPolicy", "dynamic approval policies"); err != nil {
		return err
	}
	return w.addTool(&toolSpec{name: name, approval: target.ApprovalDynamic, policy: failingPolicy})
}

// toolAutoPolicy is a tool whose dynamic policy approves or denies every
// call on its own, without asking the user (the AI SDK's toolApproval
// statuses approved and denied).
func (g *given) toolAutoPolicy(_ context.Context, name, verb, reason string) error {
	w := g.world()
	if err := w.requireFeature("dynamicPolicy", "dynamic approval policies"); err != nil {
		return err
	}
	if err := w.requireFeature("autoPolicies", "policies that decide on their own"); err != nil {
		return err
	}
	d := &target.PolicyDecision{Decision: target.DecisionApproved}
	if verb == "denies" {
		d = &target.PolicyDecision{Decision: target.DecisionDenied, Reason: reason}
	}
	return w.addTool(&toolSpec{name: name, approval: target.ApprovalDynamic, auto: d})
}

func (g *given) existing(name string) (*toolSpec, error) {
	t := g.world().tool(name)
	if t == nil {
		return nil, fmt.Errorf("the scenario has no tool %q (define it first)", name)
	}
	return t, nil
}

func (g *given) toolFails(_ context.Context, name, msg string) error {
	t, err := g.existing(name)
	if err != nil {
		return err
	}
	if msg == "" {
		msg = "the tool failed"
	}
	t.fail = msg
	return nil
}

func (g *given) toolReturns(_ context.Context, name, out string) error {
	t, err := g.existing(name)
	if err != nil {
		return err
	}
	if !json.Valid([]byte(out)) {
		return fmt.Errorf("the output of %q is not valid JSON: %s", name, out)
	}
	t.output = json.RawMessage(out)
	return nil
}

func (g *given) noToolkit(_ context.Context, which string) error {
	w := g.world()
	if err := w.requireFeature("toolkitErrors", "toolkit errors"); err != nil {
		return err
	}
	if which == "no" {
		w.toolkit = target.ToolkitAbsent
	} else {
		w.toolkit = target.ToolkitEmpty
	}
	return nil
}

func (g *given) omitTool(_ context.Context, name string) error {
	w := g.world()
	if _, err := g.existing(name); err != nil {
		return err
	}
	w.omitted[name] = true
	return nil
}

func (g *given) concurrency(_ context.Context, n int) error {
	w := g.world()
	if err := w.requireFeature("concurrency", "the concurrency option"); err != nil {
		return err
	}
	w.options.Concurrency = n
	return nil
}

// replayLedger bounds the replay ledger of the conversation's runtime, an
// option the application sets (reference.WithLedgerSize).
func (g *given) replayLedger(_ context.Context, n int) error {
	w := g.world()
	if err := w.requireFeature("replayLedger", "a bounded replay ledger"); err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("a replay ledger of %d approvals remembers nothing; give 1 or more", n)
	}
	w.options.ReplayLedger = n
	return nil
}

func (g *given) stepLimit(_ context.Context, n int) error {
	g.world().options.MaxSteps = n
	return nil
}

func (g *given) profile(_ context.Context, name string) error {
	w := g.world()
	p, err := wire.ParseProfile(name)
	if err != nil {
		return err
	}
	if w.sim != nil {
		return fmt.Errorf("the model's provider must be set before its script")
	}
	w.profile = p
	return nil
}

func (g *given) denialPolicy(_ context.Context, policy string) error {
	w := g.world()
	if err := w.requireFeature("denialPolicy:"+policy, "the "+policy+" denial policy"); err != nil {
		return err
	}
	def := w.info.Features.DenialPolicy
	if def == "" {
		def = "independent"
	}
	if policy != def {
		w.options.DenialPolicy = policy // one of the policies the target lets a turn choose
	}
	return nil
}

func (g *given) modelCalls(_ context.Context, tool, input, id string) error {
	if !json.Valid([]byte(input)) {
		return fmt.Errorf("the input %s is not valid JSON", input)
	}
	return g.world().script(simulator.Turn{Reply: simulator.Reply{
		ToolCalls: []simulator.ToolCall{{ID: id, Name: tool, Input: json.RawMessage(input)}},
		ChunkSize: 7,
	}})
}

func (g *given) modelCallsTable(_ context.Context, table *godog.Table) error {
	rows, err := tableRows(table, "id", "tool", "input")
	if err != nil {
		return err
	}
	var calls []simulator.ToolCall
	for i, r := range rows {
		if !json.Valid([]byte(r["input"])) {
			return fmt.Errorf("row %d: the input %s is not valid JSON", i+1, r["input"])
		}
		calls = append(calls, simulator.ToolCall{ID: r["id"], Name: r["tool"], Input: json.RawMessage(r["input"])})
	}
	return g.world().script(simulator.Turn{Reply: simulator.Reply{ToolCalls: calls, ChunkSize: 7}})
}

func (g *given) providerCall(_ context.Context, tool, input, id, approval string) error {
	w := g.world()
	if err := w.requireFeature("providerExecuted", "provider-executed tools"); err != nil {
		return err
	}
	if !json.Valid([]byte(input)) {
		return fmt.Errorf("the input %s is not valid JSON", input)
	}
	return w.script(simulator.Turn{Reply: simulator.Reply{
		Text:      "I need your approval to search.",
		ToolCalls: []simulator.ToolCall{{ID: id, Name: tool, Input: json.RawMessage(input), ProviderExecuted: true, ApprovalID: approval}},
	}})
}

// providerResult scripts the provider returning a hosted tool's result:
// the provider ran the call itself (after the approval approvalID, when
// one is named), and its reply carries the call's output with its text.
func (g *given) providerResult(_ context.Context, output, tool, id, approval string) error {
	w := g.world()
	if err := w.requireFeature("providerExecuted", "provider-executed tools"); err != nil {
		return err
	}
	if !json.Valid([]byte(output)) {
		return fmt.Errorf("the output %s is not valid JSON", output)
	}
	return w.script(simulator.Turn{Reply: simulator.Reply{
		Text:            "Here is what the search found.",
		ProviderResults: []simulator.ProviderResult{{ToolCallID: id, Name: tool, Output: json.RawMessage(output), ApprovalID: approval}},
	}})
}

func (g *given) modelReplies(_ context.Context, text string) error {
	return g.world().script(simulator.Turn{Reply: simulator.Reply{Text: text, ChunkSize: 5}})
}

// modelMayReply scripts a reply for a path the scenario allows but does not
// require (for example a denial result instead of an error).
func (g *given) modelMayReply(_ context.Context, text string) error {
	return g.world().script(simulator.Turn{Reply: simulator.Reply{Text: text, ChunkSize: 5}, Optional: true})
}

// modelAnswers scripts a model turn given as the JSON of a simulator turn
// (reply and expectations), as compiled YAML scenarios write it.
func (g *given) modelAnswers(_ context.Context, doc *godog.DocString) error {
	return g.scriptDoc(doc, false)
}

func (g *given) modelMayAnswer(_ context.Context, doc *godog.DocString) error {
	return g.scriptDoc(doc, true)
}

func (g *given) scriptDoc(doc *godog.DocString, optional bool) error {
	dec := json.NewDecoder(strings.NewReader(doc.Content))
	dec.DisallowUnknownFields()
	var t simulator.Turn
	if err := dec.Decode(&t); err != nil {
		return fmt.Errorf("the model's answer is not a simulator turn: %w", err)
	}
	t.Optional = t.Optional || optional
	return g.world().script(t)
}

func (g *given) toolSchema(_ context.Context, name string, doc *godog.DocString) error {
	t, err := g.existing(name)
	if err != nil {
		return err
	}
	if _, err := jsonschema.Compile([]byte(doc.Content)); err != nil {
		return fmt.Errorf("the input schema of %q: %w", name, err)
	}
	t.schema = json.RawMessage(doc.Content)
	return nil
}

// noSchema sends the tool without an input schema: the schema is optional
// in the driver protocol, and a tool an application defines without one
// takes any input.
func (g *given) noSchema(_ context.Context, name string) error {
	t, err := g.existing(name)
	if err != nil {
		return err
	}
	if t.schema != nil {
		return fmt.Errorf("the tool %q already takes input matching a schema", name)
	}
	t.noSchema = true
	return nil
}

func (g *given) wholeToolkit(context.Context) error {
	w := g.world()
	w.toolkit = target.ToolkitProvided
	w.omitted = map[string]bool{}
	return nil
}

// exchanges starts the conversation with n finished exchanges: the user
// asks, the tool is called, its result comes back, the assistant answers.
func (g *given) exchanges(_ context.Context, n int, tool string) error {
	if _, err := g.existing(tool); err != nil {
		return err
	}
	w := g.world()
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("hist_%d", i)
		w.history = append(w.history,
			model.UserText(fmt.Sprintf("request %d", i)),
			model.Message{Role: model.RoleAssistant, Content: []model.Part{model.ToolCall(id, tool, json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))}},
			model.Message{Role: model.RoleTool, Content: []model.Part{model.ToolResult(id, tool, model.JSONOutput(json.RawMessage(fmt.Sprintf(`{"done":%d}`, i))))}},
			model.Message{Role: model.RoleAssistant, Content: []model.Part{model.Text(fmt.Sprintf("Done with request %d.", i))}})
	}
	return nil
}

func (g *given) historyDoc(_ context.Context, doc *godog.DocString) error {
	msgs, err := model.DecodeMessagesAt([]byte(doc.Content), "history")
	if err != nil {
		return err
	}
	w := g.world()
	w.history = append(w.history, msgs...)
	return nil
}

// tableRows reads a table with a header row into maps, requiring columns.
func tableRows(t *godog.Table, required ...string) ([]map[string]string, error) {
	if t == nil || len(t.Rows) < 2 {
		return nil, fmt.Errorf("the table needs a header row and at least one row")
	}
	var header []string
	for _, c := range t.Rows[0].Cells {
		header = append(header, strings.TrimSpace(c.Value))
	}
	for _, r := range required {
		if !slices.Contains(header, r) {
			return nil, fmt.Errorf("the table has no %q column (columns: %s)", r, strings.Join(header, ", "))
		}
	}
	var out []map[string]string
	for _, row := range t.Rows[1:] {
		m := map[string]string{}
		for i, c := range row.Cells {
			if i < len(header) {
				m[header[i]] = strings.TrimSpace(c.Value)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// toolProvider is a tool the provider runs: the target declares it to the
// provider and never runs it itself. Only for targets that declare
// provider-executed approvals.
func (g *given) toolProvider(_ context.Context, name string) error {
	w := g.world()
	if err := w.requireFeature("providerExecuted", "provider-executed tools"); err != nil {
		return err
	}
	return w.addTool(&toolSpec{name: name, approval: target.ApprovalNever, provider: true})
}

// toolPanickingPolicy is a dynamic policy that panics (throws) instead of
// returning an error.
func (g *given) toolPanickingPolicy(_ context.Context, name string) error {
	w := g.world()
	if err := w.requireFeature("dynamicPolicy", "dynamic approval policies"); err != nil {
		return err
	}
	return w.addTool(&toolSpec{name: name, approval: target.ApprovalDynamic, policy: panickingPolicy})
}
