package target

import (
	"context"
	"fmt"
)

// The decisions a dynamic policy can take for a call (PolicyDecision).
// A policy of a target that declares autoPolicies may decide on its own,
// as the AI SDK's toolApproval statuses do.
const (
	// DecisionNotApplicable: the call runs without approval.
	DecisionNotApplicable = "not-applicable"
	// DecisionUserApproval: the call waits for the user's answer.
	DecisionUserApproval = "user-approval"
	// DecisionApproved: the policy approves the call on its own; it runs.
	DecisionApproved = "approved"
	// DecisionDenied: the policy denies the call on its own; it gets a
	// denial result (execution-denied, with the policy's reason) and never
	// runs.
	DecisionDenied = "denied"
)

// PolicyDecision is what a dynamic policy decided for a call.
type PolicyDecision struct {
	Decision string `json:"decision"`
	// Reason is an automatic denial's reason.
	Reason string `json:"reason,omitempty"`
}

// NeedsApproval reports whether the decision waits for the user: the
// answer of Harness.Policy. An automatic denial waits for nobody, but a
// runtime that cannot deny on its own must not run the call either, so it
// counts as needing approval there.
func (d PolicyDecision) NeedsApproval() bool {
	return d.Decision != DecisionNotApplicable && d.Decision != DecisionApproved
}

// Validate checks the decision's name.
func (d PolicyDecision) Validate() error {
	switch d.Decision {
	case DecisionNotApplicable, DecisionUserApproval, DecisionApproved, DecisionDenied:
		return nil
	}
	return fmt.Errorf("decision: unknown decision %q (want not-applicable, user-approval, approved or denied)", d.Decision)
}

// Decider is a harness whose dynamic policies may decide without asking:
// approve or deny a call on their own. Harness.Policy of such a harness
// answers PolicyDecision.NeedsApproval of the same decision.
type Decider interface {
	Decide(ctx context.Context, req PolicyRequest) (PolicyDecision, error)
}
