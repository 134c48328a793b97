package checks

import (
	"fmt"
	"strings"
)

// Harm is what goes wrong for a user when a rule is broken. A MUST check
// names the harms its failures cause, and a MUST failure stands only when
// the same run shows one of them; a rule whose breach causes none is
// SHOULD at most.
type Harm string

// The harms, from the one short list every MUST failure is graded by.
const (
	// Refused: the provider refuses the prompt (the simulator answers with
	// the provider's exact HTTP 400).
	Refused Harm = "refused"
	// RanAgainstAnswer: a tool runs unapproved, after a denial, twice for
	// one approval, or on input other than the one shown for approval.
	RanAgainstAnswer Harm = "ran-against-answer"
	// Lost: an answer or a result silently disappears (an approved call
	// never runs and nothing says why; a result the model or the stream's
	// consumer never sees; a call the history no longer answers).
	Lost Harm = "lost"
	// Crashed: the runtime dies, or fails with an error that does not say
	// what is wrong, where a clear refusal is due.
	Crashed Harm = "crashed"
	// Forged: an approval the runtime did not issue, or one for other input,
	// is honoured.
	Forged Harm = "forged"
)

// Harms lists the harms in order of gravity.
var Harms = []Harm{RanAgainstAnswer, Forged, Crashed, Lost, Refused}

// Safety reports whether the harm is a safety harm: one that stays a MUST
// failure whoever produced the input, out-of-contract input included.
func (h Harm) Safety() bool {
	return h == RanAgainstAnswer || h == Forged || h == Crashed
}

// Describe says what the harm is, in a few words.
func (h Harm) Describe() string {
	switch h {
	case Refused:
		return "the provider refuses the prompt"
	case RanAgainstAnswer:
		return "a tool ran against the user's answer"
	case Lost:
		return "an answer or a result silently disappeared"
	case Crashed:
		return "the runtime crashed or failed without saying what is wrong"
	case Forged:
		return "an approval the runtime did not issue was honoured"
	}
	return string(h)
}

// ParseHarm reads a harm's name.
func ParseHarm(s string) (Harm, error) {
	for _, h := range Harms {
		if string(h) == strings.TrimSpace(s) {
			return h, nil
		}
	}
	return "", fmt.Errorf("unknown harm %q (want refused, ran-against-answer, lost, crashed or forged)", s)
}

// Provenance says who produces a scenario's input.
type Provenance string

// The provenances.
const (
	// Conforming input is what the SDK's own flows, or any conforming
	// client, send.
	Conforming Provenance = "conforming"
	// OutOfContract input comes from a client outside the contract:
	// re-sent or replayed answers, forged or edited histories, hand-built
	// layouts, or input outside a delivery contract the SDK documents. On
	// it only the safety harms are MUST.
	OutOfContract Provenance = "out-of-contract"
)

// OutOfContractTag is the tag of a scenario whose input no conforming
// client produces.
const OutOfContractTag = "@out-of-contract"

// Trait is a property of a scenario's input that a target's declared
// delivery contract may exclude: for a target that declares the contract,
// a scenario with the trait is out-of-contract.
type Trait struct {
	// Tag marks a scenario with the trait ("@answers-in-several-messages").
	Tag string
	// Contract is the contract field (features.contract in the driver
	// protocol's info) that excludes the trait.
	Contract string
	// What says what the input does, for the report.
	What string
}

// Traits are the input traits a delivery contract can exclude.
var Traits = []Trait{
	{Tag: "@answers-in-several-messages", Contract: "answersInLastMessage", What: "the request's answers come in more than one message"},
	{Tag: "@answers-not-last", Contract: "answersInLastMessage", What: "another message follows the request's answers"},
	{Tag: "@partial-batch", Contract: "wholeBatches", What: "the request answers only some of a step's pending approvals"},
}
