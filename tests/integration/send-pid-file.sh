#!/bin/bash
# SPDX-License-Identifier: MIT
# send-pid-file: with --send and a FILE, -p PID names the process of that
# file that BLST, BCLR, EVOF and EVON act on (a file that several
# processes write to, the forker's parent and child), as rbmon(1) says;
# a pid the file has no live thread of is refused, and -p with a FILE
# stays refused without --send.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# psend ARGS... - rbmon --send ARGS; exit status in SENT.
psend()
{
	SENT=0
	"$RBMON" --timeout 0.2 "$@" >"$T/send.out" 2>"$T/send.err" || SENT=$?
}

f=$T/forker.trace
traced app RBTRACE_FILE="$f" "$APPS/forker"
pid=$LAUNCHED
wait_ready "parent $pid [0-9]+" "$pid"
child=$(ready_field parent 3)
wait_ready "child $child" "$pid"

send_ok "$f" "$child" "BRKP child_park" "breakpoint 1 at child_park" --timeout 0.2
psend -p "$child" --send BLST "$f"
expect "BLST of the child by -p with the file (stderr: $(cat "$T/send.err"))" \
	"0 1 hits=0 from=1 thread=all" "$SENT $(cut -d' ' -f1-4 "$T/send.out")"
grep -q ' child_park$' "$T/send.out" || fail "BLST names no child_park: $(cat "$T/send.out")"
psend -p "$pid" --send BLST "$f"
expect "BLST of the parent by -p with the file (stderr: $(cat "$T/send.err"))" \
	"0 no breakpoints" "$SENT $(cat "$T/send.out")"
psend -p "$child" --send "BCLR *" "$f"
expect "BCLR * of the child by -p with the file (stderr: $(cat "$T/send.err"))" \
	"0 cleared 1 breakpoint" "$SENT $(cat "$T/send.out")"
psend -p "$child" --send EVOF "$f"
expect "EVOF of the child by -p with the file (stderr: $(cat "$T/send.err"))" \
	"0 recording off for 1 thread and the threads started later" \
	"$SENT $(cat "$T/send.out")"
psend -p "$child" --send EVON "$f"
expect "EVON of the child by -p with the file" 0 "$SENT"

psend -p 2147483 --send BLST "$f"
expect "BLST of a pid the file does not hold" \
	"2 rbmon: process 2147483 has no live traced thread in the file" \
	"$SENT $(cat "$T/send.err")"
psend --send BLST "$f"
expect "BLST of the file alone, two processes" 2 "$SENT"
SENT=0
"$RBMON" -p "$child" --dump "$f" >"$T/dump.out" 2>"$T/dump.err" || SENT=$?
expect "-p with a FILE without --send" \
	"2 rbmon: give either FILE or --pid, not both" \
	"$SENT $(head -1 "$T/dump.err")"

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
