// Package dashboard renders the certified SDKs as one self-contained
// HTML page (reports/dashboard.html): every certification (SDK, version,
// path) by check, each cell its verdict coloured by the harm its failures
// show; the trend of each check across the releases of each line; the
// features each certification drove; and, for every check that fails or
// warns, its scenarios, the findings their baseline entries cite (linked
// to FINDINGS.md) and the evidence of the report. It reads the certified
// folders only (report.json, expected-failures.yaml, FINDINGS.md) and the
// page needs no server and no network.
package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/approval-conformance-kit/ack/baseline"
	"github.com/approval-conformance-kit/ack/internal/semver"
	"github.com/approval-conformance-kit/ack/report"
)

// The files of a certified folder the page reads.
const (
	reportFile   = "report.json"
	baselineFile = "expected-failures.yaml"
	findingsFile = "FINDINGS.md"
)

// Cert is one certified folder: <adapter>@<version>[-<path>].
type Cert struct {
	// ID is the folder's name; Adapter, Version and Path are read from it
	// (the version is the SDK version its report names).
	ID, Adapter, Version, Path string
	// SDK is the package the report's target names (ai, effect).
	SDK string
	// Dir is the folder.
	Dir string
	Run *report.Run
	// Baseline is its expected-failures file (nil when it has none).
	Baseline *baseline.File
	// Findings are the findings its FINDINGS.md opens with a heading, by
	// id; HasFindings says whether it has a FINDINGS.md.
	Findings    map[string]Heading
	HasFindings bool
}

// Heading is a finding's heading in FINDINGS.md and its anchor there (as
// GitHub makes it).
type Heading struct {
	Title, Anchor string
}

// Line names the release line of a certification: the adapter, the path
// and the major version (0.MINOR for 0.x).
func (c Cert) Line() string {
	l := c.Adapter + " " + semver.LineOf(c.Version)
	if c.Path != "" {
		l += " (" + c.Path + ")"
	}
	return l
}

// Load reads every certified folder of dir (each with a report.json), in
// the order of adapter, line, path and version. A folder whose report,
// baseline or findings cannot be read is an error naming it.
func Load(dir string) ([]Cert, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	var out []Cert
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		folder := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(folder, reportFile)); err != nil {
			continue
		}
		c, err := loadCert(folder)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dashboard: %s holds no certified folder (<sdk>@<version>[-<path>]/report.json)", dir)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Adapter != b.Adapter {
			return a.Adapter < b.Adapter
		}
		if la, lb := semver.LineOf(a.Version), semver.LineOf(b.Version); la != lb {
			return semver.Compare(a.Version, b.Version) > 0 // newest line first
		}
		if a.Path != b.Path {
			return pathRank(a.Path) < pathRank(b.Path) || (pathRank(a.Path) == pathRank(b.Path) && a.Path < b.Path)
		}
		return semver.Compare(a.Version, b.Version) < 0
	})
	return out, nil
}

// pathRank puts the wire path (the certified configuration) first.
func pathRank(p string) int {
	switch p {
	case "wire":
		return 0
	case "":
		return 1
	case "canonical":
		return 2
	}
	return 3
}

func loadCert(folder string) (Cert, error) {
	r, err := report.ReadJSON(filepath.Join(folder, reportFile))
	if err != nil {
		return Cert{}, fmt.Errorf("dashboard: %w", err)
	}
	c := Cert{ID: filepath.Base(folder), Dir: folder, Run: r}
	adapter, rest, ok := strings.Cut(c.ID, "@")
	if !ok || adapter == "" || rest == "" {
		return Cert{}, fmt.Errorf("dashboard: %s: a certified folder is named <sdk>@<version>[-<path>]", folder)
	}
	c.Adapter, c.Version = adapter, rest
	sdk, version := targetSDK(r.TargetInfo)
	c.SDK = sdk
	switch {
	case version != "" && rest == version:
	case version != "" && strings.HasPrefix(rest, version+"-"):
		c.Version, c.Path = version, strings.TrimPrefix(rest, version+"-")
	default:
		// No version in the report: the path is what follows the version's
		// numbers and pre-release.
		if i := strings.LastIndex(rest, "-"); i > 0 {
			if _, err := semver.Parse(rest[:i]); err == nil && !strings.ContainsAny(rest[i+1:i+2], "0123456789") {
				c.Version, c.Path = rest[:i], rest[i+1:]
			}
		}
	}
	if c.SDK == "" {
		c.SDK = c.Adapter
	}
	if p := filepath.Join(folder, baselineFile); fileExists(p) {
		if c.Baseline, err = baseline.Load(p); err != nil {
			return Cert{}, fmt.Errorf("dashboard: %w", err)
		}
	}
	if p := filepath.Join(folder, findingsFile); fileExists(p) {
		data, err := os.ReadFile(p)
		if err != nil {
			return Cert{}, fmt.Errorf("dashboard: %w", err)
		}
		c.HasFindings = true
		c.Findings = FindingHeadings(string(data))
	}
	return c, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// infoMap reads a report's target info as an object (report.json gives
// it back as raw JSON).
func infoMap(info any) map[string]any {
	if m, ok := info.(map[string]any); ok {
		return m
	}
	data, err := json.Marshal(info)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

// targetSDK reads the SDK and its version from a report's target info.
func targetSDK(info any) (sdk, version string) {
	m := infoMap(info)
	if m == nil {
		return "", ""
	}
	sdk, _ = m["sdk"].(string)
	version, _ = m["sdkVersion"].(string)
	return sdk, version
}

// findingHeadingRE opens a finding in FINDINGS.md: "## D1. title" or
// "### E12: title".
var findingHeadingRE = regexp.MustCompile(`^#{2,4}\s+([A-Z]{1,2}[0-9]{1,3})[.:]\s+(.*)$`)

// FindingHeadings reads the heading that first opens each finding of a
// FINDINGS.md, with its anchor as GitHub renders it.
func FindingHeadings(doc string) map[string]Heading {
	out := map[string]Heading{}
	slugs := map[string]int{}
	inFence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := Slug(text)
		if n := slugs[slug]; n > 0 {
			slugs[slug] = n + 1
			slug = fmt.Sprintf("%s-%d", slug, n)
		} else {
			slugs[slug] = 1
		}
		m := findingHeadingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, seen := out[m[1]]; !seen {
			out[m[1]] = Heading{Title: strings.TrimSpace(m[2]), Anchor: slug}
		}
	}
	return out
}

// Slug is the anchor GitHub gives a heading: lower case, letters, digits,
// spaces (as dashes), dashes and underscores kept, the rest dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteFile renders the certified folders of dir into the page at path
// (its links are relative to the page's folder).
func WriteFile(path, dir string) error {
	certs, err := Load(dir)
	if err != nil {
		return err
	}
	absPage, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	rel, err := filepath.Rel(absPage, absDir)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	page, err := Render(certs, Options{Base: filepath.ToSlash(rel)})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	if err := os.WriteFile(path, page, 0o644); err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return nil
}

var errNoCerts = errors.New("dashboard: no certification to render")
