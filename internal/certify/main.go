// Command certify certifies the real SDKs of adapters/ (make certify, and
// CI through make certify-check): for each certification of the manifest
// (adapters/certify.yaml: an adapter, the SDK version, the path it is
// driven on), it runs the adapter's certify.sh, which installs that
// version from its lockfile, starts the adapter and runs the whole suite
// against it with the certification's baseline; then it publishes the
// report in reports/certified/<adapter>@<version>[-<path>]/ and the table
// of every certification in reports/README.md.
//
//	go run ./internal/certify [flags] [ID or ADAPTER ...]
//
// Every adapter follows one contract:
//
//	adapters/<adapter>/certify.sh VERSION [adapter flags] [-- conformance run flags]
//
// installs VERSION (exactly, from its committed lockfile), starts the
// adapter on a free loopback port, waits for the URL it prints on its
// first line, runs `conformance run --target URL` with the flags after
// "--", stops the adapter and exits with the run's exit code.
//
// With --check (CI), nothing is published: the run must hold its baseline
// (no failure it does not list, no entry that passes) and give, scenario
// by scenario and check by check, the verdicts of the committed report.
// A version that cannot be installed or run fails, loudly.
//
// Two more commands follow release lines (adapters/lines.yaml says where
// each adapter's SDK is published): `line ADAPTER VERSIONS` certifies the
// releases of a line and finds each finding's first and last release by
// bisection (line.go); `watch [ADAPTER...]` certifies the releases newer
// than the certified ones and writes what moved (watch.go).
//
// With --changes-from DIR (the report.json of each certification before a
// change of the catalogue, DIR/<certification>/report.json), the table of
// every check whose verdict moved, with its reason, is written next to the
// README (grounded-changes.md, which reports/README.md links).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/report/dashboard"
)

// The report files a certified folder holds (report.html is left out: it
// repeats report.json at three times the size).
var publishedFormats = []string{report.FormatJSON, report.FormatJUnit, report.FormatMarkdown, report.FormatBadge, report.FormatJournal}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	manifest, adapters, out, readme, keep string
	changesFrom                           string
	check, ciOnly, readmeOnly, force      bool
	timeout                               time.Duration
	names                                 []string
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		// The release-line commands (line.go, watch.go).
		switch args[0] {
		case "line":
			return runLine(args[1:], stdout, stderr)
		case "watch":
			return runWatch(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("certify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.manifest, "manifest", "adapters/certify.yaml", "the certifications to run")
	fs.StringVar(&o.adapters, "adapters", "adapters", "the adapters' folder (each adapter's certify.sh)")
	fs.StringVar(&o.out, "out", "reports/certified", "where each certification's folder is published")
	fs.StringVar(&o.readme, "readme", "reports/README.md", "the table of every certification, rewritten after a publishing run")
	fs.StringVar(&o.keep, "keep", "reports/certify-check", "with --check: where the report of a run that fails its check is kept (DIR/<certification>/), for a look at its evidence")
	fs.BoolVar(&o.check, "check", false, "publish nothing: fail unless each run holds its baseline and gives the committed report's verdicts (CI)")
	fs.BoolVar(&o.ciOnly, "ci", false, "only the certifications the manifest marks ci: true")
	fs.BoolVar(&o.readmeOnly, "readme-only", false, "only rewrite the table from the committed reports")
	fs.BoolVar(&o.force, "force", false, "publish a run whose verdicts are those of the committed report too (by default its folder is left as it is: the timings and the ids an SDK draws change from run to run, the verdicts do not)")
	fs.StringVar(&o.changesFrom, "changes-from", "", "with the reports of an earlier catalogue (DIR/<certification>/report.json): write the table of the verdicts that moved, "+changesFile+" next to the README")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "time limit of one certification (install, start, the whole suite)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: go run ./internal/certify [flags] [ID or ADAPTER ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o.names = fs.Args()
	m, err := LoadManifest(o.manifest, o.adapters)
	if err != nil {
		fmt.Fprintln(stderr, "certify:", err)
		return 2
	}
	if o.readmeOnly {
		if err := writeReadme(o, m); err != nil {
			fmt.Fprintln(stderr, "certify:", err)
			return 1
		}
		return 0
	}
	certs, err := m.Select(o.names, o.ciOnly)
	if err != nil {
		fmt.Fprintln(stderr, "certify:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var failed []string
	started := time.Now()
	for _, c := range certs {
		t0 := time.Now()
		fmt.Fprintf(stdout, "\n== certify %s (adapters/%s/certify.sh %s)\n", c.ID(), c.Adapter, strings.Join(append([]string{c.Version}, c.AdapterFlags...), " "))
		problems, err := certify(ctx, o, c, stdout, stderr)
		if err != nil {
			problems = append(problems, err.Error())
		}
		status := "ok"
		if len(problems) > 0 {
			status = "FAILED"
			failed = append(failed, c.ID())
		}
		fmt.Fprintf(stdout, "== %s: %s (%s)\n", c.ID(), status, time.Since(t0).Round(time.Second))
		for _, p := range problems {
			fmt.Fprintf(stdout, "   %s\n", p)
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "certify: interrupted")
			return 2
		}
	}
	if !o.check {
		if err := writeReadme(o, m); err != nil {
			fmt.Fprintln(stderr, "certify:", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nWrote %s\n", o.readme)
	}
	fmt.Fprintf(stdout, "\n%d certification(s) in %s", len(certs), time.Since(started).Round(time.Second))
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "; FAILED: %s\n", strings.Join(failed, ", "))
		return 1
	}
	fmt.Fprintln(stdout, "; all hold their baselines")
	return 0
}

// certify runs one certification. It returns what is wrong with it (a
// baseline that does not hold, verdicts that drifted from the committed
// report), or an error when it could not be run at all.
func certify(ctx context.Context, o options, c Certification, stdout, stderr io.Writer) (problems []string, err error) {
	dir := filepath.Join(o.out, c.ID())
	baseline := filepath.Join(dir, baselineFile)
	hasBaseline := fileExists(baseline)
	if !hasBaseline {
		if o.check {
			return nil, fmt.Errorf("%s: missing: a certification CI runs is held to its baseline", baseline)
		}
		problems = append(problems, fmt.Sprintf("%s: missing: list each MUST failure of the report with its reason", baseline))
	}
	tmp, err := os.MkdirTemp("", "certify-"+c.ID()+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	runFlags := []string{"--report", tmp, "--format", "pretty," + strings.Join(publishedFormats, ","), "--progress", "never"}
	if hasBaseline {
		abs, err := filepath.Abs(baseline)
		if err != nil {
			return nil, err
		}
		runFlags = append(runFlags, "--expected-failures", abs)
	}
	if c.Tags != "" {
		runFlags = append(runFlags, "--tags", c.Tags)
	}
	args := append([]string{filepath.Join(o.adapters, c.Adapter, "certify.sh"), c.Version}, c.AdapterFlags...)
	args = append(append(args, "--"), runFlags...)
	code, err := runScript(ctx, o.timeout, args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	found, _ := filepath.Glob(filepath.Join(tmp, "*", "*", "report.json"))
	if len(found) != 1 {
		return nil, fmt.Errorf("certify.sh exited %d and wrote %d reports (want 1): the version could not be installed or run", code, len(found))
	}
	fresh, err := report.ReadJSON(found[0])
	if err != nil {
		return nil, err
	}
	if fresh.Interrupted != "" {
		return nil, fmt.Errorf("the run was interrupted: %s", fresh.Interrupted)
	}
	if st := fresh.ScenarioTotals(); st[report.Error]+st[report.Timeout] > 0 {
		problems = append(problems, fmt.Sprintf("%d scenario(s) could not be run (error or timeout): a certification publishes verdicts only", st[report.Error]+st[report.Timeout]))
	}
	switch {
	case code == 0:
	case hasBaseline:
		problems = append(problems, fmt.Sprintf("the run does not hold its baseline %s (exit %d; see UNEXPECTED and STALE above)", baseline, code))
	case code == 2:
		problems = append(problems, "the run exited 2 (a harness error)")
	}
	if c.Regressions != nil {
		more, err := regressions(ctx, o, c, stdout, stderr)
		if err != nil {
			return nil, err
		}
		problems = append(problems, more...)
	}

	if o.check {
		committed, err := report.ReadJSON(filepath.Join(dir, "report.json"))
		if err != nil {
			return nil, fmt.Errorf("the committed report: %w", err)
		}
		defer func() {
			if len(problems) == 0 || o.keep == "" {
				return
			}
			kept := filepath.Join(o.keep, c.ID())
			if err := os.RemoveAll(kept); err == nil && publish(filepath.Dir(found[0]), kept) == nil {
				problems = append(problems, "the run's report is kept in "+kept)
			}
		}()
		if d := Drift(committed, fresh); len(d) > 0 {
			problems = append(problems, fmt.Sprintf("the verdicts differ from the committed %s (run make certify and trace each change in FINDINGS.md):", filepath.Join(dir, "report.json")))
			for i, line := range d {
				if i == 20 {
					problems = append(problems, fmt.Sprintf("  ... and %d more", len(d)-i))
					break
				}
				problems = append(problems, "  "+line)
			}
		}
		return problems, nil
	}
	if !o.force && len(problems) == 0 {
		if committed, err := report.ReadJSON(filepath.Join(dir, "report.json")); err == nil && len(Drift(committed, fresh)) == 0 {
			fmt.Fprintf(stdout, "%s: the verdicts are those of the committed report; left as it is (--force publishes it anyway)\n", dir)
			return problems, nil
		}
	}
	if err := publish(filepath.Dir(found[0]), dir); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "published %s\n", dir)
	return problems, nil
}

// regressions runs a certification's regression scenarios against its
// SDK, through the same certify.sh, with their own baseline: it returns
// what is wrong (a reproduced defect that no longer fails as its baseline
// says, a failure it does not list, no scenario run at all). Their report
// is not published: the certification's report is the suite's.
func regressions(ctx context.Context, o options, c Certification, stdout, stderr io.Writer) (problems []string, err error) {
	r := c.Regressions
	dir, err := filepath.Abs(r.Scenarios)
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(r.ExpectedFailures)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: regressions.scenarios: %s is not a directory", c.ID(), r.Scenarios)
	}
	if !fileExists(base) {
		return nil, fmt.Errorf("%s: regressions.expectedFailures: %s: missing", c.ID(), r.ExpectedFailures)
	}
	tmp, err := os.MkdirTemp("", "certify-"+c.ID()+"-regressions-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(stdout, "\n== %s: regression scenarios of %s (%s)\n", c.ID(), r.Scenarios, r.About)
	runFlags := []string{"--report", tmp, "--format", "pretty,json", "--progress", "never",
		"--scenarios", dir, "--tags", "@regression", "--expected-failures", base}
	args := append([]string{filepath.Join(o.adapters, c.Adapter, "certify.sh"), c.Version}, c.AdapterFlags...)
	args = append(append(args, "--"), runFlags...)
	code, err := runScript(ctx, o.timeout, args, stdout, stderr)
	if err != nil {
		return nil, err
	}
	found, _ := filepath.Glob(filepath.Join(tmp, "*", "*", "report.json"))
	if len(found) != 1 {
		return nil, fmt.Errorf("certify.sh exited %d and wrote %d reports of the regression scenarios (want 1)", code, len(found))
	}
	fresh, err := report.ReadJSON(found[0])
	if err != nil {
		return nil, err
	}
	if len(fresh.Scenarios) == 0 {
		problems = append(problems, fmt.Sprintf("no regression scenario of %s ran (are they tagged regression?)", r.Scenarios))
	}
	if code != 0 {
		problems = append(problems, fmt.Sprintf("the regression scenarios of %s do not hold their baseline %s (exit %d; see UNEXPECTED and STALE above)", r.Scenarios, r.ExpectedFailures, code))
	}
	return problems, nil
}

// runScript runs a certify.sh in its own process group, so that a timeout
// or an interruption stops the adapter and the run it started too.
func runScript(ctx context.Context, timeout time.Duration, args []string, stdout, stderr io.Writer) (int, error) {
	return runScriptEnv(ctx, timeout, nil, args, stdout, stderr)
}

// runScriptEnv is runScript with more environment variables (NAME=value).
func runScriptEnv(ctx context.Context, timeout time.Duration, env, args []string, stdout, stderr io.Writer) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return 0, fmt.Errorf("%s did not finish within --timeout %s", args[0], timeout)
		}
		return 0, fmt.Errorf("%s: %w", args[0], ctx.Err())
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), nil
	case err != nil:
		return 0, fmt.Errorf("%s: %w", args[0], err)
	}
	return 0, nil
}

// publish replaces the report files of a certified folder with a new
// run's, leaving its hand-written files (FINDINGS.md, the baseline) as
// they are.
func publish(from, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("publish %s: %w", dir, err)
	}
	for _, f := range publishedFormats {
		name, _ := report.FileName(f)
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return fmt.Errorf("publish %s: %w", dir, err)
		}
		data = relativize(data, root)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("publish %s: %w", dir, err)
		}
	}
	return nil
}

// relativize writes the paths under root that a report names (the
// baseline it held, the files it read) relative to root, the repository
// the certification is run from: a published report names no folder of the
// machine that took it.
func relativize(data []byte, root string) []byte {
	if root == "" || root == "/" {
		return data
	}
	return bytes.ReplaceAll(data, []byte(strings.TrimSuffix(root, "/")+"/"), nil)
}

// writeReadme renders the table of every certification of the manifest
// from the committed reports (and, with --changes-from, the table of the
// verdicts that moved).
func writeReadme(o options, m *Manifest) error {
	pubs, err := published(o.out, m)
	if err != nil {
		return err
	}
	if o.changesFrom != "" {
		if err := writeChanges(o, m); err != nil {
			return err
		}
	}
	if err := os.WriteFile(o.readme, []byte(RenderReadme(o.manifest, pubs)), 0o644); err != nil {
		return err
	}
	return dashboard.WriteFile(filepath.Join(filepath.Dir(o.readme), dashboardFile), o.out)
}

// published reads the committed folder of each certification.
func published(out string, m *Manifest) ([]Published, error) {
	var pubs []Published
	for _, c := range m.Certifications {
		dir := filepath.Join(out, c.ID())
		p := Published{Certification: c, Findings: fileExists(filepath.Join(dir, findingsFile)), Baseline: fileExists(filepath.Join(dir, baselineFile))}
		if path := filepath.Join(dir, "report.json"); fileExists(path) {
			r, err := report.ReadJSON(path)
			if err != nil {
				return nil, err
			}
			p.Run = r
		}
		pubs = append(pubs, p)
	}
	return pubs, nil
}

// targetInfo is what the table reads of a target's info.
type targetInfo struct {
	Name       string `json:"name"`
	SDK        string `json:"sdk"`
	SDKVersion string `json:"sdkVersion"`
}

func infoFields(v any) (targetInfo, bool) {
	var t targetInfo
	raw, err := json.Marshal(v)
	if err != nil || json.Unmarshal(raw, &t) != nil {
		return t, false
	}
	return t, true
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
