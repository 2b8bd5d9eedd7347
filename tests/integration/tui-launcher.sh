#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-launcher: `rbtrace --monitor -- PROG` on a terminal.  rbmon shows the
# launched program's threads; the program's terminal output (stdout and
# stderr) goes to PATH.out next to the trace file PATH.trace, its stdin is
# /dev/null, and the launcher's tracing line names that file; nothing the
# program prints reaches the screen.  Quitting rbmon with q leaves the
# program running and the launcher says so; the launcher then exits with
# the program's status once the program ends (here by the Ctrl-C the
# launcher's message offers), with the terminal restored.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"

# screen - the screen with wrapped lines joined (the launcher's lines are
# wider than the pane).
screen() { tmx capture-pane -p -J -t rbt; }
screen_has() { screen | grep -Fq -- "$1"; }

# Both stdout and stderr on the terminal, as from an interactive shell.
tui_start 100 30 TMPDIR="$T" RBT_READY="$RBT_READY" \
	bash -c 'exec "$@" 2>&1' bash "$RBTRACE" --monitor -- "$APPS/tuilife" -e 5
wait_ready "main [0-9]+"
pid=$(ready_field main 2)
STARTED+=("$pid")	# not our child: make sure cleanup ends it
wait_ready "lifeworker [0-9]+"
wtid=$(ready_field lifeworker 2)
trace=$T/tuilife.$pid.trace
out=$T/tuilife.$pid.out
[ -f "$trace" ] || fail "no trace file $trace (has: $(ls "$T"))"

# rbmon shows the launched program.
tui_wait "^[^ 0-9A-Za-z]+ +$wtid +lifeworker +running +$KC +3 +[^ ]+ +life_inner *\$" "the worker row"
tui_has "^[^ 0-9A-Za-z]+ +$pid +tuilife +running +$KC +2 +[^ ]+ +life_main_wait *\$" ||
	tui_fail "no row of the main thread in life_main_wait"
tui_has "^PID $pid tuilife: alive, 2 threads *\$" || tui_fail "no process row for $pid"
expect "alternate screen while rbmon runs" 1 "$(tui_pane '#{alternate_on}')"

# The program's output goes to the .out file, its input is /dev/null.
expect "the program's stdout" "$out" "$(readlink "/proc/$pid/fd/1")"
expect "the program's stderr" "$out" "$(readlink "/proc/$pid/fd/2")"
expect "the program's stdin" /dev/null "$(readlink "/proc/$pid/fd/0")"
[ -f "$out" ] || fail "no output file $out (has: $(ls "$T"))"
for l in "tuilife: hello stdout $pid" "tuilife: hello stderr $pid"; do
	grep -Fxq "$l" "$out" || fail "$out lacks '$l': $(cat "$out")"
done
# Output while rbmon draws: into the file, not onto the screen.
kill -USR1 "$pid"
wait_ready "printed 1" "$pid"
for l in "tuilife: usr1 stdout $pid" "tuilife: usr1 stderr $pid"; do
	grep -Fxq "$l" "$out" || fail "$out lacks '$l': $(cat "$out")"
done
# Anything the program wrote is ahead of rbmon's redraw in the terminal.
tui_keys j
tui_wait "^ Stack of thread $wtid \"lifeworker\": running, depth 3 *\$" "the worker's stack"
tui_lacks "tuilife: (hello|usr1)" || tui_fail "the program's output is on rbmon's screen"

# q: rbmon ends, the program keeps running, the launcher says so and waits.
tui_keys q
wait_for "the launcher's 'still runs' line" screen_has \
	"rbtrace: rbmon ended; $APPS/tuilife (pid $pid) still runs, output in $out"
expect "alternate screen after rbmon quit" 0 "$(tui_pane '#{alternate_on}')"
[ -e "$T/tui.rc" ] && fail "the launcher exited ($(cat "$T/tui.rc")) while the program runs"
kill -0 "$pid" 2>/dev/null || fail "the program ended when rbmon quit"
launcher=$(tui_pane '#{pane_pid}')
launcher=$(pgrep -P "$launcher")
[ "$(readlink "/proc/$launcher/exe")" == "$(readlink -f "$RBTRACE")" ] ||
	fail "the pane's command is not rbtrace ($launcher)"
expect "the launcher's children once rbmon quit" "$pid" "$(pgrep -P "$launcher" | tr '\n' ' ' | sed 's/ $//')"
screen_has "rbtrace: tracing $APPS/tuilife (pid $pid) into $trace; its output goes to $out" ||
	{ screen >&2; fail "no tracing line naming $trace and $out"; }
screen | grep -q "tuilife: \(hello\|usr1\)" && { screen >&2; fail "the program's output is on the screen"; }

# The launcher offers Ctrl-C: it reaches the program (not the launcher),
# which then ends with its status, and so does the launcher.
tui_keys C-c
tui_wait_exit
expect "the launcher's status (the program's -e 5)" 5 "$TUI_RC"
kill -0 "$pid" 2>/dev/null && fail "the program still runs after the launcher exited"
tui_restored
screen | grep -q "killed by signal" && { screen >&2; fail "the launcher says the program was killed"; }
exit 0
