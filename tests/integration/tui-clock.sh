#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-clock: the screen of a file without a clock (RBTRACE_CLOCK=none).
# The header names the clock, the thread list's time column is SEEN, the
# stack's title says the times are how long rbmon has seen the frames, and
# those times grow from 0 while the parked program's frames stay, alike for
# the thread row and every frame.  A file with a clock shows TIME and none
# of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

STACK_TITLE="^ Stack of thread [0-9]+ \"simple\": running, depth 3; no clock: times seen by rbmon *\$"

# seen_of ROW - the seconds shown at the end of a screen row, or "".
seen_of() { sed -n 's/.* \([0-9]*\.[0-9][0-9]\)s *$/\1/p' <<<"$1"; }

f=$T/none.trace
traced app RBTRACE_FILE="$f" RBTRACE_CLOCK=none "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"

tui_start 100 30 "$RBMON" "$f"
tui_wait "refresh 1s  clock none *\$" "the header naming the clock none"
tui_wait "^ +TID NAME +STATE +S +CPU% DEPTH +SEEN FUNCTION *\$" "the SEEN column"
tui_lacks " TIME FUNCTION" || tui_fail "TIME shown for a file without a clock"
tui_wait "$STACK_TITLE" "the stack's title saying what the times are"
# Seen for at least a second, then two: the same on the thread row and
# on every frame of the stack.
for s in 1 2; do
	tui_wait "^#0 +simple_leaf .* [$s-9]\.[0-9]{2}s *\$" "simple_leaf seen for ${s}s or more"
	tui_screen >"$T/screen"
	row=$(grep -E "^[^ 0-9A-Za-z]+ +$pid +simple +running " "$T/screen") ||
		tui_fail "no row of thread $pid"
	frames=$(grep -E '^#[0-2] ' "$T/screen")
	expect "three frames" 3 "$(wc -l <<<"$frames")"
	# A refresh between the two reads is possible: then read again.
	t0=$(seen_of "$(sed -n 1p <<<"$frames")")
	for k in 2 3; do
		[ "$(seen_of "$(sed -n ${k}p <<<"$frames")")" = "$t0" ] ||
			tui_fail "frame $((k - 1)) not seen as long as frame 0 ($t0 s)"
	done
	r=$(sed -n 's/.* \([0-9]*\.[0-9][0-9]\)s simple_leaf *$/\1/p' <<<"$row")
	[ -n "$t0" ] && [ "$r" = "$t0" ] ||
		tui_fail "the thread row's SEEN ('$r') is not frame 0's ('$t0'): '$row'"
done
tui_keys q
tui_wait_exit
expect "rbmon status after q" 0 "$TUI_RC"
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"
stop_and_reap "$pid"

# The same program with the default clock: TIME, no note.
tmx kill-server 2>/dev/null
: >"$RBT_READY"
f=$T/clock.trace
traced app2 RBTRACE_FILE="$f" "$APPS/simple" -p
pid=$LAUNCHED
wait_ready "parked $pid" "$pid"
tui_start 100 30 "$RBMON" "$f"
tui_wait "^ +TID NAME +STATE +S +CPU% DEPTH +TIME FUNCTION *\$" "the TIME column"
tui_wait "^ Stack of thread [0-9]+ \"simple\": running, depth 3 *\$" "the stack's title"
tui_lacks "clock none|SEEN|no clock" || tui_fail "a file with a clock shown as one without"
tui_keys q
tui_wait_exit
expect "rbmon status after q" 0 "$TUI_RC"
stop_and_reap "$pid"
exit 0
