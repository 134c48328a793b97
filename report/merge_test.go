package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// shardsOf splits a run into count shards by scenario position, each
// recording its shard, as conformance run --shard I/N writes them.
func shardsOf(r *Run, count int) []*Run {
	out := make([]*Run, count)
	for i := range out {
		sh := *r
		sh.Scenarios = nil
		sh.Shard = &Shard{Index: i + 1, Count: count}
		out[i] = &sh
	}
	for i, s := range r.Scenarios {
		out[i%count].Scenarios = append(out[i%count].Scenarios, s)
	}
	for _, sh := range out {
		sh.Aggregate(r.Level)
	}
	return out
}

func TestMergeWholeSet(t *testing.T) {
	whole := fixture(t, "late-resolution")
	shards := shardsOf(whole, 3)
	merged, err := Merge(shards[2], shards[0], shards[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Scenarios) != len(whole.Scenarios) || merged.Result() != whole.Result() || merged.Shard != nil {
		t.Errorf("merged: %d scenarios, %s, shard %v; want %d, %s, none", len(merged.Scenarios), merged.Result(), merged.Shard, len(whole.Scenarios), whole.Result())
	}
}

// Shard 1/2 alone is not the run: merging it must not say PASS.
func TestMergeRefusesAnIncompleteOrDuplicatedSet(t *testing.T) {
	whole := fixture(t, "reference")
	shards := shardsOf(whole, 3)
	unsharded := *whole
	interrupted := *shards[1]
	interrupted.Interrupted = "SIGINT"
	otherCount := shardsOf(whole, 2)
	for name, c := range map[string]struct {
		runs []*Run
		want string
	}{
		"one shard alone":      {[]*Run{shards[0]}, "shard 2/3, 3/3 missing"},
		"a shard missing":      {[]*Run{shards[0], shards[2]}, "shard 2/3 missing"},
		"a shard twice":        {[]*Run{shards[0], shards[1], shards[1], shards[2]}, "shard 2/3 is given twice: run 2 and run 3"},
		"counts differ":        {[]*Run{shards[0], otherCount[1]}, "run 2 is shard 2/2 but run 1 is of 3 shards"},
		"a run with no shard":  {[]*Run{shards[0], shards[1], shards[2], &unsharded}, "run 4 records no shard"},
		"two whole runs":       {[]*Run{&unsharded, &unsharded}, "run 1, run 2 records no shard"},
		"an interrupted shard": {[]*Run{shards[0], &interrupted, shards[2]}, "run 2 is of an interrupted run (SIGINT)"},
	} {
		_, err := Merge(c.runs...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
	if _, err := Merge(&unsharded); err != nil {
		t.Errorf("a whole run merged with nothing: %v", err)
	}
}

// report.json records the shard, and MergeDirs names the folders.
func TestMergeDirsReadsShards(t *testing.T) {
	shards := shardsOf(fixture(t, "reference"), 2)
	var dirs []string
	for i, sh := range shards {
		dir := filepath.Join(t.TempDir(), "shard")
		if _, err := WriteDir(dir, sh, FormatJSON); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if back.Shard == nil || *back.Shard != (Shard{Index: i + 1, Count: 2}) {
			t.Fatalf("report.json records shard %v, want %d/2", back.Shard, i+1)
		}
		dirs = append(dirs, dir)
	}
	if _, err := MergeDirs(dirs[0]); err == nil || !strings.Contains(err.Error(), "shard 2/2 missing") {
		t.Errorf("one shard of two: %v", err)
	}
	if _, err := MergeDirs(dirs[0], dirs[0]); err == nil || !strings.Contains(err.Error(), "given twice: "+dirs[0]+" and "+dirs[0]) {
		t.Errorf("a shard twice: %v", err)
	}
	if _, err := MergeDirs(dirs...); err != nil {
		t.Errorf("the whole set: %v", err)
	}
}

func TestInterruptedRun(t *testing.T) {
	r := passingRun(false)
	r.Interrupted, r.NotRun = "interrupted by SIGINT", 40
	if r.Result() != ResultInterrupted || r.Certified() {
		t.Errorf("result %s, certified %v", r.Result(), r.Certified())
	}
	md := string(render(t, r, FormatMarkdown))
	if !strings.Contains(md, "INTERRUPTED") || !strings.Contains(md, "interrupted by SIGINT") || !strings.Contains(md, "40 not run") {
		t.Errorf("report.md does not say the run was interrupted:\n%s", md[:min(len(md), 600)])
	}
	if b := BadgeOf(r); b.Message != "interrupted" {
		t.Errorf("badge %+v", b)
	}
	back, err := ReadJSON(writeJSON(t, r))
	if err != nil || back.Interrupted != r.Interrupted || back.NotRun != 40 {
		t.Errorf("read back: %v, %+v", err, back)
	}
}

func writeJSON(t *testing.T, r *Run) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r")
	if _, err := WriteDir(dir, r, FormatJSON); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "report.json")
}
