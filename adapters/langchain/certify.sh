#!/usr/bin/env bash
# Certifies one published version of LangChain.js (langchain) in one command:
#   ./certify.sh 1.5.14 [adapter flags ...] [-- conformance run flags ...]
# e.g. ./certify.sh 1.5.14 --model-api canonical -- --report reports --format all
# It installs the version, starts the adapter on a free loopback port, runs
# the whole suite against it (bin/conformance run --target URL, built from
# this repository), stops the adapter and exits with the suite's exit code:
# 0 pass, 1 a conformance failure, 2 a usage or harness error, 130
# interrupted. Paths after -- are relative to where it is called from; the
# install's and the adapter's output go to a log file it names
# (CERTIFY_VERBOSE=1 shows them). The steps are in ../certify-lib.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
certify_name="certify.sh" certify_sdk="langchain" certify_example="1.5.14"
# shellcheck source=../certify-lib.sh
source "$here/../certify-lib.sh"

certify_install() { "$here/install.sh" "$1"; }
certify_adapter() {
	local sdk="$here/versions/$1"
	shift
	exec "$sdk/node_modules/.bin/node" "$here/adapter.mjs" --sdk "$sdk" "$@"
}
certify_main "$@"
