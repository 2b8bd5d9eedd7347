#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-lazy: the watch worker is started at the first watch, not before.
#
# tests/apps/wfork, without RBTRACE_WATCH_WORKER: main and "looper" are
# traced and looper calls tick() every millisecond:
#  - once looper has written events, the process has no rbtrace-watch task
#    (two tasks: main and looper);
#  - a watch on looper answers its right value; then the process has one
#    rbtrace-watch task;
#  - main forks (from an instrumented function): the child, whose main
#    thread calls child_tick() every millisecond, has no rbtrace-watch task
#    once it has written events, though its parent's worker runs;
#  - a watch on the child answers its right value (side 2, tls_side 20);
#    then the child has one rbtrace-watch task, the parent still one, and
#    the parent answers as before; both end with status 0.
. "$(dirname "$0")/lib.sh"

unset RBTRACE_WATCH_WORKER

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

# tasks PID - how many tasks PID has.
tasks() { ls /proc/"$1"/task | wc -l; }

# busy TID - thread TID has written more than 200 events (100 calls).
busy()
{
	events_true "$f" "[.processes[].threads[] | select(.tid == $1) | .written] | .[0] // 0 | . > 200"
}

f=$T/wfork.trace
traced app RBTRACE_FILE="$f" "$APPS/wfork"
pid=$LAUNCHED
wait_ready "parent $pid" "$pid"
wait_ready "looper [0-9]+" "$pid"
L=$(awk '$1 == "looper" { print $2; exit }' "$RBT_READY")
wait_for "looper's calls" busy "$L"
expect "worker tasks before any watch" 0 "$(workers "$pid")"
expect "tasks before any watch (main, looper)" 2 "$(tasks "$pid")"

watch_ok "$L" side 1
watch_ok "$L" "side * 100 + tls_side" 110
expect "worker tasks after a watch" 1 "$(workers "$pid")"
expect "tasks after a watch" 3 "$(tasks "$pid")"

kill -USR1 "$pid"
wait_ready "forked [0-9]+" "$pid"
child=$(awk '$1 == "forked" { print $2; exit }' "$RBT_READY")
wait_ready "child $child" "$child"
wait_for "the child's calls" busy "$child"
expect "worker tasks of the child before a watch" 0 "$(workers "$child")"
expect "tasks of the child before a watch" 1 "$(tasks "$child")"
expect "worker tasks of the parent after the fork" 1 "$(workers "$pid")"

watch_ok "$child" side 2
watch_ok "$child" tls_side 20
watch_ok "$child" "side * 100 + tls_side" 220
expect "worker tasks of the child after a watch" 1 "$(workers "$child")"
expect "worker tasks of the parent" 1 "$(workers "$pid")"
watch_ok "$L" "side * 100 + tls_side" 110

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
kill -0 "$child" 2>/dev/null && fail "the child outlived its parent"
exit 0
