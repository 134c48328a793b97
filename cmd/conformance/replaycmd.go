package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/replay"
	"github.com/approval-conformance-kit/ack/simulator"
	"github.com/approval-conformance-kit/ack/simulator/simhttp"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/transcript"
	"github.com/approval-conformance-kit/ack/wire"
)

// cmdReplay is `conformance replay FILE`: a recorded conversation run
// again against the reference, a mutant or a target over HTTP, with the
// first divergence reported. Exit 0 identical, 1 a divergence, 2 a target
// that could not be driven.
func cmdReplay(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("replay", stderr)
	ref := fs.Bool("reference", false, "replay against the reference (the default)")
	mutant := fs.String("mutant", "", "replay against a mutant of the reference (needs the Go toolchain and the kit's source)")
	url := fs.String("target", "", "replay against an implementation over HTTP (driver protocol v1)")
	listen := fs.String("listen", "127.0.0.1", "with --target: the host the simulator and the callbacks listen on")
	only := fs.String("conversation", "", "replay only this conversation (a journal's scenario or conversation id)")
	mode := fs.String("mode", "", "force the turn mode: generate or stream (the recorded one by default)")
	input := fs.String("input-format", "auto", "the file's format (see conformance lint)")
	profile := fs.String("provider", "openai-chat", "the provider for conversations that have none of their own")
	timeout := fs.Duration("timeout", 30*time.Second, "bound on each turn")
	files, err := parseWithFiles(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) != 1 {
		return 0, usagef("replay: give one transcript (a journal, a request body, a conversation)")
	}
	chosen := 0
	for _, on := range []bool{*ref, *mutant != "", *url != ""} {
		if on {
			chosen++
		}
	}
	if chosen > 1 {
		return 0, usagef("replay: give one of --reference, --mutant NAME, --target URL")
	}
	if *mode != "" && *mode != string(target.Generate) && *mode != string(target.Stream) {
		return 0, usagef("replay: --mode %q: want generate or stream", *mode)
	}
	in, err := transcript.ParseFormat(*input)
	if err != nil {
		return 0, usagef("replay: --input-format: %v", err)
	}
	p, err := wire.ParseProfile(*profile)
	if err != nil {
		return 0, describeFlagErr("provider", err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		return exitHarness, err
	}
	convs, err := transcript.ReadConversations(f, transcript.Options{Format: in, Profile: p})
	f.Close()
	if err != nil {
		return exitHarness, placed(files[0], err)
	}
	if *only != "" {
		var keep []*transcript.Conversation
		for _, c := range convs {
			if c.ID == *only {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			var ids []string
			for _, c := range convs {
				ids = append(ids, fmt.Sprintf("%q", c.ID))
			}
			return exitHarness, fmt.Errorf("%s: no conversation %q (it has %s)", files[0], *only, strings.Join(ids, ", "))
		}
		convs = keep
	}

	opts := replay.Options{Mode: target.Mode(*mode), Timeout: *timeout}
	name := describe(os.Getenv(mutants.EnvName))
	if *url != "" {
		ht, err := httptarget.New(*url, httptarget.WithTimeout(*timeout), httptarget.WithCallbackAddr(net.JoinHostPort(*listen, "0")))
		if err != nil {
			return 0, usagef("%v", err)
		}
		defer ht.Close()
		info, err := ht.Info(ctx)
		if err != nil {
			return exitHarness, err
		}
		sim, err := simhttp.Listen(net.JoinHostPort(*listen, "0"))
		if err != nil {
			return exitHarness, err
		}
		defer sim.Close()
		n := 0
		opts.Target, name = ht, info.Name
		opts.Serve = func(id string, m *simulator.Model) (string, error) {
			if !info.Features.SupportsAPI(string(m.Profile())) {
				return "", fmt.Errorf("replay: the target does not declare the %s model API the conversation was recorded in", m.Profile())
			}
			n++
			return sim.Add(fmt.Sprintf("%s-%d", id, n), m)
		}
	} else if *mutant != "" {
		return runMutant(ctx, *mutant, "replay", args, fs, stdout, stderr)
	} else {
		t, err := referenceTarget("independent")
		if err != nil {
			return 0, err
		}
		opts.Target = t
	}

	code := exitOK
	for _, c := range convs {
		fmt.Fprintf(stdout, "%s: conversation %q (%s, %s): %d model call(s) in %d turn(s), replayed against the %s\n",
			files[0], c.ID, c.Format, c.Profile, len(c.Calls), len(c.Turns), name)
		res, err := replay.Run(ctx, c, opts)
		if res != nil {
			for _, t := range res.Turns {
				fmt.Fprintf(stdout, "  %s\n", t)
			}
		}
		if err != nil {
			return exitHarness, err
		}
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "  note: %s\n", n)
		}
		if d := res.Divergence; d != nil {
			code = exitFail
			fmt.Fprintf(stdout, "  first divergence at %s\n", strings.ReplaceAll(d.String(), "\n", "\n  "))
			continue
		}
		fmt.Fprintf(stdout, "  identical: %d model call(s) as recorded\n", res.Replayed)
	}
	return code, nil
}
