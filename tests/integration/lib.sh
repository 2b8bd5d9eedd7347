# SPDX-License-Identifier: MIT
# tests/integration/lib.sh - helpers for the integration tests (bash + jq).
#
# Source it first thing.  It finds the build (top_builddir, top_srcdir, set
# by make check), makes a per-test temporary directory $T, and on exit kills
# every process group it started and removes $T.  Exit codes follow
# automake's default driver: 0 pass, 1 fail, 77 skip, 99 hard error.
#
# Nothing here sleeps and hopes: programs report readiness by appending a
# line to $RBT_READY ($T/ready), and wait_for polls a condition (every 0.1 s,
# bounded by WAIT_TIMEOUT seconds) and fails loudly with what it last saw.

set -u

TEST_NAME=$(basename "$0" .sh)
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}

: "${top_builddir:=$PWD}"
: "${top_srcdir:=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}}"

LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
RBMON=$top_builddir/rbmon
RBTRACE=$top_builddir/rbtrace
APPS=$top_builddir/tests/apps
APPS_SRC=$top_srcdir/tests/apps

STARTED=()		# pids of process groups started by launch

# A sanitized build (configure --enable-sanitizers): the library needs its
# runtime (SAN_RUNTIME, set by make check) first in LD_PRELOAD, and every
# report goes to $T/san/, which fails the test at exit (lib_cleanup).
RB_PRELOAD=${SAN_RUNTIME:+$SAN_RUNTIME:}$LIBRBTRACE

note() { printf '%s: %s\n' "$TEST_NAME" "$*" >&2; }

fail()
{
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	if [ -n "${T:-}" ] && [ -s "$T/json" ]; then
		echo "--- last rbmon JSON ($T/json):" >&2
		jq . "$T/json" >&2 2>/dev/null || cat "$T/json" >&2
	fi
	exit 1
}

skip() { printf '%s: SKIP: %s\n' "$TEST_NAME" "$*" >&2; exit 77; }

lib_cleanup()
{
	local pid
	for pid in "${STARTED[@]}"; do
		kill -KILL -- "-$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
	for pid in "${STARTED[@]}"; do
		wait "$pid" 2>/dev/null
	done
	san_check
	[ -n "${T:-}" ] && [ -d "$T" ] && rm -rf "$T"
	[ "$SAN_FOUND" -eq 0 ] || exit 1
}

# san_check - print every sanitizer report of this test's processes; sets
# SAN_FOUND to their count.  A log holding only LeakSanitizer's warning
# that a thread was not suspended is no report: the child of a fork() in
# a program with threads may inherit their entries in the runtime's
# registry, not the threads (GCC 12's libasan, in any program that does
# so); a leak found would be reported after it.
SAN_FOUND=0
san_check()
{
	local f

	[ -n "${T:-}" ] && [ -d "$T/san" ] || return 0
	for f in "$T"/san/*; do
		[ -s "$f" ] || continue
		grep -Evq '^==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.$' "$f" ||
			continue
		SAN_FOUND=$((SAN_FOUND + 1))
		printf '%s: FAIL: sanitizer report %s:\n' "$TEST_NAME" "${f##*/}" >&2
		cat "$f" >&2
	done
}

command -v jq >/dev/null || skip "jq is not installed"
[ -f "$LIBRBTRACE" ] || fail "library not built: $LIBRBTRACE"
[ -x "$RBMON" ] || fail "rbmon not built: $RBMON"

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-$TEST_NAME.XXXXXX") || exit 99
trap lib_cleanup EXIT
trap 'exit 1' INT TERM
export RBT_READY=$T/ready
if [ -n "${SANITIZERS:-}" ]; then
	mkdir "$T/san" || exit 99
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:log_path=$T/san/asan"
	export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$T/san/ubsan"
	export TSAN_OPTIONS="${TSAN_OPTIONS:-}:log_path=$T/san/tsan"
fi

# need_attach - skip unless rbtrace -p can attach here (x86_64, ptrace
# allowed for this user by Yama).
need_attach()
{
	local scope
	[ "$(uname -m)" = x86_64 ] || skip "rbtrace -p is x86_64 only"
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	[ "$scope" -ge 3 ] && skip "kernel.yama.ptrace_scope is 3: no process may be attached"
	[ "$scope" -ge 1 ] && [ "$(id -u)" -ne 0 ] &&
		skip "kernel.yama.ptrace_scope is $scope and not root: rbtrace -p cannot attach"
	return 0
}

# launch NAME CMD... - run CMD in the background in a process group of its
# own (so cleanup kills it and its children); stdout and stderr go to
# $T/NAME.out and $T/NAME.err.  Sets LAUNCHED to its pid.
launch()
{
	local name=$1
	shift
	setsid "$@" >"$T/$name.out" 2>"$T/$name.err" &
	LAUNCHED=$!
	STARTED+=("$LAUNCHED")
}

# traced NAME [VAR=VALUE...] PROGRAM [ARGS] - launch PROGRAM with the
# library preloaded and the given environment.
traced()
{
	local name=$1
	shift
	launch "$name" env LD_PRELOAD="$RB_PRELOAD" "$@"
}

# wait_for DESCRIPTION CMD... - poll CMD until it succeeds.
wait_for()
{
	local desc=$1 deadline
	shift
	deadline=$((SECONDS + WAIT_TIMEOUT))
	while :; do
		if "$@" >"$T/wait.last" 2>&1; then
			return 0
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- last output of: $*" >&2
			cat "$T/wait.last" >&2
			fail "timed out after ${WAIT_TIMEOUT}s waiting for $desc"
		fi
		sleep 0.1
	done
}

# ready LINE-REGEX - true when a program reported readiness matching it.
ready() { grep -Eq -- "^$1\$" "$RBT_READY" 2>/dev/null; }

# wait_ready LINE-REGEX [PID] - wait for the line; with PID, fail at once if
# that process died first.
wait_ready()
{
	local re=$1 pid=${2:-} deadline
	deadline=$((SECONDS + WAIT_TIMEOUT))
	until ready "$re"; do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			cat "$T"/*.err >&2 2>/dev/null
			fail "process $pid died before reporting '$re'"
		fi
		[ "$SECONDS" -ge "$deadline" ] &&
			fail "timed out after ${WAIT_TIMEOUT}s waiting for '$re' in $RBT_READY (has: $(tr '\n' '|' <"$RBT_READY" 2>/dev/null))"
		sleep 0.1
	done
}

# wait_threads PID NAME... - wait for the "main PID" line of process PID
# and the "thread NAME TID" line of each NAME.
wait_threads()
{
	local pid=$1 n
	shift
	wait_ready "main $pid" "$pid"
	for n; do
		wait_ready "thread $n [0-9]+" "$pid"
	done
}

# tid_of NAME - the tid a program reported with "thread NAME TID".
tid_of() { awk -v n="$1" '$1 == "thread" && $2 == n { print $3; exit }' "$RBT_READY"; }

# ready_field LINE-PREFIX N - field N (1-based) of the ready line starting
# with the prefix word.
ready_field() { awk -v w="$1" -v n="$2" '$1 == w { print $n; exit }' "$RBT_READY"; }

# dump_json FILE - rbmon --dump --json FILE into $T/json; fails unless rbmon
# exits 0 with one valid JSON object.
dump_json()
{
	local rc=0
	"$RBMON" --dump --json "$1" >"$T/json.new" 2>"$T/json.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "rbmon --dump --json $1 exited $rc: $(cat "$T/json.err")"
	jq -e 'type == "object"' "$T/json.new" >/dev/null 2>&1 ||
		{ mv "$T/json.new" "$T/json"; fail "rbmon output is not a JSON object"; }
	mv "$T/json.new" "$T/json"
}

# events_json FILE [TID] - rbmon --events --json [--thread TID] FILE into
# $T/json, as dump_json.
events_json()
{
	local rc=0
	"$RBMON" --events --json ${2:+--thread "$2"} "$1" >"$T/json.new" \
		2>"$T/json.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "rbmon --events --json $1 exited $rc: $(cat "$T/json.err")"
	jq -e 'type == "object"' "$T/json.new" >/dev/null 2>&1 ||
		{ mv "$T/json.new" "$T/json"; fail "rbmon --events output is not a JSON object"; }
	mv "$T/json.new" "$T/json"
}

# events_true FILE FILTER - rbmon --events --json, then jq -e FILTER.
events_true()
{
	"$RBMON" --events --json "$1" >"$T/json" 2>"$T/json.err" || return 1
	jq -e "$2" "$T/json" >/dev/null
}

# json_true FILE FILTER - one dump, then jq -e FILTER (for wait_for).
json_true()
{
	"$RBMON" --dump --json "$1" >"$T/json" 2>"$T/json.err" || return 1
	jq -e "$2" "$T/json" >/dev/null
}

# wait_json FILE FILTER DESCRIPTION - poll rbmon until FILTER holds.
wait_json() { wait_for "$3" json_true "$1" "$2"; }

# jqv FILTER [jq args...] - evaluate FILTER on the last dump, raw output.
jqv()
{
	local f=$1
	shift
	jq -r "$@" "$f" "$T/json"
}

# expect DESCRIPTION EXPECTED ACTUAL
expect()
{
	[ "$2" == "$3" ] || fail "$1: expected '$2', got '$3'"
}

# expect_jq DESCRIPTION FILTER [jq args...] - FILTER must be true.
expect_jq()
{
	local desc=$1 f=$2
	shift 2
	jq -e "$@" "$f" "$T/json" >/dev/null || fail "$desc (jq: $f)"
}

# line_of SOURCE MARKER - the line number of "LINE:MARKER" in SOURCE.
line_of()
{
	local n
	n=$(grep -n "LINE:$2 \*/" "$1" | cut -d: -f1)
	[ -n "$n" ] && [ "$(printf '%s\n' "$n" | wc -l)" -eq 1 ] ||
		fail "marker LINE:$2 not found exactly once in $1"
	echo "$n"
}

# header_field NAME - "offset size" of an rb_header field (tests/apps/offsets).
header_field()
{
	local r
	r=$("$APPS/offsets" | awk -v f="$1" '$1 == f { print $2, $3 }')
	[ -n "$r" ] || fail "unknown header field $1"
	echo "$r"
}

# header_get FILE NAME - read a 4- or 8-byte unsigned header field.
header_get()
{
	local off size
	read -r off size <<<"$(header_field "$2")"
	od -An -t "u$size" -j "$off" -N "$size" "$1" | tr -d ' '
}

# header_put FILE NAME VALUE - overwrite a 4- or 8-byte header field with
# VALUE, little endian (x86_64).
header_put()
{
	local off size v=$3 i oct=
	read -r off size <<<"$(header_field "$2")"
	for ((i = 0; i < size; i++)); do
		oct+=$(printf '\\%03o' $(((v >> (8 * i)) & 255)))
	done
	printf "$oct" | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
}

# stop_and_reap PID - SIGTERM, then wait for it; sets REAPED to its status.
stop_and_reap()
{
	REAPED=0
	kill -TERM "$1" 2>/dev/null
	wait "$1" || REAPED=$?
}
