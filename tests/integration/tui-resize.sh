#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-resize: rbmon's layout follows the terminal size (tests/apps/
# tuithreads: six threads).  At 80x24, 50x14, 120x40 and 40x12 (the
# smallest it draws in): the header (3 rows from 20 rows up, else 1) with
# the program name, the thread list title with the columns of that width
# (NAME 15/STATE 16 from 80 columns, 10/9 below, no TIME below 64), the
# selected thread's row visible and highlighted (the list scrolls to keep
# it), its stack under the list, the watch title, and the function bar on
# the last row; no row the layout fills is blank.  Below 40x12 (39x12,
# 40x11, 30x8) only "rbmon: terminal too small" shows; back at 80x24 the
# full screen is back with the same selection.  A resize while the help
# screen or the search prompt is up lays the screen out anew as well, and
# "[frozen]" stays in the header of a frozen display at 50 columns.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

tuithreads_launch
# The list: the process row ("0"), main ("1"), then the threads by tid;
# End selects the last one (normally brief, the newest).
mapfile -t ORDER < <(awk '$1 == "thread" { print $3, $2 }' "$RBT_READY" | sort -n | cut -d' ' -f2)
expect "threads reported" 5 "${#ORDER[@]}"
FULL="0 1 ${ORDER[*]}"
SEL_NAME=${ORDER[4]}
B=$(tid_of "$SEL_NAME")
# Its depth, its innermost function and the one that called it.
declare -A DEPTH=([north]=2 [south]=3 [east]=4 [west]=5 [brief]=2)
declare -A LEAF=([north]=walk_leaf [south]=swim_leaf [east]=fly_leaf [west]=dig_bottom [brief]=nap_leaf)
declare -A CALLER=([north]=walk_main [south]=swim_step [east]=fly_high [west]=dig_deepest [brief]=nap_main)
D=${DEPTH[$SEL_NAME]} LF=${LEAF[$SEL_NAME]} CL=${CALLER[$SEL_NAME]}

# soon shows the last capture when it gives up.
SOON_SHOW=$T/plain

# load - read the last capture ($T/plain) into SCR, a row each.
load() { mapfile -t SCR <"$T/plain"; }

# The list title a width should have: the tree column, then TID, NAME,
# STATE, DEPTH, TIME (64 columns and up), FUNCTION; cut with "~".
title_for()
{
	local cols=$1 name=15 state=16 t
	if [ "$cols" -lt 80 ]; then name=10; state=9; fi
	if [ "$cols" -ge 72 ]; then
		t=$(printf '%3s%7s %-*s %-*s S %5s %5s %7s FUNCTION' "" TID $name NAME $state STATE CPU% DEPTH TIME)
	elif [ "$cols" -ge 64 ]; then
		t=$(printf '%3s%7s %-*s %-*s S %5s %7s FUNCTION' "" TID $name NAME $state STATE DEPTH TIME)
	else
		t=$(printf '%3s%7s %-*s %-*s S %5s FUNCTION' "" TID $name NAME $state STATE DEPTH)
	fi
	[ "${#t}" -gt "$cols" ] && t="${t:0:cols-1}~"
	echo "$t"
}

# layout_ok COLS ROWS all|tail - the screen has the full layout for that
# size, with the last thread selected; the list shows all of its rows, or
# (tail) the last three or more, scrolled to keep the selection.
layout_ok()
{
	local cols=$1 rows=$2 hdr=1 r t st s bar wt x y
	[ "$(tui_size)" == "$cols $rows" ] || { echo "pane is $(tui_size)"; return 1; }
	screen_attrs || return 1
	load
	[ "${#SCR[@]}" -eq "$rows" ] || { echo "${#SCR[@]} rows captured"; return 1; }
	[ "$rows" -ge 20 ] && hdr=3
	# Header.
	[[ "${SCR[0]}" == "$prog  /"* ]] || { echo "row 0: ${SCR[0]}"; return 1; }
	if [ "$cols" -ge 80 ]; then
		r=${SCR[0]}
		[[ "$r" =~ refresh\ 0\.3s\ \ clock\ (tsc|monotonic)$ ]] && [ "${#r}" -eq "$cols" ] ||
			{ echo "row 0 lacks the status at its right end: '$r'"; return 1; }
	fi
	if [ "$hdr" -eq 3 ]; then
		[[ "${SCR[1]}" == "Processes 1 alive, 0 exited, 0 gone  Threads 6 alive, 0 exited, 0 gone"* ]] ||
			{ echo "row 1: ${SCR[1]}"; return 1; }
		[[ "${SCR[2]}" == "Rings 6/64  Untraced 0  single off"* ]] || { echo "row 2: ${SCR[2]}"; return 1; }
	else
		[[ "${SCR[1]}" != Processes* ]] || { echo "3-row header at $rows rows"; return 1; }
	fi
	# List title, exact.
	t=$(title_for "$cols")
	[ "${SCR[hdr]}" == "$t" ] || { echo "title row $hdr: '${SCR[hdr]}', want '$t'"; return 1; }
	# The list rows down to the stack title: none blank, the expected ones.
	st=
	for ((y = 0; y < rows; y++)); do
		[[ "${SCR[y]}" == " Stack of thread"* ]] && { st=$y; break; }
	done
	[ -n "$st" ] || { echo "no stack title"; return 1; }
	[ $((st - hdr - 1)) -ge 3 ] || { echo "list of $((st - hdr - 1)) rows"; return 1; }
	for ((y = hdr + 1; y < st; y++)); do
		[ -n "${SCR[y]}" ] || { echo "row $y blank in the list"; return 1; }
	done
	s=$(printf '%s\n' "${SCR[@]:hdr+1:st-hdr-1}" | sed -n \
		-e "s/^PID $pid $prog: alive, 6 threads\$/0/p" \
		-e "s/^├─ \+$pid $prog .*/1/p" \
		-e "s/^├─ \+[0-9]\+ \(north\|south\|east\|west\|brief\) .*/\1/p" \
		-e "s/^└─ \+$B $SEL_NAME .*/$SEL_NAME/p" | tr '\n' ' ')
	s=${s% }
	case "$3" in
	all) [ "$s" == "$FULL" ] ;;
	tail) [[ " $FULL" == *" $s" ]] && [ "$s" != "$FULL" ] ;;
	esac || { echo "list rows: '$s', want $3 of '$FULL'"; return 1; }
	# The selected thread: its row, columns under the title, highlighted.
	r=
	for ((y = hdr + 1; y < st; y++)); do
		[[ "${SCR[y]}" == "└─ "*" $B $SEL_NAME "* ]] && { r=${SCR[y]}; break; }
	done
	if [ "$cols" -ge 64 ]; then
		[[ "$r" =~ ^└─\ +$B\ $SEL_NAME\ +running\ +$KC\ +$D\ +[0-9][^\ ]*s\ $LF$ ]] || { echo "selected row: '$r'"; return 1; }
	elif [ "$cols" -ge 46 ]; then
		[[ "$r" =~ ^└─\ +$B\ $SEL_NAME\ +running\ +$KS\ +$D\ $LF$ ]] || { echo "selected row: '$r'"; return 1; }
	fi
	r=${r/└─/'`-'}
	x=${t%%STATE*}
	[ "${r:${#x}:7}" == running ] || { echo "STATE column at ${#x} is '${r:${#x}:7}' in '$r'"; return 1; }
	attrs_are "^└─ +$B $SEL_NAME:$SEL" || return 1
	# The stack, the watch title, the function bar.
	[[ "${SCR[st]}" == " Stack of thread $B \"$SEL_NAME\""* ]] || { echo "stack title: ${SCR[st]}"; return 1; }
	# Under the title, what the thread waits in (if the kernel says), then #0.
	y=$((st + 1))
	[[ "${SCR[y]}" == "     blocked in "* ]] && y=$((y + 1))
	[[ "${SCR[y]}" =~ ^#0\ +$LF\  ]] && [[ "${SCR[y + 1]}" =~ ^#1\ +$CL\  ]] ||
		{ echo "stack rows: '${SCR[y]}' '${SCR[y + 1]}'"; return 1; }
	wt=${SCR[rows - 3]}
	[[ "$wt" == " Watches of thread $B: "* ]] || { echo "watch title row $((rows - 3)): '$wt'"; return 1; }
	bar=${SCR[rows - 1]}
	[[ "$bar" == "F1Help /Search TabPane EnterStack "* ]] || { echo "bar row: '$bar'"; return 1; }
}

# too_small - only the too-small message shows.
too_small()
{
	local y
	tui_screen >"$T/plain"
	load
	[ "${SCR[0]}" == "rbmon: terminal too small" ] || { echo "row 0: ${SCR[0]}"; return 1; }
	[ "${SCR[1]}" == "40x12 at least; q quits" ] || { echo "row 1: ${SCR[1]}"; return 1; }
	for ((y = 2; y < ${#SCR[@]}; y++)); do
		[ -z "${SCR[y]}" ] || { echo "row $y not blank: ${SCR[y]}"; return 1; }
	done
}

resize()	# COLS ROWS
{
	tui_resize "$1" "$2" || fail "tmux resize-window $1 $2 failed"
}

tui_start 80 24 "$RBMON" -d 3 "$f"
tui_wait "^└─ +$B $SEL_NAME " "the last thread's row"
tui_keys End
poll "80x24 with $SEL_NAME selected" layout_ok 80 24 all

# 50x14: 1 header row, no TIME, a shorter list scrolled to the selection.
resize 50 14
poll "the 50x14 layout" layout_ok 50 14 tail

resize 120 40
poll "the 120x40 layout" layout_ok 120 40 all

# The smallest size drawn, then one row or one column less.
resize 40 12
poll "the 40x12 layout" layout_ok 40 12 tail
resize 39 12
poll "too small at 39x12" too_small
resize 40 11
poll "too small at 40x11" too_small
resize 30 8
poll "too small at 30x8" too_small

# Back to 80x24: the full screen, the same thread still selected.
resize 80 24
poll "80x24 again" layout_ok 80 24 all

# Resizing while the help screen is up, then closing it: the list scrolls
# to keep the selection in sight (frozen, so no refresh does it later).
tui_keys Space
tui_wait '\[frozen\] refresh 0\.3s' "the frozen header"
tui_keys F1
tui_wait '^rbmon: the live call stacks of a traced program$' "the help screen"
resize 50 14
tui_wait '^Press any key to go back\.|^  Up/Down' "the help screen at 50x14"
tui_keys x
tui_wait '^F1Help' "the monitor after the help screen"
soon "after a resize to 50x14 while the help screen was up (display frozen), closing it showed a list without the selected thread" \
	layout_ok 50 14 tail
# The header still says the display is frozen (the path gives way).
soon "at 50x14 the header of a frozen display lacks \"[frozen]\"" \
	eval 'tui_has "^$prog  .*\\[frozen\\]" || { head -n1 "$T/screen"; false; }'

# Resizing while the search prompt is up redraws at the new size at once.
resize 80 24
poll "80x24 again (frozen)" layout_ok 80 24 all
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
resize 50 14
soon "after a resize to 50x14 while the search prompt was up (display frozen), the screen was not redrawn" \
	eval 'layout_ok 50 14 tail && [[ "${SCR[12]}" =~ ^Search:\ ?$ ]] || { echo "message row: ${SCR[12]}"; false; }'
tui_keys Escape
tui_wait_gone '^Search:' "the search prompt after Esc"
tui_keys Space
tui_wait '^display live$' "the display live again"
poll "the 50x14 layout, live" layout_ok 50 14 tail

tui_quit
[ "${#BUGS[@]}" -eq 0 ] || fail "${#BUGS[@]} wrong behaviour(s): $(printf '%s; ' "${BUGS[@]}")"
exit 0
