#!/bin/bash
# tui-threads: rbmon's screen lists every thread of a program with five
# named threads parked at known call chains (tests/apps/tuithreads), main
# first then by tid; moving the selection (Down, j, k, Up, End, Home, G, g,
# PgDn, PgUp, ^F, ^B) shows exactly the selected thread's stack, innermost
# first, with the file:line of the LINE: markers; Enter focuses the stack
# pane (bar label, title colours, the cursor row) where Down/j/End/Up move
# the cursor, and Enter, Right/Left, Esc, Tab and Shift-Tab switch panes; a
# thread started while rbmon runs appears, a thread that ends turns
# "exited" (keeping its last stack) below the running ones, and h hides
# and shows it again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

src=$APPS_SRC/tuithreads.c
f=$T/tui.trace
prog=tuithreads
traced app RBTRACE_FILE="$f" "$APPS/tuithreads"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"

tid_of() { awk -v n="$1" '$1 == "thread" && $2 == n { print $3; exit }' "$RBT_READY"; }

# poll DESCRIPTION CMD... - wait until CMD succeeds; on timeout show the
# screen and what CMD last printed.
poll()
{
	local desc=$1 deadline=$((SECONDS + WAIT_TIMEOUT))
	shift
	until "$@" >"$T/poll.last" 2>&1; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- last check output:" >&2
			cat "$T/poll.last" >&2
			tui_fail "timed out after ${WAIT_TIMEOUT}s waiting for $desc"
		fi
		sleep 0.05
	done
}

# screen_attrs - capture the screen with its attributes: $T/plain gets the
# text, $T/rowattr the SGR state of each row's first cell, line for line:
# "fg=N bg=N bold=B dim=D ul=U rev=R"; $T/runs "ROW<tab>STATE<tab>TEXT"
# for each run of text drawn alike (ROW 1-based).  tmux only writes
# changes, so the state is followed from the top of the screen.
screen_attrs()
{
	tui_screen_attrs >"$T/attrs" || return 1
	awk -v plain="$T/plain" -v rowattr="$T/rowattr" -v runs="$T/runs" '
	function reset() { fg = 39; bg = 49; bold = 0; dim = 0; ul = 0; rev = 0 }
	function sgr(p,    n, a, i, c) {
		n = split(p, a, ";")
		if (n == 0) { reset(); return }
		for (i = 1; i <= n; i++) {
			c = a[i] + 0
			if (c == 0) reset()
			else if (c == 1) bold = 1
			else if (c == 2) dim = 1
			else if (c == 4) ul = 1
			else if (c == 7) rev = 1
			else if (c == 22) { bold = 0; dim = 0 }
			else if (c == 24) ul = 0
			else if (c == 27) rev = 0
			else if ((c >= 30 && c <= 37) || c == 39) fg = c
			else if ((c >= 40 && c <= 47) || c == 49) bg = c
			else if (c == 38 || c == 48) {
				v = a[i + 1] == 5 ? a[i + 2] : "rgb"
				if (c == 38) fg = "x" v; else bg = "x" v
				i += a[i + 1] == 5 ? 2 : 4
			}
		}
	}
	function state() {
		return sprintf("fg=%s bg=%s bold=%d dim=%d ul=%d rev=%d", fg, bg, bold, dim, ul, rev)
	}
	BEGIN { reset() }
	{
		s = $0
		text = ""
		first = ""
		while (match(s, /\033\[[0-9;]*m/)) {
			if (RSTART > 1) {
				if (first == "")
					first = state()
				printf "%d\t%s\t%s\n", NR, state(), substr(s, 1, RSTART - 1) >runs
			}
			text = text substr(s, 1, RSTART - 1)
			sgr(substr(s, RSTART + 2, RLENGTH - 3))
			s = substr(s, RSTART + RLENGTH)
		}
		if (s != "")
			printf "%d\t%s\t%s\n", NR, state(), s >runs
		text = text s
		if (first == "")
			first = state()
		print text >plain
		print first >rowattr
	}' "$T/attrs"
}

# The colours of tty.c under TERM=screen: what a row starts with.
SEL='fg=30 bg=46'		# selected row of the focused pane
SEL_DIM='fg=30 bg=47'		# selected thread while the stack has focus
TITLE='fg=30 bg=47'		# title of a pane without focus
TITLE_FOCUS='fg=30 bg=42'	# title of the focused pane

# attrs_are ERE:ATTRS... - the first row matching each ERE starts with
# ATTRS (a prefix of the state screen_attrs gives), all in one capture.
attrs_are()
{
	local spec re want row got
	screen_attrs || return 1
	for spec in "$@"; do
		re=${spec%%:*}
		want=${spec#*:}
		row=$(grep -En -m1 -- "$re" "$T/plain" | cut -d: -f1)
		[ -n "$row" ] || { echo "no row matches /$re/"; return 1; }
		got=$(sed -n "${row}p" "$T/rowattr")
		case "$got" in
		"$want"*) ;;
		*) echo "row $((row - 1)) /$re/: '$got', want '$want'"; return 1 ;;
		esac
	done
}

# The thread rows of the last capture ($T/screen), "TID NAME STATE" each.
thread_rows() { sed -n 's/^\(├─\|└─\) *\([0-9]*\) \+\([^ ]*\) \+\([^ ]*\) .*/\2 \3 \4/p' "$T/screen"; }

# rows_are WANT - the thread rows, top to bottom, are WANT.
rows_are() { tui_screen >"$T/screen" && [ "$(thread_rows)" == "$1" ] || { thread_rows; false; }; }

# The stack pane's frames in $T/screen: "function file:line", innermost first.
stack_rows() { awk '/^ Stack of thread/ { on = 1; next } /^ Watches/ { on = 0 } on && /^#[0-9]+ / { print $2, $3 }' "$T/screen"; }

# stack_is TID NAME STATE DEPTH FRAMES - the stack pane shows that thread
# and exactly FRAMES ("fn file:line" lines).
stack_is()
{
	tui_has "^ Stack of thread $1 \"$2\": $3, depth $4\$" ||
		{ echo "title: $(grep -E '^ Stack' "$T/screen")"; return 1; }
	[ "$(stack_rows)" == "$5" ] || { echo "frames:"; stack_rows; echo "want:"; echo "$5"; return 1; }
}

# Every LINE: marker of the source, checked to be there once.
declare -A LN=()
eval "$(awk '{ while (match($0, /LINE:[a-z_]+ \*\//)) { m = substr($0, RSTART + 5, RLENGTH - 8); printf "LN[%s]+=\"%d \"\n", m, NR; $0 = substr($0, RSTART + RLENGTH) } }' "$src")"
L()
{
	[[ "${LN[$1]:-}" =~ ^[0-9]+\ $ ]] || fail "marker LINE:$1 not found exactly once in $src"
	echo "${LN[$1]% }"
}
frames() { local a; for a in "$@"; do echo "$a"; done; }
F=$prog.c
STACK_main=$(frames "main_wait $F:$(L main_wait_def)" "main $F:$(L call_main_wait)")
STACK_north=$(frames "walk_leaf $F:$(L walk_leaf_def)" "walk_main $F:$(L walk_call_leaf)")
STACK_south=$(frames "swim_leaf $F:$(L swim_leaf_def)" "swim_step $F:$(L swim_call_leaf)" \
	"swim_main $F:$(L swim_call_step)")
STACK_east=$(frames "fly_leaf $F:$(L fly_leaf_def)" "fly_high $F:$(L fly_call_leaf)" \
	"fly_up $F:$(L fly_call_high)" "fly_main $F:$(L fly_call_up)")
STACK_west=$(frames "dig_bottom $F:$(L dig_bottom_def)" "dig_deepest $F:$(L dig_call_bottom)" \
	"dig_deeper $F:$(L dig_call_deepest)" "dig_down $F:$(L dig_call_deeper)" \
	"dig_main $F:$(L dig_call_down)")
STACK_brief=$(frames "nap_leaf $F:$(L nap_leaf_def)" "nap_main $F:$(L nap_call_leaf)")
STACK_latecomer=$(frames "jog_leaf $F:$(L jog_leaf_def)" "jog_main $F:$(L jog_call_leaf)")
declare -A DEPTH=([main]=2 [north]=2 [south]=3 [east]=4 [west]=5 [brief]=2 [latecomer]=2)
declare -A LEAF=([main]=main_wait [north]=walk_leaf [south]=swim_leaf [east]=fly_leaf
	[west]=dig_bottom [brief]=nap_leaf [latecomer]=jog_leaf)
declare -A TID=([main]=$pid)
names="north south east west brief"
for n in $names; do
	TID[$n]=$(tid_of $n)
	[ -n "${TID[$n]}" ] || fail "no tid reported for thread $n"
done

# see NAME [STATE] - the stack pane shows thread NAME's known stack, and its
# row is the selected one.
see()
{
	local n=$1 st=${2:-running} sn=$1 var=STACK_$1
	[ "$n" == main ] && sn=$prog
	poll "the stack of $n" stack_is "${TID[$n]}" "$sn" "$st" "${DEPTH[$n]}" "${!var}"
}

# The list: main first, then by tid (ascending numerically).
order()	# NAME... - "TID NAME STATE" rows in the expected order
{
	local n
	for n in "$@"; do
		if [ "$n" == main ]; then
			echo "$pid $prog running"
		else
			echo "${TID[$n]} $n ${ST[$n]:-running}"
		fi
	done | { read -r first; echo "$first"; sort -n; }
}
declare -A ST=()

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
	tui_has "^(├─|└─) +${TID[$n]} $sn +running +${DEPTH[$n]} +[0-9][^ ]*s ${LEAF[$n]}\$" ||
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
tui_keys g
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
tui_wait "^(├─|└─) +${TID[latecomer]} latecomer +running +2 +[0-9][^ ]*s jog_leaf\$" "the new thread's row"
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
tui_wait "^└─ +$B brief +exited +2 +nap_leaf\$" "brief exited, last in the list, no time"
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

tui_keys q
tui_wait_exit
expect "rbmon exit status" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"

stop_and_reap "$pid"
expect "program exit status" 0 "$REAPED"
exit 0
