package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/approval-conformance-kit/ack/checks"
)

// Merge combines the runs of the shards of one suite (conformance run
// --shard I/N, one per CI job) into one run, as if the suite had run
// whole:
//
//   - the set must be whole: every run records its shard, all of the same
//     count N, and shards 1 to N are each there exactly once (a single run
//     that records no shard, a whole suite, is merged with nothing); no run
//     may be interrupted;
//   - the runs must be of one suite and one selection of it: each records
//     the same suite (its files' digest, the tags, the number of scenarios
//     they select and their ids' digest), each holds the scenarios that
//     fell to its shard, as many as it records, and together they hold
//     each scenario of the selection exactly once (a shard run with other
//     tags, or whose report lost scenarios, is refused);
//   - the runs must be of the same target: the same name, the same target
//     info, the same seed and the same check level (an error names the
//     field that differs);
//   - scenarios are concatenated; checks are aggregated again from them;
//   - Started is the earliest start, and Duration the longest shard's:
//     shards run side by side (a CI matrix), so the merged run took as
//     long as its slowest shard; their sum would count the same wall-clock
//     time several times, and the time spent in each scenario stays in
//     its own Duration.
//
// The runs are not modified. Errors name a run by its position ("run 2").
func Merge(runs ...*Run) (*Run, error) {
	labels := make([]string, len(runs))
	for i := range runs {
		labels[i] = fmt.Sprintf("run %d", i+1)
	}
	return merge(labels, runs)
}

// MergeDirs reads report.json from each shard's report directory (as
// WriteDir wrote it) and merges the runs as Merge does. Errors name the
// directories involved.
func MergeDirs(dirs ...string) (*Run, error) {
	runs := make([]*Run, len(dirs))
	for i, dir := range dirs {
		r, err := ReadJSON(filepath.Join(dir, "report.json"))
		if err != nil {
			return nil, fmt.Errorf("merge %s: %w", dir, err)
		}
		runs[i] = r
	}
	return merge(dirs, runs)
}

func merge(labels []string, runs []*Run) (*Run, error) {
	if len(runs) == 0 {
		return nil, errors.New("merge: no report to merge")
	}
	for i, r := range runs {
		if r == nil {
			return nil, fmt.Errorf("merge: %s is missing (nil)", labels[i])
		}
	}
	if err := wholeSet(labels, runs); err != nil {
		return nil, err
	}
	if err := sameSuite(labels, runs); err != nil {
		return nil, err
	}
	first := runs[0]
	level := first.Level
	levelFrom := labels[0]
	for i, r := range runs[1:] {
		label := labels[i+1]
		if r.Target != first.Target {
			return nil, fmt.Errorf("merge: the target differs: %q in %s, %q in %s", first.Target, labels[0], r.Target, label)
		}
		if r.Seed != first.Seed {
			return nil, fmt.Errorf("merge: the seed differs: %d in %s, %d in %s", first.Seed, labels[0], r.Seed, label)
		}
		if err := sameInfo(first.TargetInfo, r.TargetInfo); err != nil {
			return nil, fmt.Errorf("merge: the target info differs between %s and %s: %w", labels[0], label, err)
		}
		switch {
		case r.Level == "":
		case level == "":
			level, levelFrom = r.Level, label
		case r.Level != level:
			return nil, fmt.Errorf("merge: the check level differs: %s in %s, %s in %s", level, levelFrom, r.Level, label)
		}
	}
	if level == "" {
		level = lowestLevel(runs)
	}

	out := &Run{
		Target:     first.Target,
		TargetInfo: first.TargetInfo,
		Seed:       first.Seed,
	}
	seen := map[string]string{}
	for i, r := range runs {
		if out.Started.IsZero() || (!r.Started.IsZero() && r.Started.Before(out.Started)) {
			out.Started = r.Started
		}
		out.Duration = max(out.Duration, r.Duration)
		for _, s := range r.Scenarios {
			if prev, dup := seen[s.ID]; dup {
				if prev == labels[i] {
					return nil, fmt.Errorf("merge: scenario %q appears twice in %s: a report holds each scenario once", s.ID, labels[i])
				}
				return nil, fmt.Errorf("merge: scenario %q is in both %s and %s: each scenario falls to one shard", s.ID, prev, labels[i])
			}
			seen[s.ID] = labels[i]
			out.Scenarios = append(out.Scenarios, cloneScenario(s))
		}
	}
	suite := *first.Suite
	out.Suite = &suite
	ids := slices.Collect(maps.Keys(seen))
	if len(ids) != suite.Scenarios || SelectionDigest(ids) != suite.Selection {
		return nil, fmt.Errorf("merge: the reports hold %d scenarios, not the %d their suite selects%s: they are not the shards of one run", len(ids), suite.Scenarios, tagsNote(suite.Tags))
	}
	out.Aggregate(level)
	return out, nil
}

// wholeSet checks that the runs are every shard of one run, once each.
func wholeSet(labels []string, runs []*Run) error {
	for i, r := range runs {
		if r.Interrupted != "" {
			return fmt.Errorf("merge: %s is of an interrupted run (%s): run its shard again", labels[i], r.Interrupted)
		}
	}
	var unsharded []string
	for i, r := range runs {
		if r.Shard == nil {
			unsharded = append(unsharded, labels[i])
		}
	}
	switch {
	case len(unsharded) == 1 && len(runs) == 1:
		return nil // a whole run, merged with nothing
	case len(unsharded) > 0:
		return fmt.Errorf("merge: %s records no shard (a run of the whole suite, or a report older than shards): merge only the shards of one run, each run with --shard I/N", strings.Join(unsharded, ", "))
	}
	count, countFrom := runs[0].Shard.Count, labels[0]
	byIndex := map[int]string{}
	for i, r := range runs {
		sh := *r.Shard
		if sh.Count != count {
			return fmt.Errorf("merge: %s is shard %s but %s is of %d shards: the shards of one run share their count", labels[i], sh, countFrom, count)
		}
		if sh.Index < 1 || sh.Index > sh.Count {
			return fmt.Errorf("merge: %s: shard %s is not one of 1/%d to %d/%d", labels[i], sh, count, count, count)
		}
		if prev, dup := byIndex[sh.Index]; dup {
			return fmt.Errorf("merge: shard %s is given twice: %s and %s", sh, prev, labels[i])
		}
		byIndex[sh.Index] = labels[i]
	}
	var missing []string
	for i := 1; i <= count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, Shard{Index: i, Count: count}.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("merge: the set is incomplete: shard %s missing (merge every shard of the run, 1/%d to %d/%d)", strings.Join(missing, ", "), count, count, count)
	}
	return nil
}

// sameSuite checks that the runs record one suite and selection, and
// that each holds every scenario that fell to it.
func sameSuite(labels []string, runs []*Run) error {
	for i, r := range runs {
		if r.Suite == nil {
			return fmt.Errorf("merge: %s records no suite (a report written before runs recorded their selection): run it again", labels[i])
		}
	}
	first := runs[0].Suite
	for i, r := range runs[1:] {
		a, b, label := first, r.Suite, labels[i+1]
		switch {
		case a.Tags != b.Tags:
			return fmt.Errorf("merge: the shards ran other selections: --tags %q in %s, --tags %q in %s: every shard of a run runs with the same --tags", a.Tags, labels[0], b.Tags, label)
		case a.Digest != b.Digest:
			return fmt.Errorf("merge: the shards ran other suites: %s and %s differ in the suite's files (another version of the kit, or other --scenarios): every shard of a run runs the same suite", labels[0], label)
		case a.Scenarios != b.Scenarios || a.Selection != b.Selection:
			return fmt.Errorf("merge: the shards ran other selections: %d scenarios in %s, %d in %s", a.Scenarios, labels[0], b.Scenarios, label)
		}
	}
	for i, r := range runs {
		want, what := first.Scenarios, "the suite selects"
		if r.Shard != nil {
			want, what = r.Shard.Scenarios, "that fell to its shard "+r.Shard.String()
		}
		if len(r.Scenarios) != want {
			return fmt.Errorf("merge: %s holds %d scenarios of the %d %s: its report is not whole", labels[i], len(r.Scenarios), want, what)
		}
	}
	return nil
}

func tagsNote(tags string) string {
	if tags == "" {
		return ""
	}
	return fmt.Sprintf(" (--tags %q)", tags)
}

// lowestLevel guesses the level runs were aggregated at, for runs that do
// not say: the lowest level among their checks (MAY when they have none).
func lowestLevel(runs []*Run) checks.Level {
	level := checks.Level("")
	for _, r := range runs {
		for _, c := range r.Checks {
			if level == "" || c.Level.Rank() < level.Rank() {
				level = c.Level
			}
		}
	}
	if level == "" {
		return checks.May
	}
	return level
}

func cloneScenario(s Scenario) Scenario {
	s.Tags = slices.Clone(s.Tags)
	s.Checks = slices.Clone(s.Checks)
	s.CheckVerdicts = maps.Clone(s.CheckVerdicts)
	s.Problems = slices.Clone(s.Problems)
	if s.Evidence != nil {
		ev := *s.Evidence
		ev.ModelCalls = slices.Clone(ev.ModelCalls)
		ev.ToolRuns = slices.Clone(ev.ToolRuns)
		ev.Turns = slices.Clone(ev.Turns)
		s.Evidence = &ev
	}
	return s
}

// sameInfo compares two target infos as JSON values (so that the info a
// runner holds as a Go struct equals the same info read back from
// report.json) and names the first field that differs.
func sameInfo(a, b any) error {
	va, err := infoValue(a)
	if err != nil {
		return err
	}
	vb, err := infoValue(b)
	if err != nil {
		return err
	}
	if path, x, y, differ := firstDiff("targetInfo", va, vb); differ {
		return fmt.Errorf("%s is %s in one and %s in the other", path, x, y)
	}
	return nil
}

func infoValue(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := marshalCompact(v)
	if err != nil {
		return nil, fmt.Errorf("targetInfo: %w", err)
	}
	return decodeGeneric(raw), nil
}

// firstDiff walks two generic JSON values and returns the path of the
// first difference with both sides written as JSON ("absent" when one side
// lacks the field).
func firstDiff(path string, a, b any) (string, string, string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Collect(maps.Keys(x))
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, xok := x[k]
			yv, yok := y[k]
			p := path + "." + k
			switch {
			case !xok && yv != nil:
				return p, "absent", compact(yv), true
			case !yok && xv != nil:
				return p, compact(xv), "absent", true
			}
			if p, l, r, d := firstDiff(p, xv, yv); d {
				return p, l, r, true
			}
		}
		return "", "", "", false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			if p, l, r, d := firstDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d {
				return p, l, r, true
			}
		}
		return "", "", "", false
	}
	if reflect.DeepEqual(normNumber(a), normNumber(b)) {
		return "", "", "", false
	}
	return path, compactOrAbsent(a), compactOrAbsent(b), true
}

func normNumber(v any) any {
	if n, ok := v.(json.Number); ok {
		return strings.TrimSpace(n.String())
	}
	return v
}

func compactOrAbsent(v any) string {
	if v == nil {
		return "absent"
	}
	return compact(v)
}
