// Command conformance certifies human-in-the-loop tool approval: it runs
// the conformance suite against the reference runtime (or, later, any
// implementation over HTTP) and prints a verdict per check.
//
// Usage:
//
//	conformance run [--reference | --target URL | --mutant NAME] [--tags EXPR] [--level must|should|may]
//	                [--format pretty,json,junit,md,html,badge,journal] [--report DIR]
//	                [--expected-failures FILE] [--shard I/N] [--scenarios DIR] [--timeout D] [--seed N]
//	                [--concurrency N] [--denial-policy P] [--progress auto|always|never] [--godog FORMAT]
//	conformance report merge [--out DIR] [--expected-failures FILE] DIR...
//	conformance serve [--addr 127.0.0.1:0] [--mutant NAME]
//	conformance sim --script FILE [--addr 127.0.0.1:0] [--provider P]
//	conformance scenario show FILE | check FILE...
//	conformance lint [--format text|json] [--input-format F] [--provider P] FILE...
//	conformance checks [--format text|md|json]
//	conformance mutants [--run]
//
// Exit codes: 0 every MUST check passes; 1 a conformance failure; 2 a usage
// or harness error (bad flags, a scenario that could not be run).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Exit codes.
const (
	exitOK      = 0
	exitFail    = 1
	exitHarness = 2
)

// usageError is a mistake on the command line.
type usageError struct {
	msg     string
	printed bool // the flag package already printed the command's usage
}

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{msg: fmt.Sprintf(format, args...)} }

const usage = `conformance: certify human-in-the-loop tool approval

Commands:
  run       run the conformance suite against a target and print a verdict per check
  checks    print the check catalogue
  mutants   list the mutants of the reference the suite must catch (--run: the mutation score)
  report    merge DIR...: combine the reports of shards (a CI matrix) into one
  serve     the reference behind driver protocol v1 (its URL on the first line)
  sim       --script FILE: one simulator script served to your own agent over HTTP
  scenario  show FILE: the Gherkin a YAML scenario compiles to; check FILE...: validate scenarios
  lint      FILE...: what a provider would reject, and what breaks pre-resolution, in recorded conversations

Run "conformance <command> -h" for a command's flags.
Exit codes: 0 every MUST check passes, 1 a conformance failure, 2 a usage or harness error.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes a command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitHarness
	}
	var (
		code int
		err  error
	)
	switch args[0] {
	case "run":
		code, err = cmdRun(ctx, args[1:], stdout, stderr)
	case "checks":
		code, err = cmdChecks(args[1:], stdout, stderr)
	case "mutants":
		code, err = cmdMutants(ctx, args[1:], stdout, stderr)
	case "report":
		code, err = cmdReport(ctx, args[1:], stdout, stderr)
	case "serve":
		code, err = cmdServe(ctx, args[1:], stdout, stderr)
	case "sim":
		code, err = cmdSim(ctx, args[1:], stdout, stderr)
	case "scenario":
		code, err = cmdScenario(ctx, args[1:], stdout, stderr)
	case "lint":
		code, err = cmdLint(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usagef("unknown command %q", args[0])
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			if ue.printed {
				return exitHarness
			}
			fmt.Fprintf(stderr, "conformance: %v\n\n%s", err, usage)
			return exitHarness
		}
		if errors.Is(err, errHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitHarness
	}
	return code
}
