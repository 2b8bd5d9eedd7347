#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-keys: a few hundred keys picked at random (fixed seed), with resizes
# down to tiny terminals, on a program with exited and parked threads, and
# the program is killed half-way: rbmon neither crashes nor hangs, still draws a sane
# screen, and quits with the terminal restored.  The control keys are in
# the draw too (their commands go to parked threads that cannot answer, then
# to a dead program); quitting may then ask whether to undo them.  (Keys
# that quit are left out of the draw; tui-quit tests them.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/threads.trace
# 40 threads created and joined 4 at a time, then 3 parked.
traced app RBTRACE_FILE="$f" RBTRACE_RINGS=16 "$APPS/threads" 40 3 4
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
tui_start 80 24 "$RBMON" -d 1 "$f"
tui_wait "PID $pid threads" "the process row"

RANDOM=4242
keys=(Up Down PgUp PgDn Home End Tab BTab Enter Left Right Escape / p a r
	k e d BSpace C-u C-n F3 j k g G h Space + - = F1 '?' C-l C-b C-f
	b B s n f c t C T x D Tab y P)
for round in $(seq 1 60); do
	for i in 1 2 3 4 5; do
		tui_keys "${keys[$((RANDOM % ${#keys[@]}))]}"
	done
	[ $((round % 6)) -eq 0 ] &&
		tui_resize $((20 + RANDOM % 130)) $((5 + RANDOM % 45))
	[ "$round" -eq 30 ] && kill -KILL "$pid"
	[ -s "$T/tui.rc" ] && tui_fail "rbmon ended during the keys (status $(cat "$T/tui.rc"))"
done

# Back to a known state: leave search, help or a view, a normal size.
tui_resize 80 24
tui_keys Escape
tui_keys Escape
tui_keys Escape
tui_wait '^F1Help' "the function bar after the key storm"
tui_wait '\[program gone\]' "the killed program marked gone"
tui_has 'hShowExited' && tui_keys h	# the storm may have hidden them
tui_keys Left Home	# the thread list, from its first row
tui_wait "PID $pid threads: gone" "the process row marked gone"
[ -s "$T/tui.rc" ] && tui_fail "rbmon ended"
tui_keys q
# Quitting asks first if the storm stopped something or turned a flag on.
tui_wait_soon_either()
{
	[ -s "$T/tui.rc" ] || tui_has '^Quit: .* y yes, n no'
}
wait_for "rbmon to exit or ask" tui_wait_soon_either
[ -s "$T/tui.rc" ] || tui_keys y
tui_wait_exit
expect "rbmon exit status" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"
exit 0
