package lint

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUIHistoryMemoryBound: a UI history is linted streaming: a 16 MB
// history of 32 kB tool outputs is converted and judged with a peak live
// heap far below its size, and every part gets its verdict.
func TestUIHistoryMemoryBound(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and reads a 16 MB file; the race detector distorts the heap it measures")
	}
	const size = 16 << 20
	path := filepath.Join(t.TempDir(), "ui.json")
	n := writeUIBody(t, path, size, 32<<10)
	var res *Result
	live, _ := peakHeap(func() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		res, err = Read(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(res.Findings) != 1 || res.Findings[0].Kind != "dangling" {
		t.Fatalf("findings %+v, want the one dangling call", res.Findings)
	}
	if res.Messages < n || len(res.Parts) != n/2 {
		t.Errorf("%d messages and %d parts read, want at least %d and %d", res.Messages, len(res.Parts), n, n/2)
	}
	if limit := uint64(size / 4); live > limit {
		t.Errorf("peak live heap %d MB for a %d MB history: want under %d MB", live>>20, size>>20, limit>>20)
	}
	t.Logf("%d messages, peak live heap %.1f MB", n, float64(live)/(1<<20))
}
