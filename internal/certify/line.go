package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/internal/semver"
	"github.com/approval-conformance-kit/ack/report"
)

// The release line of one certification path: `certify line` (make
// certify-line) certifies every installable release of a line, or a
// sample, each from a lockfile of its own, and says for each finding of
// the line's certified baselines the first release that shows it and the
// first that no longer does.
//
//	go run ./internal/certify line [flags] ADAPTER VERSIONS
//
// VERSIONS is `all` (every release of the line on the registry), `sample`
// (the first and the last release, the certified ones, and each release
// whose changelog notes touch approval), `A..B` (the releases from A to B)
// or a comma-separated list. Unless --bisect=false, the releases between two
// that disagree on a finding are certified too, by bisection, until the
// two releases around each change are adjacent among the installable
// ones.
//
// A finding is tracked by its signature (baseline.Signatures): the cells
// of the baseline entries that cite it, in every certified baseline of the
// line on that path. A release shows it when one of those cells fails or
// warns, and no longer does when every one that ran passes.

// lineOptions are the flags of `certify line`.
type lineOptions struct {
	manifest, sources, adapters, certified, out, path, line, tags, findings string
	bisect, list                                                            bool
	timeout                                                                 time.Duration
}

// The generated section of a FINDINGS.md.
const (
	lineBegin = "<!-- BEGIN release line: written by `make certify-line` (internal/certify line); do not edit, run it again -->"
	lineEnd   = "<!-- END release line -->"
)

func runLine(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("certify line", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o lineOptions
	fs.StringVar(&o.manifest, "manifest", "adapters/certify.yaml", "the certifications (the line's paths, flags, tags and baselines)")
	fs.StringVar(&o.sources, "lines", "adapters/lines.yaml", "where each adapter's SDK is published")
	fs.StringVar(&o.adapters, "adapters", "adapters", "the adapters' folder")
	fs.StringVar(&o.certified, "certified", "reports/certified", "the certified folders (the baselines whose findings the line tracks)")
	fs.StringVar(&o.out, "out", "", "where the line's reports, LINE.md and line.json go (default reports/lines/<adapter>-<line>[-<path>]/)")
	fs.StringVar(&o.path, "path", "", "the certification path the line is run on (default: wire where the line has it, else the newest certification's)")
	fs.StringVar(&o.line, "line", "", "with VERSIONS all or sample: the line (a major version, 0.MINOR for 0.x; default: the newest certification's)")
	fs.StringVar(&o.tags, "tags", "", "a tag expression: run only these scenarios (with the certification's own tags)")
	fs.StringVar(&o.findings, "findings", "", "a FINDINGS.md to write the line's section into (between its markers, or at its end)")
	fs.BoolVar(&o.bisect, "bisect", true, "certify the releases between two that disagree on a finding, by bisection (--bisect=false: only the releases named)")
	fs.BoolVar(&o.list, "list", false, "only list the releases VERSIONS selects (installable or not, and those whose changelog touches approval), then exit")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "time limit of one release's certification")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: go run ./internal/certify line [flags] ADAPTER all|sample|A..B|V1,V2,...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := newLineRun(ctx, o, fs.Arg(0), fs.Arg(1), execCommand, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "certify line:", err)
		return 2
	}
	if o.list {
		l.printSelection(stdout)
		return 0
	}
	res, err := l.certifyLine(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "certify line:", err)
		return 2
	}
	if err := l.write(res); err != nil {
		fmt.Fprintln(stderr, "certify line:", err)
		return 1
	}
	fmt.Fprint(stdout, "\n"+res.summary())
	return 0
}

// lineRun is one run of `certify line`.
type lineRun struct {
	o        lineOptions
	src      Source
	reg      registry
	exec     command
	stdout   io.Writer
	stderr   io.Writer
	root     string
	certs    []Certification // the line's certifications on the path, oldest first
	ref      Certification   // the newest: its flags and tags
	lineName string
	releases []Release // the line's releases, oldest first
	spec     string
	// selected are the versions VERSIONS names, oldest first (installable
	// or not); scope bounds the bisection.
	selected []Release
	scopeLo  string
	scopeHi  string
	touches  map[string]string // version -> the changelog line that touches approval
	pre      bool              // the line's pre-releases belong to it (one is certified)
	runs     map[string]*VersionRun
}

// VersionRun is one release certified for a line.
type VersionRun struct {
	Version string `json:"version"`
	// Report is the folder of its report files.
	Report string `json:"report,omitempty"`
	// Lockfile is the file that pins what was installed, and its SHA-256.
	Lockfile    string `json:"lockfile,omitempty"`
	LockfileSHA string `json:"lockfileSha256,omitempty"`
	// Before is the npm_config_before the install resolved ranges with
	// (the release's publication, plus an hour for the packages published
	// with it), so that a new lockfile is the same whenever it is made.
	Before string `json:"npmBefore,omitempty"`
	// Error says why it could not be certified.
	Error string `json:"error,omitempty"`

	Run *report.Run `json:"-"`
}

func newLineRun(ctx context.Context, o lineOptions, adapter, spec string, run command, stdout, stderr io.Writer) (*lineRun, error) {
	m, err := LoadManifest(o.manifest, o.adapters)
	if err != nil {
		return nil, err
	}
	sources, err := LoadSources(o.sources)
	if err != nil {
		return nil, err
	}
	src, ok := sources[adapter]
	if !ok {
		return nil, fmt.Errorf("%s: no line for adapter %q (each adapter's registry and package are listed there)", o.sources, adapter)
	}
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	l := &lineRun{o: o, src: src, reg: newRegistry(src.Registry, run), exec: run, stdout: stdout, stderr: stderr, root: root, spec: spec, runs: map[string]*VersionRun{}}

	var mine []Certification
	for _, c := range m.Certifications {
		if c.Adapter == adapter {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("%s: no certification of adapter %q: a line runs with a certification's flags and baselines", o.manifest, adapter)
	}
	named, err := namedVersions(spec)
	if err != nil {
		return nil, err
	}
	switch {
	case len(named) > 0:
		l.lineName = semver.LineOf(named[0])
		for _, v := range named {
			if semver.LineOf(v) == "" {
				return nil, fmt.Errorf("VERSIONS: %q is not a version", v)
			}
			if semver.LineOf(v) != l.lineName {
				return nil, fmt.Errorf("VERSIONS: %s and %s are in two lines (%s and %s): a line is one major version", named[0], v, semver.LineOf(named[0]), semver.LineOf(v))
			}
		}
		if o.line != "" && o.line != l.lineName {
			return nil, fmt.Errorf("--line %s, but VERSIONS are of line %s", o.line, l.lineName)
		}
	case o.line != "":
		l.lineName = o.line
	default:
		newest := mine[0]
		for _, c := range mine[1:] {
			if semver.Compare(c.Version, newest.Version) > 0 {
				newest = c
			}
		}
		l.lineName = semver.LineOf(newest.Version)
	}
	var inLine []Certification
	for _, c := range mine {
		if semver.LineOf(c.Version) == l.lineName {
			inLine = append(inLine, c)
		}
	}
	if len(inLine) == 0 {
		return nil, fmt.Errorf("%s: no certification of %s in line %s: a line runs with a certification's flags and baselines", o.manifest, adapter, l.lineName)
	}
	path := o.path
	if path == "" {
		path = inLine[len(inLine)-1].Path
		if slices.ContainsFunc(inLine, func(c Certification) bool { return c.Path == "wire" }) {
			path = "wire"
		}
	}
	for _, c := range inLine {
		if c.Path == path {
			l.certs = append(l.certs, c)
		}
	}
	if len(l.certs) == 0 {
		var paths []string
		for _, c := range inLine {
			paths = append(paths, fmt.Sprintf("%q", c.Path))
		}
		return nil, fmt.Errorf("--path %q: line %s of %s is certified on %s", path, l.lineName, adapter, strings.Join(paths, ", "))
	}
	slices.SortFunc(l.certs, func(a, b Certification) int { return semver.Compare(a.Version, b.Version) })
	l.ref = l.certs[len(l.certs)-1]
	if l.o.out == "" {
		name := adapter + "-" + l.lineName
		if path != "" {
			name += "-" + path
		}
		l.o.out = filepath.Join("reports", "lines", name)
	}
	if err := l.resolve(ctx, named); err != nil {
		return nil, err
	}
	return l, nil
}

// namedVersions reads a VERSIONS that names versions (A..B, a list); nil
// for all and sample.
func namedVersions(spec string) ([]string, error) {
	switch spec {
	case "all", "sample":
		return nil, nil
	case "":
		return nil, errors.New("VERSIONS: want all, sample, A..B or a list V1,V2")
	}
	if lo, hi, ok := strings.Cut(spec, ".."); ok {
		if semver.Compare(lo, hi) > 0 {
			return nil, fmt.Errorf("VERSIONS %s: %s comes after %s", spec, lo, hi)
		}
		return []string{lo, hi}, nil
	}
	var out []string
	for _, v := range strings.Split(spec, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("VERSIONS %q: an empty version", spec)
		}
		if _, err := semver.Parse(v); err != nil {
			return nil, fmt.Errorf("VERSIONS: %w", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// resolve reads the line's releases from the registry and picks the ones
// VERSIONS names.
func (l *lineRun) resolve(ctx context.Context, named []string) error {
	var known []string
	for _, c := range l.certs {
		known = append(known, c.Version)
	}
	all, err := l.reg.Releases(ctx, l.src.Package, known)
	if err != nil {
		return err
	}
	// Pre-releases are part of a line only where one is certified.
	pre := false
	for _, c := range l.certs {
		if v, err := semver.Parse(c.Version); err == nil && v.Prerelease() {
			pre = true
		}
	}
	l.pre = pre
	for _, r := range all {
		v, err := semver.Parse(r.Version)
		if err != nil || v.Line() != l.lineName || (v.Prerelease() && !pre && !slices.Contains(named, r.Version)) {
			continue
		}
		l.releases = append(l.releases, r)
	}
	if len(l.releases) == 0 {
		return fmt.Errorf("the registry (%s %s) has no release of line %s", l.src.Registry, l.src.Package, l.lineName)
	}
	byVersion := map[string]Release{}
	for _, r := range l.releases {
		byVersion[r.Version] = r
	}
	lookup := func(v string) Release {
		if r, ok := byVersion[v]; ok {
			return r
		}
		return l.reg.Lookup(ctx, l.src.Package, v)
	}
	var versions []string
	switch {
	case l.spec == "all":
		for _, r := range l.releases {
			versions = append(versions, r.Version)
		}
	case l.spec == "sample":
		versions = append(versions, l.releases[0].Version, l.releases[len(l.releases)-1].Version)
		for _, c := range l.certs {
			versions = append(versions, c.Version)
		}
		if err := l.readNotes(ctx); err != nil {
			fmt.Fprintf(l.stderr, "certify line: %v (the sample has no release picked for its changelog)\n", err)
		}
		for v := range l.touches {
			versions = append(versions, v)
		}
	case strings.Contains(l.spec, ".."):
		for _, r := range l.releases {
			if semver.Compare(r.Version, named[0]) >= 0 && semver.Compare(r.Version, named[1]) <= 0 {
				versions = append(versions, r.Version)
			}
		}
		versions = append(versions, named...)
	default:
		versions = named
	}
	// The certified releases within the range are run too: there the
	// findings of their baselines are known to hold.
	lo, hi := versions[0], versions[len(versions)-1]
	for _, c := range l.certs {
		if semver.Compare(c.Version, lo) >= 0 && semver.Compare(c.Version, hi) <= 0 {
			versions = append(versions, c.Version)
		}
	}
	semver.Sort(versions)
	versions = slices.Compact(versions)
	for _, v := range versions {
		l.selected = append(l.selected, lookup(v))
	}
	if l.touches == nil {
		// Which of them touch approval, said beside them (best effort).
		if err := l.readNotes(ctx); err != nil {
			fmt.Fprintf(l.stderr, "certify line: %v\n", err)
		}
	}
	l.scopeLo, l.scopeHi = versions[0], versions[len(versions)-1]
	if l.spec == "all" || l.spec == "sample" {
		l.scopeLo, l.scopeHi = l.releases[0].Version, l.releases[len(l.releases)-1].Version
	}
	// Only the releases of the range run that belong to the line are said
	// to touch approval.
	for v := range l.touches {
		sv, _ := semver.Parse(v)
		if semver.Compare(v, l.scopeLo) < 0 || semver.Compare(v, l.scopeHi) > 0 || (sv.Prerelease() && !pre) {
			delete(l.touches, v)
		}
	}
	return nil
}

// printSelection lists the releases a run would certify first (the
// bisection may add others between them).
func (l *lineRun) printSelection(w io.Writer) {
	fmt.Fprintf(w, "%s %s (%s): %d releases on the registry, %s to %s; VERSIONS=%s selects %d:\n", l.src.Package, l.lineName, l.ref.ID(),
		len(l.releases), l.releases[0].Version, l.releases[len(l.releases)-1].Version, l.spec, len(l.selected))
	for _, r := range l.selected {
		state := "installable"
		if !r.Installable {
			state = "not installable here: " + r.Why
		}
		if t, ok := l.touches[r.Version]; ok {
			state += "; touches approval: " + clip(t, 100)
		}
		if slices.ContainsFunc(l.certs, func(c Certification) bool { return c.Version == r.Version }) {
			state += "; certified"
		}
		fmt.Fprintf(w, "  %-16s %s\n", r.Version, state)
	}
}

// readNotes reads, from the changelog of the line's newest release, the
// releases whose notes touch approval.
func (l *lineRun) readNotes(ctx context.Context) error {
	l.touches = map[string]string{}
	if l.src.approval == nil {
		return nil
	}
	newest := l.releases[len(l.releases)-1].Version
	notes, err := l.reg.Notes(ctx, l.src.Package, newest)
	if err != nil {
		return err
	}
	for v, text := range notes {
		sv, err := semver.Parse(v)
		if err != nil || sv.Line() != l.lineName || (sv.Prerelease() && !l.pre) {
			continue
		}
		for _, line := range strings.Split(text, "\n") {
			if l.src.approval.MatchString(line) {
				l.touches[v] = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-* "))
				break
			}
		}
	}
	return nil
}

// lineResult is what a line run found: line.json.
type lineResult struct {
	Adapter       string `json:"adapter"`
	Package       string `json:"package"`
	Registry      string `json:"registry"`
	Line          string `json:"line"`
	Path          string `json:"path,omitempty"`
	Certification string `json:"certification"`
	Versions      string `json:"versions"`
	Tags          string `json:"tags,omitempty"`
	Bisect        bool   `json:"bisect"`
	Generated     string `json:"generated"`
	// Releases are the line's releases on the registry; Certified the ones
	// run, oldest first, and NotInstallable the ones named that could not
	// be.
	Releases       []Release            `json:"releases"`
	Certified      []*VersionRun        `json:"certified"`
	NotInstallable []Release            `json:"notInstallable,omitempty"`
	Touches        map[string]string    `json:"touchesApproval,omitempty"`
	Findings       []FindingRange       `json:"findings"`
	Checks         map[string][]Verdict `json:"checks"`
}

// Verdict is a check's verdict in one release.
type Verdict struct {
	Version string         `json:"version"`
	Verdict report.Verdict `json:"verdict"`
}

// FindingRange is what a line says of one finding.
type FindingRange struct {
	Finding string `json:"finding"`
	// Cells counts its signature's entries.
	Cells int `json:"cells"`
	// Presence is its presence in each release certified.
	Presence map[string]baseline.Presence `json:"presence"`
	// Spans are the runs of releases that show it: first and last
	// release of each, the release before the first when one was run
	// (Before), and the first release after the last that no longer shows
	// it (FixedIn; empty when none does).
	Spans []Span `json:"spans"`
}

// Span is one run of releases that show a finding.
type Span struct {
	First   string `json:"first"`
	Last    string `json:"last"`
	Before  string `json:"before,omitempty"`
	FixedIn string `json:"fixedIn,omitempty"`
	// ExactStart and ExactEnd say whether no installable release lies,
	// uncertified, between Before and First, or Last and FixedIn.
	ExactStart bool `json:"exactStart"`
	ExactEnd   bool `json:"exactEnd"`
}

// certifyLine certifies the selected releases, then bisects.
func (l *lineRun) certifyLine(ctx context.Context) (*lineResult, error) {
	if err := os.MkdirAll(l.o.out, 0o755); err != nil {
		return nil, err
	}
	sigs, err := l.signatures()
	if err != nil {
		return nil, err
	}
	for _, r := range l.selected {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l.certifyRelease(ctx, r)
	}
	candidates := l.candidates()
	if l.o.bisect {
		for _, s := range sigs {
			for ctx.Err() == nil {
				v := nextProbe(candidates, l.presences(s))
				if v == "" {
					break
				}
				fmt.Fprintf(l.stdout, "bisect %s: certifying %s\n", s.Finding, v)
				r, _ := l.release(v)
				l.certifyRelease(ctx, r)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return l.result(sigs, candidates), nil
}

// signatures reads the signatures of every finding cited by the
// baselines of the line's certifications on the path.
func (l *lineRun) signatures() ([]baseline.Signature, error) {
	var files []*baseline.File
	for _, c := range l.certs {
		path := filepath.Join(l.o.certified, c.ID(), baselineFile)
		if !fileExists(path) {
			continue
		}
		f, err := baseline.Load(path)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return baseline.Signatures(files...), nil
}

func (l *lineRun) release(v string) (Release, bool) {
	for _, r := range l.releases {
		if r.Version == v {
			return r, true
		}
	}
	for _, r := range l.selected {
		if r.Version == v {
			return r, true
		}
	}
	return Release{Version: v}, false
}

// candidates are the installable releases within the scope, oldest first:
// what bisection may certify.
func (l *lineRun) candidates() []string {
	var out []string
	for _, r := range l.releases {
		if r.Installable && semver.Compare(r.Version, l.scopeLo) >= 0 && semver.Compare(r.Version, l.scopeHi) <= 0 {
			out = append(out, r.Version)
		}
	}
	return out
}

// presences is a finding's presence in every release tried so far
// (Unknown for one that could not be certified).
func (l *lineRun) presences(s baseline.Signature) map[string]baseline.Presence {
	out := map[string]baseline.Presence{}
	for v, vr := range l.runs {
		out[v] = s.In(vr.Run).Presence
	}
	return out
}

// certifyRelease certifies one release (once) on the line's path.
func (l *lineRun) certifyRelease(ctx context.Context, r Release) *VersionRun {
	if vr, ok := l.runs[r.Version]; ok {
		return vr
	}
	vr := &VersionRun{Version: r.Version}
	l.runs[r.Version] = vr
	if !r.Installable {
		vr.Error = "not installable here: " + r.Why
		fmt.Fprintf(l.stdout, "== %s %s: %s\n", l.src.Package, r.Version, vr.Error)
		return vr
	}
	if l.src.Registry == registryGo {
		l.reg.Fetch(ctx, l.src.Package, &r)
		if !r.Installable {
			vr.Error = "not installable here: " + r.Why
			fmt.Fprintf(l.stdout, "== %s %s: %s\n", l.src.Package, r.Version, vr.Error)
			return vr
		}
	}
	dir := filepath.Join(l.o.out, r.Version)
	run, err := certifyVersion(ctx, versionJob{
		src: l.src, cert: l.ref, release: r, adapters: l.o.adapters, root: l.root, dir: dir,
		tags: l.o.tags, timeout: l.o.timeout, run: l.exec, stdout: l.stdout, vr: vr,
	})
	if err != nil {
		vr.Error = err.Error()
		fmt.Fprintf(l.stdout, "== %s %s: could not be certified: %s\n", l.src.Package, r.Version, err)
		return vr
	}
	vr.Run = run
	fmt.Fprintf(l.stdout, "== %s %s: %s (%s)\n", l.src.Package, r.Version, counts(run), dir)
	return vr
}

// result gathers the line's table and each finding's spans.
func (l *lineRun) result(sigs []baseline.Signature, candidates []string) *lineResult {
	res := &lineResult{
		Adapter: l.ref.Adapter, Package: l.src.Package, Registry: l.src.Registry, Line: l.lineName, Path: l.ref.Path,
		Certification: l.ref.ID(), Versions: l.spec, Tags: l.o.tags, Bisect: l.o.bisect,
		Generated: time.Now().UTC().Format("2006-01-02"), Releases: l.releases, Touches: l.touches,
		Checks: map[string][]Verdict{},
	}
	var order []string
	for v := range l.runs {
		order = append(order, v)
	}
	semver.Sort(order)
	for _, v := range order {
		vr := l.runs[v]
		if vr.Run == nil {
			r, _ := l.release(v)
			if r.Why == "" {
				r.Why = vr.Error
			}
			r.Installable = false
			res.NotInstallable = append(res.NotInstallable, r)
			continue
		}
		res.Certified = append(res.Certified, vr)
		for _, c := range vr.Run.Checks {
			if len(c.Scenarios) == 0 {
				continue
			}
			res.Checks[c.ID] = append(res.Checks[c.ID], Verdict{Version: v, Verdict: c.Verdict})
		}
	}
	slices.SortStableFunc(sigs, func(a, b baseline.Signature) int { return compareFindingIDs(a.Finding, b.Finding) })
	for _, s := range sigs {
		p := l.presences(s)
		res.Findings = append(res.Findings, FindingRange{Finding: s.Finding, Cells: len(s.Entries), Presence: p, Spans: spans(order, p, candidates)})
	}
	return res
}

// write keeps line.json and LINE.md in the line's folder, and the section
// in the FINDINGS.md named.
func (l *lineRun) write(res *lineResult) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(l.o.out, "line.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	section := res.markdown()
	if err := os.WriteFile(filepath.Join(l.o.out, "LINE.md"), []byte(section), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(l.stdout, "\nWrote %s and %s\n", filepath.Join(l.o.out, "LINE.md"), filepath.Join(l.o.out, "line.json"))
	if l.o.findings == "" {
		return nil
	}
	old, err := os.ReadFile(l.o.findings)
	if err != nil {
		return fmt.Errorf("--findings: %w", err)
	}
	updated, err := withSection(string(old), section)
	if err != nil {
		return fmt.Errorf("%s: %w", l.o.findings, err)
	}
	if err := os.WriteFile(l.o.findings, []byte(updated), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(l.stdout, "Wrote the release line's section of %s\n", l.o.findings)
	return nil
}

// withSection puts the generated section between its markers in a
// FINDINGS.md, or at its end when it has none.
func withSection(doc, section string) (string, error) {
	block := lineBegin + "\n\n" + section + "\n" + lineEnd + "\n"
	start := strings.Index(doc, lineBegin)
	end := strings.Index(doc, lineEnd)
	switch {
	case start < 0 && end < 0:
		return strings.TrimRight(doc, "\n") + "\n\n" + block, nil
	case start < 0 || end < start:
		return "", errors.New("the release line's markers are broken (an END without its BEGIN, or before it): mend them, or remove both")
	}
	return doc[:start] + block + strings.TrimPrefix(doc[end+len(lineEnd):], "\n"), nil
}
