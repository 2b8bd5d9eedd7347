#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-lazy-signal: a watch on a thread that passes no safe point to start
# the watch worker at is answered with an error that says what to do.
#
# tests/apps/sigmalloc, without RBTRACE_WATCH_WORKER: every hook of
# "spinner" after its first runs in its SIGALRM handler (a signal frame
# above the hook: no safe point to start a thread at; rbtrace(5), "The
# evaluator"):
#  - a watch on the spinner is answered, within the bound (2 s) and well
#    before rbmon's timeout, with the error naming RBTRACE_WATCH_WORKER;
#  - a second one, the same; the process still has no rbtrace-watch task;
#  - the program keeps running and ends with status 0;
#  - again with the handler on an alternate signal stack ("altstack"),
#    away from the thread's traced frames: a watch is answered with the
#    same error, there is no rbtrace-watch task, and the program ends with
#    status 0.
. "$(dirname "$0")/lib.sh"

unset RBTRACE_WATCH_WORKER

msg='the watch worker is started at the first watch, at a hook outside signal handlers, and this thread ran none in 2 s: run the program with RBTRACE_WATCH_WORKER=start to have it from the start'

# watch_refused EXPR - EXPR on the spinner fails with msg, in under 10 s.
watch_refused()
{
	local st=0 t0=$SECONDS
	"$RBMON" --thread "$S" --watch "$1" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$1' (stdout: $(cat "$T/watch.out"))" 1 "$st"
	expect "stderr of --watch '$1'" "rbmon: thread $S: $1: $msg" "$(cat "$T/watch.err")"
	[ $((SECONDS - t0)) -lt 10 ] ||
		fail "--watch '$1' took $((SECONDS - t0)) s (the bound is 2 s)"
}

f=$T/sigmalloc.trace
traced app RBTRACE_FILE="$f" "$APPS/sigmalloc"
pid=$LAUNCHED
wait_threads "$pid" spinner
S=$(tid_of spinner)

watch_refused answer
watch_refused "answer + 1"
expect "rbtrace-watch tasks" 0 \
	"$(cat /proc/"$pid"/task/*/comm | grep -c '^rbtrace-watch$')"
kill -0 "$pid" || fail "the program died: $(cat "$T/app.err")"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"

: >"$RBT_READY"
f=$T/sigmalloc-alt.trace
traced alt RBTRACE_FILE="$f" "$APPS/sigmalloc" altstack
pid=$LAUNCHED
wait_threads "$pid" spinner
S=$(tid_of spinner)
watch_refused answer
expect "rbtrace-watch tasks (altstack)" 0 \
	"$(cat /proc/"$pid"/task/*/comm | grep -c '^rbtrace-watch$')"
kill -0 "$pid" || fail "the program died (altstack): $(cat "$T/alt.err")"
stop_and_reap "$pid"
expect "exit status (altstack)" 0 "$REAPED"
exit 0
