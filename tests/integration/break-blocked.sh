#!/bin/bash
# SPDX-License-Identifier: MIT
# break-blocked: breakpoints belong to the process and need no thread.
#
#  - every thread of tests/apps/brk waits in read() (state S in /proc, at
#    its known frames): BRKP, BLST and BCLR all answer at once (--timeout
#    0.2: a command a thread had to take would exit 2), and a released
#    thread stops at the breakpoint set while it was blocked;
#  - a thread-only breakpoint (inner, for the worker): main's round runs
#    through and is not counted; the worker's stops;
#  - fork: the child starts with the parent's process-wide breakpoints
#    (same ids), not the thread-only ones, and stops at child_work; BLST of
#    the child and of the parent count their own hits;
#  - BLST and BCLR need no thread: the file alone names its one process;
#    with the child alive too, -p PID picks one and the file alone is
#    refused with a message that says so;
#  - a garbled table (random bytes over the table, every filter bit set)
#    while the threads run rounds: the program runs on, rbmon lists no
#    breakpoints for it, and sets and hits one again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"
. "$(dirname "$0")/brk.sh"

# nothread ARGS... - rbmon --send without --thread; exit status in SENT.
nothread()
{
	SENT=0
	"$RBMON" --timeout 0.2 "$@" >"$T/send.out" 2>"$T/send.err" || SENT=$?
}

f=$T/brk.trace
brk_start "$APPS/brk"
wait_for "main asleep in read()" asleep "$M" main
wait_for "the worker asleep in read()" asleep "$W" "worker_main(void*)"
bias=$(load_bias "$PID" "$APPS/brk")
inner=$(nm_addrs "$APPS/brk" "$bias" ' inner\(int\)$')
cw=$(nm_addrs "$APPS/brk" "$bias" ' child_work\(int\)$')
[ -n "$inner" ] && [ -n "$cw" ] || fail "nm: inner at '$inner', child_work at '$cw'"

# --- Set, listed and cleared while both threads sleep; hit once released.
send_ok "$f" "$M" "BRKP inner" "breakpoint 1 at inner" --timeout 0.2
send_ok "$f" "$W" BLST "1 hits=0 from=1 thread=all at=$inner inner" --timeout 0.2
nothread --send BLST "$f"
expect "BLST of the file's one process, no thread (stderr: $(cat "$T/send.err"))" \
	"0 1 hits=0 from=1 thread=all at=$inner inner" "$SENT $(cat "$T/send.out")"
send_ok "$f" "$W" "BRKP child_work 3" "breakpoint 2 at child_work, stops from hit 3" --timeout 0.2
send_ok "$f" "$M" "BCLR 2" "cleared breakpoint 2" --timeout 0.2
for t in "$M" "$W"; do
	asleep "$t" "$([ "$t" = "$M" ] && echo main || echo "worker_main(void*)")" >/dev/null ||
		fail "thread $t left read() while its breakpoints were set"
done
release main i
wait_stopped "$M" 1 "main stopped at inner"
expect "main's stop" "breakpoint 1 entry inner(int) $inner" \
	"$(jqv "$(th "$M") | \"\(.stop.reason) \(.stop.breakpoint) \(.stop.at) \(.frames[0].function) \(.frames[0].address)\"")"
send_ok "$f" "$M" "BCLR 1" "cleared breakpoint 1" --timeout 0.2
send_ok "$f" "$M" CONT continuing
wait_round main 1 i

# --- Thread-only: inner for the worker.
send_ok "$f" "$W" "BRKP inner thread" "breakpoint 3 at inner, thread $W only" --timeout 0.2
release main i
wait_round main 2 i
expect "BLST after main's round (not counted)" "3 hits=0 from=1 thread=$W at=$inner inner" \
	"$(blst_line "$f" "$M" 3)"
release worker i
wait_stopped "$W" 1 "the worker stopped at inner"
expect "the worker's stop" "breakpoint 3 inner(int)" \
	"$(jqv "$(th "$W") | \"\(.stop.reason) \(.stop.breakpoint) \(.frames[0].function)\"")"
expect "main's stops" 1 "$(jqv "$(th "$M") | .stops")"
expect "BLST at the worker's stop" "3 hits=1 from=1 thread=$W at=$inner inner" \
	"$(blst_line "$f" "$M" 3)"
send_ok "$f" "$W" CONT continuing
wait_round worker 1 i

# --- Fork: the child inherits the process-wide breakpoint (4), not the
# worker's (3) nor a thread-only one of main's (5).
send_ok "$f" "$M" "BRKP child_work" "breakpoint 4 at child_work" --timeout 0.2
send_ok "$f" "$M" "BRKP child_work thread" "breakpoint 5 at child_work, thread $M only" --timeout 0.2
release main f
wait_ready "child [0-9]+" "$PID"
C=$(ready_field child 2)
wait_stopped "$C" 1 "the child stopped at child_work"
expect "the child's stop" "breakpoint 4 child_work(int) $cw" \
	"$(jqv "$(th "$C") | \"\(.stop.reason) \(.stop.breakpoint) \(.frames[0].function) \(.frames[0].address)\"")"
send_ok "$f" "$C" BLST "4 hits=1 from=1 thread=all at=$cw child_work" --timeout 0.2
nothread -p "$C" --send BLST
expect "BLST of the child by -p, no thread (stderr: $(cat "$T/send.err"))" \
	"0 4 hits=1 from=1 thread=all at=$cw child_work" "$SENT $(cat "$T/send.out")"
nothread --send BLST "$f"
expect "BLST of a file with two processes, no thread" \
	"2 rbmon: $f holds 2 traced processes ($PID, $C): choose one with -p PID or -t TID" \
	"$SENT $(cat "$T/send.err")"
send_ok "$f" "$M" BLST "3 hits=1 from=1 thread=$W at=$inner inner
4 hits=0 from=1 thread=all at=$cw child_work
5 hits=0 from=1 thread=$M at=$cw child_work" --timeout 0.2
send_ok "$f" "$C" CONT continuing
wait_ready "reaped $C 0" "$PID"
wait_round main 3 f
nothread --send "BCLR *" "$f"
expect "BCLR * of the file's one process again, no thread (stderr: $(cat "$T/send.err"))" \
	"0 cleared 3 breakpoints" "$SENT $(cat "$T/send.out")"

# --- A garbled table: the program runs on.
bps_off=$(header_get "$f" bps_off)
filter_off=$(header_get "$f" bpfilter_off)
bps=$(header_get "$f" bps)
bpsize=$("$APPS/offsets" | awk '$1 == "bp" { print $3 }')
fsize=$("$APPS/offsets" | awk '$1 == "bpfilter" { print $3 }')
[ "$bps" -gt 0 ] && [ "$bpsize" -gt 0 ] && [ "$fsize" -gt 0 ] || fail "table geometry: $bps x $bpsize, filter $fsize"
head -c $((bps * bpsize)) /dev/urandom |
	dd of="$f" seek="$bps_off" oflag=seek_bytes conv=notrunc status=none
head -c "$fsize" /dev/zero | tr '\0' '\377' |
	dd of="$f" seek="$filter_off" oflag=seek_bytes conv=notrunc status=none
release main oidoid
release worker oidoid
wait_round main 9 d
wait_round worker 7 d
kill -0 "$PID" || fail "the program died with a garbled breakpoint table"
dump_json "$f"
expect "stops after the garbling (main, worker)" "1 1" \
	"$(jqv "[($(th "$M")), ($(th "$W"))] | map(.stops | tostring) | join(\" \")")"
send_ok "$f" "$M" BLST "no breakpoints" --timeout 0.2
send "$f" "$M" "BRKP inner" --timeout 0.2
[ "$SENT" -eq 0 ] && [[ $(cat "$T/send.out") =~ ^breakpoint\ [0-9]+\ at\ inner$ ]] ||
	fail "BRKP inner in the garbled table: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
release worker i
wait_stopped "$W" 2 "the worker stopped at inner again"
send_ok "$f" "$M" "BCLR *" "cleared 1 breakpoint" --timeout 0.2
send_ok "$f" "$W" CONT continuing
wait_round worker 8 i

release worker q
release main q
rc=0
wait "$PID" || rc=$?
expect "exit status" 0 "$rc"
exit 0
