#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-top: P opens the top view on the selected thread of tests/apps/kstate,
# whose threads stay put: the spinner on CPU in spin_main -> spin_here,
# the reader, the waiter and main off CPU (the kernel's state, read here
# from /proc, says so).  The view samples every thread at every pass, so
# shares are exact: the spinner's own function 100% of its samples; its
# process four functions at 25%, 25% of the samples on CPU; on CPU only
# the spinner, off CPU only the other three at a third each; sorted by
# total (all 25% here) ties go to the most own; reset starts the count
# again; the help screen lists the view; any other key goes back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/kstate.trace
traced app RBTRACE_FILE="$f" "$APPS/kstate"
pid=$LAUNCHED
wait_threads "$pid" spinner reader waiter
spin=$(tid_of spinner)
rd=$(tid_of reader)
wt=$(tid_of waiter)
kstate_of() { local s; read -r s <"/proc/$pid/task/$1/stat" && s=${s##*) } && echo "${s%% *}"; }
state_is() { [ "$(kstate_of "$1")" = "$2" ]; }
wait_for "the reader asleep" state_is "$rd" S
wait_for "the waiter asleep" state_is "$wt" S
wait_for "main asleep" state_is "$pid" S

tui_start 120 300 "$RBMON" -d 5 "$f"
tui_wait "^PID $pid kstate: alive" "the process row"
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l spinner
tui_keys Enter
tui_wait "^ Stack of thread $spin \"spinner\"" "the spinner selected"
tui_keys P
tui_wait "^ Top of thread $spin \"spinner\" \(pid $pid\): wall clock, [0-9]+ samples in [0-9.]+ s \([0-9]+/s\), 100\.0% on CPU  \[sort: own\]" "the top view's title"
tui_wait '^ +%Own +%Total +OwnTime +TotalTime +Function \(file\)$' "the column heads"
tui_wait '^ 100\.0%  100\.0% +[0-9.]+s +[0-9.]+s  spin_here \(kstate\.c\)$' "spin_here at 100% own"
tui_wait '^   0\.0%  100\.0% +[0-9.]+s +[0-9.]+s  spin_main \(kstate\.c\)$' "spin_main at 100% total"

# rows - the view's "own% total% function" rows, in order
rows() { tui_screen | sed -n 's/^ *\([0-9.]*\)% *\([0-9.]*\)% *[0-9.]*s *[0-9.]*s  \([^ ]*\) .*/\1 \2 \3/p'; }
rows_now() { [ "$(rows)" == "$1" ] || { rows; false; }; }

tui_keys a
tui_wait "^ Top of process $pid: wall clock, [0-9]+ samples .*, 25\.0% on CPU" "the process's view"
poll "the process's functions, a quarter each" rows_now "$(printf '%s\n' \
	'25.0 25.0 main_wait' '25.0 25.0 read_here' '25.0 25.0 spin_here' '25.0 25.0 wait_here' \
	'0.0 25.0 main' '0.0 25.0 read_main' '0.0 25.0 spin_main' '0.0 25.0 wait_main')"
tui_keys c
tui_wait "^ Top of process $pid: on CPU, [0-9]+ samples .*, 100\.0% on CPU" "on CPU only"
poll "on CPU: the spinner alone" rows_now "$(printf '%s\n' '100.0 100.0 spin_here' '0.0 100.0 spin_main')"
tui_keys c
tui_wait "^ Top of process $pid: off CPU, [0-9]+ samples .*, 0\.0% on CPU" "off CPU only"
poll "off CPU: the three that wait, a third each" rows_now "$(printf '%s\n' \
	'33.3 33.3 main_wait' '33.3 33.3 read_here' '33.3 33.3 wait_here' \
	'0.0 33.3 main' '0.0 33.3 read_main' '0.0 33.3 wait_main')"
tui_keys c a
tui_wait "^ Top of every thread: wall clock" "every thread"
tui_keys s
tui_wait "\[sort: total\]$" "sorted by total"
poll "by total: equal totals, the most own first" rows_now "$(printf '%s\n' \
	'25.0 25.0 main_wait' '25.0 25.0 read_here' '25.0 25.0 spin_here' '25.0 25.0 wait_here' \
	'0.0 25.0 main' '0.0 25.0 read_main' '0.0 25.0 spin_main' '0.0 25.0 wait_main')"

# Reset: the count starts again (under a second's worth, then grows).
count() { tui_screen | sed -n 's/^ Top of .*, \([0-9]*\) samples in \([0-9.]*\) s .*/\1/p'; }
big() { [ "$(count)" -ge 400 ]; }
poll "at least 400 samples" big
tui_keys r
small() { local c; c=$(count); [ -n "$c" ] && [ "$c" -lt 400 ]; }
poll "the count started again" small

tui_keys x
tui_wait "^PID $pid kstate: alive" "back on the main screen"
tui_keys F1
tui_wait "^Top \(P\): functions by share of the samples of the live stacks" "the view in the help screen"
tui_has "^  a +the thread, its process, every thread" || tui_fail "no scope key in the help"
tui_keys x
tui_quit
exit 0
