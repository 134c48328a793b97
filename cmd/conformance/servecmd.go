package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/approval-conformance-kit/ack/limits"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/provider/all"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/driverserver"
	"github.com/approval-conformance-kit/ack/target/inprocess"
	"github.com/approval-conformance-kit/ack/wire"
)

// referenceTarget builds the in-process reference. In a mutant's program
// (built by package mutants, which names the mutant in the environment)
// that reference carries the mutant's bug, and the target is named after
// the mutant.
func referenceTarget(denial string, opts ...inprocess.Option) (target.Target, error) {
	policy := reference.DenialPolicy(denial)
	if policy != reference.Independent && policy != reference.AbortRemaining {
		return nil, usagef("--denial-policy: unknown policy %q (want independent or abort-remaining)", denial)
	}
	name := "reference"
	if m := os.Getenv(mutants.EnvName); m != "" {
		name = "mutant " + m
	}
	return inprocess.New(reference.New(reference.WithDenialPolicy(policy)), name, opts...), nil
}

// cmdServe is `conformance serve`: the reference behind driver protocol v1,
// calling its models through the providers' HTTP wire formats.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:0", "the address to listen on")
	mutant := fs.String("mutant", "", "serve a mutant of the reference instead (see: conformance mutants; needs the Go toolchain and the kit's source)")
	denial := fs.String("denial-policy", "independent", "the reference's denial policy: independent or abort-remaining")
	modelAPIs := fs.String("model-apis", "", "comma-separated model APIs the reference declares: canonical, or provider profiles (default: the three provider wires)")
	var lim limits.Limits
	lim.Register(fs, limits.HeaderTimeout, limits.RequestBytes, limits.ReplyBytes, limits.Steps, limits.Sessions, limits.SessionIdle, limits.BodyTimeout, limits.InFlight)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if err := lim.Check(); err != nil {
		return 0, usagef("%v", err)
	}
	if *mutant != "" {
		return runMutant(ctx, *mutant, "serve", args, fs, stdout, stderr)
	}
	tgt, err := referenceTarget(*denial, inprocess.WithModelAPIs(splitList(*modelAPIs)...))
	if err != nil {
		return 0, err
	}
	srv, err := driverserver.Listen(*addr, tgt, all.ModelsWithin(lim.ReplyBytes), driverserver.WithLimits(lim))
	if err != nil {
		return exitHarness, err
	}
	fmt.Fprintln(stdout, srv.URL)
	fmt.Fprintf(stderr, "serving the %s over driver protocol v1 at %s (Ctrl-C to stop)\n", describe(os.Getenv(mutants.EnvName)), srv.URL)
	<-ctx.Done()
	fmt.Fprintf(stderr, "stopped (%v)\n", context.Cause(ctx))
	if err := srv.Close(); err != nil {
		return exitHarness, err
	}
	return exitOK, nil
}

func describe(mutant string) string {
	if mutant == "" {
		return "reference"
	}
	return "mutant " + mutant
}

// cmdSim is `conformance sim --script FILE`: one script served to a user's
// own agent, in a provider's wire format; its URL is the first line.
func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && args[0] == "texts" {
		return cmdSimTexts(args[1:], stdout, stderr)
	}
	fs := newFlags("sim", stderr)
	file := fs.String("script", "", "the script (YAML or JSON): turns of expect and reply")
	addr := fs.String("addr", "127.0.0.1:0", "the address to listen on")
	prov := fs.String("provider", "", "the provider's wire format and rules: openai-chat, openai-responses or anthropic-messages (default: the script's, else openai-chat)")
	var lim limits.Limits
	lim.Register(fs, limits.HeaderTimeout, limits.RequestBytes, limits.JournalBytes, limits.Calls, limits.BodyTimeout, limits.InFlight)
	if err := parse(fs, args); err != nil {
		return 0, err
	}
	if err := lim.Check(); err != nil {
		return 0, usagef("%v", err)
	}
	if *file == "" {
		return 0, usagef("--script FILE is required")
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return exitHarness, err
	}
	script, err := simulator.ParseScript(*file, data)
	if err != nil {
		return exitHarness, err
	}
	if *prov != "" {
		p, err := wire.ParseProfile(*prov)
		if err != nil {
			return 0, describeFlagErr("provider", err)
		}
		script.Provider = p
	}
	sim, err := simulator.New(script, simulator.RejectUnmet())
	if err != nil {
		return exitHarness, fmt.Errorf("%s: %w", *file, err)
	}
	srv, err := simhttp.ListenWith(*addr, lim)
	if err != nil {
		return exitHarness, err
	}
	base, err := srv.Add("script", sim)
	if err != nil {
		return exitHarness, err
	}
	fmt.Fprintln(stdout, base)
	fmt.Fprintf(stderr, "serving %s (%d turns, %s) at %s (Ctrl-C to stop)\n", *file, len(script.Turns), sim.Profile(), base)
	<-ctx.Done()
	fmt.Fprintf(stderr, "stopped (%v)\n", context.Cause(ctx))
	_ = srv.Close()
	probs := sim.Problems()
	fmt.Fprintf(stdout, "%d model call(s), %d turn(s) left\n", sim.Calls(), sim.Remaining())
	for _, p := range probs {
		fmt.Fprintf(stdout, "  %s\n", strings.TrimSpace(p.String()))
	}
	if len(probs) > 0 {
		fmt.Fprintln(stdout, "Result: FAIL")
		return exitFail, nil
	}
	fmt.Fprintln(stdout, "Result: PASS, the script was followed to its end.")
	return exitOK, nil
}
