#!/bin/bash
# SPDX-License-Identifier: MIT
# control-create: stops at thread creation, global single stepping, and
# trace off/on, on tests/apps/ctl.
#
#  - RBTRACE_SOC=1 with "ctl exit": the main thread stops at its first hook
#    (reason stop_on_create, frames[0] main) before main_body reports "main
#    body"; CONT lets it run and the program exits 0;
#  - rbmon --set stop_on_create=1, then SIGUSR1: the new "late" thread
#    stops at the entry of late_main before its body reports "late
#    running"; CONT lets it run; threads already running never stop;
#  - rbmon --set single=1: alpha, beta, seq and late stop (reason single);
#    blocked (in read()) and main (in sigwait()) pass no hook and run on;
#    CONT to alpha runs exactly one hook: it stops at the next one in its
#    cycle; --set single=0 resumes them all;
#  - TROF on beta: "trace" false, depth 0, no frames, PING still answers;
#    a breakpoint still stops it (with no frames); TRON: frames come back.
#    --set trace=0|1 with --thread does the same as TROF/TRON.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

# set_flag [--thread TID] FLAG=V - rbmon --set on $f, must succeed silently.
set_flag()
{
	local rc=0
	"$RBMON" "$@" "$f" >"$T/set.out" 2>"$T/set.err" || rc=$?
	expect "rbmon $* exit status (stderr: $(cat "$T/set.err"))" 0 "$rc"
	expect "rbmon $* output" "" "$(cat "$T/set.out")"
}

# expect_stop DESC TID REASON AT FUNCTION FRAMES - on the last dump.
expect_stop()
{
	local d=$1 p
	p=$(th "$2")
	expect "$d: state" stopped "$(jqv "$p | .state")"
	expect "$d: stop.reason" "$3" "$(jqv "$p | .stop.reason")"
	expect "$d: stop.at" "$4" "$(jqv "$p | .stop.at")"
	expect "$d: stop.function" "$5" "$(jqv "$p | .stop.function")"
	expect "$d: frames" "$6" "$(jqv "$p | .frames | map(.function) | join(\" \")")"
}

# --- RBTRACE_SOC=1: the main thread stops before main's body.
f=$T/soc.trace
traced soc RBTRACE_FILE="$f" RBTRACE_SOC=1 RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl" exit
pid=$LAUNCHED
wait_stopped "$pid" 1 "the main thread stopped at creation (RBTRACE_SOC=1)"
expect_stop "main thread with RBTRACE_SOC=1" "$pid" stop_on_create entry main main
ready "main body" && fail "'main body' reported while main is stopped at creation"
send_ok "$f" "$pid" PING "pong pid $pid tid $pid depth 1 stopped trace on"
ready "main body" && fail "'main body' reported while main is stopped at creation"
send_ok "$f" "$pid" CONT continuing
wait_ready "main body"
rc=0
wait "$pid" || rc=$?
expect "exit status of 'ctl exit' after CONT" 0 "$rc"
[ -s "$T/soc.err" ] && fail "unexpected stderr of 'ctl exit': $(cat "$T/soc.err")"

# --- stop_on_create set by rbmon, for a thread created later.
: >"$RBT_READY"
f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)
K=$(tid_of blocked)

set_flag --set stop_on_create=1
kill -USR1 "$pid"
created='[.processes[0].threads[] | select(.stop.reason == "stop_on_create")]'
wait_json "$f" "$created | length == 1" "the new thread stopped at creation"
L=$(jqv "${created}[0].tid")
expect_stop "the new thread" "$L" stop_on_create entry late_main late_main
expect "the new thread's stops" 1 "$(jqv "$(th "$L") | .stops")"
ready "late running" && fail "'late running' reported while the thread is stopped at creation"
for t in "$pid" "$A" "$B" "$S" "$K"; do
	expect "thread $t state with stop_on_create=1" running "$(jqv "$(th "$t") | .state")"
	expect "thread $t stops with stop_on_create=1" 0 "$(jqv "$(th "$t") | .stops")"
done
send_ok "$f" "$L" PING "pong pid $pid tid $L depth 1 stopped trace on"
ready "late running" && fail "'late running' reported while the thread is stopped at creation"
send_ok "$f" "$L" CONT continuing
wait_ready "late running" "$pid"
wait_ready "thread late $L" "$pid"
set_flag --set stop_on_create=0
wait_json "$f" "$(th "$L") | .state == \"running\" and .name == \"late\"" "late running after CONT"

# --- Global single stepping.
set_flag --set single=1
stepping="$A $B $S $L"
all_single()	# all_single STATE - the four stepping threads are STATE (stopped: for single)
{
	local t
	for t in $stepping; do
		echo "($(th "$t") | .state == \"$1\"$([ "$1" = stopped ] && echo ' and .stop.reason == "single"'))"
	done | paste -sd, | sed 's/^/[/; s/$/] | all/'
}
wait_json "$f" "$(all_single stopped)" "alpha, beta, seq and late stopped by single=1"
for t in "$pid" "$K"; do
	expect "thread $t (passes no hook) state with single=1" running "$(jqv "$(th "$t") | .state")"
	expect "thread $t (passes no hook) stops with single=1" 0 "$(jqv "$(th "$t") | .stops")"
done

# alpha's hooks, in order: > alpha_work, > alpha_leaf, < alpha_leaf,
# < alpha_work (then it naps and starts over).  CONT runs one of them.
next_hook()
{
	case $1 in
	"entry alpha_work") echo "entry alpha_leaf" ;;
	"entry alpha_leaf") echo "exit alpha_leaf" ;;
	"exit alpha_leaf") echo "exit alpha_work" ;;
	"exit alpha_work") echo "entry alpha_work" ;;
	*) fail "alpha stopped at an unexpected hook: $1" ;;
	esac
}
for round in 1 2 3; do
	dump_json "$f"
	n=$(jqv "$(th "$A") | .stops")
	was="$(jqv "$(th "$A") | .stop.at") $(jqv "$(th "$A") | .stop.function")"
	want=$(next_hook "$was")
	send_ok "$f" "$A" CONT continuing
	wait_stopped "$A" $((n + 1)) "alpha stopped again after CONT under single (round $round)"
	expect "alpha's reason after CONT under single (round $round)" single \
		"$(jqv "$(th "$A") | .stop.reason")"
	expect "alpha's stop after CONT at '$was' (round $round)" "$want" \
		"$(jqv "$(th "$A") | .stop.at") $(jqv "$(th "$A") | .stop.function")"
	for t in $B $S $L; do
		expect "thread $t still stopped for single (round $round)" \
			"stopped single" "$(jqv "$(th "$t") | .state + \" \" + .stop.reason")"
	done
done
set_flag --set single=0
wait_json "$f" "$(all_single running)" "alpha, beta, seq and late running after single=0"

# --- Trace off and on (beta, stopped once by single).
send_ok "$f" "$B" TROF "trace off"
dump_json "$f"
n=$(jqv "$(th "$B") | .stops")
expect "beta's trace after TROF" false "$(jqv "$(th "$B") | .trace")"
expect "beta's depth after TROF" 0 "$(jqv "$(th "$B") | .depth")"
expect "beta's frames after TROF" 0 "$(jqv "$(th "$B") | .frames | length")"
send_ok "$f" "$B" PING "pong pid $pid tid $B depth 0 running trace off"
# A breakpoint still stops it, with nothing on the stack.
send_ok "$f" "$B" "BRKP beta_odd thread" "breakpoint 1 at beta_odd, thread $B only"
wait_stopped "$B" $((n + 1)) "beta stopped at breakpoint 1 with trace off"
expect_stop "beta at beta_odd with trace off" "$B" breakpoint entry beta_odd ""
expect "beta's trace at the stop" false "$(jqv "$(th "$B") | .trace")"
expect "beta's depth at the stop" 0 "$(jqv "$(th "$B") | .depth")"
send_ok "$f" "$B" TRON "trace on"
send_ok "$f" "$B" CONT continuing
# The stack restarts empty at TRON: the next beta_odd is its only frame.
wait_stopped "$B" $((n + 2)) "beta stopped at breakpoint 1 with trace on"
expect_stop "beta at beta_odd with trace on" "$B" breakpoint entry beta_odd beta_odd
expect "beta's trace after TRON" true "$(jqv "$(th "$B") | .trace")"
expect "beta's depth after TRON" 1 "$(jqv "$(th "$B") | .depth")"
send_ok "$f" "$B" "BCLR *" "cleared 1 breakpoint"
send_ok "$f" "$B" CONT continuing

# The same through --set trace=0|1 (seq).
set_flag --thread "$S" --set trace=0
dump_json "$f"
expect "seq's trace after --set trace=0" false "$(jqv "$(th "$S") | .trace")"
expect "seq's depth after --set trace=0" 0 "$(jqv "$(th "$S") | .depth")"
send_ok "$f" "$S" PING "pong pid $pid tid $S depth 0 running trace off"
set_flag --thread "$S" --set trace=1
dump_json "$f"
expect "seq's trace after --set trace=1" true "$(jqv "$(th "$S") | .trace")"
send "$f" "$S" PING
[[ $(cat "$T/send.out") =~ ^pong\ pid\ $pid\ tid\ $S\ depth\ [0-9]+\ running\ trace\ on$ ]] ||
	fail "PING to seq after --set trace=1: exit $SENT, '$(cat "$T/send.out")' $(cat "$T/send.err")"

stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
