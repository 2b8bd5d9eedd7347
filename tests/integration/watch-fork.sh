#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-fork: a fork child watches with a worker of its own.
#
# tests/apps/wfork: the parent's looper answers watches first (its worker
# compiled them: one rbtrace-watch task); then main forks from an
# instrumented function:
#  - the child has exactly one rbtrace-watch task of its own (fork() copies
#    no thread but the forking one: the child starts its own worker);
#  - its main thread answers watches, with texts the parent's worker had
#    compiled before the fork: side is 2 there, its tls_side 20, read from
#    the child's memory and thread;
#  - the parent still answers (side 1, looper's tls_side 10);
#  - both end with status 0.
. "$(dirname "$0")/lib.sh"

# watch_ok TID EXPR VALUE
watch_ok()
{
	local st=0
	"$RBMON" --thread "$1" --watch "$2" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$2' on $1 (stderr: $(cat "$T/watch.err"))" 0 "$st"
	expect "value of '$2' on $1" "$3" "$(cat "$T/watch.out")"
}

# workers PID - how many rbtrace-watch tasks PID has.
workers() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^rbtrace-watch$'; }

f=$T/wfork.trace
# The worker from the start, and in the child before any watch, as counted
# below (watch-lazy.sh: none until the first watch).
traced app RBTRACE_FILE="$f" RBTRACE_WATCH_WORKER=start "$APPS/wfork"
pid=$LAUNCHED
wait_ready "parent $pid" "$pid"
wait_ready "looper [0-9]+" "$pid"
L=$(awk '$1 == "looper" { print $2; exit }' "$RBT_READY")

watch_ok "$L" side 1
watch_ok "$L" tls_side 10
watch_ok "$L" "side * 100 + tls_side" 110
expect "worker tasks of the parent" 1 "$(workers "$pid")"

kill -USR1 "$pid"
wait_ready "forked [0-9]+" "$pid"
child=$(awk '$1 == "forked" { print $2; exit }' "$RBT_READY")
wait_ready "child $child" "$child"
wait_for "the child's worker" test "$(workers "$child")" = 1
expect "worker tasks of the child" 1 "$(workers "$child")"
expect "worker tasks of the parent after the fork" 1 "$(workers "$pid")"

watch_ok "$child" side 2
watch_ok "$child" tls_side 20
watch_ok "$child" "side * 100 + tls_side" 220
watch_ok "$L" "side * 100 + tls_side" 110
watch_ok "$L" side 1

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
kill -0 "$child" 2>/dev/null && fail "the child outlived its parent"
exit 0
