#!/bin/bash
# SPDX-License-Identifier: MIT
# orphan-lapse: what a monitor set to stop threads lapses with its
# heartbeat, as its stops do.
#
#  - ctl with RBTRACE_ORPHAN_TIMEOUT=3: a breakpoint on alpha_work set with
#    rbmon --send, which then exits (no heartbeat any more).  alpha stops
#    there, stays stopped 3 s, resumes by itself; by then the breakpoint is
#    gone (BLST: "no breakpoints") and alpha passes alpha_work 200 times
#    more (its round counter, read with --watch) without stopping again;
#    stderr says so in one line, once, and the text dump on alpha's line;
#  - then single and stop_on_create, set with rbmon --set: the threads stop
#    (single stepping), resume by themselves, both flags are 0 again in the
#    header, one line says "cleared single, stop_on_create", and a thread
#    started afterwards (SIGUSR1) does not stop;
#  - ctl with RBTRACE_ORPHAN_TIMEOUT=6 and a monitor alive (rbmon --set
#    every 0.2 s, its heartbeat fresh; 6 s, so that a loaded machine's
#    pause between two rbmon runs is not taken for a monitor gone): beta,
#    stopped at its breakpoint on beta_even, is still stopped 13 s later, its breakpoint still there,
#    nothing on stderr; once CONT, it stops there again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# rounds TID - alpha's round counter (rounds_alpha), with --watch.
rounds()
{
	local out
	out=$("$RBMON" --thread "$1" --watch rounds_alpha --timeout 10 "$f" 2>"$T/watch.err") ||
		fail "--watch rounds_alpha exited with an error: $(cat "$T/watch.err")"
	[[ $out =~ ^[0-9]+$ ]] || fail "--watch rounds_alpha printed '$out'"
	echo "$out"
}

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=3 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)

# --- A breakpoint whose monitor is gone.
send_ok "$f" "$A" "BRKP alpha_work" "breakpoint 1 at alpha_work"
# Stopped there, or (a slow machine's poll missed the 3 s) resumed already.
wait_json "$f" "$(th "$A") | (.state == \"stopped\" and .stop.reason == \"breakpoint\" and .stop.function == \"alpha_work\") or .orphan_resumes == 1" \
	"alpha stopped at its breakpoint on alpha_work"
wait_json "$f" "$(th "$A") | .state == \"running\" and .orphan_resumes == 1" \
	"alpha resuming by itself after 3 s without a monitor"
send_ok "$f" "$A" BLST "no breakpoints"
r0=$(rounds "$A") || exit 1
wait_for "alpha to pass alpha_work 200 more times (from round $r0)" \
	bash -c "[ \"\$('$RBMON' --thread $A --watch rounds_alpha '$f')\" -ge $((r0 + 200)) ]"
dump_json "$f"
expect "alpha's stops after it passed alpha_work 200 more times" 1 "$(jqv "$(th "$A") | .stops")"
expect "alpha's orphan resumes" 1 "$(jqv "$(th "$A") | .orphan_resumes")"
"$RBMON" --dump "$f" >"$T/text" || fail "rbmon --dump $f exited $?"
grep -Eq "^  thread $A \"alpha\" running, resumed by itself 1 time \(no monitor left\), depth [0-9]+" "$T/text" ||
	fail "the text dump does not say alpha resumed by itself: $(grep "thread $A " "$T/text")"
expect "the program's stderr" \
	"rbtrace: thread $A resumed by itself: no monitor for 3 s (RBTRACE_ORPHAN_TIMEOUT)
rbtrace: process $pid: no monitor for 3 s: cleared 1 breakpoint (RBTRACE_ORPHAN_TIMEOUT)" \
	"$(cat "$T/app.err")"

# --- Single stepping and stop on create whose monitor is gone.
"$RBMON" --set single=1 --set stop_on_create=1 "$f" >"$T/set.out" 2>&1 ||
	fail "rbmon --set single=1 --set stop_on_create=1: $(cat "$T/set.out")"
# One stop each (alpha's second), then running again: single is gone.
wait_json "$f" "[.processes[0].threads[] | select(.tid == $A or .tid == $B or .tid == $S) | [.state, .stops]] == [[\"running\", 2], [\"running\", 1], [\"running\", 1]]" \
	"alpha, beta and seq stopped once by single stepping, then resuming without a monitor"
expect "header single after the lapse" 0 "$(header_get "$f" single)"
expect "header stop_on_create after the lapse" 0 "$(header_get "$f" stop_on_create)"
kill -USR1 "$pid"
wait_ready "late running" "$pid"
wait_ready "thread late [0-9]+" "$pid"
L=$(tid_of late)
dump_json "$f"
expect "stops of the thread started after the lapse" 0 "$(jqv "$(th "$L") | .stops")"
expect "lines saying what lapsed" 2 "$(grep -c ': no monitor for 3 s: cleared ' "$T/app.err")"
expect "the line saying single and stop_on_create lapsed" \
	"rbtrace: process $pid: no monitor for 3 s: cleared single, stop_on_create (RBTRACE_ORPHAN_TIMEOUT)" \
	"$(sed -n 3,\$p "$T/app.err" | grep ': cleared ')"
grep -Ev "^rbtrace: (thread ($A|$B|$S) resumed by itself: no monitor for 3 s|process $pid: no monitor for 3 s: cleared (1 breakpoint|single, stop_on_create)) \(RBTRACE_ORPHAN_TIMEOUT\)$" \
	"$T/app.err" >&2 && fail "unexpected lines on the program's stderr (above)"
stop_and_reap "$pid"
expect "exit status of the program" 0 "$REAPED"

# --- A monitor alive keeps its breakpoint and its stop.
g=$T/keep.trace
traced keep RBTRACE_FILE="$g" RBTRACE_ORPHAN_TIMEOUT=6 RBT_READY="$T/keep.ready" "$APPS/ctl"
kpid=$LAUNCHED
RBT_READY=$T/keep.ready wait_ready "main $kpid" "$kpid"
RBT_READY=$T/keep.ready wait_ready "thread beta [0-9]+" "$kpid"
KB=$(awk '$1 == "thread" && $2 == "beta" { print $3; exit }' "$T/keep.ready")
f=$g
# A heartbeat every 0.2 s, from before the breakpoint to the end.
launch beat bash -c "while :; do '$RBMON' --set trace_on_create=1 '$g' || exit; sleep 0.2; done"
beat=$LAUNCHED
send_ok "$g" "$KB" "BRKP beta_even" "breakpoint 1 at beta_even"
wait_json "$g" "$(th "$KB") | .state == \"stopped\" and .stop.function == \"beta_even\"" \
	"beta stopped at its breakpoint on beta_even"
# Nothing is to happen for twice the timeout: wait that long, then look.
end=$((SECONDS + 13))
while [ "$SECONDS" -lt "$end" ]; do
	kill -0 "$beat" 2>/dev/null || fail "the heartbeat loop ended: $(cat "$T/beat.out" "$T/beat.err")"
	sleep 0.5
done
dump_json "$g"
expect "beta's state after 12 s with a monitor alive" stopped "$(jqv "$(th "$KB") | .state")"
expect "beta's stops" 1 "$(jqv "$(th "$KB") | .stops")"
expect "beta's orphan resumes" 0 "$(jqv "$(th "$KB") | .orphan_resumes")"
send_ok "$g" "$KB" BLST "$(printf '1 hits=1 from=1 thread=all at=%s beta_even' \
	"$(jqv "$(th "$KB") | .stop.address")")"
send_ok "$g" "$KB" CONT continuing
wait_stopped "$KB" 2 "beta stopped at beta_even again"
send_ok "$g" "$KB" "BCLR 1" "cleared breakpoint 1"
send_ok "$g" "$KB" CONT continuing
kill "$beat"
expect "stderr of the program with a monitor alive" "" "$(cat "$T/keep.err")"
stop_and_reap "$kpid"
expect "exit status of the program with a monitor alive" 0 "$REAPED"
exit 0
