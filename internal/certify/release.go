package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/approval-conformance-kit/ack/report"
)

// One release certified on one certification's path, from a lockfile of
// its own: what a line and the watch do with each release they run.

// versionJob is one release certified on one certification's path into
// a folder of its own.
type versionJob struct {
	src      Source
	cert     Certification
	release  Release
	adapters string
	root     string
	dir      string
	// work is where a Go adapter's module for the release is made
	// (dir/module when empty); its go.mod and go.sum are kept in dir.
	work    string
	tags    string
	timeout time.Duration
	run     command
	stdout  io.Writer
	vr      *VersionRun
	// formats are the report files kept (json and md by default).
	formats []string
}

// certifyVersion installs a release from a lockfile of its own (made the
// first time, with ranges resolved as of the release's publication),
// runs the suite against it with the certification's flags and tags (and
// the job's), and keeps its report files in the job's folder.
func certifyVersion(ctx context.Context, j versionJob) (*report.Run, error) {
	// The folder's report files are replaced; nothing else of it is
	// removed (a certified folder holds hand-written files).
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "certify-line-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	formats := j.formats
	if len(formats) == 0 {
		formats = []string{report.FormatJSON, report.FormatMarkdown, report.FormatBadge}
	}
	runFlags := []string{"--report", tmp, "--format", "pretty," + strings.Join(formats, ","), "--progress", "never"}
	tags := j.cert.Tags
	switch {
	case tags != "" && j.tags != "":
		tags = "(" + tags + ") and (" + j.tags + ")"
	case j.tags != "":
		tags = j.tags
	}
	if tags != "" {
		runFlags = append(runFlags, "--tags", tags)
	}
	var env, args []string
	v := j.release.Version
	switch j.src.Registry {
	case registryGo:
		module, err := goModuleFor(ctx, j)
		if err != nil {
			return nil, err
		}
		args = append([]string{filepath.Join(j.adapters, "go-certify.sh"), module, j.src.Package, v}, j.cert.AdapterFlags...)
		j.vr.Lockfile = filepath.Join(module, "go.sum")
		if j.work != "" {
			// The module is made elsewhere: its go.mod and go.sum, the
			// release's lockfile, are kept beside the report.
			for _, name := range []string{"go.mod", "go.sum"} {
				data, err := os.ReadFile(filepath.Join(module, name))
				if err != nil {
					return nil, err
				}
				if err := os.WriteFile(filepath.Join(j.dir, "module."+name), data, 0o644); err != nil {
					return nil, err
				}
			}
			j.vr.Lockfile = filepath.Join(j.dir, "module.go.sum")
		}
	default:
		// A release installed for the first time gets a lockfile of its
		// own, its ranges resolved as of its publication; one that has a
		// lockfile is installed from it.
		if !j.release.Published.IsZero() && npmLockfile(j.adapters, j.cert.Adapter, v) == "" {
			j.vr.Before = j.release.Published.Add(time.Hour).UTC().Format(time.RFC3339)
			env = append(env, "npm_config_before="+j.vr.Before)
		}
		args = append([]string{filepath.Join(j.adapters, j.cert.Adapter, "certify.sh"), v}, j.cert.AdapterFlags...)
	}
	args = append(append(args, "--"), runFlags...)
	logPath := filepath.Join(j.dir, "certify.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	env = append(env, "CERTIFY_LOG="+mustAbsPath(logPath))
	code, err := runScriptEnv(ctx, j.timeout, env, args, logFile, logFile)
	logFile.Close()
	if err != nil {
		return nil, err
	}
	if j.src.Registry != registryGo {
		j.vr.Lockfile = npmLockfile(j.adapters, j.cert.Adapter, v)
	}
	if j.vr.Lockfile != "" {
		if data, err := os.ReadFile(j.vr.Lockfile); err == nil {
			sum := sha256.Sum256(data)
			j.vr.LockfileSHA = hex.EncodeToString(sum[:])
		}
	}
	found, _ := filepath.Glob(filepath.Join(tmp, "*", "*", "report.json"))
	if len(found) != 1 {
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("certify.sh exited %d and wrote no report (the release could not be installed or run): %s", code, lastLines(string(log), 3))
	}
	r, err := report.ReadJSON(found[0])
	if err != nil {
		return nil, err
	}
	for _, f := range formats {
		name, _ := report.FileName(f)
		data, err := os.ReadFile(filepath.Join(filepath.Dir(found[0]), name))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(j.dir, name), relativize(data, j.root), 0o644); err != nil {
			return nil, err
		}
	}
	j.vr.Report = j.dir
	return r, nil
}

func mustAbsPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// npmLockfile finds the lockfile a Node adapter installed a version from
// (versions/<version>/, or versions/<prefix>-<version>/).
func npmLockfile(adapters, adapter, version string) string {
	for _, pattern := range []string{filepath.Join(adapters, adapter, "versions", version), filepath.Join(adapters, adapter, "versions", "*-"+version)} {
		dirs, _ := filepath.Glob(pattern)
		for _, d := range dirs {
			if p := filepath.Join(d, "package-lock.json"); fileExists(p) {
				return p
			}
		}
	}
	return ""
}

// goModuleFor makes a Go adapter's module require the release: a copy of
// the adapter's package (its go files, go.mod and go.sum) in the job's
// folder, the SDK required at the release, the kit replaced by this
// repository, go mod tidy. Its go.mod and go.sum are the release's
// lockfile.
func goModuleFor(ctx context.Context, j versionJob) (string, error) {
	from := filepath.Join(j.adapters, j.cert.Adapter)
	module := filepath.Join(j.dir, "module")
	if j.work != "" {
		module = filepath.Join(j.work, "module")
	}
	if err := os.RemoveAll(module); err != nil {
		return "", err
	}
	if err := os.MkdirAll(module, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(module, name), data, 0o644); err != nil {
			return "", err
		}
	}
	kit, err := kitModule(j.root)
	if err != nil {
		return "", err
	}
	env := (&goProxy{run: j.run}).goEnv(ctx)
	for _, args := range [][]string{
		{"mod", "edit", "-require=" + j.src.Package + "@" + j.release.Version, "-replace=" + kit + "=" + j.root},
		{"mod", "tidy"},
	} {
		if _, err := j.run(ctx, module, env, "go", args...); err != nil {
			return "", fmt.Errorf("the adapter's module at %s %s: %w", j.src.Package, j.release.Version, err)
		}
	}
	return module, nil
}

// kitModule reads the kit's module path from the repository's go.mod.
func kitModule(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}
