#!/usr/bin/env bash
# Certifies one published version of Genkit JS (genkit) in one command:
#   ./certify.sh 1.42.0 [adapter flags ...] [-- conformance run flags ...]
# e.g. ./certify.sh 1.42.0 --model-api canonical -- --report reports --format all
# It installs the version (install.sh), starts the adapter on a free
# loopback port, runs the whole suite against it (go run ./cmd/conformance
# run --target URL), stops the adapter and exits with the suite's exit code.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${1:?usage: certify.sh GENKIT_VERSION [adapter flags] [-- conformance flags]}"
shift
adapter_flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do adapter_flags+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
"$here/install.sh" "$version"
sdk="$here/versions/$version"
coproc ADAPTER { exec "$sdk/node_modules/.bin/node" "$here/adapter.mjs" --sdk "$sdk" "${adapter_flags[@]}"; }
pid=$ADAPTER_PID
trap 'kill "$pid" 2>/dev/null' EXIT
# The adapter prints its URL on its first line; read blocks until it does
# (or until the adapter exits, which leaves the URL empty).
url=""
read -r url <&"${ADAPTER[0]}" || true
[ -n "$url" ] || { echo "certify.sh: the adapter exited before printing its URL" >&2; exit 2; }
cd "$root"
set +e
go run ./cmd/conformance run --target "$url" "$@"
code=$?
set -e
exit "$code"
