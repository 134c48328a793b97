package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/approval-conformance-kit/ack/adapters/driverkit"
)

// cmdAdapter is `conformance adapter init DIR`: a new adapter on the
// driver kit, whose example SDK passes the suite's agent role as written,
// with the places marked where an SDK's calls go.
func cmdAdapter(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("want a subcommand: init DIR")
	}
	if args[0] != "init" {
		return 0, usagef("unknown subcommand %q (want init)", args[0])
	}
	fs := newFlags("adapter init", stderr)
	if err := parseArgs(fs, args[1:]); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, usagef("init: give one folder to write the adapter into (a new or empty one)")
	}
	dir := fs.Arg(0)
	written, err := driverkit.WriteSkeleton(dir)
	if errors.Is(err, driverkit.ErrNotEmpty) {
		return 0, usagef("init: %v", err)
	}
	if err != nil {
		return exitHarness, fmt.Errorf("init: %w", err)
	}
	fmt.Fprintf(stdout, "Wrote a new adapter to %s (%d files): an example SDK behind driver protocol v1, on the driver kit.\n", dir, len(written))
	check := "./check.sh"
	if _, err := exec.LookPath("conformance"); err != nil {
		if self, err := os.Executable(); err == nil {
			check = "CONFORMANCE=" + self + " ./check.sh"
		}
	}
	fmt.Fprintf(stdout, "\nNext:\n  cd %s && %s   # the suite against it: as written, it passes the agent role\n", dir, check)
	fmt.Fprintf(stdout, "Then put your SDK in where %s and %s say SDK:, one step at a time (%s says how).\n",
		filepath.Join(dir, "src", "agent.mjs"), filepath.Join(dir, "src", "model.mjs"), filepath.Join(dir, "README.md"))
	if _, _, err := driverkit.Node(); err != nil {
		fmt.Fprintf(stdout, "Note: %v.\n", err)
	}
	return exitOK, nil
}
