// Command benchratio reads `go test -bench` output on standard input,
// passes it through, and then prints every benchmark's figures with their
// ratio to a baseline measured in the same run:
//
//   - a sub-benchmark named baseline=<what> is the baseline of its
//     siblings (the other sub-benchmarks under the same parent): the ratio
//     is the baseline's time over theirs, their throughput relative to the
//     baseline's (CPU time when both report cpu-ns/op, else ns/op);
//   - in a series over sizes (a name element <dimension>=<number>) each size
//     is compared with the smallest: the ratio of the cost per unit
//     (cpu-ns/<unit> or ns/<unit> when reported, else per op), 1.00 when
//     the cost is linear in the size.
//
// With -count, the median of the runs is used. A benchmark with neither is
// listed as having no baseline.
//
//	go test -run '^$' -bench . ./... | go run ./internal/benchratio
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// result is one benchmark's figures over its runs.
type result struct {
	name    string // without the Benchmark prefix and the -procs suffix
	metrics map[string][]float64
	order   []string // units in the order first printed
}

func (r *result) median(unit string) (float64, bool) {
	vs := r.metrics[unit]
	if len(vs) == 0 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

var line = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+(\d+)\s+(.*)$`)

// parse reads the benchmark lines, in order of first appearance.
func parse(in io.Reader, echo io.Writer) ([]*result, error) {
	byName := map[string]*result{}
	var all []*result
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		text := sc.Text()
		if echo != nil {
			fmt.Fprintln(echo, text)
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		r := byName[m[1]]
		if r == nil {
			r = &result{name: m[1], metrics: map[string][]float64{}}
			byName[m[1]] = r
			all = append(all, r)
		}
		fields := strings.Fields(m[4])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			unit := fields[i+1]
			if _, seen := r.metrics[unit]; !seen {
				r.order = append(r.order, unit)
			}
			r.metrics[unit] = append(r.metrics[unit], v)
		}
	}
	return all, sc.Err()
}

// time returns the figure a throughput ratio compares: CPU time if both
// report it, else wall time.
func timeUnit(a, b *result) string {
	if _, ok := a.metrics["cpu-ns/op"]; ok {
		if _, ok := b.metrics["cpu-ns/op"]; ok {
			return "cpu-ns/op"
		}
	}
	return "ns/op"
}

var sizeElem = regexp.MustCompile(`^([a-zA-Z-]+)=(\d+)$`)

// ratio says how r compares with its baselines (its sibling baseline and
// the smallest size of its series), or "" when it has none.
func ratio(r *result, byName map[string]*result, all []*result) string {
	var out []string
	if s := siblingRatio(r, all); s != "" {
		out = append(out, s)
	}
	if s := sizeRatio(r, byName, all); s != "" {
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// siblingRatio compares r with a sibling named baseline=<what>.
func siblingRatio(r *result, all []*result) string {
	elems := strings.Split(r.name, "/")
	last := elems[len(elems)-1]
	parent := strings.Join(elems[:len(elems)-1], "/")
	// A sibling baseline.
	if !strings.HasPrefix(last, "baseline=") && len(elems) > 1 {
		for _, o := range all {
			oe := strings.Split(o.name, "/")
			if len(oe) == len(elems) && strings.Join(oe[:len(oe)-1], "/") == parent && strings.HasPrefix(oe[len(oe)-1], "baseline=") {
				unit := timeUnit(r, o)
				a, okA := r.median(unit)
				b, okB := o.median(unit)
				if okA && okB && a > 0 {
					return fmt.Sprintf("%.2fx %s (%s, throughput)", b/a, strings.TrimPrefix(oe[len(oe)-1], "baseline="), unit)
				}
			}
		}
	}
	if strings.HasPrefix(last, "baseline=") {
		return "the baseline"
	}
	return ""
}

// sizeRatio compares r's cost per unit with the smallest size of its
// series.
func sizeRatio(r *result, byName map[string]*result, all []*result) string {
	elems := strings.Split(r.name, "/")
	for i, e := range elems {
		m := sizeElem.FindStringSubmatch(e)
		if m == nil {
			continue
		}
		dim, size := m[1], m[2]
		smallest, smallestName := -1, ""
		for _, o := range all {
			oe := strings.Split(o.name, "/")
			if len(oe) != len(elems) {
				continue
			}
			same := true
			for j := range oe {
				if j != i && oe[j] != elems[j] {
					same = false
				}
			}
			om := sizeElem.FindStringSubmatch(oe[i])
			if !same || om == nil || om[1] != dim {
				continue
			}
			if n, _ := strconv.Atoi(om[2]); smallest < 0 || n < smallest {
				smallest, smallestName = n, o.name
			}
		}
		if smallestName == "" {
			continue
		}
		base := byName[smallestName]
		n, _ := strconv.Atoi(size)
		unit := perUnit(r, base, dim)
		a, okA := r.median(unit)
		b, okB := base.median(unit)
		if !okA || !okB || b == 0 {
			continue
		}
		if unit == "ns/op" || unit == "cpu-ns/op" {
			a, b = a/float64(n), b/float64(smallest)
			unit += " per " + strings.TrimSuffix(dim, "s")
		}
		if smallestName == r.name {
			return fmt.Sprintf("1.00 (the smallest %s, %s)", dim, unit)
		}
		return fmt.Sprintf("%.2f of the cost at %s=%d (%s)", a/b, dim, smallest, unit)
	}
	return ""
}

// perUnit picks the per-unit cost both report: cpu-ns/<unit>, ns/<unit>,
// then the time per op.
func perUnit(a, b *result, dim string) string {
	u := strings.TrimSuffix(dim, "s")
	for _, unit := range []string{"cpu-ns/" + u, "ns/" + u, "cpu-ns/op", "ns/op"} {
		if _, ok := a.metrics[unit]; ok {
			if _, ok := b.metrics[unit]; ok {
				return unit
			}
		}
	}
	return "ns/op"
}

func format(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// report prints each benchmark's figures and its ratio.
func report(w io.Writer, all []*result) (missing int) {
	byName := map[string]*result{}
	for _, r := range all {
		byName[r.name] = r
	}
	fmt.Fprintf(w, "\n== each figure with its ratio to its baseline, measured in this run\n")
	for _, r := range all {
		var figs []string
		for _, unit := range r.order {
			if v, ok := r.median(unit); ok {
				figs = append(figs, format(v)+" "+unit)
			}
		}
		rt := ratio(r, byName, all)
		if rt == "" {
			rt = "no baseline in this run"
			missing++
		}
		fmt.Fprintf(w, "%s\n    %s\n    -> %s\n", r.name, strings.Join(figs, "  "), rt)
	}
	return missing
}

func main() {
	all, err := parse(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(2)
	}
	report(os.Stdout, all)
}
