package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/approval-conformance-kit/ack/internal/semver"
)

// Source is where an adapter's SDK is published (adapters/lines.yaml).
type Source struct {
	Adapter  string `yaml:"adapter"`
	Registry string `yaml:"registry"`
	Package  string `yaml:"package"`
	// Approval matches the changelog notes of a release that touches
	// approval (npm only).
	Approval string `yaml:"approval"`
	// Line is where the entry is in its file.
	Line int `yaml:"-"`

	approval *regexp.Regexp
}

// The registries a source may name.
const (
	registryNPM = "npm"
	registryGo  = "go"
)

// LoadSources reads adapters/lines.yaml strictly: an unknown field, an
// unknown registry, a missing package or a malformed expression is an
// error naming the file and line.
func LoadSources(path string) (map[string]Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("lines: %w", err)
	}
	return parseSources(path, data)
}

func parseSources(path string, data []byte) (map[string]Source, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var typed struct {
		Lines []Source `yaml:"lines"`
	}
	if err := dec.Decode(&typed); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty (want lines: a list of adapter, registry, package)", path)
		}
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var nodes struct {
		Lines []yaml.Node `yaml:"lines"`
	}
	if err := yaml.Unmarshal(data, &nodes); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	out := map[string]Source{}
	for i, s := range typed.Lines {
		s.Line = nodes.Lines[i].Line
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: lines[%d].%s", path, s.Line, i, fmt.Sprintf(format, args...))
		}
		switch {
		case !adapterRE.MatchString(s.Adapter):
			return nil, fail("adapter: want the name of a folder of adapters/, not %q", s.Adapter)
		case s.Registry != registryNPM && s.Registry != registryGo:
			return nil, fail("registry: want npm or go, not %q", s.Registry)
		case strings.TrimSpace(s.Package) == "":
			return nil, fail("package: name the npm package or Go module whose releases the adapter certifies")
		case s.Approval != "" && s.Registry == registryGo:
			return nil, fail("approval: a Go module ships no changelog to read it in")
		}
		if s.Approval != "" {
			re, err := regexp.Compile(s.Approval)
			if err != nil {
				return nil, fail("approval: %v", err)
			}
			s.approval = re
		}
		if prev, dup := out[s.Adapter]; dup {
			return nil, fail("adapter: %s is already listed on line %d", s.Adapter, prev.Line)
		}
		out[s.Adapter] = s
	}
	return out, nil
}

// Release is one published version of a package.
type Release struct {
	Version string `json:"version"`
	// Published is when the registry says it was published (zero when it
	// does not say).
	Published time.Time `json:"published,omitzero"`
	// Installable is false when this machine cannot install it; Why says
	// what the registry answered.
	Installable bool   `json:"installable"`
	Why         string `json:"why,omitempty"`
}

// registry reads a package's releases.
type registry interface {
	// Releases lists the releases the registry knows, oldest first. known
	// are versions known to exist (the certified ones): a registry whose
	// list is stale is walked forward from them.
	Releases(ctx context.Context, pkg string, known []string) ([]Release, error)
	// Lookup asks for one version by name (one the list does not hold).
	Lookup(ctx context.Context, pkg, version string) Release
	// Fetch checks that what an install of a release needs is served, and
	// says why not.
	Fetch(ctx context.Context, pkg string, r *Release)
	// Notes returns the changelog notes of every release the package's
	// changelog at version covers, by version (nil when it ships none).
	Notes(ctx context.Context, pkg, version string) (map[string]string, error)
}

// command runs a program and returns its standard output; an error
// carries the end of its standard error. Tests replace it.
type command func(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error)

func execCommand(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 4))
	}
	return out, nil
}

// lastLines keeps the last n lines of a program's output, each trimmed.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "server response:"))
	}
	return strings.Join(lines, "\n")
}

func newRegistry(kind string, run command) registry {
	if kind == registryGo {
		return &goProxy{run: run}
	}
	return &npmRegistry{run: run}
}

// npmRegistry reads the npm registry with the npm client.
type npmRegistry struct {
	run command
	// listed caches the versions of the last package read.
	pkg    string
	listed map[string]time.Time
}

func (n *npmRegistry) Releases(ctx context.Context, pkg string, _ []string) ([]Release, error) {
	out, err := n.run(ctx, "", nil, "npm", "view", pkg, "time", "--json")
	if err != nil {
		return nil, fmt.Errorf("npm: the releases of %s: %w", pkg, err)
	}
	var times map[string]string
	if err := json.Unmarshal(out, &times); err != nil {
		return nil, fmt.Errorf("npm view %s time: %w", pkg, err)
	}
	n.pkg, n.listed = pkg, map[string]time.Time{}
	var versions []string
	for v, at := range times {
		if _, err := semver.Parse(v); err != nil {
			continue // "created", "modified"
		}
		t, _ := time.Parse(time.RFC3339, at)
		n.listed[v] = t
		versions = append(versions, v)
	}
	semver.Sort(versions)
	rels := make([]Release, len(versions))
	for i, v := range versions {
		rels[i] = Release{Version: v, Published: n.listed[v], Installable: true}
	}
	return rels, nil
}

func (n *npmRegistry) Lookup(ctx context.Context, pkg, version string) Release {
	if n.pkg != pkg {
		if _, err := n.Releases(ctx, pkg, nil); err != nil {
			return Release{Version: version, Why: err.Error()}
		}
	}
	if t, ok := n.listed[version]; ok {
		return Release{Version: version, Published: t, Installable: true}
	}
	return Release{Version: version, Why: "not on the npm registry this machine reaches (npm view " + pkg + " time does not list it)"}
}

// Fetch: a listed npm release is installable until its install says
// otherwise (the install is the certification's first step).
func (n *npmRegistry) Fetch(context.Context, string, *Release) {}

// changelogHeading opens a release's notes in a changesets CHANGELOG.md.
var changelogHeading = regexp.MustCompile(`(?m)^##\s+v?([0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*)\s*$`)

func (n *npmRegistry) Notes(ctx context.Context, pkg, version string) (map[string]string, error) {
	dir, err := os.MkdirTemp("", "certify-notes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out, err := n.run(ctx, dir, nil, "npm", "pack", pkg+"@"+version, "--pack-destination", dir, "--json")
	if err != nil {
		return nil, fmt.Errorf("npm: the changelog of %s@%s: %w", pkg, version, err)
	}
	var packed []struct {
		Filename string `json:"filename"`
	}
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 {
		return nil, fmt.Errorf("npm pack %s@%s: want one tarball, got %q", pkg, version, out)
	}
	text, err := fileInTarball(filepath.Join(dir, filepath.Base(packed[0].Filename)), "CHANGELOG.md")
	if err != nil || text == "" {
		return nil, err
	}
	return splitChangelog(text), nil
}

// splitChangelog cuts a changelog into each release's notes.
func splitChangelog(text string) map[string]string {
	notes := map[string]string{}
	heads := changelogHeading.FindAllStringSubmatchIndex(text, -1)
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		notes[text[h[2]:h[3]]] = strings.TrimSpace(text[h[1]:end])
	}
	return notes
}

// fileInTarball reads package/NAME from an npm tarball ("" when absent).
func fileInTarball(tgz, name string) (string, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", tgz, err)
		}
		// npm tarballs hold package/..., a few older ones another top folder.
		if _, rest, ok := strings.Cut(h.Name, "/"); ok && path.Clean(rest) == name {
			data, err := io.ReadAll(io.LimitReader(tr, 16<<20))
			return string(data), err
		}
	}
}

// goProxy reads the Go module proxy with the go command. Its version list
// can be stale (it may list none of the releases it serves by name), so
// the releases after each known one are found by name: the next patch,
// then the next two minor releases, as long as one answers.
type goProxy struct {
	run command
	env []string
}

// goEnv makes the go command ask the module proxy only: a version the
// proxy does not serve must not fall through to a VCS this machine cannot
// reach.
func (g *goProxy) goEnv(ctx context.Context) []string {
	if g.env != nil {
		return g.env
	}
	env := []string{"GO111MODULE=on", "GOFLAGS=-mod=mod"}
	g.env = env
	out, err := g.run(ctx, "", nil, "go", "env", "GOPROXY")
	if err != nil {
		return env
	}
	var keep []string
	for _, p := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
		if p != "direct" && p != "off" {
			keep = append(keep, p)
		}
	}
	if len(keep) > 0 {
		env = append(env, "GOPROXY="+strings.Join(keep, ","))
	}
	g.env = env
	return env
}

type goModuleInfo struct {
	Version  string
	Versions []string
	Time     time.Time
	Error    *struct{ Err string }
}

func (g *goProxy) info(ctx context.Context, env []string, mod, version string) (goModuleInfo, error) {
	dir, err := os.MkdirTemp("", "certify-go-")
	if err != nil {
		return goModuleInfo{}, err
	}
	defer os.RemoveAll(dir)
	q := mod
	if version != "" {
		q += "@" + version
	}
	args := []string{"list", "-m", "-json"}
	if version == "" {
		args = append(args, "-versions")
	}
	out, err := g.run(ctx, dir, env, "go", append(args, q)...)
	var info goModuleInfo
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != nil {
		return info, errors.New(info.Error.Err)
	}
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal(out, &info)
}

func (g *goProxy) Releases(ctx context.Context, mod string, known []string) ([]Release, error) {
	env := g.goEnv(ctx)
	seen := map[string]Release{}
	listed, err := g.info(ctx, env, mod, "")
	if err == nil {
		for _, v := range listed.Versions {
			seen[v] = Release{Version: v, Installable: true}
		}
	}
	if len(listed.Versions) == 0 && len(known) == 0 {
		if err != nil {
			return nil, fmt.Errorf("go: the releases of %s: %w", mod, err)
		}
		return nil, nil
	}
	for _, v := range known {
		if _, ok := seen[v]; !ok {
			seen[v] = g.Lookup(ctx, mod, v)
		}
	}
	// Walk forward by name from every known release, through the gaps
	// between them and past the newest, each version asked once.
	missed := map[string]bool{}
	var from []string
	for v, r := range seen {
		if r.Installable {
			from = append(from, v)
		}
	}
	semver.Sort(from)
	for _, start := range from {
		for cur := start; ; {
			next := ""
			for _, cand := range successors(cur) {
				if r, ok := seen[cand]; ok && r.Installable {
					next = cand
					break
				}
				if missed[cand] {
					continue
				}
				if r := g.Lookup(ctx, mod, cand); r.Installable {
					seen[cand] = r
					next = cand
					break
				}
				missed[cand] = true
			}
			if next == "" {
				break
			}
			cur = next
		}
	}
	versions := make([]string, 0, len(seen))
	for v := range seen {
		versions = append(versions, v)
	}
	semver.Sort(versions)
	out := make([]Release, len(versions))
	for i, v := range versions {
		out[i] = seen[v]
	}
	return out, nil
}

// successors are the versions that may follow v: the next patch, then
// the next two minor releases.
func successors(v string) []string {
	s, err := semver.Parse(v)
	if err != nil {
		return nil
	}
	prefix := "v"
	if !strings.HasPrefix(v, "v") {
		prefix = ""
	}
	if s.Prerelease() {
		return []string{fmt.Sprintf("%s%d.%d.%d", prefix, s.Major(), s.Minor(), s.Patch())}
	}
	return []string{
		fmt.Sprintf("%s%d.%d.%d", prefix, s.Major(), s.Minor(), s.Patch()+1),
		fmt.Sprintf("%s%d.%d.0", prefix, s.Major(), s.Minor()+1),
		fmt.Sprintf("%s%d.%d.0", prefix, s.Major(), s.Minor()+2),
	}
}

func (g *goProxy) Lookup(ctx context.Context, mod, version string) Release {
	info, err := g.info(ctx, g.goEnv(ctx), mod, version)
	if err != nil {
		return Release{Version: version, Why: "the module proxy does not know it: " + lastLines(err.Error(), 1)}
	}
	return Release{Version: version, Published: info.Time, Installable: true}
}

// Fetch downloads the module's zip, which a build needs: the proxy may
// know a version (its .info) and still not serve it.
func (g *goProxy) Fetch(ctx context.Context, mod string, r *Release) {
	if !r.Installable {
		return
	}
	dir, err := os.MkdirTemp("", "certify-go-")
	if err != nil {
		r.Installable, r.Why = false, err.Error()
		return
	}
	defer os.RemoveAll(dir)
	out, err := g.run(ctx, dir, g.goEnv(ctx), "go", "mod", "download", "-json", mod+"@"+r.Version)
	var dl struct{ Error string }
	if jerr := json.Unmarshal(out, &dl); jerr == nil && dl.Error != "" {
		r.Installable, r.Why = false, "listed but not served by the module proxy: "+lastLines(dl.Error, 1)
		return
	}
	if err != nil {
		r.Installable, r.Why = false, "listed but not served by the module proxy: "+lastLines(err.Error(), 1)
	}
}

// Notes: a Go module ships no changelog.
func (g *goProxy) Notes(context.Context, string, string) (map[string]string, error) {
	return nil, nil
}
