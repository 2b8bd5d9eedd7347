#!/bin/bash
# SPDX-License-Identifier: MIT
# control-break: breakpoints (BRKP, BCLR, BLST) on tests/apps/ctl.
#
#  - a process-wide breakpoint on a static function (alpha_leaf), posted to
#    another thread, stops "alpha" there (reason breakpoint, frames[0]
#    alpha_leaf) while "beta" and "seq" go on running (their functions keep
#    being entered: counted by breakpoints that never stop, see hits_reach);
#    CONT stops it again at the next hit, BCLR + CONT lets it run for good;
#  - BRKP F 3 stops from the third hit on: BLST says hits=3 from=3;
#  - BRKP F thread stops only the thread it was posted to: seq stops at
#    seq_third; beta_even with "thread" posted to alpha never stops beta;
#  - a process-wide breakpoint also holds for a thread created later: the
#    "late" thread (SIGUSR1) stops at late_work.
#
# Stops are awaited through their "stops" counter, never by sleeping: right
# after a CONT the thread may still show its previous stop for a moment.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

f=$T/ctl.trace
# A stopped thread resumes by itself after RBTRACE_ORPHAN_TIMEOUT seconds
# without a monitor; 0 keeps this test's stops however loaded the machine.
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)

# hits ID - breakpoint ID's hits from BLST (posted to alpha, which answers
# stopped or running); empty on any trouble (wait_for calls it: no fail).
hits()
{
	"$RBMON" --thread "$A" --send BLST --timeout 10 "$f" 2>&1 |
		awk -v id="$1" '$1 == id && $2 ~ /^hits=/ { print substr($2, 6) }'
}

# hits_reach ID N [ID N...] - every breakpoint ID counted at least N hits.
hits_reach()
{
	local h
	while [ $# -ge 2 ]; do
		h=$(hits "$1")
		echo "breakpoint $1: hits=${h:-?}, want >= $2"
		[ -n "$h" ] && [ "$h" -ge "$2" ] || return 1
		shift 2
	done
}

# blst_line ID - breakpoint ID's BLST line.
blst_line()
{
	send "$f" "$A" BLST
	[ "$SENT" -eq 0 ] || fail "BLST exited $SENT: $(cat "$T/send.err")"
	awk -v id="$1" '$1 == id' "$T/send.out"
}

# expect_stop DESC TID REASON AT FUNCTION FRAMES [BREAKPOINT] - in the
# last dump TID is stopped for REASON at the AT (entry/exit) of FUNCTION
# with those frames (function names, newest first).
expect_stop()
{
	local d=$1 p
	p=$(th "$2")
	expect "$d: state" stopped "$(jqv "$p | .state")"
	expect "$d: stop.reason" "$3" "$(jqv "$p | .stop.reason")"
	expect "$d: stop.at" "$4" "$(jqv "$p | .stop.at")"
	expect "$d: stop.function" "$5" "$(jqv "$p | .stop.function")"
	expect "$d: frames" "$6" "$(jqv "$p | .frames | map(.function) | join(\" \")")"
	expect "$d: stop.breakpoint" "${7:-null}" "$(jqv "$p | .stop.breakpoint")"
}

# --- A process-wide breakpoint on a static function.  (Posted to seq: main
# sits in sigwait() and passes no hook, so it never takes a command.)
send_ok "$f" "$S" "BRKP alpha_leaf" "breakpoint 1 at alpha_leaf"
wait_stopped "$A" 1 "alpha stopped at breakpoint 1"
expect_stop "alpha at alpha_leaf" "$A" breakpoint entry alpha_leaf \
	"alpha_leaf alpha_work alpha_main" 1
leaf=$(jqv "$(th "$A") | .stop.address")
expect "stop.address is frames[0]'s" "$leaf" "$(jqv "$(th "$A") | .frames[0].address")"

# Meanwhile beta and seq run: their functions keep being entered.  Count
# them with breakpoints that would stop only from hit 10^9 on.
send_ok "$f" "$S" "BRKP beta_even 1000000000" "breakpoint 2 at beta_even, stops from hit 1000000000"
send_ok "$f" "$S" "BRKP beta_odd 1000000000" "breakpoint 3 at beta_odd, stops from hit 1000000000"
send_ok "$f" "$S" "BRKP seq_inner 1000000000" "breakpoint 4 at seq_inner, stops from hit 1000000000"
wait_for "beta_even, beta_odd and seq_inner entered 20 times each while alpha is stopped" \
	hits_reach 2 20 3 20 4 20
dump_json "$f"
expect "alpha still stopped" stopped "$(jqv "$(th "$A") | .state")"
expect "alpha stops while stopped" 1 "$(jqv "$(th "$A") | .stops")"
expect_stop "alpha still at alpha_leaf" "$A" breakpoint entry alpha_leaf \
	"alpha_leaf alpha_work alpha_main" 1
for t in "$B" "$S"; do
	expect "thread $t state while alpha is stopped" running "$(jqv "$(th "$t") | .state")"
	expect "thread $t stops while alpha is stopped" 0 "$(jqv "$(th "$t") | .stops")"
done
expect "BLST line of breakpoint 1 while alpha is stopped" \
	"1 hits=1 from=1 thread=all at=$leaf alpha_leaf" "$(blst_line 1)"
for id in 2 3 4; do
	send_ok "$f" "$A" "BCLR $id" "cleared breakpoint $id"
done

# CONT: alpha runs to the next hit and stops there again.
send_ok "$f" "$A" CONT continuing
wait_stopped "$A" 2 "alpha stopped at breakpoint 1 again after CONT"
expect_stop "alpha after CONT" "$A" breakpoint entry alpha_leaf \
	"alpha_leaf alpha_work alpha_main" 1
expect "BLST line of breakpoint 1 after the second hit" \
	"1 hits=2 from=1 thread=all at=$leaf alpha_leaf" "$(blst_line 1)"

# BCLR, then CONT: alpha runs for good (alpha_work keeps being entered,
# no new stop).
send_ok "$f" "$A" "BCLR 1" "cleared breakpoint 1"
send_ok "$f" "$A" CONT continuing
wait_running "$A" "alpha running after BCLR 1 and CONT"
send_ok "$f" "$A" "BRKP alpha_work 1000000000" "breakpoint 5 at alpha_work, stops from hit 1000000000"
wait_for "alpha_work entered 20 times after BCLR" hits_reach 5 20
dump_json "$f"
expect "alpha state after BCLR" running "$(jqv "$(th "$A") | .state")"
expect "alpha stops after BCLR" 2 "$(jqv "$(th "$A") | .stops")"
send_ok "$f" "$A" "BCLR 5" "cleared breakpoint 5"

# --- A hit count: stop from the 3rd hit on.
send_ok "$f" "$B" "BRKP beta_odd 3" "breakpoint 6 at beta_odd, stops from hit 3"
wait_stopped "$B" 1 "beta stopped at breakpoint 6"
expect_stop "beta at beta_odd" "$B" breakpoint entry beta_odd "beta_odd beta_main" 6
odd=$(jqv "$(th "$B") | .stop.address")
expect "BLST line of breakpoint 6" "6 hits=3 from=3 thread=all at=$odd beta_odd" \
	"$(blst_line 6)"
send_ok "$f" "$B" "BCLR 6" "cleared breakpoint 6"
send_ok "$f" "$B" CONT continuing
wait_running "$B" "beta running after BCLR 6 and CONT"

# --- Thread-only breakpoints.
send_ok "$f" "$S" "BRKP seq_third thread" "breakpoint 7 at seq_third, thread $S only"
wait_stopped "$S" 1 "seq stopped at breakpoint 7"
expect_stop "seq at seq_third" "$S" breakpoint entry seq_third \
	"seq_third seq_outer seq_main" 7
third=$(jqv "$(th "$S") | .stop.address")

# beta_even for alpha only: beta enters it all the time and never stops.
send_ok "$f" "$A" "BRKP beta_even thread" "breakpoint 8 at beta_even, thread $A only"
send_ok "$f" "$A" "BRKP beta_even 1000000000" "breakpoint 9 at beta_even, stops from hit 1000000000"
wait_for "beta_even entered 20 times with breakpoint 8 (alpha only) set" hits_reach 9 20
dump_json "$f"
expect "beta state with breakpoint 8 set" running "$(jqv "$(th "$B") | .state")"
expect "beta stops with breakpoint 8 set" 1 "$(jqv "$(th "$B") | .stops")"
even=$(blst_line 9 | sed -n 's/.* at=\(0x[0-9a-f]*\) .*/\1/p')
[ -n "$even" ] || fail "no address in BLST line of breakpoint 9: $(blst_line 9)"
expect "BLST line of breakpoint 8 (counts alpha's entries only)" \
	"8 hits=0 from=1 thread=$A at=$even beta_even" "$(blst_line 8)"
expect "BLST line of breakpoint 7" "7 hits=1 from=1 thread=$S at=$third seq_third" \
	"$(blst_line 7)"
send_ok "$f" "$A" "BCLR *" "cleared 3 breakpoints"
send_ok "$f" "$A" BLST "no breakpoints"
send_ok "$f" "$S" CONT continuing
wait_running "$S" "seq running after BCLR * and CONT"

# --- A process-wide breakpoint holds for a thread created afterwards.
send_ok "$f" "$A" "BRKP late_work" "breakpoint 10 at late_work"
kill -USR1 "$pid"
wait_ready "late running" "$pid"
wait_ready "thread late [0-9]+" "$pid"
L=$(tid_of late)
wait_stopped "$L" 1 "the late thread stopped at breakpoint 10"
expect_stop "late at late_work" "$L" breakpoint entry late_work "late_work late_main" 10
expect "late thread's name" late "$(jqv "$(th "$L") | .name")"
for t in "$A" "$B" "$S"; do
	expect "thread $t state at the end" running "$(jqv "$(th "$t") | .state")"
done

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
