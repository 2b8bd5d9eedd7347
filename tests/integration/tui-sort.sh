#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-sort: sorting and filtering the thread list of tests/apps/tuithreads
# (five named threads at known depths).  F6 and > step the order: by name
# (alphabetical), by CPU, by depth (deepest first, equal depths by tid),
# by time in the innermost call, back to by tid; the header says how the
# list is sorted.  F4 and \ filter it as the text is typed: a function on
# a stack ("dig" keeps west, whose stack is dig_*), a thread name in
# another case ("SOUTH"); the header shows the filter; Esc goes back to the
# filter there was; Enter on an empty line shows every thread again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
tuithreads_known

tui_start 100 30 "$RBMON" -d 3 "$f"
tui_wait "^PID $pid $prog: alive, 6 threads" "the process row"
by_tid=$(order main $names)
poll "the threads by tid" rows_are "$by_tid"

# row NAME - the "TID NAME running" row of a thread.
row()
{
	if [ "$1" == main ]; then echo "$pid $prog running"; else echo "${TID[$1]} $1 running"; fi
}

# By name: the program's name for main.
want=$(for n in main $names; do row "$n"; done | sort -k2,2)
tui_keys F6
poll "the threads by name" rows_are "$want"
tui_has '\[sort: NAME\]' || tui_fail "the header does not say the sort"
tui_has 'threads sorted by NAME' || tui_fail "the message line after F6"
tui_keys '>'
tui_wait '\[sort: CPU%\]' "sorted by CPU"
# By depth: 5, 4, 3, then the three of depth 2 by tid.
tui_keys '>'
tui_wait '\[sort: DEPTH\]' "sorted by depth"
want=$(row west; row east; row south; for n in main north brief; do row "$n"; done | sort -n)
poll "the threads by depth" rows_are "$want"
tui_keys F6
tui_wait '\[sort: TIME\]' "sorted by time"
tui_keys F6
tui_wait_gone '\[sort: ' "the sort flag once back to tid order"
poll "the threads by tid again" rows_are "$by_tid"

# Filter by a function on the stack, as it is typed.
tui_keys '\'
tui_wait '^Filter: ?$' "the filter prompt"
tui_keys -l dig
tui_wait '^Filter: dig$' "dig typed"
poll "only west (dig_* on its stack)" rows_are "$(row west)"
tui_has '\[filter: dig\]' || tui_fail "the header does not show the filter"
# Esc: back to no filter.
tui_keys Escape
tui_wait_gone '^Filter:' "the prompt after Esc"
poll "every thread after Esc" rows_are "$by_tid"
tui_lacks '\[filter:' || tui_fail "the filter flag after Esc"

# A thread name in another case, kept with Enter.
tui_keys F4
tui_wait '^Filter: ?$' "the filter prompt (F4)"
tui_keys -l SOUTH
tui_keys Enter
tui_wait "showing threads matching \"SOUTH\"" "the message after Enter"
poll "only south" rows_are "$(row south)"
tui_has '\[filter: SOUTH\]' || tui_fail "the header does not show the kept filter"
# The stack pane shows the one thread left.
see south
# Nothing matches: the list says so.
tui_keys F4
tui_wait '^Filter: SOUTH$' "the filter prompt starting from the filter"
tui_keys C-u
tui_keys -l zzz-none
tui_keys Enter
tui_wait 'no thread matches the filter' "the empty list's note"
# An empty line: every thread again.
tui_keys F4
tui_wait '^Filter: zzz-none$' "the filter prompt"
tui_keys C-u Enter
tui_wait_gone '\[filter:' "the filter flag after an empty filter"
poll "every thread after the filter is emptied" rows_are "$by_tid"

tui_quit
exit 0
