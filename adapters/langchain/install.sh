#!/usr/bin/env bash
# Installs one published version of LangChain.js for the adapter:
#   ./install.sh 1.5.14
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it (npm ci). Any other published version gets
# its own folder: langchain at that version with the @langchain/core,
# @langchain/langgraph, @langchain/openai and @langchain/anthropic its
# lockfile resolves, zod 4 and Node 22 (the npm package node@22), pinned to
# exact versions in a new lockfile.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh LANGCHAIN_VERSION (e.g. 1.5.14)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 1.5.14)" >&2; exit 2 ;;
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
  "name": "ack-adapter-langchain-$version",
  "private": true,
  "description": "LangChain.js at langchain@$version, for adapters/langchain (installed by install.sh).",
  "type": "module"
}
JSON
npm install --prefix "$dir" --save-exact --no-audit --no-fund "langchain@$version" @langchain/core @langchain/langgraph @langchain/openai @langchain/anthropic "zod@^4" "node@^22" >&2
