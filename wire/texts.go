package wire

import (
	"fmt"
	"sort"
	"time"
)

// ProviderText is one error text a provider answers with that the
// simulator answers with too, dated. A provider's wording is a claim about
// a service this kit cannot reach: each text carries the date of the
// newest public record of it the kit read (an error a user pasted into an
// issue, with its envelope), and where that record is. The date says how
// old the claim is; it moves only when a newer record is read, and the
// text with it (testdata/provider-texts.pin holds both, and a test fails
// when one moves without the other).
type ProviderText struct {
	// ID names the text: provider/condition.
	ID string `json:"id"`
	// Provider is the wire whose rule it answers.
	Provider Profile `json:"provider"`
	// Status is the HTTP status it comes with.
	Status int `json:"status"`
	// Condition says what the provider refuses with it.
	Condition string `json:"condition"`
	// Text is the message, a format: %s stands for the ids or the
	// parameter, %d for a message or block index.
	Text string `json:"text"`
	// Seen is the date (YYYY-MM-DD) of the newest record of the text.
	Seen string `json:"seen"`
	// Source is where that record is.
	Source string `json:"source"`
}

// providerTexts are the texts, dated. The formats of rules.go are these
// constants; provider/openairesponses answers the last three (its tests
// hold its texts to these).
var providerTexts = []ProviderText{
	{ID: "openai-chat/dangling", Provider: OpenAIChat, Status: 400, Condition: "an assistant message's tool calls are not all followed by tool messages",
		Text: openAIDanglingText, Seen: "2026-04-15", Source: "router-for-me/CLIProxyAPI#2798 (the whole envelope: param messages.[6].role, code null)"},
	{ID: "openai-chat/orphan", Provider: OpenAIChat, Status: 400, Condition: "a tool message answers no tool call before it (the 2025 wording; the 2024 one was \"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.\")",
		Text: openAIOrphanText, Seen: "2026-06-10", Source: "itmisx/deepx-code#94 (the whole envelope: param null, code invalid_request_error)"},
	{ID: "openai-responses/missing-output", Provider: OpenAIResponses, Status: 400, Condition: "a function_call item has no function_call_output after it",
		Text: responsesMissing, Seen: "2026-06-18", Source: "jlcodes99/cockpit-tools#1234"},
	{ID: "openai-responses/orphan-output", Provider: OpenAIResponses, Status: 400, Condition: "a function_call_output answers no function_call",
		Text: responsesOrphan, Seen: "2026-04-10", Source: "binaricat/Netcatty#684"},
	{ID: "anthropic-messages/dangling", Provider: AnthropicMessages, Status: 400, Condition: "tool_use blocks have no tool_result blocks in the next message",
		Text: anthropicDangling, Seen: "2026-01-17", Source: "Kilo-Org/kilocode#5163 (the whole envelope, through Vertex AI)"},
	{ID: "anthropic-messages/unexpected-result", Provider: AnthropicMessages, Status: 400, Condition: "a tool_result block answers no tool_use block of the previous message",
		Text: anthropicUnexpected, Seen: "2026-01-18", Source: "anthropics/claude-code#18947 (the whole envelope)"},
	{ID: "openai-responses/missing-parameter", Provider: OpenAIResponses, Status: 400, Condition: "an input item lacks a required field (a function_call_output without its output)",
		Text: ResponsesMissingParameterText, Seen: "2026-07-02", Source: "vercel/ai#14428 (input[N].output); the envelope with code missing_required_parameter: microsoft/vscode-copilot-release#11157"},
	{ID: "openai-responses/previous-response-not-found", Provider: OpenAIResponses, Status: 400, Condition: "previous_response_id names a response the store does not hold",
		Text: ResponsesPreviousNotFoundText, Seen: "2026-03-31", Source: "maximhq/bifrost#2441 (code previous_response_not_found); Soju06/codex-lb#1817 reports the Codex backend answering \"Invalid `previous_response_id`.\" since 2026-08-18"},
	{ID: "openai-responses/item-not-found", Provider: OpenAIResponses, Status: 404, Condition: "an item_reference names an item the store does not hold",
		Text: ResponsesItemNotFoundText, Seen: "2026-02-12", Source: "can1357/oh-my-pi#41 (a store: false request adds \"Items are not persisted when `store` is set to false. ...\")"},
}

// The texts provider/openairesponses answers with (their dates are in
// ProviderTexts).
const (
	ResponsesMissingParameterText = "Missing required parameter: '%s'."
	ResponsesPreviousNotFoundText = "Previous response with id '%s' not found."
	ResponsesItemNotFoundText     = "Item with id '%s' not found."
)

// ProviderTexts returns every provider text the simulator answers with,
// in the order of providerTexts.
func ProviderTexts() []ProviderText {
	return append([]ProviderText(nil), providerTexts...)
}

// Age is how long before now a text was last seen (a text whose date does
// not parse is as old as can be).
func (t ProviderText) Age(now time.Time) time.Duration {
	seen, err := time.Parse(time.DateOnly, t.Seen)
	if err != nil {
		return time.Duration(1<<63 - 1)
	}
	return now.Sub(seen)
}

// OlderThan returns the texts last seen more than maxAge before now,
// oldest first.
func OlderThan(now time.Time, maxAge time.Duration) []ProviderText {
	var out []ProviderText
	for _, t := range providerTexts {
		if t.Age(now) > maxAge {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Seen < out[j].Seen })
	return out
}

// ParseAge reads an age: Go's durations (720h) or a number of days (180d).
func ParseAge(s string) (time.Duration, error) {
	var days int
	if n, err := fmt.Sscanf(s, "%dd", &days); err == nil && n == 1 && fmt.Sprintf("%dd", days) == s {
		if days < 0 {
			return 0, fmt.Errorf("age %q: negative", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("age %q: want days (180d) or a duration (720h)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("age %q: negative", s)
	}
	return d, nil
}
