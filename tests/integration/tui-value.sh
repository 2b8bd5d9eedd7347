#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-value: V shows a watch's whole value, which the watch pane cuts to
# one row.  In a 60-column terminal, the watch "cfg" of tests/apps/watch's
# ticker (a struct printed as gdb prints it, longer than the row): the pane
# ends it in "..."; V shows a screen titled "Watch N of thread TID: cfg"
# whose rows, joined, are exactly what `rbmon --watch cfg` prints for that
# thread; any other key goes back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/watch.trace
traced app RBTRACE_FILE="$f" "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)
want=$("$RBMON" --thread "$K" --watch cfg --timeout 30 "$f") ||
	fail "rbmon --watch cfg failed"
[ "${#want}" -gt 60 ] || fail "cfg's value is too short for this test: '$want'"

tui_start 60 24 "$RBMON" -d 1 "$f"
tui_wait "PID $pid watch" "the process row"
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l ticker
tui_keys Enter
tui_wait "^ Stack of thread $K \"ticker\"" "the ticker's stack"
tui_keys w
tui_wait '^Watch: ?$' "the watch prompt"
tui_keys -l cfg
tui_keys Enter
tui_wait '^ \[0\] cfg = \{.*\.\.\. +[0-9.]+s$' "cfg's value cut in the pane"
# The watch pane focused (the cursor on cfg), then V.
tui_keys Tab Tab
tui_keys V
tui_wait "^ Watch 0 of thread $K: cfg\$" "the value screen's title"
# body - the value screen's rows between the title and the key bar, joined
# (the value is wrapped at 59 columns, one less than the terminal's).
body() { tmx capture-pane -p -N -t rbt | sed -n '2,$p' | grep -v '^Up/Down scroll' | cut -c1-59 | tr -d '\n' | sed 's/ *$//'; }
whole() { [ "$(body)" == "$want" ] || { echo "screen: '$(body)'"; echo "--watch: '$want'"; false; }; }
poll "the whole value, as --watch prints it" whole
tui_keys x
tui_wait '^F1Help' "the monitor after the value screen"
tui_quit
exit 0
