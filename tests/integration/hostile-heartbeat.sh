#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-heartbeat: nothing written into the file holds a stopped thread
# past the orphan timeout (RBTRACE_ORPHAN_TIMEOUT=3) when no monitor is
# there:
#  - alpha, stopped by rbmon, then monitor_heartbeat_ns = now + 10^15
#    written by a stray writer (tests/apps/hostile): alpha resumes by
#    itself 3 s after that (not sooner; at most 1 s later, plus this test's
#    slack of 5 s for a loaded machine);
#  - beta, stopped by the stray writer with the future heartbeat already
#    written: it resumes 3 s after its stop;
#  - seq, stopped by rbmon, then its own ring's stop_ns set 10^15 ns ahead:
#    it resumes 3 s after its stop;
# each counts one orphan resume and says so in one line on stderr; the
# program runs on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=3 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)

ms() { echo $(($(date +%s%N) / 1000000)); }

# hostile TID STEP... - the stray writer.
hostile()
{
	local tid=$1 rc=0
	shift
	"$APPS/hostile" "$f" "$tid" "$@" >"$T/hostile.out" 2>"$T/hostile.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "hostile $* exited $rc: $(cat "$T/hostile.out" "$T/hostile.err")"
}

# resumes TID T0 DESC - TID must resume by itself 3 s after T0 (ms), not sooner.
resumes()
{
	local took
	wait_json "$f" "$(th "$1") | .state == \"running\" and .orphan_resumes == 1" \
		"$3 to resume by itself"
	took=$(($(ms) - $2))
	[ "$took" -ge 3000 ] || fail "$3 resumed after $took ms, before the 3 s orphan timeout"
	[ "$took" -le 9000 ] || fail "$3 resumed after $took ms, not within 3 + 1 s (5 s of slack)"
	note "$3 resumed by itself after $took ms"
}

# --- A heartbeat from the future, written while alpha is stopped.
send "$f" "$A" STOP
[ "$SENT" -eq 0 ] || fail "STOP to alpha exited $SENT: $(cat "$T/send.err")"
wait_stopped "$A" 1 "alpha stopped"
t0=$(ms)
hostile "$A" hdr monitor_heartbeat_ns=+1000000000000000
resumes "$A" "$t0" "alpha (heartbeat 10^15 ns ahead, written after the stop)"

# --- A heartbeat from the future already there when beta stops.
t0=$(ms)
hostile "$B" hdr monitor_heartbeat_ns=+1000000000000000 send STOP ''
[[ $(cat "$T/hostile.out") =~ ^OK\ stopped\ at\ depth\ [0-9]+$ ]] ||
	fail "STOP to beta by the stray writer: '$(cat "$T/hostile.out")'"
resumes "$B" "$t0" "beta (heartbeat 10^15 ns ahead, written before the stop)"

# --- The stopped thread's own stop_ns rewritten: it keeps its own.
t0=$(ms)
send "$f" "$S" STOP
[ "$SENT" -eq 0 ] || fail "STOP to seq exited $SENT: $(cat "$T/send.err")"
wait_stopped "$S" 1 "seq stopped"
hostile "$S" ring stop_ns=+1000000000000000
resumes "$S" "$t0" "seq (its stop_ns set 10^15 ns ahead)"

sort "$T/app.err" >"$T/err.sorted"
printf 'rbtrace: thread %s resumed by itself: no monitor for 3 s (RBTRACE_ORPHAN_TIMEOUT)\n' \
	"$A" "$B" "$S" | sort >"$T/err.want"
diff "$T/err.want" "$T/err.sorted" >&2 ||
	fail "the program's stderr differs (diff above: < expected, > stderr)"
for t in "$A" "$B" "$S"; do
	send "$f" "$t" PING
	[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $t\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
		fail "PING to $t after its resume: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
done
stop_and_reap "$pid"
expect "exit status of the program" 0 "$REAPED"
exit 0
