#!/bin/bash
# SPDX-License-Identifier: MIT
# wedged: a command area left in a state that nobody will finish is taken
# over by the next monitor (rbtrace(5), "Command handshake").  A stray
# writer (tests/apps/hostile) leaves alpha's area
#  - 3, being executed, which the thread never finishes;
#  - 1, posted, by pid 1 (alive, not ours), with the attention bit clear so
#    the thread never looks;
#  - -2, answered, for a live process (this shell) that never reads it;
# and each time rbmon --send PING waits, takes the area over once it has
# stayed so for 2 s (not sooner) and gets alpha's pong;
#  - 7, no state of the protocol, with a live cmdpid: rbmon takes it at
#    once (well before 2 s).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)

ms() { echo $(($(date +%s%N) / 1000000)); }

# wedge DESC MIN MAX RING-FIELD=VALUE... - leave alpha's area so, then
# PING must answer after MIN to MAX ms.
wedge()
{
	local desc=$1 min=$2 max=$3 rc=0 t0 took a=()
	shift 3
	for v; do a+=(ring "$v"); done
	"$APPS/hostile" "$f" "$A" "${a[@]}" >"$T/hostile.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "hostile $* exited $rc: $(cat "$T/hostile.out")"
	t0=$(ms)
	send "$f" "$A" PING
	took=$(($(ms) - t0))
	[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $A\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
		fail "PING to alpha with its area $desc: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
	[ "$took" -ge "$min" ] || fail "PING with alpha's area $desc answered after $took ms, before $min ms"
	[ "$took" -le "$max" ] || fail "PING with alpha's area $desc answered after $took ms, not within $max ms"
	note "alpha's area $desc: PING answered after $took ms"
}

wedge "being executed (3), never finished" 2000 12000 cmdready=3
wedge "posted (1) by pid 1, never seen" 2000 12000 cmdready=1 cmdpid=1
wedge "answered (-2) for a live process, never read" 2000 12000 cmdready=-2 cmdpid=$$
wedge "in no state of the protocol (7)" 0 1900 cmdready=7 cmdpid=$$

send "$f" "$A" PING
[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $A\ depth ]] ||
	fail "PING to alpha afterwards: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
stop_and_reap "$pid"
expect "exit status of the program" 0 "$REAPED"
expect "the program's stderr" "" "$(cat "$T/app.err")"
exit 0
