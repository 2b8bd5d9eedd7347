#!/bin/bash
# SPDX-License-Identifier: MIT
# dyn-break: a breakpoint on a function switched off (rbtrace --exclude)
# would never be hit: BRKP switches it back on through the thread it is
# posted to, says so, and the thread stops there; for a program asleep,
# rbmon says it must be woken first.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control.sh"
need_attach

app=$APPS/dyncount-gcc
[ -x "$app" ] || skip "no $app (gcc not found by configure)"
f=$T/dc.trace
launch dc env RBTRACE_ORPHAN_TIMEOUT=0 "$RBTRACE" --exclude dc_mid --file "$f" -- "$app" -l -t 1 -n 200
wait_ready "round 2" "$LAUNCHED"
pid=$(ready_field running 2)
wait_json "$f" "[.processes[].threads[] | select(.name == \"dc-0\")] | length == 1" "thread dc-0"
D=$(jqv '.processes[].threads[] | select(.name == "dc-0") | .tid')
expect "dc_mid off" '["dc_mid"]' "$(jqv -c ".processes[] | select(.pid == $pid) | .dynamic.off | map(.function)")"
send_ok "$f" "$D" "BRKP dc_mid" "breakpoint 1 at dc_mid; it was not traced (switched off): switched back on"
wait_stopped "$D" 1 "dc-0 stopped at dc_mid"
expect "dc-0's stop" "breakpoint dc_mid" \
	"$(jqv "$(th "$D") | \"\(.stop.reason) \(.stop.function)\"")"
expect "nothing off any more" 0 "$(jqv ".processes[] | select(.pid == $pid) | .dynamic.functions_off")"
send_ok "$f" "$D" "BCLR 1" "cleared breakpoint 1"
send_ok "$f" "$D" CONT continuing
wait_running "$D" "dc-0 running on"

# Asleep: no thread is traced; a breakpoint for the process says to wake it.
"$RBTRACE" -p "$pid" --detach >/dev/null 2>"$T/sleep.err" || fail "sleep: $(cat "$T/sleep.err")"
"$RBMON" --send "BRKP dc_leaf" -p "$pid" "$f" >"$T/send.out" 2>"$T/send.err" &&
	fail "BRKP of a process asleep answered: $(cat "$T/send.out")"
expect "BRKP of a process asleep" \
	"rbmon: process $pid is asleep (dynamic tracing): no thread is traced until rbtrace -p $pid wakes it" \
	"$(head -1 "$T/send.err")"
ready "bad .*" && fail "a result changed: $(grep bad "$RBT_READY")"
exit 0
