#!/usr/bin/env bash
# Installs one published version of the OpenAI Agents SDK for the adapter:
#   ./install.sh 0.20.0
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it (npm ci). Any other published version gets
# its own folder: @openai/agents at that version (with the openai client it
# depends on), zod 4 and Node 22 (the npm package node@22; openai 7 needs
# Node 22), pinned to exact versions in a new lockfile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh AGENTS_VERSION (e.g. 0.20.0)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 0.20.0)" >&2; exit 2 ;;
esac
dir="$here/versions/$version"
mkdir -p "$dir"
cp "$here/src/sdk.mjs" "$dir/sdk.mjs"
if [ -f "$dir/package-lock.json" ]; then
  npm ci --prefix "$dir" --no-audit --no-fund >&2
  exit 0
fi
cat > "$dir/package.json" <<JSON
{
  "name": "ack-adapter-openai-agents-$version",
  "private": true,
  "description": "The OpenAI Agents SDK at @openai/agents@$version, for adapters/openai-agents (installed by install.sh).",
  "type": "module"
}
JSON
npm install --prefix "$dir" --save-exact --no-audit --no-fund "@openai/agents@$version" "zod@^4" "node@^22" >&2
