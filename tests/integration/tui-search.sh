#!/bin/bash
# SPDX-License-Identifier: MIT
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

tuithreads_launch
tuithreads_known

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

tui_quit
[ "${#BUGS[@]}" -eq 0 ] || fail "${#BUGS[@]} wrong behaviour(s): $(printf '%s; ' "${BUGS[@]}")"
exit 0
