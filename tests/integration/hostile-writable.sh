#!/bin/bash
# SPDX-License-Identifier: MIT
# hostile-writable: rbmon warns, once, on stderr (the screen: on its
# message line) when it writes into a trace file that others than its
# owner can write to; it says nothing for the private file librbtrace
# makes, nor when it only reads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/simple.trace
traced app RBTRACE_FILE="$f" "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
warning="rbmon: warning: $f is writable by others than its owner: they can change what rbmon writes to it (librbtrace joins no such file)"

# writes NAME ARGS... - rbmon ARGS... FILE must succeed; stderr in $T/NAME.err.
writes()
{
	local name=$1 rc=0
	shift
	"$RBMON" "$@" "$f" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	expect "rbmon $* status (stderr: $(cat "$T/$name.err"))" 0 "$rc"
}

expect "the file as librbtrace made it" 600 "$(stat -c %a "$f")"
writes set0 --set stop_on_create=0
expect "no warning on a private file (--set)" "" "$(cat "$T/set0.err")"
writes blst0 -t "$pid" --send BLST
expect "no warning on a private file (--send)" "" "$(cat "$T/blst0.err")"
expect "BLST's answer" "no breakpoints" "$(cat "$T/blst0.out")"

for mode in 620 602 666; do
	chmod "$mode" "$f"
	writes "set$mode" --set stop_on_create=0
	expect "the warning, once, mode $mode (--set)" "$warning" "$(cat "$T/set$mode.err")"
	writes "blst$mode" -t "$pid" --send BLST
	expect "the warning, once, mode $mode (--send)" "$warning" "$(cat "$T/blst$mode.err")"
	expect "BLST's answer, mode $mode" "no breakpoints" "$(cat "$T/blst$mode.out")"
	writes "dump$mode" --dump
	expect "no warning when only reading (mode $mode)" "" "$(cat "$T/dump$mode.err")"
done
chmod 640 "$f"
writes set640 --set stop_on_create=0
expect "no warning, group-readable only" "" "$(cat "$T/set640.err")"

# The screen writes its heartbeat: the message line says it.
chmod 620 "$f"
tui_start 100 24 "$RBMON" "$f"
tui_wait "warning: the file is writable by others than its owner" "the warning on the message line"
tui_quit "a group-writable file"
exit 0
