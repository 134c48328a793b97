package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain runs the command itself when a test starts this binary as the
// CLI (ACK_RUN_MAIN=1), so that signals reach a real process.
func TestMain(m *testing.M) {
	if os.Getenv("ACK_RUN_MAIN") == "1" {
		os.Args = append([]string{"conformance"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

// cli starts the CLI as a process with args; stderr is read line by line.
func cli(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "ACK_RUN_MAIN=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, bufio.NewScanner(errPipe)
}

// A run interrupted by Ctrl-C (or SIGTERM) exits with the signal's own
// code, says so, and writes a report marked interrupted holding only what
// finished: never a conformance failure against a passing target.
func TestInterruptedRunSaysSoAndExitsWithTheSignalsCode(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			cmd, stdout, stderr := cli(t, "run", "--reference", "--progress", "always", "--format", "pretty,json,md", "--report", root)
			var errText strings.Builder
			signaled := false
			for stderr.Scan() {
				line := stderr.Text()
				errText.WriteString(line + "\n")
				if !signaled && strings.Contains(line, " scenarios: ") {
					if err := cmd.Process.Signal(c.sig); err != nil {
						t.Fatal(err)
					}
					signaled = true
				}
			}
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if !signaled || code != c.code {
				t.Fatalf("exit %d (%v), want %d; signaled %v\nstdout:\n%s\nstderr:\n%s", code, err, c.code, signaled, stdout, errText.String())
			}
			for _, want := range []string{c.name + ": stopping", "interrupted by " + c.name, "not run"} {
				if !strings.Contains(errText.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errText.String())
				}
			}
			if !strings.Contains(stdout.String(), "Result: INTERRUPTED") || strings.Contains(stdout.String(), "FAIL") {
				t.Errorf("stdout:\n%s", stdout)
			}
			var rep struct {
				Result      string `json:"result"`
				Interrupted string `json:"interrupted"`
				NotRun      int    `json:"notRun"`
				Scenarios   []struct {
					Verdict string `json:"verdict"`
				} `json:"scenarios"`
			}
			data, err := os.ReadFile(filepath.Join(reportDir(t, root), "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Result != "interrupted" || rep.Interrupted != "interrupted by "+c.name || rep.NotRun == 0 {
				t.Errorf("report.json: result %q, interrupted %q, %d not run", rep.Result, rep.Interrupted, rep.NotRun)
			}
			for _, s := range rep.Scenarios {
				if s.Verdict != "pass" && s.Verdict != "not-applicable" {
					t.Errorf("a scenario of the passing reference is %s", s.Verdict)
				}
			}
		})
	}
}

// serve stops on SIGTERM as on Ctrl-C: it closes its sessions, says why,
// and exits 0.
func TestServeStopsOnSIGTERM(t *testing.T) {
	cmd, stdout, stderr := cli(t, "serve")
	var errText strings.Builder
	for stderr.Scan() {
		line := stderr.Text()
		errText.WriteString(line + "\n")
		if strings.HasPrefix(line, "serving ") {
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(errText.String(), "stopped (interrupted by SIGTERM)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, errText.String())
	}
}
