package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp is returned when -h was asked for; the usage is already printed.
var errHelp = errors.New("help requested")

// newFlags returns a flag set that reports errors instead of exiting, and
// whose usage is the command's: how it is called, then its flags.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c, _ := lookup(strings.Fields(name)[0])
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage:")
		for _, s := range c.synopsis {
			if strings.HasPrefix(s, "conformance "+name) {
				fmt.Fprintf(fs.Output(), "  %s\n", s)
			}
		}
		fmt.Fprintln(fs.Output(), "Flags:")
		fs.PrintDefaults()
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

// parseArgs parses flags and leaves positional arguments in fs.Args().
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{msg: err.Error(), printed: true}
	}
	return nil
}
