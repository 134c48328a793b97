package main

import (
	"bytes"
	"context"
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

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/checks"
	"github.com/approval-conformance-kit/ack/internal/semver"
	"github.com/approval-conformance-kit/ack/report"
)

// The watch: `certify watch ADAPTER` (make certify-watch) reads the
// registry for the releases newer than the certified ones, certifies each
// on every path its line's newest certification has, and writes, beside
// each new report, what moved since the release before it, by check and by
// harm (WATCH.md), with the baseline entries that still fail carried over.
// Publishing (the default --out) adds the new certifications to the
// manifest and the table; docs/ci.md runs it on a schedule and opens a
// pull request with them.
//
//	go run ./internal/certify watch [flags] [ADAPTER ...]

type watchOptions struct {
	manifest, sources, adapters, certified, out, readme, tags, summary string
	only, path                                                         string
	list                                                               bool
	timeout                                                            time.Duration
}

// watchFile is the diff a watch writes beside a new certification.
const watchFile = "WATCH.md"

func runWatch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("certify watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o watchOptions
	fs.StringVar(&o.manifest, "manifest", "adapters/certify.yaml", "the certifications; publishing adds the new ones")
	fs.StringVar(&o.sources, "lines", "adapters/lines.yaml", "where each adapter's SDK is published")
	fs.StringVar(&o.adapters, "adapters", "adapters", "the adapters' folder")
	fs.StringVar(&o.certified, "certified", "reports/certified", "the certified folders (each line's newest report and baseline)")
	fs.StringVar(&o.out, "out", "", "where each new certification's folder goes (default: the certified folders, and the new certifications are added to the manifest and the table); any other folder leaves them as they are, and the entries to add are written to DIR/manifest-entries.yaml")
	fs.StringVar(&o.readme, "readme", "reports/README.md", "the table of every certification, rewritten when publishing")
	fs.StringVar(&o.tags, "tags", "", "a tag expression: run only these scenarios (a quick look; a certification to publish runs them all)")
	fs.StringVar(&o.summary, "summary", "", "also write the summary (Markdown, for a pull request's body) to this file")
	fs.BoolVar(&o.list, "list", false, "only list the newer releases, installable or not")
	fs.StringVar(&o.only, "only", "", "certify only these of the newer releases (comma-separated versions); the others are listed")
	fs.StringVar(&o.path, "path", "", "certify on this path only (default: every path of the line's newest certification)")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "time limit of one certification")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: go run ./internal/certify watch [flags] [ADAPTER ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := watch(ctx, o, fs.Args(), execCommand, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "certify watch:", err)
		return 2
	}
	return code
}

// newerRelease is a release newer than a line's certified ones.
type newerRelease struct {
	Release
	line string
	// prev is the newest certified version of the line it extends.
	prev string
	// certified are its certifications, one per path, when run.
	certified []watchResult
}

type watchResult struct {
	id, dir, verdicts string
	err               error
	moved             int
}

func watch(ctx context.Context, o watchOptions, adapters []string, run command, stdout, stderr io.Writer) (int, error) {
	m, err := LoadManifest(o.manifest, o.adapters)
	if err != nil {
		return 2, err
	}
	sources, err := LoadSources(o.sources)
	if err != nil {
		return 2, err
	}
	if len(adapters) == 0 {
		for _, c := range m.Certifications {
			if _, ok := sources[c.Adapter]; ok && !slices.Contains(adapters, c.Adapter) {
				adapters = append(adapters, c.Adapter)
			}
		}
	}
	root, err := os.Getwd()
	if err != nil {
		return 2, err
	}
	if o.out == "" {
		o.out = o.certified
	}
	publishing := filepath.Clean(o.out) == filepath.Clean(o.certified)
	var summary strings.Builder
	summary.WriteString("# New releases of the certified SDKs\n\n")
	fmt.Fprintf(&summary, "Written by `make certify-watch` on %s (internal/certify watch).\n", time.Now().UTC().Format("2006-01-02"))
	failed := false
	var entries []string
	for _, adapter := range adapters {
		src, ok := sources[adapter]
		if !ok {
			return 2, fmt.Errorf("%s: no line for adapter %q", o.sources, adapter)
		}
		var certs []Certification
		for _, c := range m.Certifications {
			if c.Adapter == adapter {
				certs = append(certs, c)
			}
		}
		if len(certs) == 0 {
			return 2, fmt.Errorf("%s: no certification of adapter %q", o.manifest, adapter)
		}
		reg := newRegistry(src.Registry, run)
		newer, err := newerReleases(ctx, reg, src, certs)
		if err != nil {
			return 2, err
		}
		fmt.Fprintf(&summary, "\n## %s (%s `%s`)\n\n", adapter, src.Registry, src.Package)
		if len(newer) == 0 {
			summary.WriteString("No release newer than the certified ones.\n")
			fmt.Fprintf(stdout, "%s: no release of %s newer than the certified ones\n", adapter, src.Package)
			continue
		}
		for i := range newer {
			n := &newer[i]
			if n.Installable && src.Registry == registryGo {
				reg.Fetch(ctx, src.Package, &n.Release)
			}
			state := "installable"
			if !n.Installable {
				state = "not installable here: " + n.Why
			}
			fmt.Fprintf(stdout, "%s: %s %s (line %s, certified at %s): %s\n", adapter, src.Package, n.Version, n.line, n.prev, state)
		}
		if !o.list {
			for i := range newer {
				if ctx.Err() != nil {
					return 2, ctx.Err()
				}
				n := &newer[i]
				if !n.Installable || (o.only != "" && !slices.Contains(strings.Split(o.only, ","), n.Version)) {
					continue
				}
				prev := n.prev
				for j := i - 1; j >= 0; j-- {
					if newer[j].line == n.line && len(newer[j].certified) > 0 {
						prev = newer[j].Version
						break
					}
				}
				for _, c := range certs {
					if c.Version != n.prev || (o.path != "" && c.Path != o.path) {
						continue
					}
					res := certifyNewer(ctx, o, src, c, n.Release, prev, root, run, stdout)
					if res.err != nil {
						failed = true
					} else {
						entries = append(entries, c.ID()+"\x00"+n.Version)
					}
					n.certified = append(n.certified, res)
				}
			}
		}
		summary.WriteString("| line | certified | newer release | published | what happened |\n|---|---|---|---|---|\n")
		for _, n := range newer {
			what := "installable"
			switch {
			case !n.Installable:
				what = "not installable here: " + n.Why
			case o.list:
			case len(n.certified) == 0 && o.only != "":
				what = "installable; not certified in this run (--only " + o.only + ")"
			case len(n.certified) == 0:
				what = "not certified"
			default:
				var parts []string
				for _, r := range n.certified {
					if r.err != nil {
						parts = append(parts, fmt.Sprintf("%s: could not be certified: %v", r.id, r.err))
						continue
					}
					parts = append(parts, fmt.Sprintf("[%s](%s): %s; %d check(s) moved", r.id, filepath.ToSlash(filepath.Join(r.dir, watchFile)), r.verdicts, r.moved))
				}
				what = strings.Join(parts, "<br>")
			}
			published := ""
			if !n.Published.IsZero() {
				published = n.Published.UTC().Format("2006-01-02")
			}
			fmt.Fprintf(&summary, "| %s | %s | %s | %s | %s |\n", n.line, n.prev, n.Version, published, cell(what))
		}
	}
	if !o.list && len(entries) > 0 {
		if err := addCertifications(o, m, entries, publishing, stdout); err != nil {
			return 2, err
		}
	}
	if o.tags != "" && !o.list {
		fmt.Fprintf(&summary, "\nOnly the scenarios `%s` select were run: a quick look, not a certification to publish.\n", o.tags)
	}
	fmt.Fprint(stdout, "\n"+summary.String())
	if o.summary != "" {
		if err := os.WriteFile(o.summary, []byte(summary.String()), 0o644); err != nil {
			return 2, err
		}
	}
	if failed {
		return 1, nil
	}
	return 0, nil
}

// newerReleases lists, line by line, the releases newer than the line's
// newest certification (pre-releases left out); a release of a line
// newer than every certified one extends the newest line.
func newerReleases(ctx context.Context, reg registry, src Source, certs []Certification) ([]newerRelease, error) {
	newest := map[string]string{}
	top := ""
	var known []string
	for _, c := range certs {
		known = append(known, c.Version)
		l := semver.LineOf(c.Version)
		if newest[l] == "" || semver.Compare(c.Version, newest[l]) > 0 {
			newest[l] = c.Version
		}
		if top == "" || semver.Compare(c.Version, top) > 0 {
			top = c.Version
		}
	}
	releases, err := reg.Releases(ctx, src.Package, known)
	if err != nil {
		return nil, err
	}
	var out []newerRelease
	for _, r := range releases {
		v, err := semver.Parse(r.Version)
		if err != nil || v.Prerelease() {
			continue
		}
		line := v.Line()
		prev, certified := newest[line]
		switch {
		case certified && semver.Compare(r.Version, prev) > 0:
			out = append(out, newerRelease{Release: r, line: line, prev: prev})
		case !certified && semver.Compare(r.Version, top) > 0:
			out = append(out, newerRelease{Release: r, line: line, prev: top})
		}
	}
	return out, nil
}

// certifyNewer certifies a new release on one certification's path, and
// writes beside its report what moved since the release before (prev).
func certifyNewer(ctx context.Context, o watchOptions, src Source, c Certification, r Release, prev, root string, run command, stdout io.Writer) watchResult {
	next := c
	next.Version = r.Version
	res := watchResult{id: next.ID(), dir: filepath.Join(o.out, next.ID())}
	prevCert := c
	prevCert.Version = prev
	prevDir := filepath.Join(o.out, prevCert.ID())
	if !fileExists(filepath.Join(prevDir, "report.json")) {
		prevDir = filepath.Join(o.certified, prevCert.ID())
	}
	fmt.Fprintf(stdout, "\n== watch: certify %s (flags of %s), against %s\n", next.ID(), c.ID(), prevCert.ID())
	vr := &VersionRun{Version: r.Version}
	work, err := os.MkdirTemp("", "certify-watch-")
	if err != nil {
		res.err = err
		return res
	}
	defer os.RemoveAll(work)
	fresh, err := certifyVersion(ctx, versionJob{
		src: src, cert: next, release: r, adapters: o.adapters, root: root, dir: res.dir, work: work,
		tags: o.tags, timeout: o.timeout, run: run, stdout: stdout, vr: vr, formats: publishedFormats,
	})
	if err != nil {
		res.err = err
		fmt.Fprintf(stdout, "== %s: could not be certified: %v\n", next.ID(), err)
		return res
	}
	res.verdicts = counts(fresh)
	old, err := report.ReadJSON(filepath.Join(prevDir, "report.json"))
	if err != nil {
		res.err = fmt.Errorf("the report of %s: %w", prevCert.ID(), err)
		return res
	}
	if o.tags != "" {
		// A selection is compared with the same scenarios of the release
		// before, not with its whole report.
		old = restrictTo(old, fresh)
	}
	var base *baseline.File
	if p := filepath.Join(prevDir, baselineFile); fileExists(p) {
		if base, err = baseline.Load(p); err != nil {
			res.err = err
			return res
		}
	}
	carried, dropped := carryBaseline(base, fresh)
	if err := writeBaseline(filepath.Join(res.dir, baselineFile), next.ID(), prevCert.ID(), carried); err != nil {
		res.err = err
		return res
	}
	doc, moved := watchDiff(src, next, prevCert, vr, old, fresh, base, carried, dropped, o.tags)
	res.moved = moved
	if err := os.WriteFile(filepath.Join(res.dir, watchFile), []byte(doc), 0o644); err != nil {
		res.err = err
		return res
	}
	fmt.Fprintf(stdout, "== %s: %s; %d check(s) moved since %s (%s)\n", next.ID(), res.verdicts, moved, prev, filepath.Join(res.dir, watchFile))
	return res
}

// restrictTo is a run with only the scenarios another run ran, its checks
// aggregated again over them.
func restrictTo(r, to *report.Run) *report.Run {
	ran := map[string]bool{}
	for _, sc := range to.Scenarios {
		ran[sc.ID] = true
	}
	out := *r
	out.Scenarios = nil
	for _, sc := range r.Scenarios {
		if ran[sc.ID] {
			out.Scenarios = append(out.Scenarios, sc)
		}
	}
	out.Checks = nil
	out.Aggregate(r.Level)
	return &out
}

// carryBaseline keeps the entries of the release before whose cells
// still fail or warn (or did not run); the others are dropped.
func carryBaseline(f *baseline.File, fresh *report.Run) (carried, dropped []baseline.Entry) {
	if f == nil {
		return nil, nil
	}
	for _, e := range f.Entries {
		if (baseline.Signature{Entries: []baseline.Entry{e}}).In(fresh).Presence == baseline.Absent {
			dropped = append(dropped, e)
			continue
		}
		carried = append(carried, e)
	}
	return carried, dropped
}

func writeBaseline(path, id, from string, entries []baseline.Entry) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Expected failures of %s, carried over by `make certify-watch` from %s:\n# its entries whose cells still fail or warn, each with its reason. A failure\n# no entry lists is new: trace it (WATCH.md lists them) before publishing.\n", id, from)
	doc := struct {
		ExpectedFailures []baseline.Entry `yaml:"expectedFailures"`
	}{entries}
	if entries == nil {
		doc.ExpectedFailures = []baseline.Entry{}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if _, err := baseline.Parse(path, b.Bytes()); err != nil {
		return fmt.Errorf("the carried baseline does not read back: %w", err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// watchDiff renders WATCH.md: what moved between two releases on one
// path, by check, by harm and by finding; and the failures no carried
// entry explains. It returns the number of checks whose verdict moved.
func watchDiff(src Source, next, prev Certification, vr *VersionRun, old, fresh *report.Run, base *baseline.File, carried, dropped []baseline.Entry, tags string) (string, int) {
	var b strings.Builder
	on := ""
	if next.Path != "" {
		on = " on the " + next.Path + " path"
	}
	fmt.Fprintf(&b, "# %s %s%s: what moved since %s\n\n", src.Package, next.Version, on, prev.Version)
	fmt.Fprintf(&b, "Written by `make certify-watch ADAPTER=%s` on %s (internal/certify watch): %s %s certified with the flags of %s", next.Adapter, time.Now().UTC().Format("2006-01-02"), src.Package, next.Version, prev.ID())
	if tags != "" {
		fmt.Fprintf(&b, ", the scenarios `%s` select only, compared with the same scenarios of the report of %s.", tags, prev.ID())
	} else {
		fmt.Fprintf(&b, ", compared with the report of %s.", prev.ID())
	}
	if vr.Lockfile != "" {
		fmt.Fprintf(&b, " Installed from %s (SHA-256 %s", filepath.ToSlash(vr.Lockfile), vr.LockfileSHA)
		if vr.Before != "" {
			fmt.Fprintf(&b, "; ranges resolved as of %s", vr.Before)
		}
		b.WriteString(").")
	}
	b.WriteString(" Nothing here is traced yet: each moved verdict and each new failure is a claim to trace to the SDK's source (FINDINGS.md) before this certification is published.\n")

	oldChecks := map[string]report.Check{}
	for _, c := range old.Checks {
		oldChecks[c.ID] = c
	}
	newChecks := map[string]report.Check{}
	for _, c := range fresh.Checks {
		newChecks[c.ID] = c
	}
	moved := 0
	b.WriteString("\n## By check\n\n")
	var rows strings.Builder
	for _, c := range checks.All() {
		o, inOld := oldChecks[c.ID]
		n, inNew := newChecks[c.ID]
		if !inNew || len(n.Scenarios) == 0 {
			continue
		}
		ov := report.Verdict("")
		if inOld && len(o.Scenarios) > 0 {
			ov = o.Verdict
		}
		if ov == n.Verdict {
			continue
		}
		moved++
		fmt.Fprintf(&rows, "| %s | %s | %s | %s |\n", c.ID, c.Level, show(ov), n.Verdict)
	}
	if moved == 0 {
		fmt.Fprintf(&b, "No check's verdict moved between %s and %s (on the scenarios run).\n", prev.Version, next.Version)
	} else {
		fmt.Fprintf(&b, "| check | level | %s | %s |\n|---|---|---|---|\n%s", prev.Version, next.Version, rows.String())
	}
	var scen []string
	for _, d := range Drift(old, fresh) {
		if strings.HasPrefix(d, "scenario ") && !strings.Contains(d, ": no longer run") {
			scen = append(scen, d)
		}
	}
	if len(scen) > 0 {
		fmt.Fprintf(&b, "\nScenarios that moved (%d):\n\n", len(scen))
		for i, d := range scen {
			if i == 40 {
				fmt.Fprintf(&b, "- ... and %d more\n", len(scen)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}

	b.WriteString("\n## By harm\n\nThe scenarios that fail a MUST check with each harm (report.json `findings[].harm`), check by check:\n\n")
	fmt.Fprintf(&b, "| harm | %s | %s |\n|---|---|---|\n", prev.Version, next.Version)
	ob, _ := MustFailuresByHarm(old)
	nb, _ := MustFailuresByHarm(fresh)
	for _, h := range checks.Harms {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", h, harmCell(ob[h]), harmCell(nb[h]))
	}

	sigs := baseline.Signatures(base)
	if len(sigs) > 0 {
		slices.SortStableFunc(sigs, func(a, b baseline.Signature) int { return compareFindingIDs(a.Finding, b.Finding) })
		fmt.Fprintf(&b, "\n## Findings\n\nEach finding of %s's baseline by its signature (the cells of the entries that cite it): shown, absent (every cell that ran passed), or unknown (none ran).\n\n", prev.ID())
		fmt.Fprintf(&b, "| finding | %s | %s |\n|---|---|---|\n", prev.Version, next.Version)
		for _, s := range sigs {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", s.Finding, s.In(old).Presence, s.In(fresh).Presence)
		}
	}

	carriedFile := &baseline.File{Entries: carried}
	unexpected := baseline.Apply(carriedFile, fresh).Unexpected
	b.WriteString("\n## Failures no finding explains\n\n")
	if len(unexpected) == 0 {
		b.WriteString("None: every MUST failure of the new release is one the carried baseline lists.\n")
	} else {
		fmt.Fprintf(&b, "%d MUST failure(s) that no carried baseline entry lists: trace each before publishing.\n\n", len(unexpected))
		for _, h := range unexpected {
			fmt.Fprintf(&b, "- %s%s: %s\n", h.Scenario, prefixed(":", h.Check), h.Verdict)
		}
	}
	fmt.Fprintf(&b, "\n## Baseline\n\n`%s` carries %d of the %d entries of %s's (those whose cells still fail or warn, or did not run).", baselineFile, len(carried), len(carried)+len(dropped), prev.ID())
	if len(dropped) > 0 {
		fmt.Fprintf(&b, " Dropped, their cells passing now (%d):\n\n", len(dropped))
		for _, e := range dropped {
			fmt.Fprintf(&b, "- %s (%s)\n", e.String(), clip(e.Reason, 120))
		}
	} else {
		b.WriteString("\n")
	}
	return b.String(), moved
}

func harmCell(hc []HarmCount) string {
	var parts []string
	for _, c := range hc {
		parts = append(parts, fmt.Sprintf("%s (%d)", c.Check, c.Scenarios))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, ", ")
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// addCertifications adds the new certifications to the manifest (each a
// copy of the entry of the release before, with the new version, not yet
// run by CI) and rewrites the table; away from the default folder it only
// writes the entries to add.
func addCertifications(o watchOptions, m *Manifest, entries []string, publishing bool, stdout io.Writer) error {
	data, err := os.ReadFile(o.manifest)
	if err != nil {
		return err
	}
	updated := string(data)
	var added []string
	for _, e := range entries {
		id, version, _ := strings.Cut(e, "\x00")
		i := slices.IndexFunc(m.Certifications, func(c Certification) bool { return c.ID() == id })
		if i < 0 {
			return fmt.Errorf("%s: %s is gone", o.manifest, id)
		}
		block := entryBlock(string(data), m.Certifications, i)
		added = append(added, withVersion(block, version))
	}
	if !publishing {
		path := filepath.Join(o.out, "manifest-entries.yaml")
		doc := "# The entries `make certify-watch` would add to " + o.manifest + " (it publishes into " + o.certified + " only).\ncertifications:\n" + strings.Join(added, "")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nWrote %s\n", path)
		return nil
	}
	updated = strings.TrimRight(updated, "\n") + "\n  # Added by make certify-watch; ci: true once FINDINGS.md traces each failure.\n" + strings.Join(added, "")
	nm, err := parseManifest(o.manifest, []byte(updated), o.adapters)
	if err != nil {
		return fmt.Errorf("the manifest with the new certifications does not read back: %w", err)
	}
	if err := os.WriteFile(o.manifest, []byte(updated), 0o644); err != nil {
		return err
	}
	if err := writeReadme(options{manifest: o.manifest, out: o.certified, readme: o.readme}, nm); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nAdded %d certification(s) to %s and wrote %s\n", len(added), o.manifest, o.readme)
	return nil
}

// entryBlock is the text of a manifest entry: from its line to the next
// entry's, less the comments and blank lines that open the next one.
func entryBlock(doc string, certs []Certification, i int) string {
	lines := strings.SplitAfter(doc, "\n")
	start := certs[i].Line - 1
	end := len(lines)
	if i+1 < len(certs) {
		end = certs[i+1].Line - 1
	}
	for end > start+1 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return strings.Join(lines[start:end], "")
}

// withVersion rewrites an entry's version and drops its ci: true (a new
// certification is run by CI once its findings are traced).
func withVersion(block, version string) string {
	lines := strings.SplitAfter(block, "\n")
	var out []string
	done := false
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		switch {
		case !done && strings.HasPrefix(t, "version:"):
			indent := l[:strings.Index(l, "version:")]
			l = indent + "version: " + version + "\n"
			done = true
		case t == "ci: true":
			continue
		}
		out = append(out, l)
	}
	s := strings.Join(out, "")
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
