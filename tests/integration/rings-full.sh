#!/bin/bash
# SPDX-License-Identifier: MIT
# rings-full: threads beyond the rings are said once on the program's
# stderr, naming the rings, the first thread left out (one rbmon does not
# show) and how to get more rings; the header still counts every one.
# With RBTRACE_RINGS=4: 50 short-lived threads (5 at a time) and 10 parked
# ones; with rbtrace --rings 4, the 10 parked ones.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
re='^rbtrace: all 4 rings of (.+) are in use: thread ([0-9]+) runs untraced, as will others that find none; trace with more rings \(rbtrace --rings N, RBTRACE_RINGS=N\)$'

# check_line ERRFILE FILE PID - the one line, and its thread untraced.
check_line()
{
	local l tid
	expect "lines about rings in $1" 1 "$(grep -c 'rings of' "$1")"
	l=$(grep 'rings of' "$1")
	[[ $l =~ $re ]] || fail "the line: '$l'"
	expect "trace file in the line" "$2" "${BASH_REMATCH[1]}"
	tid=${BASH_REMATCH[2]}
	[ "$tid" != "$3" ] || fail "the main thread named untraced"
	dump_json "$2"
	expect_jq "thread $tid is not traced" "[.processes[].threads[].tid] | index($tid) == null"
}

f=$T/churn.trace
traced app RBTRACE_FILE="$f" RBTRACE_RINGS=4 "$APPS/threads" 50 10 5
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
check_line "$T/app.err" "$f" "$pid"
untraced=$(jqv .rings.untraced_threads)
[ "$untraced" -ge 7 ] || fail "rings.untraced_threads: $untraced, expected 7 at least"
expect "stderr lines of the program" 1 "$(wc -l <"$T/app.err")"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
expect "stderr lines of the program at its end" 1 "$(wc -l <"$T/app.err")"

: >"$RBT_READY"
f=$T/launched.trace
launch rb "$RBTRACE" --rings 4 --file "$f" -- "$APPS/threads" 0 10
rb=$LAUNCHED
wait_ready "ready [0-9]+" "$rb"
pid=$(ready_field ready 2)
check_line "$T/rb.err" "$f" "$pid"
expect "rings.untraced_threads" 7 "$(jqv .rings.untraced_threads)"
# Two processes write these lines, the launcher and the program: either
# may come first.
wait_for "the launcher's line" grep -q '^rbtrace: tracing' "$T/rb.err"
expect "stderr of rbtrace --rings 4 (in either order)" "$(printf '%s\n%s\n' \
	"rbtrace: tracing $APPS/threads (pid $pid) into $f" \
	"$(grep 'rings of' "$T/rb.err")" | sort)" "$(sort "$T/rb.err")"
kill -TERM "$pid"
wait "$rb" || fail "rbtrace exited $?"
exit 0
