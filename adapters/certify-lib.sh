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
#   - the conformance flags are checked first (conformance run --dry-run:
#     the flags, the tags, --scenarios, the baseline's file and entries),
#     so that a mistake in them is found before the install and the start.
#   - an install that is current is not done again: an adapter whose
#     versions/VERSION holds a lockfile (the Node adapters) records, in
#     its node_modules, a digest of what the install depends on (the
#     lockfile, package.json, install.sh, src/); a later call with the same
#     digest skips certify_install (CERTIFY_REINSTALL=1 forces it).
#   - the adapter's output after its URL is drained into the log as it
#     comes, so that a full pipe never blocks it.

ack_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The folder of the certify.sh that sources this file.
certify_dir="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"

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

# certify_stamp VERSION prints the digest of what installing VERSION
# depends on, or nothing when the adapter keeps no lockfile for it there.
certify_stamp() {
	local dir="$certify_dir/versions/$1"
	[ -f "$dir/package-lock.json" ] || return 0
	local sum=sha256sum
	command -v sha256sum >/dev/null 2>&1 || sum="shasum -a 256"
	{
		cat "$dir/package-lock.json" "$dir/package.json" "$certify_dir/install.sh" 2>/dev/null
		if [ -d "$certify_dir/src" ]; then
			find "$certify_dir/src" -type f | LC_ALL=C sort | while read -r f; do
				printf '%s\n' "${f#"$certify_dir"/}"
				cat "$f"
			done
		fi
	} | $sum | cut -d' ' -f1
}

# certify_stamp_file VERSION is where a done install records its stamp.
certify_stamp_file() { echo "$certify_dir/versions/$1/node_modules/.ack-install-stamp"; }

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

	# The conformance flags, checked before anything is installed or
	# started: a bad --expected-failures path, a misspelled baseline entry,
	# tags that select nothing.
	local code=0
	"$conformance" run --dry-run "$@" >/dev/null || code=$?
	if [ "$code" != 0 ]; then
		echo "$certify_name: the conformance flags after -- do not hold (exit $code); nothing was installed or started" >&2
		exit "$code"
	fi

	local stamp
	stamp="$(certify_stamp "$version")"
	if [ -n "$stamp" ] && [ "${CERTIFY_REINSTALL:-}" != 1 ] && [ "$(cat "$(certify_stamp_file "$version")" 2>/dev/null)" = "$stamp" ]; then
		echo "$certify_name: $certify_sdk $version is installed and current (CERTIFY_REINSTALL=1 installs it again)" >>"$certify_log"
	else
		certify_log_to certify_install "$version" || code=$?
		if [ "$code" != 0 ]; then
			echo "$certify_name: installing $certify_sdk $version failed (exit $code); the last lines of $certify_log:" >&2
			tail -n 20 "$certify_log" >&2
			exit 2
		fi
		stamp="$(certify_stamp "$version")"
		if [ -n "$stamp" ] && [ -d "$certify_dir/versions/$version/node_modules" ]; then
			printf '%s\n' "$stamp" >"$(certify_stamp_file "$version")" || true
		fi
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
	# The coprocess's descriptor is the shell's alone (bash closes it in
	# every subshell): a copy of it is one the drain below can read.
	local adapter_out
	exec {adapter_out}<&"${ADAPTER[0]}"
	# The adapter prints its URL on its first line; read blocks until it
	# does (or until the adapter exits, which leaves the URL empty).
	local url=""
	read -r url <&"$adapter_out" || true
	if [ -z "$url" ]; then
		echo "$certify_name: the adapter exited before printing its URL; the last lines of $certify_log:" >&2
		tail -n 20 "$certify_log" >&2
		exit 2
	fi
	# Whatever else the adapter prints goes to the log, so that a full
	# pipe never blocks it.
	cat <&"$adapter_out" >>"$certify_log" &
	local drain=$!
	# At the end the adapter is stopped, and the drain ends with its
	# output: the log holds all of it.
	trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; wait "$drain" 2>/dev/null || true' EXIT

	set +e
	"$conformance" run --target "$url" "$@"
	code=$?
	set -e
	[ "${CERTIFY_VERBOSE:-}" = 1 ] || echo "$certify_name: the install's and the adapter's output are in $certify_log" >&2
	exit "$code"
}
