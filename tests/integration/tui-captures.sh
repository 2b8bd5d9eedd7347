#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-captures: captures of slow calls on the screen.  A on the stack
# pane's frame asks how slow and arms captures of its function (CLST then
# lists it); K shows the file's captures, here the four slow calls of step
# of tests/apps/slowcall.c armed live, with the calls of the selected one
# (step, leaf, nap, tally); any other key goes back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

CC=${STACKS_GCC:-${STACKS_CLANG:-}}
[ -n "$CC" ] || skip "neither gcc nor clang was found by configure"
app=$T/slowcall
"$CC" -g -O0 -finstrument-functions -fno-inline -pthread -o "$app" \
	"$APPS_SRC/slowcall.c" 2>"$T/cc.err" || fail "$CC: $(cat "$T/cc.err")"

f=$T/app.trace
launch app env RBTRACE_FILE="$f" LD_PRELOAD="$RB_PRELOAD" "$app" -g -p
wait_for "the program to wait for SIGUSR1" grep -q '^ready' "$T/app.out"
pid=$(awk '$1 == "ready" { print $2 }' "$T/app.out")

tui_start 150 45 "$RBMON" "$f"
tui_wait '^#0 +main ' "main's frame in the stack pane"
tui_keys Tab
tui_keys A
tui_wait 'Capture main slower than:' "the capture prompt"
tui_keys 5s Enter
tui_wait 'capturing main when slower than 5.000 s' "the answer"
"$RBMON" -p "$pid" --send CLST "$f" >"$T/clst" 2>&1 || fail "CLST exited $?"
grep -q '^main>5.000 s at 0x' "$T/clst" || fail "CLST: $(cat "$T/clst")"

"$RBMON" -p "$pid" --send 'CAPT step>2ms' "$f" >"$T/capt" 2>&1 || fail "CAPT: $(cat "$T/capt")"
kill -USR1 "$pid"
wait_for "the program's last line" grep -q '^done' "$T/app.out"
tui_keys K
tui_wait 'Captures of slow calls: 4 ' "the captures view"
expect "four rows of step" 4 "$(grep -Ec '^ +[0-9]+  step +pid' "$T/screen")"
tui_wait 'leaf\(\) \{' "the selected capture's calls"
tui_keys Down
tui_wait '^ +2  step ' "the second capture"
tui_keys x
tui_wait '^#0 +main ' "back on the main screen"
tui_quit
exit 0
