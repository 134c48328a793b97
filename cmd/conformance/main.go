// Command conformance certifies human-in-the-loop tool approval: it runs
// the conformance suite against the reference runtime, a mutant of it, or
// any implementation over HTTP, and prints a verdict per check.
//
// Usage:
//
//	conformance run [--reference | --target URL | --mutant NAME] [--tags EXPR] [--level must|should|may]
//	                [--format pretty,json,junit,md,html,badge,journal] [--report DIR]
//	                [--expected-failures FILE] [--shard I/N] [--scenarios DIR] [--timeout D] [--deadline D]
//	                [--seed N] [--concurrency N] [--denial-policy P] [--progress auto|always|never] [--godog FORMAT] [--dry-run]
//	conformance report merge [--out DIR] [--expected-failures FILE] DIR...
//	conformance report dashboard [--out FILE] DIR
//	conformance baseline init REPORT [--out FILE] | check FILE [--scenarios DIR]
//	conformance serve [--addr 127.0.0.1:0] [--mutant NAME]
//	conformance sim --script FILE [--addr 127.0.0.1:0] [--provider P]
//	conformance sim texts [--max-age 180d] [--format text|json] [--fail]
//	conformance scenario show FILE | check FILE... | from-transcript FILE [--id ID] [--conversation ID] [--out-of-contract WHY] [--out PATH]
//	conformance lint [--format text|json] [--input-format F] [--provider P] FILE...
//	conformance record --upstream URL [--listen 127.0.0.1:0] [--journal FILE] [--refuse] [--provider P]
//	conformance replay FILE [--reference | --mutant NAME | --target URL] [--conversation ID] [--mode M]
//	conformance checks [--format text|md|json]
//	conformance mutants [--run]
//	conformance adapter init DIR
//
// Exit codes: 0 every MUST check passes; 1 a conformance failure; 2 a usage
// or harness error (bad flags, a scenario that could not be run, a run cut
// short by its deadline or by a target that stopped answering); 130 a run
// interrupted by SIGINT (Ctrl-C), 143 by SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/approval-conformance-kit/ack/internal/suggest"
)

// Exit codes.
const (
	exitOK      = 0
	exitFail    = 1
	exitHarness = 2
)

// command is a subcommand of the CLI. A new command is one entry in
// commands, its code in a file of its own.
type command struct {
	name    string
	summary string
	// synopsis is how the command is called, one line per form.
	synopsis []string
	run      func(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error)
}

// commands lists the subcommands in the order the help shows them (set in
// init: the commands' own code refers to the list for its usage).
var commands []command

func init() {
	commands = []command{
		{"run", "run the conformance suite against a target and print a verdict per check",
			[]string{"conformance run --reference | --target URL | --mutant NAME [flags]"}, cmdRun},
		{"checks", "print the check catalogue",
			[]string{"conformance checks [--format text|md|json]"}, cmdChecks},
		{"mutants", "list the mutants of the reference the suite must catch (--run: the mutation score)",
			[]string{"conformance mutants [--run]"}, cmdMutants},
		{"report", "merge DIR...: combine the reports of the shards of one run (a CI matrix) into one; dashboard DIR: certified folders on one page",
			[]string{"conformance report merge [--out DIR] [--format F] [--expected-failures FILE] DIR...", "conformance report dashboard [--out FILE] DIR"}, cmdReport},
		{"serve", "the reference (or a mutant) behind driver protocol v1 (its URL on the first line)",
			[]string{"conformance serve [--addr 127.0.0.1:0] [--mutant NAME] [limits]"}, cmdServe},
		{"sim", "--script FILE: one simulator script served to your own agent over HTTP; texts: the provider error texts it answers, dated, and those older than --max-age",
			[]string{"conformance sim --script FILE [--addr 127.0.0.1:0] [--provider P] [limits]", "conformance sim texts [--max-age 180d] [--format text|json] [--fail]"}, cmdSim},
		{"scenario", "show FILE: the Gherkin a YAML scenario compiles to; check FILE...: validate scenarios; from-transcript FILE: a regression scenario",
			[]string{"conformance scenario show FILE", "conformance scenario check FILE...", "conformance scenario from-transcript FILE [--id ID] [--conversation ID] [--out-of-contract WHY] [--out PATH]"}, cmdScenario},
		{"lint", "FILE...: what a provider would reject, and what breaks pre-resolution, in recorded conversations",
			[]string{"conformance lint [--format text|json] [--input-format F] [--provider P] FILE..."}, cmdLint},
		{"record", "--upstream URL: a recording proxy in front of a model endpoint that lints every request (--refuse: answers the provider's 400 itself)",
			[]string{"conformance record --upstream URL [--listen 127.0.0.1:0] [--journal FILE] [--refuse] [--provider P]"}, cmdRecord},
		{"baseline", "init REPORT: a first baseline of expected failures from a run's report; check FILE: a baseline's entries matched to the suite",
			[]string{"conformance baseline init REPORT [--out FILE]", "conformance baseline check FILE [--scenarios DIR]"}, cmdBaseline},
		{"replay", "FILE: a recorded conversation run again against a target; the first divergence, both sides",
			[]string{"conformance replay FILE [--reference | --mutant NAME | --target URL] [--conversation ID] [--mode M]"}, cmdReplay},
		{"adapter", "init DIR: a new adapter for your SDK, on the driver kit (as written, its example SDK passes the agent role)",
			[]string{"conformance adapter init DIR"}, cmdAdapter},
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usageError is a mistake on the command line.
type usageError struct {
	msg     string
	printed bool // the flag package already printed the command's usage
}

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{msg: fmt.Sprintf(format, args...)} }

// hintOf is the did-you-mean of a name the command does not know:
// ` (did you mean "X"?)`, or "" when none of the known names is close.
func hintOf(name string, known []string) string { return suggest.Hint(name, known) }

func generalUsage() string {
	var b strings.Builder
	b.WriteString("conformance: certify human-in-the-loop tool approval\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun \"conformance <command> -h\" for a command's flags.\n")
	b.WriteString("Exit codes: 0 every MUST check passes, 1 a conformance failure, 2 a usage or harness error,\n130 interrupted (Ctrl-C), 143 terminated (SIGTERM).\n")
	return b.String()
}

// commandUsage is the short help of one command: how it is called.
func commandUsage(c command) string {
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, s := range c.synopsis {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	fmt.Fprintf(&b, "Run \"conformance %s -h\" for its flags.\n", c.name)
	return b.String()
}

// interrupt is the cause of a context ended by a signal.
type interrupt struct{ sig os.Signal }

func (i interrupt) Error() string { return "interrupted by " + signalName(i.sig) }

// code is the exit code of a process ended by the signal, as shells
// report it: 128 + the signal's number.
func (i interrupt) code() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// interrupted returns the signal that ended ctx, if one did.
func interrupted(ctx context.Context) (interrupt, bool) {
	var i interrupt
	ok := errors.As(context.Cause(ctx), &i)
	return i, ok
}

func main() {
	ctx, stop := notifyContext(context.Background(), os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// notifyContext returns a context that SIGINT or SIGTERM ends, with the
// signal as its cause; a second signal ends the process at once with the
// signal's exit code.
func notifyContext(parent context.Context, stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "\nconformance: %s: stopping (press Ctrl-C again to quit at once)\n", signalName(sig))
			cancel(interrupt{sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "conformance: %s again: quitting\n", signalName(sig))
			os.Exit(interrupt{sig}.code())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// run executes a command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, generalUsage())
		return exitHarness
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, generalUsage())
		return exitOK
	}
	c, ok := lookup(args[0])
	if !ok {
		names := make([]string, len(commands))
		for i, c := range commands {
			names[i] = c.name
		}
		fmt.Fprintf(stderr, "conformance: unknown command %q%s\n\n%s", args[0], hintOf(args[0], names), generalUsage())
		return exitHarness
	}
	code, err := c.run(ctx, args[1:], stdout, stderr)
	if err == nil {
		return code
	}
	var ue usageError
	switch {
	case errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintf(stderr, "conformance %s: %v\n\n%s", c.name, err, commandUsage(c))
		}
		return exitHarness
	}
	fmt.Fprintf(stderr, "conformance %s: %v\n", c.name, err)
	if i, ok := interrupted(ctx); ok {
		return i.code()
	}
	return exitHarness
}
