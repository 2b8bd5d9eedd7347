#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-threads: rbmon's screen lists every thread of a program with five
# named threads parked at known call chains (tests/apps/tuithreads), main
# first then by tid; moving the selection (Down, j, k, Up, End, Home, G,
# PgDn, PgUp, ^F, ^B) shows exactly the selected thread's stack, innermost
# first, with the file:line of the LINE: markers; Enter focuses the stack
# pane (bar label, title colours, the cursor row) where Down/j/End/Up move
# the cursor, and Enter, Right/Left, Esc, Tab and Shift-Tab switch panes; a
# thread started while rbmon runs appears, a thread that ends turns
# "exited" (keeping its last stack) below the running ones, and h hides
# and shows it again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
tuithreads_known

tui_start 80 24 "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads\$" "the process row"
tui_has "Threads 6 alive, 0 exited, 0 gone" || tui_fail "header thread counts"
want=$(order main $names)
poll "the six threads in order" rows_are "$want"
# Every thread row: tree glyph, tid, name, state, depth, time, function;
# the last one closes the tree.
for n in main $names; do
	sn=$n
	[ "$n" == main ] && sn=$prog
	tui_has "^(├─|└─) +${TID[$n]} $sn +running +$KC +${DEPTH[$n]} +[0-9][^ ]*s ${LEAF[$n]}\$" ||
		tui_fail "the row of thread $n (tid ${TID[$n]})"
done
expect "rows drawn with └─" 1 "$(grep -c '^└─' "$T/screen")"
last=$(thread_rows | tail -n1 | cut -d' ' -f1)
tui_has "^└─ +$last " || tui_fail "the last thread row does not close the tree"

# The main thread is selected first and its stack is shown.
see main
poll "main's row selected, list focused" attrs_are \
	"^ +TID NAME:$TITLE_FOCUS" "^├─ +$pid $prog :$SEL" "^ Stack of thread:$TITLE"
tui_has 'EnterStack hHideExited' || tui_fail "function bar before Enter"

# Walk the list in tid order: each stack exactly as the source says.
mapfile -t sorted < <(order main $names | cut -d' ' -f2 | sed "s/^$prog\$/main/")
expect "first row" main "${sorted[0]}"
tui_keys Down
see "${sorted[1]}"
tui_keys j
see "${sorted[2]}"
tui_keys End
see "${sorted[5]}"
poll "the last row selected" attrs_are "^└─ +${TID[${sorted[5]}]} :$SEL" "^├─ +$pid $prog :fg=39"
tui_keys k
see "${sorted[4]}"
tui_keys Up
see "${sorted[3]}"
tui_keys Home
see main
tui_keys G
see "${sorted[5]}"
tui_keys Home
see main
# A page (the list's 7 rows less one) down and up, with PgDn/PgUp and ^F/^B.
tui_keys NPage
see "${sorted[5]}"
tui_keys PPage
see main
tui_keys C-f
see "${sorted[5]}"
tui_keys C-b
see main

# Select west (deepest stack) and focus its stack: Enter.
for ((wi = 0; wi < 6; wi++)); do
	[ "${sorted[wi]}" == west ] && break
	tui_keys Down
	see "${sorted[wi + 1]}"
done
tui_keys Enter
tui_wait 'EnterList hHideExited' "the bar saying Enter goes back to the list"
W=${TID[west]}
poll "the stack pane focused, cursor on #0" attrs_are \
	"^ +TID NAME:$TITLE" "^ Stack of thread $W:$TITLE_FOCUS bold=1" \
	"^├─ +$W west:$SEL_DIM" "^#0 +dig_bottom:$SEL" "^#1 :fg=39 bg=49"
tui_keys Down
poll "the stack cursor on #1" attrs_are "^#0 :fg=39 bg=49" "^#1 +dig_deepest:$SEL" "^#2 :fg=39 bg=49"
tui_keys j
poll "the stack cursor on #2" attrs_are "^#1 :fg=39 bg=49" "^#2 +dig_deeper:$SEL"
tui_keys End
poll "the stack cursor on #4" attrs_are "^#2 :fg=39 bg=49" "^#4 +dig_main:$SEL"
tui_keys Up
poll "the stack cursor on #3" attrs_are "^#3 +dig_down:$SEL" "^#4 :fg=39 bg=49"
# Moving in the stack pane leaves the thread selection alone.
see west
# Enter again: back to the list, selection unchanged.
tui_keys Enter
tui_wait 'EnterStack hHideExited' "the bar saying Enter shows the stack"
poll "the list focused again" attrs_are "^ +TID NAME:$TITLE_FOCUS" \
	"^ Stack of thread $W:$TITLE" "^├─ +$W west:$SEL"
# Right focuses the stack too, Esc and Left go back.
tui_keys Right
tui_wait 'EnterList' "Right focusing the stack"
tui_keys Escape
tui_wait 'EnterStack' "Esc going back to the list"
tui_keys Right
tui_wait 'EnterList' "Right focusing the stack again"
tui_keys Left
tui_wait 'EnterStack' "Left going back to the list"
# Tab cycles list -> stack -> watches -> list, Shift-Tab the other way;
# Enter from the watches goes back to the list.
tui_keys Tab
poll "Tab: the stack pane focused" attrs_are "^ +TID NAME:$TITLE" \
	"^ Stack of thread $W:$TITLE_FOCUS" "^ Watches of thread $W:$TITLE"
tui_keys Tab
poll "Tab: the watch pane focused" attrs_are "^ +TID NAME:$TITLE" \
	"^ Stack of thread $W:$TITLE" "^ Watches of thread $W:$TITLE_FOCUS"
tui_has 'EnterList' || tui_fail "the bar with the watch pane focused"
tui_keys Tab
poll "Tab: the list focused again" attrs_are "^ +TID NAME:$TITLE_FOCUS" \
	"^ Stack of thread $W:$TITLE" "^ Watches of thread $W:$TITLE" "^├─ +$W west:$SEL"
tui_keys BTab
poll "Shift-Tab: the watch pane focused" attrs_are "^ +TID NAME:$TITLE" \
	"^ Stack of thread $W:$TITLE" "^ Watches of thread $W:$TITLE_FOCUS"
tui_keys BTab
poll "Shift-Tab: the stack pane focused" attrs_are "^ +TID NAME:$TITLE" \
	"^ Stack of thread $W:$TITLE_FOCUS" "^ Watches of thread $W:$TITLE"
tui_keys Tab
poll "Tab: the watch pane focused" attrs_are "^ Watches of thread $W:$TITLE_FOCUS"
tui_keys Enter
poll "Enter from the watches: the list focused" attrs_are "^ +TID NAME:$TITLE_FOCUS" \
	"^ Watches of thread $W:$TITLE" "^├─ +$W west:$SEL"
tui_has 'EnterStack' || tui_fail "the bar after Enter from the watches"
see west
# Up moves the thread selection again (west is never first: main is).
tui_keys Up
see "${sorted[wi - 1]}"

# A thread started while rbmon runs shows up (its tid is the newest).
kill -USR1 "$pid"
wait_ready late "$pid"
TID[latecomer]=$(tid_of latecomer)
[ -n "${TID[latecomer]}" ] || fail "no tid reported for latecomer"
tui_wait "^(├─|└─) +${TID[latecomer]} latecomer +running +$KC +2 +[0-9][^ ]*s jog_leaf\$" "the new thread's row"
tui_wait "^PID $pid $prog: alive, 7 threads\$" "the process row counting 7 threads"
tui_has "Threads 7 alive, 0 exited, 0 gone" || tui_fail "header after the new thread"
want=$(order main $names latecomer)
poll "seven threads in order" rows_are "$want"
mapfile -t sorted < <(echo "$want" | cut -d' ' -f2 | sed "s/^$prog\$/main/")
tui_keys End
see "${sorted[6]}"

# Select brief; when it ends it turns "exited", keeps its last stack and
# moves below the running threads, still selected.
tui_keys Home
see main
for ((i = 0; i < 7; i++)); do
	[ "${sorted[i]}" == brief ] && break
	tui_keys Down
	see "${sorted[i + 1]}"
done
kill -USR2 "$pid"
wait_ready "brief exited" "$pid"
B=${TID[brief]}
tui_wait "^└─ +$B brief +exited +$KC +2 +nap_leaf\$" "brief exited, last in the list, no time"
ST[brief]=exited
want=$(order main north south east west latecomer; echo "$B brief exited")
poll "running threads first, then the exited one" rows_are "$want"
tui_has "^PID $pid $prog: alive, 7 threads, 1 exited\$" || tui_fail "process row with 1 exited"
tui_has "Threads 6 alive, 1 exited, 0 gone" || tui_fail "header with 1 exited thread"
see brief exited
poll "brief still selected, its stack dimmed" attrs_are "^└─ +$B brief:$SEL" "^#0 +nap_leaf:fg=39 bg=49 bold=0 dim=1"

# h hides it (the selection moves to the nearest shown thread), h shows it.
tui_keys h
tui_wait '^exited threads hidden \(h shows them\)' "the hide message"
tui_wait_gone " brief " "brief's row"
tui_has 'hShowExited' || tui_fail "bar label after h"
want=$(order main north south east west latecomer)
poll "only the running threads" rows_are "$want"
tui_has "^└─ +$(echo "$want" | tail -n1 | cut -d' ' -f1) " || tui_fail "the tree is closed by the last running thread"
see "$(echo "$want" | tail -n1 | cut -d' ' -f2)"
tui_keys h
tui_wait '^exited threads shown \(h hides them\)' "the show message"
tui_wait "^└─ +$B brief +exited " "brief's row back"
tui_has 'hHideExited' || tui_fail "bar label after h again"

tui_quit

stop_and_reap "$pid"
expect "program exit status" 0 "$REAPED"
exit 0
