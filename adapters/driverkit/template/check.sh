#!/usr/bin/env bash
# Starts the adapter, runs the conformance suite against it, stops the
# adapter, and exits with the suite's code (0 pass, 1 a conformance
# failure, 2 a usage or harness error):
#
#   ./check.sh [conformance run flags ...]     e.g. ./check.sh --tags @PRE-01
#
# CONFORMANCE names the conformance binary (default: conformance on PATH).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
conformance="${CONFORMANCE:-conformance}"
command -v "$conformance" >/dev/null || { echo "check.sh: no $conformance on PATH (set CONFORMANCE=path/to/conformance)" >&2; exit 2; }
dir="$(mktemp -d)"
mkfifo "$dir/out"
node "$here/adapter.mjs" >"$dir/out" 2>"$dir/adapter.log" &
adapter=$!
trap 'kill "$adapter" 2>/dev/null || true; rm -rf "$dir"' EXIT
exec 3<"$dir/out"
url=""
read -r url <&3 || true
if [ -z "$url" ]; then
	echo "check.sh: the adapter exited before printing its URL:" >&2
	cat "$dir/adapter.log" >&2
	exit 2
fi
# The adapter's later output is drained, so a full pipe never blocks it.
cat <&3 >/dev/null &
set +e
"$conformance" run --target "$url" "$@"
code=$?
set -e
exit "$code"
