#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-recurse: recursion folded in the stack pane.  tests/apps/recurse 31
# parks at main, recurse x 31, at_bottom: the stack pane shows three rows,
# the middle one "recurse ×31 (o expands)"; o on it shows the 31 frames
# (the first marked "(×31, o folds)", frame numbers #1 to #31), o on any
# of them folds them again; the text dump keeps every frame.  With 200
# levels and 64 slots the overwritten frames split the run in two.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/recurse.trace
traced app RBTRACE_FILE="$f" "$APPS/recurse" 31
pid=$LAUNCHED
wait_ready deep "$pid"

tui_start 100 60 "$RBMON" -d 3 "$f"
tui_wait "^ Stack of thread $pid " "the stack pane"
# srows - the stack pane's rows as "#N function...", one a line.
srows() { tui_screen | awk '/^ Stack of thread/ { on = 1; next } /^ Watches/ { on = 0 } on && /^#/'; }
folded()
{
	local s
	s=$(srows)
	[ "$(echo "$s" | wc -l)" -eq 3 ] &&
		[[ "$(echo "$s" | sed -n 1p)" =~ ^#0\ +at_bottom\  ]] &&
		[[ "$(echo "$s" | sed -n 2p)" =~ ^#1\ +recurse\ ×31\ \(o\ expands\)\  ]] &&
		[[ "$(echo "$s" | sed -n 3p)" =~ ^#32\ +main\  ]] || { echo "$s"; false; }
}
poll "main, recurse ×31, at_bottom" folded
"$RBMON" --dump "$f" >"$T/dump.txt" || fail "rbmon --dump: $?"
expect "recurse frames in the text dump" 31 "$(grep -c ' recurse ' "$T/dump.txt")"

# Into the stack pane, on the run (above main, the last row), o: every
# frame.  (Above #0 may be the row saying what the thread waits in.)
tui_keys Enter
tui_keys End Up
tui_keys o
expanded()
{
	local s
	s=$(srows)
	[ "$(echo "$s" | wc -l)" -eq 33 ] &&
		[[ "$(echo "$s" | sed -n 2p)" =~ ^#1\ +recurse\ \(×31,\ o\ folds\)\  ]] &&
		[[ "$(echo "$s" | sed -n 32p)" =~ ^#31\ +recurse\  ]] &&
		[[ "$(echo "$s" | sed -n 33p)" =~ ^#32\ +main\  ]] || { echo "$s"; false; }
}
poll "the 31 frames of recurse" expanded
# o on a frame inside the run folds it; the cursor goes to the run's row.
tui_keys Down Down Down Down Down
tui_keys o
poll "the run folded again" folded
tui_keys o
poll "expanded again" expanded
tui_keys o
poll "folded again" folded
tui_quit
stop_and_reap "$pid"
tmx kill-session -t rbt

# A run split by the overwritten frames: both halves folded.
g=$T/deep.trace
traced deep RBTRACE_FILE="$g" RBTRACE_SLOTS=64 RBT_READY="$T/deep.ready" "$APPS/recurse" 200
dpid=$LAUNCHED
RBT_READY=$T/deep.ready wait_ready deep "$dpid"
tui_start 100 40 "$RBMON" -d 3 "$g"
split()
{
	local s
	s=$(srows)
	echo "$s" | grep -Eq '^#1 +recurse ×[0-9]+ \(o expands\) ' &&
		echo "$s" | grep -Eq '^#[0-9]+ +recurse ×[0-9]+ \(o expands\) ' &&
		[ "$(echo "$s" | grep -c '×')" -eq 2 ] &&
		[[ "$(echo "$s" | tail -n1)" =~ ^#201\ +main\  ]] || { echo "$s"; false; }
}
poll "the run split by the overwritten frames" split
tui_has 'frames overwritten' || tui_fail "no overwritten row"
tui_quit
exit 0
