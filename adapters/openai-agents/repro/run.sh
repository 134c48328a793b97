#!/usr/bin/env bash
# Runs a reproduction script against one installed version of the SDK,
# with nothing of the kit: ./repro/run.sh 0.20.0 SCRIPT.mjs
# Each script prints what the SDK did and exits 1 when the defect shows,
# 0 when the SDK behaves as the check requires; this script exits 2 on a
# usage error (a missing argument, a script that is not there).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
usage() { echo "usage: repro/run.sh VERSION SCRIPT.mjs" >&2; echo "exit 1: the defect shows; 0: the SDK behaves as the check requires; 2: a usage error" >&2; exit 2; }
[ $# -eq 2 ] || usage
version="$1"
# The script by its name, or by its path as FINDINGS.md writes it
# (repro/X.mjs, adapters/<sdk>/repro/X.mjs).
script="$(basename -- "$2")"
if [ ! -f "$here/$script" ]; then
  echo "repro/run.sh: no reproduction $script in $here (its scripts: $(cd "$here" && ls -- *.mjs | grep -v '^lib' | tr '\n' ' '))" >&2
  exit 2
fi
sdk="$here/../versions/$version"
[ -d "$sdk/node_modules/@openai/agents" ] || "$here/../install.sh" "$version" >&2
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
ln -s "$sdk/node_modules" "$dir/node_modules"
# The script imports the SDK through the version's sdk.mjs (re-exports of
# the SDK's own modules), and its helpers from lib.mjs.
cp "$here/$script" "$sdk/sdk.mjs" "$dir/"
[ -f "$here/lib.mjs" ] && cp "$here/lib.mjs" "$dir/"
printf '{"type":"module"}\n' > "$dir/package.json"
"$sdk/node_modules/.bin/node" "$dir/$script"
