#!/bin/bash
# SPDX-License-Identifier: MIT
# watch-signal: a thread whose hooks all run in a signal handler that
# interrupts malloc() answers its watches, and goes on.
#
# tests/apps/sigmalloc: "spinner" loops over malloc() and free() of blocks
# that take the arena's lock, passing no hook; a timer's SIGALRM every
# millisecond runs an instrumented handler on it, so each of its hooks
# runs inside a signal handler, mostly with malloc() half done under it.
# A hook that compiled an expression there (malloc, libdw, a lock) would
# deadlock or corrupt the heap; compiling in the library's worker thread,
# the hook only evaluates:
#  - twenty expressions never compiled before, one after the other, each
#    printing its right value within the timeout;
#  - a struct, an error (nosuch), the counters;
#  - the spinner keeps spinning and ticking throughout (spins and ticks
#    read again are larger), and the program ends with status 0.
. "$(dirname "$0")/lib.sh"

# watch_ok EXPR VALUE - EXPR on the spinner prints exactly VALUE.
watch_ok()
{
	local st=0
	"$RBMON" --thread "$S" --watch "$1" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	expect "exit status of --watch '$1' (stderr: $(cat "$T/watch.err"))" 0 "$st"
	expect "value of '$1'" "$2" "$(cat "$T/watch.out")"
}

# number EXPR - EXPR's value, a number, into NUMBER.
number()
{
	local st=0
	"$RBMON" --thread "$S" --watch "$1" --timeout 30 "$f" \
		>"$T/watch.out" 2>"$T/watch.err" || st=$?
	NUMBER=$(cat "$T/watch.out")
	[ "$st" -eq 0 ] && [[ $NUMBER =~ ^[0-9]+$ ]] ||
		fail "--watch '$1': exit $st, stdout '$NUMBER', stderr '$(cat "$T/watch.err")'"
}

f=$T/sigmalloc.trace
# The worker from the start: the spinner's hooks, all in a signal handler,
# are no safe point to start it at the first watch (watch-lazy-signal.sh).
traced app RBTRACE_FILE="$f" RBTRACE_WATCH_WORKER=start "$APPS/sigmalloc"
pid=$LAUNCHED
wait_threads "$pid" spinner
S=$(tid_of spinner)

number spins
spins=$NUMBER
number ticks
ticks=$NUMBER
for ((i = 1; i <= 20; i++)); do
	watch_ok "answer + $i" $((42 + i))
done
watch_ok pair "{a = 3, b = 4}"
watch_ok "pair.b * answer" 168
st=0
"$RBMON" --thread "$S" --watch nosuch --timeout 30 "$f" >"$T/watch.out" 2>"$T/watch.err" || st=$?
expect "exit status of --watch nosuch" 1 "$st"
expect "stderr of --watch nosuch" "rbmon: thread $S: nosuch: no symbol \"nosuch\"" "$(cat "$T/watch.err")"
number spins
[ "$NUMBER" -gt "$spins" ] || fail "spins did not grow: $spins, then $NUMBER"
number ticks
[ "$NUMBER" -gt "$ticks" ] || fail "ticks did not grow: $ticks, then $NUMBER"
kill -0 "$pid" || fail "the program died: $(cat "$T/app.err")"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
