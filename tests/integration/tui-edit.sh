#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-edit: the one line editor of every prompt, in the real rbmon.
#
#  - the filter prompt (F4), edited in the middle of the line: "nrth",
#    Left three times, "o" makes "north" (the cursor after the o) and the
#    list follows as typed (north alone); ^A, ^K empty it (every thread
#    again); "east", Enter keeps it;
#  - the breakpoint prompt (b): "wlk_leaf 2", Home, Right, "a" gives
#    "walk_leaf 2"; End, ^W "walk_leaf "; "1"; Delete at the end does
#    nothing; Left twice, Backspace "walk_lea 1"; Delete "walk_lea1"; ^U
#    "1"; Esc sets nothing;
#  - UTF-8: "é" typed into the search shows as itself, one column, and
#    Backspace erases it whole;
#  - history across runs: a search for "fly_up" (east's, with the filter
#    on) and the filter "east" are in $XDG_STATE_HOME/rbtrace/history-search
#    and history-filter (mode 600, directory 700) after rbmon quits; a
#    second rbmon brings them back with Up, the filter applied as recalled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
tuithreads_known

tui_start 100 30 "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads" "the process row"
by_tid=$(order main $names)
poll "every thread" rows_are "$by_tid"

# cursor_at COL - the terminal's cursor is at column COL of the message row.
cursor_at() { [ "$(tui_pane '#{cursor_x}')" == "$1" ] || { tui_pane '#{cursor_x} #{cursor_y}'; false; }; }

# --- The filter, edited in the middle.
tui_keys F4
tui_wait '^Filter: ?$' "the filter prompt"
tui_keys -l nrth
tui_wait '^Filter: nrth$' "nrth typed"
tui_keys Left Left Left
poll "the cursor after the n" cursor_at $((8 + 1))
tui_keys -l o
tui_wait '^Filter: north$' "o inserted after the n"
poll "the cursor after the o" cursor_at $((8 + 2))
poll "north alone, as typed" rows_are "${TID[north]} north running"
tui_keys C-a C-k
tui_wait '^Filter: ?$' "^A ^K emptied the line"
poll "every thread again" rows_are "$by_tid"
tui_keys -l east
tui_keys Enter
poll "east alone" rows_are "${TID[east]} east running"

# --- The breakpoint prompt: Home, Right, End, ^W, Backspace, Delete.
tui_keys b
tui_wait '^Break at: ?$' "the breakpoint prompt"
tui_keys -l 'wlk_leaf 2'
tui_keys Home Right
tui_keys -l a
tui_wait '^Break at: walk_leaf 2$' "a inserted at the second column"
tui_keys End C-w
tui_wait '^Break at: walk_leaf ?$' "^W took the word before the cursor"
poll "the cursor after the blank ^W left" cursor_at $((10 + 10))
tui_keys -l 1
tui_wait '^Break at: walk_leaf 1$' "1 typed at the end"
tui_keys DC
tui_wait '^Break at: walk_leaf 1$' "Delete at the end: nothing"
tui_keys Left Left BSpace
tui_wait '^Break at: walk_lea 1$' "Backspace before the cursor"
tui_keys DC
tui_wait '^Break at: walk_lea1$' "Delete under the cursor"
tui_keys C-u
tui_wait '^Break at: 1$' "^U took the start of the line"
tui_keys Escape
tui_wait_gone '^Break at:' "the prompt after Esc"

# --- UTF-8 in the search; then a search kept for the next run.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l 'é'
tui_wait '^Search: é' "é typed"
poll "the cursor after é (one column)" cursor_at $((8 + 1))
tui_keys BSpace
tui_wait '^Search: ?$' "é erased whole"
tui_keys -l fly_up
tui_keys Enter
tui_wait "found \"fly_up\"" "the search for fly_up"
tui_quit
tmx kill-session -t rbt
grep -qx fly_up "$T/state/rbtrace/history-search" ||
	fail "fly_up not in the search history file: $(cat "$T/state/rbtrace/history-search" 2>&1)"
grep -qx east "$T/state/rbtrace/history-filter" ||
	fail "east not in the filter history file: $(cat "$T/state/rbtrace/history-filter" 2>&1)"
expect "the history directory's mode" 700 "$(stat -c %a "$T/state/rbtrace")"
expect "the history file's mode" 600 "$(stat -c %a "$T/state/rbtrace/history-search")"

# --- A second rbmon: Up brings them back.
tui_start 100 30 "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads" "the process row (second run)"
tui_keys /
tui_wait '^Search: ?$' "the search prompt (second run)"
tui_keys Up
tui_wait '^Search: fly_up$' "the last search, from the previous run"
tui_keys Escape
tui_keys F4
tui_wait '^Filter: ?$' "the filter prompt (second run)"
tui_keys Up
tui_wait '^Filter: east$' "the last filter, from the previous run"
poll "east alone, as recalled" rows_are "${TID[east]} east running"
tui_keys Escape
poll "every thread after Esc" rows_are "$by_tid"
tui_quit "second run"
exit 0
