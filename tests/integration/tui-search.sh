#!/bin/bash
# tui-search: rbmon's "/" search (tests/apps/tuithreads: five named threads
# parked at known call chains).  Typing jumps to the first thread whose
# name or stack matches (case-insensitive) and marks the matching frame;
# Enter keeps it (on a frame: the stack pane takes the focus with its
# cursor on that frame; on a name: the list keeps it); a text nothing
# matches says so and keeps the selection; Esc, or erasing the text
# (Backspace, ^U), goes back to the thread selected before with nothing
# marked; F3 (and Down while typing) goes to the next match, skipping
# threads that do not match and wrapping around; "/" then Enter does it
# too while the message after a search says so.  Wrong behaviours found
# are collected and reported at the end, after the rest ran.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

src=$APPS_SRC/tuithreads.c
f=$T/tui.trace
prog=tuithreads
traced app RBTRACE_FILE="$f" "$APPS/tuithreads"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"

# The helpers below are the same as in tui-threads.sh.
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

# run_attr ROW-ERE TEXT - (after screen_attrs) the state of the first run
# of the first row matching ROW-ERE that contains TEXT.
run_attr()
{
	local row
	row=$(grep -En -m1 -- "$1" "$T/plain" | cut -d: -f1)
	[ -n "$row" ] || { echo "no row matches /$1/"; return 1; }
	awk -F '\t' -v r="$row" -v t="$2" '$1 == r && index($3, t) { print $2; found = 1; exit }
		END { if (!found) print "no run with " t }' "$T/runs"
}

MATCH='fg=30 bg=43'		# the matching frame's function while searching

# marked ROW-ERE TEXT - TEXT in that row is drawn as a match.
marked()
{
	local got
	screen_attrs || return 1
	got=$(run_attr "$1" "$2")
	case "$got" in
	"$MATCH"*) ;;
	*) echo "'$2' in /$1/: '$got', want '$MATCH'"; return 1 ;;
	esac
}

# unmarked - no run of the screen is drawn as a match.
unmarked()
{
	screen_attrs || return 1
	! awk -F '\t' -v m="$MATCH" 'index($2, m) == 1 { print; found = 1 } END { exit !found }' "$T/runs"
}

# msg_is TEXT - the message line (second last row) is exactly TEXT.
msg_is() { [ "$(tui_row 22 | sed 's/ *$//')" == "$1" ] || { tui_row 22; false; }; }

# Known problems are collected and reported after the rest ran.
BUGS=()
bug() { note "BUG: $*"; BUGS+=("$*"); }

# soon DESCRIPTION CMD... - like poll, but a timeout (2 s) is recorded as a
# bug and the test goes on.
soon()
{
	local desc=$1 deadline=$((SECONDS + 2))
	shift
	until "$@" >"$T/poll.last" 2>&1; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			bug "$desc: $(tr '\n' ' ' <"$T/poll.last")"
			return 1
		fi
		sleep 0.05
	done
}

tui_start 80 24 "$RBMON" -d 3 "$f"
want=$(order main $names)
poll "the six threads in order" rows_are "$want"
mapfile -t sorted < <(echo "$want" | cut -d' ' -f2 | sed "s/^$prog\$/main/")
see main

# F3 before any search.
tui_keys F3
tui_wait '^nothing searched yet \(/ searches\)' "the message of F3 with nothing searched"

# Select south: the starting point.
for ((i = 0; i < 6; i++)); do
	[ "${sorted[i]}" == south ] && break
	tui_keys Down
	see "${sorted[i + 1]}"
done
S=${TID[south]} W=${TID[west]} E=${TID[east]}

# A function deep on west's stack, typed in capitals: west is selected at
# once, its stack shown with dig_deepest (#1) marked; the list keeps the
# focus until Enter.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
expect "cursor shown while searching" 1 "$(tui_pane '#{cursor_flag}')"
tui_keys -l DEEPEST
tui_wait '^Search: DEEPEST$' "the typed text"
see west
poll "dig_deepest marked, west selected, list focused" eval \
	'marked "^#1 +dig_deepest " dig_deepest && attrs_are "^├─ +$W west:$SEL" "^ +TID NAME:$TITLE_FOCUS"'
tui_has 'EnterStack' || tui_fail "the list lost the focus while typing"
tui_keys Enter
tui_wait '^found "DEEPEST"( \(.*\))?$' "the found message"
tui_wait 'EnterList' "the stack pane focused after a frame match"
poll "the stack cursor on the match" attrs_are "^#1 +dig_deepest:$SEL" "^#0 :fg=39 bg=49" \
	"^├─ +$W west:$SEL_DIM" "^ Stack of thread $W:$TITLE_FOCUS"
see west
expect "cursor hidden after Enter" 0 "$(tui_pane '#{cursor_flag}')"
tui_lacks '^Search:' || tui_fail "the prompt stayed after Enter"
tui_keys Escape
tui_wait 'EnterStack' "Esc giving the list the focus back"

# A thread's name (no function has it): selected, the list keeps the
# focus, nothing on the stack is marked.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l sOuT
tui_wait '^Search: sOuT$' "the typed text"
see south
tui_keys Enter
tui_wait '^found "sOuT"( \(.*\))?$' "the found message"
see south
poll "south selected, list focused, nothing marked" eval \
	'attrs_are "^├─ +$S south:$SEL" "^ +TID NAME:$TITLE_FOCUS" && unmarked'
tui_has 'EnterStack' || tui_fail "a name match moved the focus"

# Nothing matches: said while typing and after Enter; south stays.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l zzq
tui_wait '^Search: zzq +\(no match\)$' "(no match) while typing"
tui_keys Enter
tui_wait '^no thread or function matches "zzq"$' "the no-match message"
see south
poll "south still selected" attrs_are "^├─ +$S south:$SEL"

# Esc goes back to where the search started.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l fly_H
tui_wait '^Search: fly_H$' "the typed text"
see east
poll "fly_high marked on east" marked "^#1 +fly_high " fly_high
tui_keys Escape
tui_wait_gone '^Search:' "the prompt after Esc"
see south
poll "south selected again, nothing marked, list focused" eval \
	'attrs_are "^├─ +$S south:$SEL" "^ +TID NAME:$TITLE_FOCUS" && unmarked'
poll "the message line cleared" msg_is ""
expect "cursor hidden after Esc" 0 "$(tui_pane '#{cursor_flag}')"

# Erasing the text (Backspace, or ^U) goes back to where the search
# started, with nothing marked; Enter on the empty text then changes
# nothing (the list keeps the focus).
for erase in "BSpace BSpace BSpace" C-u; do
	tui_keys /
	tui_wait '^Search: ?$' "the search prompt"
	tui_keys -l fly
	tui_wait '^Search: fly$' "the typed text"
	see east
	poll "fly_leaf marked on east" marked "^#0 +fly_leaf " fly_leaf
	tui_keys $erase
	tui_wait '^Search: ?$' "the text erased ($erase)"
	see south
	poll "south selected again after erasing ($erase)" attrs_are "^├─ +$S south:$SEL"
	soon "after typing \"fly\" then erasing it ($erase), a frame of the thread selected before (south) is still marked as a match" unmarked
	tui_keys Enter
	tui_wait_gone '^Search:' "the prompt after Enter"
	soon "Enter on a search text erased ($erase) after a frame match moved the focus to the stack pane" \
		eval 'tui_has EnterStack || { grep F1Help "$T/screen"; false; }'
	if tui_has EnterList; then
		tui_keys Escape
		tui_wait 'EnterStack' "the list focused"
	fi
	see south
done

# F3: the next match after the selected thread, skipping threads whose
# name and stack lack the text (main: main_wait/main; west: dig_*),
# wrapping around at the end.
leafy=()
for n in "${sorted[@]}"; do
	[ "$n" == main ] || [ "$n" == west ] || leafy+=("$n")
done
expect "threads with a *_leaf function" 4 "${#leafy[@]}"
tui_keys Home
see main
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l leaf
tui_wait '^Search: leaf$' "the typed text"
see "${leafy[0]}"
tui_keys Enter
tui_wait '^found "leaf"( \(.*\))?$' "the found message"
# Whether the message tells "/ then Enter" finds the next match.
slash_next=0
[[ "$(tui_row 22)" == *"/ then Enter: next"* ]] && slash_next=1
tui_wait 'EnterList' "the stack focused on the matched frame"
poll "the cursor on #0 of ${leafy[0]}" attrs_are "^#0 +[a-z]+_leaf:$SEL"
for ((i = 1; i <= 4; i++)); do
	tui_keys F3
	see "${leafy[i % 4]}"
	tui_wait '^found "leaf"$' "the found message of F3"
done
# While typing, Down goes to the next match too.
tui_keys /
tui_wait '^Search: ?$' "the search prompt"
tui_keys -l leaf
tui_wait '^Search: leaf$' "the typed text"
see "${leafy[0]}"
tui_keys Down
see "${leafy[1]}"
tui_keys Enter
tui_wait '^found "leaf"( \(.*\))?$' "the found message"
see "${leafy[1]}"

# "F3 or / then Enter: next", says the message after a search: then an
# empty search must repeat the last one from the next thread.
if [ "$slash_next" -eq 1 ]; then
	tui_keys /
	tui_wait '^Search: ?$' "the search prompt"
	tui_keys Enter
	tui_wait_gone '^Search:' "the prompt after Enter"
	n=${leafy[2]}
	v=STACK_$n
	deadline=$((SECONDS + 3))
	until stack_is "${TID[$n]}" "$n" running "${DEPTH[$n]}" "${!v}" >/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			bug "'/' then Enter (an empty search) after the search for \"leaf\" did not go to the next match ($n, tid ${TID[$n]}), as the message 'found \"leaf\" (F3 or / then Enter: next)' says: the screen shows '$(grep -E '^ Stack of' "$T/screen")', message line '$(sed -n 23p "$T/screen")'"
			break
		fi
		sleep 0.05
	done
else
	note "the found message does not offer \"/ then Enter\": not checked"
fi

tui_keys q
tui_wait_exit
expect "rbmon exit status" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"
[ "${#BUGS[@]}" -eq 0 ] || fail "${#BUGS[@]} wrong behaviour(s): $(printf '%s; ' "${BUGS[@]}")"
exit 0
