#!/usr/bin/env bash
# Installs one published version of Mastra (npm @mastra/core) for the adapter:
#   ./install.sh 1.71.0
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it (npm ci). Any other published version gets
# its own folder: @mastra/core at that version, the latest 2.x
# @ai-sdk/openai and @ai-sdk/anthropic (the AI SDK 5 providers, whose
# LanguageModelV2 models Mastra takes), zod 4 and Node 22 (the npm package
# node@22; Mastra needs Node >= 22.13), pinned to exact versions in a new
# lockfile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh MASTRA_VERSION (e.g. 1.71.0)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 1.71.0)" >&2; exit 2 ;;
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
  "name": "ack-adapter-mastra-$version",
  "private": true,
  "description": "Mastra at @mastra/core@$version, for adapters/mastra (installed by install.sh).",
  "type": "module"
}
JSON
npm install --prefix "$dir" --save-exact --no-audit --no-fund "@mastra/core@$version" "@ai-sdk/openai@^2" "@ai-sdk/anthropic@^2" "zod@^4" "node@^22" >&2
