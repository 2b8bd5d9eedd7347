#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-inline: the stack pane shows a gcc -O2 build's inlined functions as
# frames of their own, marked [inlined], each with its own file:line, and
# the same rows as `rbmon --dump --json` (which tests/stacks/ compares with
# gdb's).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/inline.trace
traced app RBTRACE_FILE="$f" "$APPS/stk-inline-gcc"
pid=$LAUNCHED
wait_ready "parked $pid 1" "$pid"
wait_json "$f" '.processes[0].threads[0].frames[0].function == "stk_park"' "the thread parked"
want=$(jqv '.processes[0].threads[0].frames[] |
	"\(.function)\(if .inlined then " [inlined]" else "" end) \(.file):\(.line)"')
grep -q '\[inlined\]' <<<"$want" || fail "the dump shows no inlined frame: $want"

tui_start 140 40 "$RBMON" "$f"
tui_wait '^ Stack of thread' "the stack pane"
tui_wait 'stk_park' "the frames"
got=$(awk '/^ Stack of thread/ { on = 1; next } /^ Watches/ { on = 0 }
	on && /^#[0-9]+ / { $1 = ""; $NF = ""; sub(/^ /, ""); sub(/ $/, ""); print }' "$T/screen")
[ "$got" == "$want" ] || tui_fail "stack pane rows:
$got
want (from --json):
$want"
tui_quit
exit 0
