// Package fault lists the bugs a mutant of the reference runtime can carry.
// Only packages under reference/ can name a Set, so the faults cannot be
// switched on from outside the mutants package.
package fault

// Fault is one injectable bug.
type Fault int

// The bugs. Each reintroduces one class of mistake the suite must catch.
const (
	LateResolution Fault = iota + 1
	LostResultsOnPartialDenial
	ExecuteDenied
	DoubleExecuteDuplicates
	FailOpenPolicy
	DropApprovalEvents
	ResultsAfterModelCall
	ForwardOrphans
	ReexecuteResolved
	NoToolkitCheck
	SkipUnknownTool
	IgnoreConcurrency
	StreamSkipsResolution
	FirstResponseOnly
	LastAssistantOnly
	KeepApprovalParts
	ValidateLate
	ContinueAfterApproval
	ConstantApprovalIDs
	PolicyCachedPerTool
	RunBeforeApproval
	DropUnapprovedSibling
	DenialAsText
	DropDenialReason
	RewriteOldDenials
	RerunApprovedOnPartialDenial
	RunProviderExecuted
	DropUnflaggedProviderApproval
	ExecuteTwice
	NoReplayLedger
	LenientApproved
	DanglingOnToolError
	NoSignatureCheck
	SignatureIgnoresInput
	NoResultPlacement

	// Neighbouring paths of the bugs above (the same mistake one branch
	// away).
	PanickingPolicyFailsOpen
	EmptyToolkitUnchecked
	UnsignedAccepted
	SignatureIgnoresName
	LastToolMessageOnly
	ResultInSameMessageIgnored
	ConflictAcrossMessagesBoth
	RunUnanswered
	CallIDAsApprovalID
	StreamDropsResultEvents
	DuplicateResultsMessage
	WrongSkipText
	PolicyWithoutMessages
	LaterStepRunsUnapproved
	StrayResponseBlocks
	DenialsMissingFromTurn
	DropsFailedFreeCall
	LedgerKeyedByAction
	LaterStepPolicyFailsOpen
	PolicySeesCurrentExchange
	RequestsInOwnMessage
	KeepsModelFinishReason
	StrayAnswerTakesLatest
	ExemptForgeryUnchecked
	UnflaggedDenialStaysUnflagged
	ResultBeforeAnswerIgnored

	// Faults of the chat client.
	NoContinuationSkipped
	ContinueEachApproval
	ContinueBeforeComplete
	DanglingOnNewMessage
	FilterApprovalEvents
	StateRegresses
	DuplicateParts
	ContinuesOnLastCall
	ChecksQueuedBeforeStreamEnds
	ResendsResumeEntries
	DeniesLatestPendingOnly
	// NeverContinue is a vacuity probe's client: it never sends a
	// continuation (reference/probes).
	NeverContinue

	// Faults of edited approvals (agent).
	IgnoresEditedInput
	OriginalCallAfterEdit
	maxFault
)

// Set is a set of faults.
type Set struct{ bits [2]uint64 }

// There must be room for every fault in a Set.
var _ = [128 - maxFault]struct{}{}

// Of returns the set holding fs.
func Of(fs ...Fault) Set {
	var s Set
	for _, f := range fs {
		s.bits[f/64] |= 1 << (uint(f) % 64)
	}
	return s
}

// With returns the set with fs added.
func (s Set) With(fs ...Fault) Set {
	return Of(fs...).union(s)
}

func (s Set) union(t Set) Set {
	return Set{bits: [2]uint64{s.bits[0] | t.bits[0], s.bits[1] | t.bits[1]}}
}

// Has reports whether f is in the set.
func (s Set) Has(f Fault) bool { return s.bits[f/64]&(1<<(uint(f)%64)) != 0 }

// Empty reports whether the set holds no fault.
func (s Set) Empty() bool { return s.bits == [2]uint64{} }
