#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-quit: every way out of the interactive monitor gives the terminal back.
# q, F10 and C-c quit with status 0; SIGTERM, SIGHUP and SIGINT sent to rbmon
# end it with status 0 too; each time the terminal is restored and the
# traced program keeps running.  With the program in the same foreground
# process group of the same terminal, C-c in rbmon is a key, not a SIGINT:
# the program survives it (while a C-c on that terminal once rbmon is gone
# does end it, so the set-up would catch a leak).  rbmon on a file that
# does not exist, or is not a trace file, exits 1 with one line on stderr
# and leaves the terminal alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

# alive PID - the process exists and is not a zombie.
alive()
{
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "${st%% *}" != Z ]
}
dead() { ! alive "$1"; }

# stat_field PID N - field N of /proc/PID/stat, counted after "(comm)" as
# in proc(5) (3 = state, 5 = pgrp, 8 = tpgid).
stat_field() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f$(($2 - 2)); }

f=$T/parked.trace
traced app RBTRACE_FILE="$f" "$APPS/parked"
pid=$LAUNCHED
wait_ready worker "$pid"
wait_ready "main $pid" "$pid"
WORKER_ROW='^[^ 0-9A-Za-z]+ +[0-9]+ +worker +running +'"$KC"' +4 +[^ ]+ +func_c *$'

# monitor - a fresh pane with rbmon on the parked program, up and drawn.
monitor()
{
	tmx kill-server 2>/dev/null
	tui_start 80 24 "$RBMON" "$f"
	tui_wait "$WORKER_ROW" "the worker row"
	expect "alternate screen while rbmon runs" 1 "$(tui_pane '#{alternate_on}')"
}

# after_quit HOW - rbmon ended with status 0, the terminal is as before, and
# the program is still running.
after_quit()
{
	tui_wait_exit
	expect "rbmon status after $1" 0 "$TUI_RC"
	tui_restored
	[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr after $1: $(cat "$T/tui.err")"
	alive "$pid" || fail "the traced program died when rbmon ended by $1"
}

for key in q F10 C-c; do
	monitor
	tui_keys "$key"
	after_quit "key $key"
done

for sig in TERM HUP INT; do
	monitor
	wait_for "rbmon's pid" rbmon_pid
	mon=$(cat "$T/wait.last")
	kill -"$sig" "$mon"
	after_quit "SIG$sig"
	dead "$mon" || fail "rbmon $mon still there after SIG$sig"
done
stop_and_reap "$pid"
expect "parked status" 0 "$REAPED"

# The program and rbmon share the terminal and its foreground process
# group, SIGINT at its default (the & of a non-interactive shell would
# ignore it): the way `rbtrace --monitor` runs them.  tuilife ends on
# SIGINT; on SIGUSR1 it reports "printed N" instead.
tmx kill-server 2>/dev/null
: >"$RBT_READY"
f=$T/shared.trace
tui_start 80 24 RBT_READY="$RBT_READY" bash -c '
	env --default-signal=INT,QUIT LD_PRELOAD="$1" RBTRACE_FILE="$2" \
		"$3" >"$2.out" 2>&1 &
	n=0
	until grep -qx "main $!" "$RBT_READY" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -gt 300 ] && { echo "tuilife not ready" >&2; exit 99; }
		sleep 0.1
	done
	exec "$4" "$2"' bash "$RB_PRELOAD" "$f" "$APPS/tuilife" "$RBMON"
wait_ready "main [0-9]+"
pid=$(ready_field main 2)
STARTED+=("$pid")	# not our child: make sure cleanup ends it
tui_wait '^[^ 0-9A-Za-z]+ +[0-9]+ +lifeworker +running +'"$KC"' +3 +[^ ]+ +life_inner *$' "the worker row"
wait_for "rbmon's pid" rbmon_pid
mon=$(cat "$T/wait.last")
expect "tuilife and rbmon in one process group" "$(stat_field "$mon" 5)" "$(stat_field "$pid" 5)"
expect "that group is the terminal's foreground group" "$(stat_field "$mon" 5)" "$(stat_field "$mon" 8)"
expect "tuilife does not ignore SIGINT" 0 \
	$((0x$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$pid/status") & 2))
tui_keys C-c
tui_wait_exit
expect "rbmon status after C-c (shared terminal)" 0 "$TUI_RC"
tui_restored
# Had the C-c been a SIGINT, it would be pending or taken by now, and
# tuilife (which takes the lowest pending signal first) ends instead of
# answering SIGUSR1.
kill -USR1 "$pid"
wait_ready "printed 1" "$pid"
alive "$pid" || fail "C-c in rbmon ended the traced program sharing its terminal"
# Control: rbmon gone, the terminal is cooked again and C-c is a SIGINT
# to the foreground group, the program included.
tui_keys C-c
wait_for "tuilife to end on a C-c typed once rbmon is gone" dead "$pid"

# A file that does not exist or is not a trace file: status 1, one line.
for what in missing junk; do
	tmx kill-server 2>/dev/null
	bad=$T/$what.trace
	[ "$what" == junk ] && head -c 1000 /dev/urandom >"$bad"
	tui_start 80 24 "$RBMON" "$bad"
	tui_wait_exit
	expect "rbmon status for a $what file" 1 "$TUI_RC"
	expect "stderr lines for a $what file" 1 "$(wc -l <"$T/tui.err")"
	grep -q "^rbmon: $bad: ." "$T/tui.err" ||
		fail "the message for a $what file does not start 'rbmon: $bad: ': $(cat "$T/tui.err")"
	tui_restored
	tui_lacks '[^ ]' || tui_fail "rbmon drew on the terminal for a $what file"
done
exit 0
