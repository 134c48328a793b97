#!/usr/bin/env bash
# The certify.sh of a Go adapter (adapters/adk-go, adapters/genkit-go):
#   go-certify.sh ADAPTER_DIR SDK_MODULE VERSION [adapter flags] [-- conformance run flags]
# runs the adapter module's TestConformance (package acktest) with the
# conformance run flags as its environment: --report DIR (ACK_REPORT_DIR),
# --format LIST (ACK_FORMATS; pretty is the test's own log),
# --expected-failures FILE (ACK_EXPECTED_FAILURES), --tags EXPR (ACK_TAGS),
# --scenarios DIR (ACK_SCENARIOS: one more directory of scenarios);
# the adapter flag --model-api API becomes ACK_MODEL_API (wire, canonical).
set -euo pipefail
usage() {
	echo "usage: certify.sh VERSION [--model-api wire|canonical] [-- conformance run flags ...]"
	echo "Exit codes: 0 pass, 1 a conformance failure, 2 a usage or harness error."
}
dir="$1"; module="$2"; shift 2
case "${1:-}" in
	-h|--help) usage; exit 0 ;;
	""|-*) echo "certify.sh: want a VERSION first" >&2; usage >&2; exit 2 ;;
esac
version="$1"
shift
model_api=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --model-api) model_api="$2"; shift 2 ;;
    *) echo "certify.sh: unknown adapter flag $1 (a Go adapter takes --model-api only)" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = "--" ] && shift
report="" formats="" baseline="" tags="" scenarios=""
while [ $# -gt 0 ]; do
  case "$1" in
    --report) report="$2"; shift 2 ;;
    --format) formats="$2"; shift 2 ;;
    --expected-failures) baseline="$2"; shift 2 ;;
    --tags) tags="$2"; shift 2 ;;
    --scenarios) scenarios="$2"; shift 2 ;;
    --progress) shift 2 ;;
    *) echo "certify.sh: conformance flag $1 has no acktest option" >&2; exit 2 ;;
  esac
done
pinned="$(cd "$dir" && go list -m -f '{{.Version}}' "$module")"
if [ "$pinned" != "$version" ]; then
  echo "certify.sh: $module $version is not the version $dir/go.mod pins ($pinned)" >&2
  exit 2
fi
cd "$dir"
set +e
ACK_MODEL_API="$model_api" ACK_REPORT_DIR="$report" ACK_FORMATS="${formats#pretty,}" ACK_EXPECTED_FAILURES="$baseline" ACK_TAGS="$tags" ACK_SCENARIOS="$scenarios" \
  GOFLAGS=-mod=mod go test -count=1 -timeout 15m -run '^TestConformance$' -v . | grep -v -E '^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|SKIP))'
code=${PIPESTATUS[0]}
set -e
if [ "$code" -ne 0 ] && [ -n "$report" ] && ! ls "$report"/*/*/report.json >/dev/null 2>&1; then
  exit 2
fi
[ "$code" -eq 0 ] || exit 1
