#!/bin/bash
# SPDX-License-Identifier: MIT
# control-errors: what goes wrong, and long responses.
#
#  - malformed commands get ERR (rbmon exit 1, "rbmon: thread TID: TEXT" on
#    stderr, nothing on stdout) and change nothing: the thread still answers
#    PING, no thread stopped;
#  - rbmon's own usage errors exit 2 with their message: --send without
#    --thread, a command word of 5 letters, --timeout 0, --set foo=1,
#    --set single=2, --thread of a tid that is not there, a file that is not
#    a trace file;
#  - a response longer than the message area comes back whole: with
#    RBTRACE_MSGSZ=64 the thread's ERR for an unknown command continues in
#    the global message area;
#  - a long BLST (60 breakpoints on made-up addresses, with hit counts, some
#    thread-only) comes back whole, from the file's breakpoint table (no
#    message area involved: the same with RBTRACE_MSGSZ=64 and
#    RBTRACE_GLOBALSZ=1024 as with the default sizes); BCLR * then clears
#    all 60.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# usage_err MESSAGE RBMON-ARGS... - rbmon must exit 2, MESSAGE first on stderr.
usage_err()
{
	local msg=$1 rc=0
	shift
	"$RBMON" "$@" >"$T/usage.out" 2>"$T/usage.err" || rc=$?
	expect "exit status of rbmon $* (stderr: $(cat "$T/usage.err"))" 2 "$rc"
	expect "stdout of rbmon $*" "" "$(cat "$T/usage.out")"
	expect "stderr of rbmon $*" "$msg" "$(head -n 1 "$T/usage.err")"
}

# start NAME FILE [VAR=VALUE...] - run ctl; sets PID and alpha's tid ALPHA.
start()
{
	local name=$1 file=$2
	shift 2
	traced "$name" RBTRACE_FILE="$file" RBT_READY="$T/$name.ready" "$@" "$APPS/ctl"
	PID=$LAUNCHED
	RBT_READY=$T/$name.ready wait_ready "main $PID" "$PID"
	RBT_READY=$T/$name.ready wait_ready "thread alpha [0-9]+" "$PID"
	ALPHA=$(awk '$1 == "thread" && $2 == "alpha" { print $3; exit }' "$T/$name.ready")
}

# The long-response program first: its 60 breakpoints are posted below.
small=$T/small.trace
start small "$small" RBTRACE_MSGSZ=64 RBTRACE_GLOBALSZ=1024
spid=$PID
SA=$ALPHA

f=$T/ctl.trace
start app "$f"
pid=$PID
A=$ALPHA

# --- Malformed commands.
send_err "$f" "$A" XYZW \
	"unknown command 'XYZW' (known: STOP CONT STEP NEXT FINI TRON TROF PING MORE DYN)"
send_err "$f" "$A" "STOP now" "STOP takes no argument"
send_err "$f" "$A" "CONT 1" "CONT takes no argument"
send_err "$f" "$A" "PING x" "PING takes no argument"
send_err "$f" "$A" BRKP "usage: BRKP FUNCTION [COUNT] [thread]"
send_err "$f" "$A" "BRKP no_such_function_x" \
	"no function 'no_such_function_x' in the program's symbols"
send_err "$f" "$A" "BCLR 99" "no breakpoint 99"
send_err "$f" "$A" BCLR "usage: BCLR ID|*"
send_err "$f" "$A" "BCLR x" "usage: BCLR ID|*"
send_ok "$f" "$A" BLST "no breakpoints"
# Command words are not case-sensitive.
send "$f" "$A" ping
[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $A\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
	fail "PING after the malformed commands: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"

# --- rbmon's usage errors.
usage_err "rbmon: --send needs --thread TID" --send PING "$f"
usage_err "rbmon: --send: a command is one word of up to four letters (STOP CONT STEP NEXT FINI BRKP BCLR BLST TRON TROF PING), got 'PINGS'" \
	--thread "$A" --send PINGS "$f"
usage_err "rbmon: invalid timeout '0' (expected 0.1..3600 seconds)" \
	--thread "$A" --timeout 0 --send PING "$f"
usage_err "rbmon: --set foo=1: unknown flag 'foo' (single, stop_on_create, trace_on_create)" \
	--set foo=1 "$f"
usage_err "rbmon: --set wants FLAG=0 or FLAG=1, not 'single=2'" --set single=2 "$f"
usage_err "rbmon: no live traced thread 2147483646 in $f" \
	--thread 2147483646 --send PING "$f"
printf 'not a trace file\n' >"$T/text"
usage_err "rbmon: $T/text: not an rbtrace trace file" --thread "$A" --send PING "$T/text"
usage_err "rbmon: $T/text: not an rbtrace trace file" --set single=1 "$T/text"

# None of that stopped anything.
send "$f" "$A" PING
[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $A\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
	fail "PING after the usage errors: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
dump_json "$f"
expect "stops of all threads after the errors" 0 \
	"$(jqv '[.processes[0].threads[] | .stops] | add')"
expect "thread states after the errors" "running running running running running" \
	"$(jqv '[.processes[0].threads[] | .state] | join(" ")')"

# --- A long BLST.  Lines: "ID hits=0 from=COUNT thread=all|TID at=ADDR ADDR".
# bps FILE TID - post the 60 breakpoints to TID (every third thread-only),
# check the replies, and build the expected BLST in $T/blst.want.
bps()
{
	local i addr count opt who only rc
	: >"$T/blst.want"
	: >"$T/brkp.want"
	: >"$T/brkp.out"
	for ((i = 1; i <= 60; i++)); do
		printf -v addr '0x5a5a%04x' $((i * 16))
		count=$((4000000000 - i))
		opt='' who=all only=''
		if ((i % 3 == 0)); then
			opt=" thread" who=$2 only=", thread $2 only"
		fi
		rc=0
		"$RBMON" --thread "$2" --send "BRKP $addr $count$opt" --timeout 10 "$1" \
			>>"$T/brkp.out" 2>"$T/send.err" || rc=$?
		[ "$rc" -eq 0 ] ||
			fail "'BRKP $addr $count$opt' to thread $2 exited $rc: $(cat "$T/send.err")"
		echo "breakpoint $i at $addr, stops from hit $count$only" >>"$T/brkp.want"
		echo "$i hits=0 from=$count thread=$who at=$addr $addr" >>"$T/blst.want"
	done
	diff "$T/brkp.want" "$T/brkp.out" >&2 ||
		fail "replies to the 60 BRKP differ from the expected ones (diff above: < expected, > replies)"
}

# blst FILE TID DESC - BLST must list exactly the 60 breakpoints.
blst()
{
	send "$1" "$2" BLST
	[ "$SENT" -eq 0 ] || fail "BLST ($3) exited $SENT: $(cat "$T/send.err")"
	expect "BLST lines ($3)" 60 "$(wc -l <"$T/send.out")"
	diff "$T/blst.want" "$T/send.out" >&2 ||
		fail "BLST ($3) differs from the breakpoints posted (diff above: < posted, > BLST)"
}

# The unknown command's answer is longer than the 64-byte message area.
send_err "$small" "$SA" XYZW \
	"unknown command 'XYZW' (known: STOP CONT STEP NEXT FINI TRON TROF PING MORE DYN)"

bps "$small" "$SA"
[ "$(wc -c <"$T/blst.want")" -gt $((64 + 1024)) ] ||
	fail "the BLST text fits a 64-byte message area and a 1024-byte global area: not a test"
blst "$small" "$SA" "RBTRACE_MSGSZ=64 RBTRACE_GLOBALSZ=1024"
send_ok "$small" "$SA" "BCLR *" "cleared 60 breakpoints"
send_ok "$small" "$SA" BLST "no breakpoints"

bps "$f" "$A"
blst "$f" "$A" "default sizes"
send_ok "$f" "$A" "BCLR *" "cleared 60 breakpoints"
send_ok "$f" "$A" BLST "no breakpoints"

for p in "$pid" "$spid"; do
	stop_and_reap "$p"
	expect "exit status of $p" 0 "$REAPED"
done
exit 0
