#!/usr/bin/env bash
# Runs a reproduction script against one installed version of the SDK,
# with nothing of the kit: ./repro/run.sh 1.71.0 SCRIPT.mjs
# Each script prints what the SDK did and exits 1 when the defect shows,
# 0 when the SDK behaves as the check requires.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: repro/run.sh VERSION SCRIPT.mjs}"
script="${2:?usage: repro/run.sh VERSION SCRIPT.mjs}"
sdk="$here/../versions/$version"
[ -d "$sdk/node_modules/@mastra/core" ] || "$here/../install.sh" "$version" >&2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
ln -s "$sdk/node_modules" "$dir/node_modules"
# The script imports the SDK through the version's sdk.mjs (re-exports of
# the SDK's own modules), and its helpers from lib.mjs.
cp "$here/$script" "$sdk/sdk.mjs" "$dir/"
[ -f "$here/lib.mjs" ] && cp "$here/lib.mjs" "$dir/"
printf '{"type":"module"}\n' > "$dir/package.json"
"$sdk/node_modules/.bin/node" "$dir/$script"
