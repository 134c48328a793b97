#!/usr/bin/env bash
# Runs a reproduction script against one installed version of the SDK,
# with nothing of the kit: ./repro/run.sh 7.0.173 pre-03-result-in-earlier-message.mjs
# Each script prints what the SDK did and exits 1 when the defect shows,
# 0 when the SDK behaves as the check requires.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: repro/run.sh AI_VERSION SCRIPT.mjs}"
script="${2:?usage: repro/run.sh AI_VERSION SCRIPT.mjs}"
sdk="$here/../versions/$version"
[ -d "$sdk/node_modules/ai" ] || "$here/../install.sh" "$version" >&2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
ln -s "$sdk/node_modules" "$dir/node_modules"
cp "$here/$script" "$here"/lib-*.mjs "$dir/"
printf '{"type":"module"}\n' > "$dir/package.json"
"$sdk/node_modules/.bin/node" "$dir/$script"
