#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-modes: rbmon's modes take the keys meant for them.  On a thread that
# has exited (tests/apps/tuithreads' "brief"), w opens the watch prompt
# anyway, saying on the bar that the thread has ended: the expression
# typed next ("gx") goes into the prompt, not to the screen's keys (g
# would turn single stepping on, x nothing), and Enter says it was not
# used; b does the same for a breakpoint.  The help screen is made from
# the key table: every key line is there, the breakpoint list's keys too,
# and a key that only scrolls it does not act on the monitor.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
tuithreads_known

tui_start 100 24 "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads\$" "the process row"
kill -USR2 "$pid"
wait_ready "brief exited" "$pid"
B=${TID[brief]}
tui_wait "^└─ +$B brief +exited +$KC +2 +nap_leaf\$" "brief exited"

# Select brief through the search.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l brief
tui_keys Enter
tui_wait "^ Stack of thread $B \"brief\": exited" "the stack of brief"

# w on it: the prompt, and why nothing will be watched.
tui_keys w
tui_wait '^Watch: ?$' "the watch prompt on an exited thread"
tui_has "thread $B has ended" || tui_fail "the bar does not say the thread has ended"
tui_keys -l gx
tui_wait '^Watch: gx$' "gx typed into the prompt"
tui_keys Enter
tui_wait "thread $B has ended: \"gx\" not used" "the message after Enter"
expect "single stepping after typing gx at the prompt" 0 "$(header_get "$f" single)"
dump_json "$f"
expect "brief's watches" 0 "$(jqv "[.processes[].threads[] | select(.tid == $B) | .watches[]] | length")"
tui_lacks 'single on' || tui_fail "the header says single on"

# b: the same; Esc closes the prompt and nothing else happens.
tui_keys b
tui_wait '^Break at: ?$' "the breakpoint prompt on an exited thread"
tui_has "thread $B has ended" || tui_fail "the bar does not say the thread has ended"
tui_keys -l g
tui_wait '^Break at: g$' "g typed into the prompt"
tui_keys Escape
tui_wait_gone '^Break at:' "the prompt after Esc"
expect "single stepping after Esc" 0 "$(header_get "$f" single)"
tui_wait '^F1Help /Search TabPane ' "the function bar again"

# The help screen: its key lines come from the key table.
tui_keys F1
tui_wait '^rbmon: the live call stacks of a traced program$' "the help screen"
# page_changed PAGE - the screen no longer shows PAGE (a first row alone
# can be blank on two pages).
page_changed() { [ "$(tui_screen)" != "$1" ]; }

# Walk the whole screen a page at a time, gathering its lines.
: >"$T/help"
top=
for _ in $(seq 1 12); do
	tui_screen >"$T/page"
	cat "$T/page" >>"$T/help"
	grep -q '^Press any key to go back\.' "$T/page" && break
	top=$(cat "$T/page")
	tui_keys NPage
	# The next page is drawn once the screen changed.
	wait_for "the help screen to scroll a page" page_changed "$top"
done
for want in '^  Up/Down, k/j +move in the focused pane$' \
	'^  F1, \? +this help$' '^  q, Q, F10, \^C +quit' \
	'^  d, x, Delete +delete the breakpoint under the cursor$' \
	'^  D, \* +delete them all$' '^  w +watch an expression' \
	'^Breakpoint list \(B\)$' \
	'^  \^W +erase the word before the cursor$' \
	'^  Left/Right, \^B/\^F +a character left or right$' \
	'^  F3, Down, \^N +the next match'; do
	grep -Eq -- "$want" "$T/help" || fail "help line /$want/ not on the help screen: $(cat "$T/help")"
done
# j scrolls the help screen; it does not move the monitor's selection.
tui_keys Escape
tui_wait '^F1Help /Search' "the monitor after the help screen"
tui_has "^ Stack of thread $B \"brief\"" || tui_fail "the selection changed under the help screen"

tui_quit
exit 0
