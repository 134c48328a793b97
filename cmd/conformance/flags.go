package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/approval-conformance-kit/ack/internal/suggest"
)

// errHelp is returned when -h was asked for; the usage is already printed.
var errHelp = errors.New("help requested")

// newFlags returns a flag set that reports errors instead of exiting, and
// whose usage (on -h) is the command's: how it is called, then its flags.
// A mistake prints the mistake and how the command is called, not every
// flag (parseArgs).
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the flag package's own messages: parseArgs says what went wrong
	c, _ := lookup(strings.Fields(name)[0])
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage:")
		for _, s := range c.synopsis {
			if strings.HasPrefix(s, "conformance "+name) {
				fmt.Fprintf(stderr, "  %s\n", s)
			}
		}
		fmt.Fprintln(stderr, "Flags:")
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses args, turning flag errors into usage errors; it takes no
// positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func describeFlagErr(name string, err error) error {
	return usagef("--%s: %v", name, err)
}

// undefinedFlag is the flag package's message for a flag it does not know.
const undefinedFlag = "flag provided but not defined: -"

// parseArgs parses flags and leaves positional arguments in fs.Args(). A
// mistake is a usage error that says what is wrong (with a did-you-mean
// for a misspelled flag), shown with how the command is called; -h shows
// every flag.
func parseArgs(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every mistake too
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return errHelp
		}
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, undefinedFlag); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			msg = fmt.Sprintf("unknown flag --%s", name)
			if best, ok := suggest.Nearest(name, names); ok {
				msg += fmt.Sprintf(" (did you mean --%s?)", best)
			}
		}
		return usageError{msg: msg}
	}
	return nil
}
