#!/bin/bash
# SPDX-License-Identifier: MIT
# control-blocked: threads that cannot answer, and stops nobody ends.
#
#  - "blocked" sits in read() and passes no hook: PING and STOP with
#    --timeout 1 exit 2 saying it did not answer and that the command was
#    withdrawn (the second one too: the first left the area free, so not
#    "busy"); once SIGUSR2 releases it, the withdrawn STOP is never run: it
#    takes commands again and enters blocked_loop over and over (counted by
#    a breakpoint that never stops) with stops still 0;
#  - RBTRACE_ORPHAN_TIMEOUT=2: alpha stopped by STOP resumes by itself once
#    no monitor showed a heartbeat for 2 s (not earlier), counts an orphan
#    resume and says so on the program's stderr;
#  - RBTRACE_ORPHAN_TIMEOUT=abc: one warning line at start, the program
#    runs, and the default (10 s) applies: a stopped thread resumes by
#    itself after 10 s, not 2.  That second program runs alongside the rest.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# --- The program with the bad RBTRACE_ORPHAN_TIMEOUT, started first; its
# own ready file.
g=$T/abc.trace
traced abc RBTRACE_FILE="$g" RBTRACE_ORPHAN_TIMEOUT=abc RBT_READY="$T/abc.ready" "$APPS/ctl"
gpid=$LAUNCHED
RBT_READY=$T/abc.ready wait_ready "main $gpid" "$gpid"
RBT_READY=$T/abc.ready wait_ready "thread alpha [0-9]+" "$gpid"
GA=$(awk '$1 == "thread" && $2 == "alpha" { print $3; exit }' "$T/abc.ready")
expect "stderr of the program with RBTRACE_ORPHAN_TIMEOUT=abc" \
	"rbtrace: RBTRACE_ORPHAN_TIMEOUT=abc: not a number of seconds from 0 to 86400; using 10" \
	"$(cat "$T/abc.err")"
# Stopped now; left alone (no rbmon --send on $g) until it resumes.  The
# clock starts before the STOP: the stop and rbmon's last heartbeat are
# later, so the resume comes 10 s after this at the earliest.
gstart=$(now_ms)
send "$g" "$GA" STOP
[ "$SENT" -eq 0 ] || fail "STOP to alpha (RBTRACE_ORPHAN_TIMEOUT=abc) exited $SENT: $(cat "$T/send.err")"
wait_json "$g" "$(th "$GA") | .state == \"stopped\" and .stop.reason == \"stop\"" \
	"alpha stopped (RBTRACE_ORPHAN_TIMEOUT=abc)"

# --- The main program: the blocked thread.
f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=2 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
K=$(tid_of blocked)

# "thread blocked" is reported just before blocked_wait is entered: wait
# until the thread is past that hook and asleep (in read()).
in_read()
{
	json_true "$f" "$(th "$K") | (.frames | map(.function)) == [\"blocked_wait\", \"blocked_main\"]" ||
		return 1
	awk '{ sub(/^.*\) /, ""); print "state " $1; exit $1 != "S" }' "/proc/$pid/task/$K/stat"
}
wait_for "the blocked thread asleep in blocked_wait" in_read

noanswer="rbmon: thread $K did not answer within 1 s: it passed no hook since (blocked in a system call, or running code built without -finstrument-functions); the command was withdrawn, nothing was done"
for cmd in PING STOP STOP; do
	send "$f" "$K" "$cmd" --timeout 1
	expect "exit status of '$cmd' to the blocked thread" 2 "$SENT"
	expect "stdout of '$cmd' to the blocked thread" "" "$(cat "$T/send.out")"
	expect "stderr of '$cmd' to the blocked thread" "$noanswer" "$(cat "$T/send.err")"
done
dump_json "$f"
expect "blocked thread's state" running "$(jqv "$(th "$K") | .state")"
expect "blocked thread's stops" 0 "$(jqv "$(th "$K") | .stops")"
expect "blocked thread's frames" "blocked_wait blocked_main" \
	"$(jqv "$(th "$K") | .frames | map(.function) | join(\" \")")"

kill -USR2 "$pid"
wait_ready "blocked released" "$pid"
# It takes commands again (the area was left empty), and keeps entering
# blocked_loop without stopping: the withdrawn STOP is gone.
send_ok "$f" "$K" "BRKP blocked_loop 1000000000 thread" \
	"breakpoint 1 at blocked_loop, stops from hit 1000000000, thread $K only"
hits_reach()	# hits_reach N - breakpoint 1 counted N hits (no fail: wait_for)
{
	local h
	h=$("$RBMON" --thread "$K" --send BLST --timeout 10 "$f" 2>&1 |
		awk '$1 == 1 && $2 ~ /^hits=/ { print substr($2, 6) }')
	echo "breakpoint 1 (blocked_loop): hits=${h:-?}, want >= $1"
	[ -n "$h" ] && [ "$h" -ge "$1" ]
}
wait_for "the released thread entering blocked_loop 20 times" hits_reach 20
dump_json "$f"
expect "released thread's state" running "$(jqv "$(th "$K") | .state")"
expect "released thread's stops (the withdrawn STOP never ran)" 0 "$(jqv "$(th "$K") | .stops")"
send "$f" "$K" PING
[[ $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $K\ depth\ [12]\ running\ trace\ on$ ]] ||
	fail "PING to the released thread: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
send_ok "$f" "$K" "BCLR 1" "cleared breakpoint 1"

# --- The orphan timeout (2 s): no monitor after the STOP.
start=$(now_ms)
send "$f" "$A" STOP
[[ $SENT -eq 0 && $(cat "$T/send.out") =~ ^stopped\ at\ depth\ [0-9]+$ ]] ||
	fail "STOP to alpha: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"
dump_json "$f"
# (A dump done within 2 s of the STOP must see it stopped; a slower one, on
# a loaded machine, may not.)
if [ $(($(now_ms) - start)) -lt 2000 ]; then
	expect "alpha's state after STOP" stopped "$(jqv "$(th "$A") | .state")"
	expect "alpha's stop reason" stop "$(jqv "$(th "$A") | .stop.reason")"
	expect "alpha's orphan_resumes while stopped" 0 "$(jqv "$(th "$A") | .orphan_resumes")"
else
	note "the dump after STOP came 2 s late: not checking alpha's stop"
fi
wait_json "$f" "$(th "$A") | .state == \"running\" and .orphan_resumes >= 1" \
	"alpha resuming by itself (RBTRACE_ORPHAN_TIMEOUT=2)"
took=$(($(now_ms) - start))
[ "$took" -ge 2000 ] || fail "alpha resumed by itself after ${took} ms, before the 2 s orphan timeout"
expect "alpha's orphan_resumes" 1 "$(jqv "$(th "$A") | .orphan_resumes")"
expect "alpha's stops" 1 "$(jqv "$(th "$A") | .stops")"
expect "the program's stderr (RBTRACE_ORPHAN_TIMEOUT=2)" \
	"rbtrace: thread $A resumed by itself: no monitor for 2 s (RBTRACE_ORPHAN_TIMEOUT)" \
	"$(cat "$T/app.err")"

# --- Back to the RBTRACE_ORPHAN_TIMEOUT=abc program: the default applies.
wait_json "$g" "$(th "$GA") | .state == \"running\" and .orphan_resumes >= 1" \
	"alpha resuming by itself after the default 10 s (RBTRACE_ORPHAN_TIMEOUT=abc)"
took=$(($(now_ms) - gstart))
[ "$took" -ge 10000 ] ||
	fail "alpha (RBTRACE_ORPHAN_TIMEOUT=abc) resumed by itself after ${took} ms, before the default 10 s"
expect "orphan_resumes (RBTRACE_ORPHAN_TIMEOUT=abc)" 1 "$(jqv "$(th "$GA") | .orphan_resumes")"
expect "stderr of the program with RBTRACE_ORPHAN_TIMEOUT=abc, after the resume" \
	"rbtrace: RBTRACE_ORPHAN_TIMEOUT=abc: not a number of seconds from 0 to 86400; using 10
rbtrace: thread $GA resumed by itself: no monitor for 10 s (RBTRACE_ORPHAN_TIMEOUT)" \
	"$(cat "$T/abc.err")"
send "$g" "$GA" PING
[[ $(cat "$T/send.out") =~ ^pong\ pid\ $gpid\ tid\ $GA\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
	fail "PING to alpha (RBTRACE_ORPHAN_TIMEOUT=abc) after it resumed: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"

for p in "$pid" "$gpid"; do
	stop_and_reap "$p"
	expect "exit status of $p" 0 "$REAPED"
done
exit 0
