#!/usr/bin/env bash
# Certifies one TanStack AI release line in one command, as every adapter's
# certify.sh does:
#   ./certify.sh 0.33.2 [adapter flags ...] [-- conformance run flags ...]
# e.g. ./certify.sh 0.33.2 --model-api canonical -- --report reports --format all
# VERSION is an @tanstack/ai-client version (its line's folder is
# versions/ai-client-VERSION). It installs the line (tanstack.sh install),
# starts the adapter (server.mjs) on a free loopback port, runs the whole
# suite against it (go run ./cmd/conformance run --target URL), stops the
# adapter and exits with the suite's exit code.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${1:?usage: certify.sh AI_CLIENT_VERSION [adapter flags] [-- conformance flags]}"
shift
adapter_flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do adapter_flags+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
"$here/tanstack.sh" install "$version" >&2
coproc ADAPTER { exec node "$here/server.mjs" "$here/versions/ai-client-$version" "${adapter_flags[@]}"; }
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
