#!/usr/bin/env bash
# The TanStack AI adapter's commands. A line is a folder versions/ai-client-<V>
# holding package.json and package-lock.json with exact versions.
#
#   ./tanstack.sh install <V> [ai-openai-version]  npm ci the line (create it first if new)
#   ./tanstack.sh serve <V>                       run the adapter; URL on line 1
#   ./tanstack.sh run <V> [conformance run flags] install, serve, run the suite, stop
#
# <V> is an @tanstack/ai-client version (0.33.2, 0.22.1, 0.4.5). A new
# version gets a new folder: npm resolves the @tanstack/ai it depends on and
# both are pinned; the agent role needs an @tanstack/ai-openai whose peer
# range matches that @tanstack/ai, given as the second argument.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

usage() {
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

install_line() {
	local v="$1" openai="${2:-}" dir="$here/versions/ai-client-$1"
	if [[ ! -f "$dir/package-lock.json" ]]; then
		mkdir -p "$dir"
		printf '{\n  "name": "ack-tanstack-ai-client-%s",\n  "private": true,\n  "description": "One TanStack AI release line for the ack adapter (adapters/tanstack)."\n}\n' "$v" >"$dir/package.json"
		(cd "$dir" && npm install --save-exact --no-audit --no-fund "@tanstack/ai-client@$v")
		local ai
		ai="$(node -p "require('$dir/node_modules/@tanstack/ai/package.json').version")"
		(cd "$dir" && npm install --save-exact --no-audit --no-fund "@tanstack/ai@$ai" ${openai:+"@tanstack/ai-openai@$openai"})
		echo "created versions/ai-client-$v (@tanstack/ai $ai${openai:+, @tanstack/ai-openai $openai}); commit its package.json and package-lock.json" >&2
	fi
	(cd "$dir" && npm ci --no-audit --no-fund >&2)
}

case "${1:-}" in
install)
	[[ $# -ge 2 ]] || usage
	install_line "$2" "${3:-}"
	;;
serve)
	[[ $# -eq 2 ]] || usage
	exec node "$here/server.mjs" "$here/versions/ai-client-$2"
	;;
run)
	[[ $# -ge 2 ]] || usage
	v="$2"
	shift 2
	install_line "$v"
	out="$(mktemp -d)"
	mkfifo "$out/url"
	node "$here/server.mjs" "$here/versions/ai-client-$v" >"$out/url" 2>"$out/stderr" &
	pid=$!
	trap 'kill "$pid" 2>/dev/null || true; rm -rf "$out"' EXIT
	# The adapter prints its URL on the first line once it listens.
	url=""
	exec 3<"$out/url"
	read -r -t 60 url <&3 || true
	if [[ -z "$url" ]]; then
		cat "$out/stderr" >&2
		exit 2
	fi
	# A built binary keeps the exit codes (go run turns each into 1); paths
	# among the flags stay relative to where this is called from.
	(cd "$root" && go build -o bin/conformance ./cmd/conformance) || exit 2
	"$root/bin/conformance" run --target "$url" "$@"
	;;
*)
	usage
	;;
esac
