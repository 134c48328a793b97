#!/usr/bin/env bash
# Installs one published version of the Vercel AI SDK for the adapter:
#   ./install.sh 7.0.173
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it (npm ci). Any other published 6.x or 7.x
# version gets its own folder: ai at that version, the latest
# @ai-sdk/openai and @ai-sdk/anthropic of the matching major line (ai 7:
# 4.x, ai 6: 3.x), zod 4 and Node 22 (the npm package node@22), pinned to
# exact versions in a new lockfile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh AI_VERSION (e.g. 7.0.173)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 7.0.173)" >&2; exit 2 ;;
esac
case "$version" in
  6.*|7.*) ;;
  *) echo "install.sh: ai $version: only the 6.x and 7.x lines have tool approval" >&2; exit 2 ;;
esac
dir="$here/versions/$version"
mkdir -p "$dir"
cp "$here/src/sdk.mjs" "$dir/sdk.mjs"
if [ -f "$dir/package-lock.json" ]; then
  npm ci --prefix "$dir" --no-audit --no-fund
  exit 0
fi
provider=$(( ${version%%.*} - 3 ))
cat > "$dir/package.json" <<JSON
{
  "name": "ack-adapter-vercel-ai-$version",
  "private": true,
  "description": "The Vercel AI SDK at ai@$version, for adapters/vercel-ai (installed by install.sh).",
  "type": "module"
}
JSON
npm install --prefix "$dir" --save-exact --no-audit --no-fund \
  "ai@$version" "@ai-sdk/openai@^$provider" "@ai-sdk/anthropic@^$provider" "zod@^4" "node@^22"
