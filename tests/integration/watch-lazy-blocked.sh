#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-lazy-blocked: a thread that keeps signals with handlers blocked all
# along, though it runs no handler (a server's master does), starts the
# watch worker at its first watch.
#
# tests/apps/sigblock, without RBTRACE_WATCH_WORKER: main blocks SIGUSR1
# and SIGHUP, both with a handler, for good, and calls tick() every
# millisecond (rbtrace(5), "The evaluator": the safe point is a hook with
# no signal frame above it, whatever the thread blocks):
#  - before any watch, the process has no rbtrace-watch task;
#  - a watch on main answers its right value, twice; then the process has
#    one rbtrace-watch task;
#  - the program ends with status 0.
. "$(dirname "$0")/lib.sh"

unset RBTRACE_WATCH_WORKER

# watch_ok EXPR VALUE - EXPR on main answers VALUE.
watch_ok()
{
	local st=0
	"$RBMON" --thread "$pid" --watch "$1" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$1' (stderr: $(cat "$T/watch.err"))" 0 "$st"
	expect "value of '$1'" "$2" "$(cat "$T/watch.out")"
}

workers() { cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c '^rbtrace-watch$'; }

f=$T/sigblock.trace
traced app RBTRACE_FILE="$f" "$APPS/sigblock"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
blk=$(awk '$1 == "SigBlk:" { print $2 }' /proc/"$pid"/status)
expect "SIGHUP and SIGUSR1 in main's SigBlk ($blk)" 513 $((0x$blk & 0x201))
expect "worker tasks before any watch" 0 "$(workers)"

watch_ok answer 42
watch_ok "answer + 1" 43
expect "worker tasks after a watch" 1 "$(workers)"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
