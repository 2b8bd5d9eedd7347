#!/bin/bash
# SPDX-License-Identifier: MIT
# control-step: STEP, NEXT, FINI, STOP, CONT and --set signal=1 on
# tests/apps/ctl.
#
# "seq" runs seq_outer -> seq_first; seq_second -> seq_inner; seq_third in
# a loop.  Stopped at the entry of seq_second (a breakpoint, then cleared):
#   STEP -> entry of seq_inner; STEP -> exit of seq_inner (frames[0]
#   seq_second); NEXT -> exit of seq_second; NEXT -> exit of seq_third
#   (over its entry); FINI -> exit of seq_outer (frames[0] seq_main);
#   and FINI from the entry of seq_second -> exit of seq_second.
# On "beta" (running): STOP -> stopped, reason stop, at the depth the reply
# gives; STOP again -> "already stopped"; CONT -> running; CONT again ->
# "not stopped"; STEP on a running thread stops at its next hook; --set
# signal=1 stops it with reason signal.
#
# Every stop is awaited through the thread's "stops" counter: right after a
# command that resumes it the thread may still show its previous stop.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"

f=$T/ctl.trace
# 0: no stop of this test ends by itself, however loaded the machine.
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=0 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)

# expect_stop DESC TID REASON AT FUNCTION FRAMES [BREAKPOINT] - on the last dump.
expect_stop()
{
	local d=$1 p
	p=$(th "$2")
	expect "$d: state" stopped "$(jqv "$p | .state")"
	expect "$d: stop.reason" "$3" "$(jqv "$p | .stop.reason")"
	expect "$d: stop.at" "$4" "$(jqv "$p | .stop.at")"
	expect "$d: stop.function" "$5" "$(jqv "$p | .stop.function")"
	expect "$d: frames" "$6" "$(jqv "$p | .frames | map(.function) | join(\" \")")"
	expect "$d: depth" "$(wc -w <<<"$6")" "$(jqv "$p | .depth")"
	expect "$d: stop.breakpoint" "${7:-null}" "$(jqv "$p | .stop.breakpoint")"
}

# step CMD REPLY STOPS REASON AT FUNCTION FRAMES - post CMD to the stopped
# seq and wait for its next stop (number STOPS), which must be this one.
step()
{
	send_ok "$f" "$S" "$1" "$2"
	wait_stopped "$S" "$3" "seq's stop $3 after $1"
	expect_stop "after $1 (stop $3)" "$S" "${@:4}"
}

# --- Stepping through seq_outer from the entry of seq_second.
send_ok "$f" "$S" "BRKP seq_second" "breakpoint 1 at seq_second"
wait_stopped "$S" 1 "seq stopped at breakpoint 1"
expect_stop "at breakpoint 1" "$S" breakpoint entry seq_second \
	"seq_second seq_outer seq_main" 1
send_ok "$f" "$S" "BCLR *" "cleared 1 breakpoint"
step STEP stepping 2 step entry seq_inner "seq_inner seq_second seq_outer seq_main"
step STEP stepping 3 step exit seq_inner "seq_second seq_outer seq_main"
step NEXT "stepping over" 4 next exit seq_second "seq_outer seq_main"
step NEXT "stepping over" 5 next exit seq_third "seq_outer seq_main"
step FINI finishing 6 finish exit seq_outer "seq_main"

# FINI from the entry of seq_second: over seq_inner, to seq_second's exit.
send_ok "$f" "$S" "BRKP seq_second" "breakpoint 2 at seq_second"
send_ok "$f" "$S" CONT continuing
wait_stopped "$S" 7 "seq stopped at breakpoint 2"
expect_stop "at breakpoint 2" "$S" breakpoint entry seq_second \
	"seq_second seq_outer seq_main" 2
send_ok "$f" "$S" "BCLR 2" "cleared breakpoint 2"
step FINI finishing 8 finish exit seq_second "seq_outer seq_main"
send_ok "$f" "$S" CONT continuing
wait_running "$S" "seq running after CONT"

# --- STOP and CONT on beta.  Its hooks are the entries and exits of
# beta_even and beta_odd: stopped at an entry the stack is F beta_main,
# at an exit just beta_main.
# expect_beta_stop DESC REASON DEPTH - beta's stop on the last dump.
expect_beta_stop()
{
	local p at fn
	p=$(th "$B")
	expect "$1: state" stopped "$(jqv "$p | .state")"
	expect "$1: stop.reason" "$2" "$(jqv "$p | .stop.reason")"
	at=$(jqv "$p | .stop.at")
	fn=$(jqv "$p | .stop.function")
	case $fn in
	beta_even | beta_odd) ;;
	*) fail "$1: stop.function: expected beta_even or beta_odd, got '$fn'" ;;
	esac
	case $at in
	entry) expect "$1: frames (entry of $fn)" "$fn beta_main" \
		"$(jqv "$p | .frames | map(.function) | join(\" \")")" ;;
	exit) expect "$1: frames (exit of $fn)" beta_main \
		"$(jqv "$p | .frames | map(.function) | join(\" \")")" ;;
	*) fail "$1: stop.at: expected entry or exit, got '$at'" ;;
	esac
	[ -z "${3:-}" ] || expect "$1: depth (as the reply said)" "$3" "$(jqv "$p | .depth")"
}

send "$f" "$B" STOP
[ "$SENT" -eq 0 ] || fail "STOP to beta exited $SENT: $(cat "$T/send.err")"
reply=$(cat "$T/send.out")
[[ $reply =~ ^stopped\ at\ depth\ ([12])$ ]] ||
	fail "reply to STOP on the running beta: expected 'stopped at depth 1|2', got '$reply'"
depth=${BASH_REMATCH[1]}
wait_stopped "$B" 1 "beta stopped by STOP"
expect_beta_stop "after STOP" stop "$depth"
send_ok "$f" "$B" STOP "already stopped"
dump_json "$f"
expect "beta's stops after a second STOP" 1 "$(jqv "$(th "$B") | .stops")"
expect_beta_stop "after the second STOP" stop "$depth"
send_ok "$f" "$B" CONT continuing
wait_running "$B" "beta running after CONT"
send_ok "$f" "$B" CONT "not stopped"

# STEP on a running thread: it stops at the hook that takes the command.
send "$f" "$B" STEP
[ "$SENT" -eq 0 ] || fail "STEP to beta exited $SENT: $(cat "$T/send.err")"
reply=$(cat "$T/send.out")
[[ $reply =~ ^stopped\ at\ depth\ ([12])$ ]] ||
	fail "reply to STEP on the running beta: expected 'stopped at depth 1|2', got '$reply'"
wait_stopped "$B" 2 "beta stopped by STEP"
expect_beta_stop "after STEP on the running beta" step "${BASH_REMATCH[1]}"
send_ok "$f" "$B" CONT continuing
wait_running "$B" "beta running after the STEP stop"

# --set signal=1: no reply to wait for, beta stops at its next hook.
rc=0
"$RBMON" --thread "$B" --set signal=1 "$f" >"$T/set.out" 2>"$T/set.err" || rc=$?
expect "rbmon --set signal=1 exit status (stderr: $(cat "$T/set.err"))" 0 "$rc"
expect "rbmon --set signal=1 output" "" "$(cat "$T/set.out")"
wait_stopped "$B" 3 "beta stopped by --set signal=1"
expect_beta_stop "after --set signal=1" signal
send_ok "$f" "$B" CONT continuing
wait_running "$B" "beta running after the signal stop"

dump_json "$f"
expect "alpha never stopped" 0 "$(jqv "$(th "$A") | .stops")"
expect "alpha state" running "$(jqv "$(th "$A") | .state")"
expect "seq state" running "$(jqv "$(th "$S") | .state")"
stop_and_reap "$pid"
expect "exit status" 0 "$REAPED"
exit 0
