package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/approval-conformance-kit/ack/scenario"
	"github.com/approval-conformance-kit/ack/steps"
)

// cmdScenario is `conformance scenario show FILE` (the Gherkin a YAML
// scenario compiles to) and `conformance scenario check FILE...`.
func cmdScenario(_ context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return 0, usagef("want a subcommand: show FILE, check FILE..., or from-transcript FILE")
	}
	sub, files := args[0], args[1:]
	switch sub {
	case "show":
		if len(files) != 1 {
			return 0, usagef("show: give one YAML file")
		}
		f, err := loadScenario(files[0])
		if err != nil {
			return exitFail, err
		}
		text, err := scenario.Compile(f)
		if err != nil {
			return exitFail, err
		}
		_, err = io.WriteString(stdout, text)
		return exitOK, err
	case "check":
		if len(files) == 0 {
			return 0, usagef("check: give YAML files")
		}
		code := exitOK
		for _, name := range files {
			f, err := loadScenario(name)
			var text string
			if err == nil {
				text, err = scenario.Compile(f)
			}
			if err == nil {
				if errs := steps.Lint(name, []byte(text)); len(errs) > 0 {
					err = fmt.Errorf("%s compiles to a scenario that fails the lint: %v", name, errs[0])
				}
			}
			if err != nil {
				fmt.Fprintln(stderr, err)
				code = exitFail
				continue
			}
			fmt.Fprintf(stdout, "%s: ok (%s)\n", name, f.ID)
		}
		return code, nil
	case "from-transcript":
		return cmdFromTranscript(files, stdout, stderr)
	}
	return 0, usagef("unknown subcommand %q (want show, check or from-transcript)", sub)
}

func loadScenario(name string) (*scenario.File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return scenario.Parse(name, data)
}
