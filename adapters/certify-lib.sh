# Sourced by every adapters/<sdk>/certify.sh: one version of one SDK
# certified in one command,
#
#   certify.sh VERSION [adapter flags ...] [-- conformance run flags ...]
#
# The script defines two functions and calls certify_main "$@":
#   certify_install VERSION    installs the version (its lockfile);
#   certify_adapter VERSION FLAGS...
#                              execs the adapter, which prints its URL on
#                              its first line.
#
# What certify_main does, so that a CI script can trust it:
#   - exit codes are the conformance binary's own: 0 pass (the baseline
#     held), 1 a conformance failure, 2 a usage or harness error (a bad
#     argument of this script, an install that failed, an adapter that
#     exited before printing its URL), 130/143 interrupted. The suite runs
#     from a binary built from this repository (bin/conformance; CONFORMANCE
#     names another), never through `go run`, which turns every code into 1.
#   - paths among the conformance flags (--report, --expected-failures,
#     --scenarios) are relative to the folder certify.sh is called from.
#   - the install's and the adapter's output (npm, the SDK's warnings) go
#     to a log file, named on stderr before and after the run
#     (CERTIFY_LOG sets it; CERTIFY_VERBOSE=1 shows all of it instead).

ack_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

certify_usage() {
	echo "usage: $certify_name VERSION [adapter flags ...] [-- conformance run flags ...]"
	echo "  e.g. $certify_name $certify_example -- --report reports --format all"
	echo "Exit codes: 0 pass, 1 a conformance failure, 2 a usage or harness error, 130 interrupted."
	echo "The install's and the adapter's output go to a log file named on stderr (CERTIFY_LOG=FILE sets it, CERTIFY_VERBOSE=1 shows it)."
}

# certify_log_to runs a command with its output in the log (or on stderr
# when CERTIFY_VERBOSE=1).
certify_log_to() {
	if [ "${CERTIFY_VERBOSE:-}" = 1 ]; then
		"$@" >&2
	else
		"$@" >>"$certify_log" 2>&1
	fi
}

certify_main() {
	case "${1:-}" in
	-h | --help)
		certify_usage
		exit 0
		;;
	"" | -*)
		echo "$certify_name: want a VERSION first" >&2
		certify_usage >&2
		exit 2
		;;
	esac
	local version="$1"
	shift
	local adapter_flags=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		adapter_flags+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift

	certify_log="${CERTIFY_LOG:-}"
	if [ -z "$certify_log" ]; then
		certify_log="$(mktemp "${TMPDIR:-/tmp}/certify-$certify_sdk-$version.XXXXXX.log")" || exit 2
	fi
	: >>"$certify_log" || { echo "$certify_name: cannot write the log $certify_log" >&2; exit 2; }
	[ "${CERTIFY_VERBOSE:-}" = 1 ] || echo "$certify_name: the install's and the adapter's output go to $certify_log" >&2

	local conformance="${CONFORMANCE:-}"
	if [ -z "$conformance" ]; then
		conformance="$ack_root/bin/conformance"
		(cd "$ack_root" && go build -o "$conformance" ./cmd/conformance) || {
			echo "$certify_name: building the conformance binary failed" >&2
			exit 2
		}
	fi

	local code=0
	certify_log_to certify_install "$version" || code=$?
	if [ "$code" != 0 ]; then
		echo "$certify_name: installing $certify_sdk $version failed (exit $code); the last lines of $certify_log:" >&2
		tail -n 20 "$certify_log" >&2
		exit 2
	fi

	if [ "${CERTIFY_VERBOSE:-}" = 1 ]; then
		coproc ADAPTER { certify_adapter "$version" "${adapter_flags[@]}"; }
	else
		coproc ADAPTER { certify_adapter "$version" "${adapter_flags[@]}" 2>>"$certify_log"; }
	fi
	local pid=$ADAPTER_PID
	# (|| true: under set -e a failed kill of an adapter already gone
	# would turn the exit code into 1)
	trap 'kill "$pid" 2>/dev/null || true' EXIT
	# The adapter prints its URL on its first line; read blocks until it
	# does (or until the adapter exits, which leaves the URL empty).
	local url=""
	read -r url <&"${ADAPTER[0]}" || true
	if [ -z "$url" ]; then
		echo "$certify_name: the adapter exited before printing its URL; the last lines of $certify_log:" >&2
		tail -n 20 "$certify_log" >&2
		exit 2
	fi
	# Whatever else the adapter prints goes to the log, so that a full
	# pipe never blocks it.
	cat <&"${ADAPTER[0]}" >>"$certify_log" 2>/dev/null &

	set +e
	"$conformance" run --target "$url" "$@"
	code=$?
	set -e
	[ "${CERTIFY_VERBOSE:-}" = 1 ] || echo "$certify_name: the install's and the adapter's output are in $certify_log" >&2
	exit "$code"
}
