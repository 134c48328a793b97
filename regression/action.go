package regression

import (
	"fmt"
	"strings"

	"github.com/approval-conformance-kit/ack/transcript"
)

// action is a recorded turn's user action in the scenario's terms.
func action(conv *transcript.Conversation, t transcript.Turn) turn {
	var tt turn
	for _, a := range t.Answers {
		if !a.Known {
			tt.comments = append(tt.comments, fmt.Sprintf("The transcript does not show the answer to %s: an approval is assumed (deny it to replay a denial).", a.Call))
		}
	}
	if len(t.Answers) > 0 {
		tt.then = quotable(t.Then) // the user's text after the answers, in the same request
	}
	switch {
	case len(t.Answers) == 1 && t.Answers[0].Approve:
		tt.approve, tt.reason = []string{t.Answers[0].Call}, quotable(t.Answers[0].Reason)
	case len(t.Answers) == 1:
		tt.deny, tt.reason = []string{t.Answers[0].Call}, quotable(t.Answers[0].Reason)
	case len(t.Answers) > 1:
		tt.answers = t.Answers
		for i := range tt.answers {
			tt.answers[i].Reason = quotable(tt.answers[i].Reason)
		}
	default:
		tt.say = quotable(t.Say)
		if tt.say == "" {
			tt.say = "continue"
		}
	}
	if len(t.Answers) > 0 && t.Say != "" {
		tt.comments = append(tt.comments, fmt.Sprintf("The user also said %q in this request; a scenario turn takes one action.", t.Say))
	}
	if s := quotable(t.Say); s != t.Say || quotable(t.Then) != t.Then {
		tt.comments = append(tt.comments, "Double quotes and line breaks of the user's text are replaced (the text goes into a step's quotes).")
	}
	return tt
}

// quotable makes text fit in a step's double quotes.
func quotable(s string) string {
	s = strings.ReplaceAll(s, `"`, "'")
	return strings.Join(strings.Fields(s), " ")
}

// dropThen notes, in a turn whose action became one that sends no text
// after its answers, the text the user sent after them.
func dropThen(t *turn, action string) {
	if t.then != "" {
		t.comments = append(t.comments, fmt.Sprintf("The user also said %q after the answers; %s sends no text after them.", t.then, action))
		t.then = ""
	}
}
