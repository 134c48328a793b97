package report

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// withSuite gives a run the suite record a run writes: its scenarios are
// the whole selection.
func withSuite(r *Run) *Run {
	out := *r
	var ids []string
	for _, s := range r.Scenarios {
		ids = append(ids, s.ID)
	}
	out.Suite = &Suite{Digest: "d1", Scenarios: len(ids), Selection: SelectionDigest(ids)}
	return &out
}

// shardsOf splits a run into count shards by scenario position, each
// recording its shard and the suite, as conformance run --shard I/N
// writes them.
func shardsOf(r *Run, count int) []*Run {
	r = withSuite(r)
	out := make([]*Run, count)
	for i := range out {
		sh := *r
		sh.Scenarios = nil
		out[i] = &sh
	}
	for i, s := range r.Scenarios {
		out[i%count].Scenarios = append(out[i%count].Scenarios, s)
	}
	for i, sh := range out {
		sh.Shard = &Shard{Index: i + 1, Count: count, Scenarios: len(sh.Scenarios)}
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
	unsharded := *withSuite(whole)
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
	for _, sh := range shards {
		dir := filepath.Join(t.TempDir(), "shard")
		if _, err := WriteDir(dir, sh, FormatJSON); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJSON(filepath.Join(dir, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		if back.Shard == nil || *back.Shard != *sh.Shard || back.Suite == nil || *back.Suite != *sh.Suite {
			t.Fatalf("report.json records shard %v and suite %v, want %v and %v", back.Shard, back.Suite, sh.Shard, sh.Suite)
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

// A merge proves the shards cover one suite's selection exactly once:
// shards run with other tags, of another suite, or whose report lost
// scenarios (all of them, or one) are refused, however well the rest
// went; so is a scenario in two shards.
func TestMergeRefusesShardsThatDoNotCoverTheSuite(t *testing.T) {
	whole := fixture(t, "reference")
	shards := func() []*Run { return shardsOf(whole, 2) }
	otherTags := shards()
	for _, r := range otherTags {
		s := *r.Suite
		s.Tags = "@PRE-01"
		r.Suite = &s
	}
	otherSuite := shards()
	s := *otherSuite[1].Suite
	s.Digest = "d2"
	otherSuite[1].Suite = &s
	emptied := shards()
	emptied[1].Scenarios = nil
	emptied[1].Aggregate(whole.Level)
	emptiedAndCounted := shards()
	emptiedAndCounted[1].Scenarios, emptiedAndCounted[1].Shard.Scenarios = nil, 0
	oneLost := shards()
	oneLost[0].Scenarios = oneLost[0].Scenarios[1:]
	duplicated := shards()
	duplicated[1].Scenarios = append(duplicated[1].Scenarios, duplicated[0].Scenarios[0])
	duplicated[1].Shard.Scenarios++
	noSuite := shards()
	noSuite[0].Suite = nil
	emptyWhole := withSuite(whole)
	emptyWhole.Scenarios = nil
	for name, c := range map[string]struct {
		runs []*Run
		want string
	}{
		"other tags":               {[]*Run{shards()[0], otherTags[1]}, `the shards ran other selections: --tags "" in run 1, --tags "@PRE-01" in run 2`},
		"another suite":            {otherSuite, "the shards ran other suites: run 1 and run 2 differ in the suite's files"},
		"a shard emptied":          {emptied, "run 2 holds 0 scenarios of the"},
		"a shard emptied, counted": {emptiedAndCounted, "not the " + strconv.Itoa(len(whole.Scenarios)) + " their suite selects"},
		"a scenario lost":          {oneLost, "run 1 holds " + strconv.Itoa(len(oneLost[0].Scenarios)) + " scenarios of the"},
		"a scenario in two shards": {duplicated, "is in both run 1 and run 2: each scenario falls to one shard"},
		"a shard with no suite":    {noSuite, "run 1 records no suite"},
		"a whole run emptied":      {[]*Run{emptyWhole}, "run 1 holds 0 scenarios of the " + strconv.Itoa(len(whole.Scenarios)) + " the suite selects"},
	} {
		merged, err := Merge(c.runs...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			res := "no run"
			if merged != nil {
				res = string(merged.Result())
			}
			t.Errorf("%s: got %v (%s), want an error containing %q", name, err, res, c.want)
		}
	}
	merged, err := Merge(shards()...)
	if err != nil || merged.Suite == nil || *merged.Suite != *withSuite(whole).Suite {
		t.Errorf("the whole set: %v, suite %v", err, merged)
	}
	if _, err := Merge(merged); err != nil {
		t.Errorf("a merged run merged again with nothing: %v", err)
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
