#!/usr/bin/env bash
# Installs one published version of Effect (npm `effect`, 4.x) for the adapter:
#   ./install.sh 4.1.0
#   ./install.sh 4.0.0-beta.107
# A version with a committed lockfile (versions/<version>/package-lock.json)
# is installed exactly from it; any other gets its own folder with effect at
# that version and Node 22 (the npm package node@22), pinned to exact
# versions in a new lockfile. The betas are installed with `npm install`
# (which keeps the lockfile's versions): their lockfiles lack the entries
# of optional platform packages (msgpackr-extract) of other platforms, and
# `npm ci` refuses them for that.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${1:?usage: install.sh EFFECT_VERSION (e.g. 4.1.0)}"
case "$version" in
  [0-9]*) ;;
  *) echo "install.sh: \"$version\" is not a published version (e.g. 4.1.0)" >&2; exit 2 ;;
esac
case "$version" in
  4.*) ;;
  *) echo "install.sh: effect $version: only the 4.x line has tool approval in its AI modules" >&2; exit 2 ;;
esac
dir="$here/versions/$version"
mkdir -p "$dir"
if [ -f "$dir/package-lock.json" ]; then
  case "$version" in
    *-beta.*) npm install --prefix "$dir" --no-audit --no-fund --no-save >&2 ;;
    *) npm ci --prefix "$dir" --no-audit --no-fund >&2 ;;
  esac
else
  cat > "$dir/package.json" <<JSON
{
  "name": "ack-adapter-effect-$version",
  "private": true,
  "description": "Effect at effect@$version, for adapters/effect (installed by install.sh).",
  "type": "module"
}
JSON
  npm install --prefix "$dir" --save-exact --no-audit --no-fund "effect@$version" "node@^22" >&2
fi
# The AI modules are effect/ai from 4.0.0-rc, effect/unstable/ai before.
if node -e 'process.exit(require(process.argv[1]).exports["./ai"] ? 0 : 1)' "$dir/node_modules/effect/package.json"; then
  cp "$here/src/sdk-ai.mjs" "$dir/sdk.mjs"
else
  cp "$here/src/sdk-unstable-ai.mjs" "$dir/sdk.mjs"
fi
