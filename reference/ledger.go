package reference

import (
	"container/list"
	"context"
	"sync"

	"github.com/approval-conformance-kit/ack/model"
)

// ledger remembers the outputs of executed approvals, so that a replayed or
// duplicated approval never runs its tool again (WIRE-04), even when the
// replay arrives while the first run is still going. It is bounded: the
// oldest entries are forgotten first.
type ledger struct {
	mu    sync.Mutex
	max   int
	order *list.List
	byID  map[string]*list.Element
}

type ledgerEntry struct {
	approvalID string
	done       chan struct{} // closed when output is set
	output     *model.ToolOutput
}

func newLedger(max int) *ledger {
	if max <= 0 {
		max = 1
	}
	return &ledger{max: max, order: list.New(), byID: map[string]*list.Element{}}
}

// claim returns, for an approval seen before, its output (waiting for a run
// still going); otherwise it reserves the approval and returns a function
// that records the output of the run the caller now owns.
func (l *ledger) claim(ctx context.Context, approvalID string) (out *model.ToolOutput, seen bool, record func(*model.ToolOutput), err error) {
	l.mu.Lock()
	if e, ok := l.byID[approvalID]; ok {
		entry := e.Value.(*ledgerEntry)
		l.mu.Unlock()
		select {
		case <-entry.done:
			return entry.output, true, nil, nil
		case <-ctx.Done():
			return nil, true, nil, ctx.Err()
		}
	}
	entry := &ledgerEntry{approvalID: approvalID, done: make(chan struct{})}
	l.byID[approvalID] = l.order.PushBack(entry)
	for l.order.Len() > l.max {
		oldest := l.order.Front()
		l.order.Remove(oldest)
		delete(l.byID, oldest.Value.(*ledgerEntry).approvalID)
	}
	l.mu.Unlock()
	var once sync.Once
	return nil, false, func(o *model.ToolOutput) {
		once.Do(func() {
			entry.output = o
			close(entry.done)
		})
	}, nil
}
