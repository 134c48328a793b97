# Approval Conformance Kit. `make conformance` runs the whole suite against
# the reference and prints a verdict per check; `make test` runs every test.

GO ?= go
PKGS := ./...

.PHONY: all conformance conformance-http mutants test vet fmt-check race build bench fuzz docs report-render clean

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

## test: formatting, vet, and every test with the race detector
test: fmt-check vet race

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

## build: the conformance binary in bin/
build:
	$(GO) build -o bin/conformance ./cmd/conformance

## bench: speed and memory goals (never timed tests)
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## fuzz: a short run of every fuzz target
fuzz:
	$(GO) test ./model -run '^$$' -fuzz FuzzDecodeMessages -fuzztime 30s
	$(GO) test ./model -run '^$$' -fuzz FuzzDecodeMatchesOldDecoder -fuzztime 30s
	$(GO) test ./chat/protocols -run '^$$' -fuzz FuzzDecodeRequest -fuzztime 30s
	$(GO) test ./chat/sse -run '^$$' -fuzz FuzzReader -fuzztime 30s
	$(GO) test ./provider -run '^$$' -fuzz FuzzUnmarshalString -fuzztime 30s
	for p in openaichat openairesponses anthropic canonical; do $(GO) test ./provider/$$p -run '^$$' -fuzz FuzzDecodeRequest -fuzztime 30s || exit 1; done

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
