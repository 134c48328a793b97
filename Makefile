# Approval Conformance Kit. `make conformance` runs the whole suite against
# the reference and prints a verdict per check; `make test` runs every test.

GO ?= go
PKGS := ./...

.PHONY: all conformance conformance-http mutants mutation-tests test vet fmt-check race build bench fuzz docs report-render clean

all: test

## conformance: run the whole suite against the reference runtime (per-check summary,
## and every report file in reports/reference/<timestamp>/)
conformance:
	$(GO) run ./cmd/conformance run --reference --report reports

## conformance-http: the same suite against the reference served over HTTP
## (driver protocol v1, provider wire formats), as an external target
conformance-http:
	$(GO) run ./cmd/conformance run --reference --over-http --report reports

## mutants: run the suite against every mutant of the reference and print the mutation score
mutants:
	$(GO) run ./cmd/conformance mutants --run

## test: formatting, vet, every test with the race detector, and the
## mutation tests (without it: they drive the same code as the race-checked
## suite tests, 57 times over, and the detector would multiply their time)
test: fmt-check vet race mutation-tests

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -count=1 -timeout 15m -skip '^TestMutant' $(PKGS)

mutation-tests:
	$(GO) test -count=1 -timeout 15m -run '^TestMutant' ./runner

## build: the conformance binary in bin/
build:
	$(GO) build -o bin/conformance ./cmd/conformance

## bench: speed and memory goals (never timed tests)
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## fuzz: a short run of every fuzz target, FUZZTIME each on 2 workers; a new
## input is minimised in at most 50 runs, so that the time goes to new inputs
## (the default, a minute of minimising each, left a few hundred runs a target)
FUZZTIME ?= 20s
FUZZ_TARGETS := \
	baseline:FuzzParse \
	chat/protocols:FuzzDecodeRequest \
	chat/sse:FuzzReader \
	model:FuzzDecodeMatchesOldDecoder \
	model:FuzzDecodeMessages \
	provider/anthropic:FuzzDecodeRequest \
	provider/canonical:FuzzDecodeRequest \
	provider/openaichat:FuzzDecodeRequest \
	provider/openairesponses:FuzzDecodeRequest \
	provider/openairesponses:FuzzKeepStream \
	provider/openairesponses:FuzzResolve \
	provider:FuzzUnmarshalString \
	report:FuzzDecodeJSON \
	scenario:FuzzParse \
	simulator:FuzzParseScript \
	tagexpr:FuzzParse \
	target/driverserver:FuzzRequests \
	target/httptarget:FuzzAnswers \
	target/httptarget:FuzzCallbacks \
	transcript:FuzzRead

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=./$${t%%:*}; name=$${t##*:}; echo "fuzz $$pkg $$name"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 50x -parallel 2 || exit 1; \
	done

## report-render: write a report of the reference and render report.html with
## headless Chromium (Debian: apt-get install chromium) to report.png
report-render:
	ACK_REQUIRE_CHROMIUM=1 $(GO) test -count=1 -run 'TestHTML' ./report
	$(GO) run ./report/internal/render

## docs: regenerate the generated docs (the check catalogue)
docs:
	$(GO) run ./cmd/conformance checks --format md > docs/checks.md

clean:
	rm -rf bin
