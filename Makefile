# Approval Conformance Kit. `make conformance` runs the whole suite against
# the reference and prints a verdict per check; `make test` runs every test.

GO ?= go
PKGS := ./...

.PHONY: all conformance conformance-http mutants mutation test vet fmt-check race build bench bench-peers fuzz fuzz-nightly docs report-render certify certify-check certify-line certify-watch dashboard provider-texts clean

all: test

# The CLI targets build bin/conformance and run it, never `go run` (which
# turns every non-zero exit code into 1). make itself exits 2 whenever a
# recipe fails; its last line, "make: *** [Makefile:N: conformance] Error C",
# names the binary's own code C (1 a conformance failure, 2 a usage or
# harness error, 130 interrupted). A script that must tell them apart runs
# bin/conformance itself (make build).

## conformance: run the whole suite against the reference runtime (per-check summary,
## and every report file in reports/reference/<timestamp>/)
conformance: build
	bin/conformance run --reference --report reports

## conformance-http: the same suite against the reference served over HTTP
## (driver protocol v1, provider wire formats), as an external target
conformance-http: build
	bin/conformance run --reference --over-http --report reports

## mutants: build every hand-written mutant (mutants/NAME.patch laid over the
## reference with go build -overlay: needs the Go toolchain), run the suite
## against each and print the mutation score
mutants: build
	bin/conformance mutants --run

## mutation: machine-made mutants (gremlins, pinned below) of reference/*.go,
## reference/chatclient and reference/chatserver, each judged by the whole conformance suite in-process
## under both denial policies (reference/internal/mutationsuite); writes the score
## and every survivor to docs/mutation.md, gremlins' results to reports/mutation/,
## and fails on a survivor neither killed nor listed, with its reason, in
## reference/mutation-equivalent.yaml. A long sweep (tens of minutes on 2 cores):
## not part of make test. MUTATION_WORKERS mutants at once.
GREMLINS_VERSION := v0.6.0
MUTATION_WORKERS ?= 2
# The mutation types: gremlins' defaults, and the logical, loop-control and
# assignment inversions (not the bitwise ones: the reference has no bitwise
# arithmetic, and they turn every &T{...} into code that does not compile).
MUTATION_FLAGS := --tags mutation --workers $(MUTATION_WORKERS) --timeout-coefficient 10 \
	--invert-logical --invert-loopctrl --invert-assignments --remove-self-assignments \
	--exclude-files '^internal/'
mutation:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)
	@mkdir -p reports/mutation
	real=$$(command -v $(GO)) && \
	PATH="$(CURDIR)/internal/mutationreport/bin:$$PATH" ACK_REAL_GO="$$real" GOFLAGS=-vet=off \
		bin/gremlins unleash $(MUTATION_FLAGS) -o reports/mutation/gremlins.json ./reference
	$(GO) run ./internal/mutationreport -results reports/mutation/gremlins.json -dir reference \
		-equivalent reference/mutation-equivalent.yaml -out docs/mutation.md

# Every go test run has an explicit bound: a test that hangs fails the run
# with its goroutines' stacks instead of holding it (go test's own default,
# 10 minutes, is shorter than a loaded 2-core machine needs for some runs).
TEST_TIMEOUT ?= 15m
# The mutation tests run the suite once per mutant (TestMutantsAreCaught
# and TestMutantsAreCaughtOverHTTP: the scenarios of its checks;
# TestMutantCollateral: all of it). Each mutant is a program of its own,
# built once per test process (go build -overlay; the build cache keeps
# every package it does not change), at most one build per processor at
# once. They run after the rest, the test process with the race detector
# (the mutant programs without), SWEEP_PARALLEL mutants at once: a suite
# run mostly waits (slow tools hold each run 25 ms), so more runs than
# processors fit.
SWEEPS := ^TestMutant
SWEEP_PARALLEL ?= 8

## test: formatting, vet, and every test with the race detector (the mutation
## sweeps last); skipped tests are listed at the end with their reasons (the
## driver kit's node tests and the skeleton adapter's run need Node 20 or newer
## on PATH: without it they skip, with ACK_REQUIRE_NODE=1 they fail)
test: fmt-check vet race

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	@status=$$(mktemp); \
	{ echo "== every test, with the race detector (the mutation sweeps after)"; \
	  $(GO) test -json -race -count=1 -timeout $(TEST_TIMEOUT) -skip '$(SWEEPS)' $(PKGS); echo $$? >> $$status; \
	  echo "== the mutation sweeps (runner), with the race detector, $(SWEEP_PARALLEL) mutants at once"; \
	  $(GO) test -json -race -count=1 -timeout $(TEST_TIMEOUT) -parallel $(SWEEP_PARALLEL) -run '$(SWEEPS)' ./runner; echo $$? >> $$status; } \
	| $(GO) run ./internal/testsummary; summary=$$?; \
	failed=$$(grep -cv '^0$$' $$status); rm -f $$status; \
	[ "$$summary" = 0 ] && [ "$$failed" = 0 ]

## build: the conformance binary in bin/
build:
	$(GO) build -o bin/conformance ./cmd/conformance

## bench: every benchmark, then each figure with its ratio to its baseline
## measured in the same run (a baseline=... sibling, or the smallest size of
## a series); BENCHFLAGS adds go test flags (-count 3: medians of 3 runs)
BENCHFLAGS ?=
bench:
	@status=$$(mktemp); \
	{ $(GO) test -run '^$$' -bench . -benchmem -timeout 60m $(BENCHFLAGS) $(PKGS); echo $$? > $$status; } \
	| $(GO) run ./internal/benchratio; code=$$(cat $$status); rm -f $$status; [ "$$code" = 0 ]

## bench-peers: the simulator beside @ai-sdk/test-server, @dwmkerr/mock-llm and
## a bare net/http handler, called with fetch from Node (needs Node 20 and npm,
## the packages pinned in bench/peers; not part of make test)
PEER_CALLS ?= 3000
bench-peers:
	npm ci --prefix bench/peers --no-audit --no-fund
	$(GO) build -o bin/benchserve ./internal/benchserve
	node bench/peers/bench.mjs bin/benchserve net-http,simulator,mock-llm,test-server $(PEER_CALLS) 3

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

#
# Every target runs even when one fails; the sweep fails at its end, naming
# each target that found an input (written to testdata/fuzz/ by go test). A
# "failure" that wrote no input is the toolchain's known flake
# (golang/go#75804: the fuzzing engine's worker dies without an input):
# reported as such, and it does not fail the sweep.
# fuzz-nightly: the same sweep, FUZZTIME 5m each (about 2 hours), for a
# scheduled CI job: long enough to find what 20s does not.
fuzz:
	@failed=""; flaked=""; log=$$(mktemp); \
	for t in $(FUZZ_TARGETS); do \
		pkg=./$${t%%:*}; name=$${t##*:}; echo "fuzz $$pkg $$name"; \
		if $(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 50x -parallel 2 -timeout 30m >$$log 2>&1; then \
			tail -n 1 $$log; \
		elif grep -q 'Failing input written to' $$log; then \
			cat $$log; failed="$$failed $$t"; \
		else \
			cat $$log; flaked="$$flaked $$t"; \
			echo "fuzz $$pkg $$name: a failure with no input written: the toolchain's known flake (golang/go#75804), not a finding; the sweep goes on"; \
		fi; \
	done; rm -f $$log; \
	[ -z "$$flaked" ] || echo "fuzz: the known toolchain flake (no input) in:$$flaked"; \
	[ -z "$$failed" ] || { echo "fuzz: inputs found (in each package's testdata/fuzz/) by:$$failed"; exit 1; }

fuzz-nightly:
	$(MAKE) fuzz FUZZTIME=5m

## report-render: write a report of the reference and render report.html with
## headless Chromium (Debian: apt-get install chromium) to report.png
report-render:
	ACK_REQUIRE_CHROMIUM=1 $(GO) test -count=1 -timeout 5m -run 'TestHTML' ./report
	$(GO) run ./report/internal/render

## certify: certify the real SDKs (needs Node 20 and npm; each adapter brings
## Node 22 where its SDK needs it): for each certification of
## adapters/certify.yaml, install the SDK version from its lockfile, start its
## adapter, run the whole suite with the certification's baseline, and publish
## reports/certified/<sdk>@<version>[-<path>]/ and the table reports/README.md.
## CERTIFY picks some: make certify CERTIFY="tanstack effect@4.1.0-wire"
CERTIFY ?=
certify:
	$(GO) run ./internal/certify $(CERTIFY)

## certify-check: what CI runs after make test: the certifications marked
## ci: true, each held to its baseline and to the verdicts of its committed
## report; publishes nothing, and fails loudly when a version cannot be installed
certify-check:
	$(GO) run ./internal/certify --check --ci $(CERTIFY)

## certify-line: certify a release line of an adapter's SDK (adapters/lines.yaml
## says where it is published): every installable release (VERSIONS=all), a
## sample (VERSIONS=sample: the first and last, the certified ones, each whose
## changelog touches approval), a range (A..B) or a list (V1,V2); each from a
## lockfile of its own, each finding's first and last release found by
## bisection. Writes reports/lines/<adapter>-<line>[-<path>]/LINE.md and
## line.json; FINDINGS=FILE writes the section into a FINDINGS.md.
##   make certify-line ADAPTER=vercel-ai VERSIONS=sample [CERT_PATH=wire] [TAGS=EXPR] [BISECT=false]
ADAPTER ?=
VERSIONS ?=
CERT_PATH ?=
TAGS ?=
BISECT ?= true
FINDINGS ?=
certify-line:
	$(GO) run ./internal/certify line --bisect=$(BISECT) $(if $(CERT_PATH),--path $(CERT_PATH)) $(if $(TAGS),--tags '$(TAGS)') $(if $(FINDINGS),--findings $(FINDINGS)) $(ADAPTER) $(VERSIONS)

## certify-watch: the releases newer than the certified ones, from the npm
## registry and the Go module proxy, each certified on every path of its
## line and published with what moved since the release before (WATCH.md);
## the new certifications join adapters/certify.yaml (docs/ci.md runs it on
## a schedule and opens a pull request).  make certify-watch ADAPTER=effect
WATCH_SUMMARY ?=
certify-watch:
	$(GO) run ./internal/certify watch $(if $(WATCH_SUMMARY),--summary $(WATCH_SUMMARY)) $(ADAPTER)

## provider-texts: the providers' error texts the simulator answers, each with
## the date of the newest public record it was read from; those older than
## MAX_AGE (180d) are marked (they cannot be refreshed from here)
MAX_AGE ?= 180d
provider-texts: build
	bin/conformance sim texts --max-age $(MAX_AGE)

## dashboard: reports/dashboard.html, every certification by check on one
## self-contained page, and its test in headless Chromium
dashboard:
	$(GO) run ./cmd/conformance report dashboard --out reports/dashboard.html reports/certified
	ACK_REQUIRE_CHROMIUM=1 $(GO) test -count=1 -timeout 5m -run 'TestDashboard' ./report/dashboard

## docs: regenerate the generated docs (the check catalogue)
docs: build
	bin/conformance checks --format md > docs/checks.md
	bin/conformance mutants --format md > docs/mutants.md

clean:
	rm -rf bin
