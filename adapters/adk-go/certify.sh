#!/usr/bin/env bash
# Certifies ADK Go in one command, in go test (no server, no Node):
#   ./certify.sh VERSION [-- conformance run flags ...]
# e.g. ./certify.sh v2.2.0 -- --report reports --format json,md
# VERSION must be the version go.mod pins (the module proxy's version
# lists of ADK are stale: versions are named exactly, never @latest; to
# certify another, change the require line and run go mod tidy). The
# conformance flags the certification runner passes (--report, --format,
# --expected-failures, --tags) become acktest's options; the test's exit
# code is the suite's: 0, 1 on a failure the baseline does not list or a
# stale entry, 2 when no report could be written.
exec "$(cd "$(dirname "$0")/.." && pwd)/go-certify.sh" "$(cd "$(dirname "$0")" && pwd)" google.golang.org/adk/v2 "$@"
