#!/usr/bin/env bash
# Installs one published version of Genkit JS for the adapter:
#   ./install.sh 1.42.0
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it (npm ci). Any other published version gets
# its own folder: genkit at that version with @genkit-ai/middleware,
# @genkit-ai/compat-oai and @genkit-ai/anthropic (the latest published that
# take it), and Node 22 (the npm package node@22), pinned to
# exact versions in a new lockfile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh GENKIT_VERSION (e.g. 1.42.0)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 1.42.0)" >&2; exit 2 ;;
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
  "name": "ack-adapter-genkit-$version",
  "private": true,
  "description": "Genkit JS at genkit@$version with @genkit-ai/middleware, for adapters/genkit (installed by install.sh).",
  "type": "module"
}
JSON
npm install --prefix "$dir" --save-exact --no-audit --no-fund "genkit@$version" @genkit-ai/middleware @genkit-ai/compat-oai @genkit-ai/anthropic "node@^22" >&2
