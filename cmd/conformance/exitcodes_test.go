package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The exit codes of every documented path (README, docs/ci.md): the
// binary's are tested in main_test.go and signal_test.go; here are the
// wrappers around it.

// repoRoot is the repository's root, two folders up from this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// exitOf runs a command and returns its exit code, stdout and stderr.
func exitOf(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return 0, out.String(), errOut.String()
}

// The make targets that run the CLI build the binary and run it, never
// through go run (which turns every non-zero code into 1).
func TestMakeTargetsRunTheBuiltBinary(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	for _, target := range []string{"conformance", "conformance-http", "mutants", "docs"} {
		cmd := exec.Command("make", "-n", target)
		cmd.Dir = repoRoot(t)
		code, out, errOut := exitOf(t, cmd)
		if code != 0 {
			t.Fatalf("make -n %s: exit %d\n%s", target, code, errOut)
		}
		if strings.Contains(out, "go run") || !strings.Contains(out, "go build -o bin/conformance ./cmd/conformance\nbin/conformance ") {
			t.Errorf("make %s does not build and run bin/conformance:\n%s", target, out)
		}
	}
}

// Every adapter's certify.sh: a usage error is 2 (never 1, which reads as
// a conformance failure), --help is 0; neither installs anything.
func TestCertifyScriptsUsage(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(repoRoot(t), "adapters", "*", "certify.sh"))
	if err != nil || len(scripts) < 5 {
		t.Fatalf("certify.sh scripts: %v %v", scripts, err)
	}
	for _, s := range scripts {
		for _, c := range []struct {
			args []string
			code int
		}{{nil, exitHarness}, {[]string{"--bogus"}, exitHarness}, {[]string{"--help"}, exitOK}} {
			code, out, errOut := exitOf(t, exec.Command("bash", append([]string{s}, c.args...)...))
			if code != c.code || !strings.Contains(out+errOut, "usage: certify.sh VERSION") {
				t.Errorf("%s %v: exit %d, want %d\n%s%s", s, c.args, code, c.code, out, errOut)
			}
		}
	}
}

// The steps every certify.sh runs (adapters/certify-lib.sh), with this
// CLI's own driver server standing in for an SDK's adapter: the suite's
// exit code comes through unchanged (0, 1, 2), a failed install is 2,
// paths after -- are relative to the caller's folder, and the install's
// and the adapter's output go to the log file, not to the terminal.
func TestCertifyStepsKeepExitCodesAndPaths(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-certify.sh")
	lib := filepath.Join(repoRoot(t), "adapters", "certify-lib.sh")
	text := `set -euo pipefail
certify_name=fake-certify.sh certify_sdk=fake certify_example=1.0
source "` + lib + `"
certify_install() { echo "npm WARN deprecated: noise"; [ "$1" != broken ]; }
certify_adapter() { shift; echo "adapter noise" >&2; exec "$CONFORMANCE" serve "$@"; }
certify_main "$@"
`
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	caller := filepath.Join(dir, "caller")
	if err := os.Mkdir(caller, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "certify.log")
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command("bash", append([]string{script}, args...)...)
		cmd.Dir = caller
		cmd.Env = append(os.Environ(), "ACK_RUN_MAIN=1", "CONFORMANCE="+os.Args[0], "CERTIFY_LOG="+log)
		return exitOf(t, cmd)
	}
	code, out, errOut := run("1.0", "--", "--tags", "@PRE-01", "--report", "rel-reports", "--format", "pretty,json")
	if code != exitOK {
		t.Fatalf("a passing target: exit %d\n%s%s", code, out, errOut)
	}
	if found, _ := filepath.Glob(filepath.Join(caller, "rel-reports", "*", "*", "report.json")); len(found) != 1 {
		t.Errorf("--report rel-reports: want one report under the caller's folder, found %v", found)
	}
	if strings.Contains(out+errOut, "noise") || !strings.Contains(errOut, "are in "+log) {
		t.Errorf("the install's and adapter's output is not kept to the named log:\n%s%s", out, errOut)
	}
	if data, err := os.ReadFile(log); err != nil || !strings.Contains(string(data), "npm WARN deprecated: noise") || !strings.Contains(string(data), "adapter noise") {
		t.Errorf("log %s: %q %v", log, data, err)
	}
	if code, out, errOut := run("1.0", "--mutant", "late-resolution", "--", "--tags", "@PRE-01"); code != exitFail {
		t.Errorf("a failing target: exit %d, want %d\n%s%s", code, exitFail, out, errOut)
	}
	if code, out, errOut := run("1.0", "--", "--no-such-flag"); code != exitHarness {
		t.Errorf("a bad conformance flag: exit %d, want %d\n%s%s", code, exitHarness, out, errOut)
	}
	if code, _, errOut := run("broken"); code != exitHarness || !strings.Contains(errOut, "installing fake broken failed") {
		t.Errorf("a failed install: exit %d, want %d\n%s", code, exitHarness, errOut)
	}
	if code, _, errOut := run("1.0", "--no-such-serve-flag"); code != exitHarness || !strings.Contains(errOut, "the adapter exited before printing its URL") {
		t.Errorf("an adapter that does not start: exit %d, want %d\n%s", code, exitHarness, errOut)
	}
}

// go run turns every non-zero exit code into 1: the README says so and
// shows the built binary for scripts. This pins the fact the docs rest on.
func TestGoRunLosesExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with go run")
	}
	cmd := exec.Command("go", "run", ".", "no-such-command")
	code, _, errOut := exitOf(t, cmd)
	if code != 1 {
		t.Errorf("go run . no-such-command: exit %d (the binary exits 2); if go run now keeps the code, update README.md and docs/ci.md\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "exit status 2") {
		t.Errorf("go run should say the binary's own status:\n%s", errOut)
	}
}

// The Action's own step (action.yml, "Run the suite") run as GitHub runs
// it (bash -eo pipefail), with this CLI as the binary it built: the
// step's status and its exit-code output are the binary's code, 0, 1 or 2,
// and the report reaches the job summary.
func TestActionKeepsExitCodes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range action.Runs.Steps {
		if s.ID == "run" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal(`action.yml has no step with id "run"`)
	}
	dir := t.TempDir()
	wrapper := "#!/bin/sh\nACK_RUN_MAIN=1 exec '" + os.Args[0] + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "conformance"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	stepFile := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(stepFile, []byte(strings.ReplaceAll(script, "${{ runner.temp }}", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	ref, stopRef := background(t, "serve")
	defer stopRef()
	mutant, stopMutant := background(t, "serve", "--mutant", "late-resolution")
	defer stopMutant()
	for i, c := range []struct {
		url  string
		code int
	}{{ref, exitOK}, {mutant, exitFail}, {"http://127.0.0.1:1", exitHarness}} {
		out, summary := filepath.Join(dir, fmt.Sprintf("output%d", i)), filepath.Join(dir, fmt.Sprintf("summary%d", i))
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", stepFile)
		cmd.Env = append(os.Environ(), "ACK_TARGET="+c.url, "ACK_BASELINE=", "ACK_TAGS=@PRE-01", "ACK_LEVEL=must", "ACK_SHARD=", "ACK_SCENARIOS=",
			"ACK_TIMEOUT=10s", "ACK_REPORT="+filepath.Join(dir, fmt.Sprintf("reports%d", i)), "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+summary)
		code, stdout, stderr := exitOf(t, cmd)
		written, _ := os.ReadFile(out)
		if code != c.code || !strings.Contains(string(written), fmt.Sprintf("exit-code=%d", c.code)) {
			t.Errorf("%s: the step exited %d with %q, want %d\n%s%s", c.url, code, written, c.code, stdout, stderr)
		}
		if md, _ := os.ReadFile(summary); c.code != exitHarness && !strings.Contains(string(md), "# Approval conformance") {
			t.Errorf("%s: the job summary lacks report.md: %q", c.url, md)
		}
	}
}

// The Action's inputs default to what the CLI's flags default to (one
// default everywhere: a job fails on what `conformance run` fails on),
// except where action.yml says why it differs.
func TestActionDefaultsAreTheCLIs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Description string `yaml:"description"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	_, _, help := runCLI("run", "-h")
	for input, flag := range map[string]string{"level": "level", "tags": "tags", "shard": "shard", "scenarios": "scenarios", "expected-failures": "expected-failures", "timeout": "timeout"} {
		in, ok := action.Inputs[input]
		if !ok {
			t.Errorf("action.yml has no input %q", input)
			continue
		}
		def := flagDefault(help, flag)
		if in.Default != def && !strings.Contains(in.Description, "where the CLI's default is "+def) {
			t.Errorf("input %q defaults to %q, the CLI's --%s to %q, and its description does not say why", input, in.Default, flag, def)
		}
	}
	if d := action.Inputs["level"].Default; d != "must" {
		t.Errorf("the level input defaults to %q, want must (the CLI's and acktest's)", d)
	}
}

// flagDefault reads a flag's default from a command's help ("" when it
// has none).
func flagDefault(help, flag string) string {
	i := strings.Index(help, "  -"+flag+" ")
	if i < 0 {
		i = strings.Index(help, "  -"+flag+"\n")
	}
	if i < 0 {
		return "(no such flag)"
	}
	rest := help[i:]
	if j := strings.Index(rest[3:], "\n  -"); j >= 0 {
		rest = rest[:j+3]
	}
	m := regexp.MustCompile(`\(default "?([^")]*)"?\)`).FindStringSubmatch(rest)
	if m == nil {
		return ""
	}
	return m[1]
}

// certify-lib.sh around an adapter's install and start: the adapter's
// output after its URL is drained into the log (a coprocess's descriptor
// read in a subshell printed "Bad file descriptor" and drained nothing);
// an install that is current is not done again, and is when what it
// depends on changes or CERTIFY_REINSTALL=1 says so; a mistake in the
// conformance flags (a baseline that does not exist, a misspelled entry)
// is found before the install and the start, and exits 2.
func TestCertifyStepsDrainTheAdapterAndSkipACurrentInstall(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(repoRoot(t), "adapters", "certify-lib.sh")
	installs := filepath.Join(dir, "installs")
	text := `set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
certify_name=fake-certify.sh certify_sdk=fake certify_example=1.0
source "` + lib + `"
certify_install() { echo "$1" >>"` + installs + `"; mkdir -p "$here/versions/$1/node_modules"; }
certify_adapter() {
	shift
	echo "adapter noise" >&2
	# The adapter's stdout: its URL, then more (drained into the log).
	exec > >(IFS= read -r url; echo "$url"; echo "adapter stdout after its URL"; exec cat)
	exec "$CONFORMANCE" serve "$@"
}
certify_main "$@"
`
	for name, data := range map[string]string{
		"fake-certify.sh":                text,
		"install.sh":                     "# installs\n",
		"src/sdk.mjs":                    "export {}\n",
		"versions/1.0/package-lock.json": `{"lockfileVersion": 3}` + "\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "certify.log")
	run := func(env []string, args ...string) (int, string, string) {
		t.Helper()
		if err := os.WriteFile(log, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", append([]string{filepath.Join(dir, "fake-certify.sh")}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), "ACK_RUN_MAIN=1", "CONFORMANCE="+os.Args[0], "CERTIFY_LOG="+log), env...)
		return exitOf(t, cmd)
	}
	count := func() int {
		data, _ := os.ReadFile(installs)
		return strings.Count(string(data), "\n")
	}
	logged := func() string {
		data, _ := os.ReadFile(log)
		return string(data)
	}
	pass := []string{"1.0", "--", "--tags", "@REQ-02"}

	code, out, errOut := run(nil, pass...)
	if code != exitOK || count() != 1 {
		t.Fatalf("first run: exit %d, %d installs\n%s%s", code, count(), out, errOut)
	}
	if strings.Contains(errOut, "Bad file descriptor") {
		t.Errorf("the drain of the adapter's output failed:\n%s", errOut)
	}
	if !strings.Contains(logged(), "adapter stdout after its URL") {
		t.Errorf("the adapter's output after its URL is not in the log:\n%s", logged())
	}
	if code, out, errOut := run(nil, pass...); code != exitOK || count() != 1 || !strings.Contains(logged(), "is installed and current") {
		t.Errorf("a current install: exit %d, %d installs (want 1)\n%s%s%s", code, count(), out, errOut, logged())
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "sdk.mjs"), []byte("export const x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// (An adapter flag serve refuses stops each of the next two after the
	// install: what they show is whether it installed.)
	noStart := []string{"1.0", "--no-such-serve-flag", "--", "--tags", "@REQ-02"}
	if code, out, errOut := run(nil, noStart...); code != exitHarness || count() != 2 {
		t.Errorf("after src/ changed: exit %d, %d installs (want 2)\n%s%s", code, count(), out, errOut)
	}
	if code, out, errOut := run([]string{"CERTIFY_REINSTALL=1"}, noStart...); code != exitHarness || count() != 3 {
		t.Errorf("CERTIFY_REINSTALL=1: exit %d, %d installs (want 3)\n%s%s", code, count(), out, errOut)
	}

	misspelled := filepath.Join(dir, "misspelled.yaml")
	if err := os.WriteFile(misspelled, []byte("expectedFailures:\n  - scenario: \"pre_resolution.featur: *\"\n    reason: a typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ file, want string }{
		"a baseline that does not exist": {filepath.Join(dir, "nope.yaml"), "nope.yaml"},
		"a misspelled entry":             {misspelled, `did you mean "pre_resolution.feature: *"?`},
	} {
		code, out, errOut := run(nil, "1.0", "--", "--tags", "@REQ-02", "--expected-failures", c.file)
		if code != exitHarness || count() != 3 || strings.Contains(logged(), "adapter noise") || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing was installed or started") {
			t.Errorf("%s: exit %d (want 2), %d installs (want 3), log %q\n%s%s", name, code, count(), logged(), out, errOut)
		}
	}
}

// Every adapter's repro/run.sh finds its script by its name or by the path
// FINDINGS.md writes (repro/X.mjs, adapters/<sdk>/repro/X.mjs), and keeps
// exit 1 for a reproduced defect: a usage error (no arguments, a script
// that is not there) is 2. The SDK here is a stand-in whose node exits 1,
// as a script does when its defect shows.
func TestReproScriptsFindTheirScript(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(repoRoot(t), "adapters", "*", "repro", "run.sh"))
	if err != nil || len(scripts) < 3 {
		t.Fatalf("repro/run.sh scripts: %v %v", scripts, err)
	}
	for _, runSh := range scripts {
		sdkName := filepath.Base(filepath.Dir(filepath.Dir(runSh)))
		t.Run(sdkName, func(t *testing.T) {
			// The adapter's repro folder, copied beside a stand-in version
			// whose node_modules holds every package the scripts look for.
			root := t.TempDir()
			repro := filepath.Join(root, "adapters", sdkName, "repro")
			if err := os.CopyFS(repro, os.DirFS(filepath.Dir(runSh))); err != nil {
				t.Fatal(err)
			}
			sdk := filepath.Join(root, "adapters", sdkName, "versions", "9.9.9")
			for _, p := range []string{"ai", "effect", "@mastra/core", "@openai/agents", ".bin"} {
				if err := os.MkdirAll(filepath.Join(sdk, "node_modules", p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			node := "#!/bin/sh\necho \"ran $(basename \"$1\")\"\nexit 1\n"
			if err := os.WriteFile(filepath.Join(sdk, "node_modules", ".bin", "node"), []byte(node), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sdk, "sdk.mjs"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			mjs, _ := filepath.Glob(filepath.Join(repro, "*.mjs"))
			var name string
			for _, m := range mjs {
				if b := filepath.Base(m); !strings.HasPrefix(b, "lib") {
					name = b
					break
				}
			}
			if name == "" {
				t.Fatal("no reproduction script")
			}
			run := func(args ...string) (int, string, string) {
				cmd := exec.Command("bash", append([]string{filepath.Join(repro, "run.sh")}, args...)...)
				cmd.Dir = root
				return exitOf(t, cmd)
			}
			for _, path := range []string{name, "repro/" + name, "adapters/" + sdkName + "/repro/" + name} {
				if code, out, errOut := run("9.9.9", path); code != 1 || !strings.Contains(out, "ran "+name) {
					t.Errorf("run.sh 9.9.9 %s: exit %d, want 1 (the defect shows)\n%s%s", path, code, out, errOut)
				}
			}
			for _, args := range [][]string{nil, {"9.9.9"}, {"9.9.9", "repro/no-such-script.mjs"}} {
				if code, out, errOut := run(args...); code != exitHarness {
					t.Errorf("run.sh %v: exit %d, want 2 (a usage error, not a reproduced defect)\n%s%s", args, code, out, errOut)
				}
			}
		})
	}
}
