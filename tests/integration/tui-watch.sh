#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-watch: watch expressions in the real rbmon, in tmux, on the real
# tests/apps/watch.  w adds a watch to the selected thread (Tab completes
# the variable name, "cou" to "counter"; not after "."); its value shows
# as "[0] counter = N" and keeps changing; the JSON dump shows the entry.
# e edits it (cfg.pos, the old expression gone from the JSON); the prompt's
# history recalls earlier expressions; an error shows as "EXPR: error:";
# d removes the watch (the pane says none, the JSON has []).  W adds
# tls_value to every thread of the process: each thread that passes hooks
# shows its own value, the parked one (in read(), passing no hook) turns
# stale.  Quitting removes the watches this rbmon added, without asking.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/watch.trace
traced app RBTRACE_FILE="$f" "$APPS/watch"
pid=$LAUNCHED
wait_threads "$pid" ticker w1 w2 parked
K=$(tid_of ticker)
W1=$(tid_of w1)
W2=$(tid_of w2)
P=$(tid_of parked)

# select_thread NAME TID - select a thread through the search.
select_thread()
{
	tui_keys /
	tui_wait '^Search: ?$' "the search prompt"
	tui_keys -l "$1"
	tui_keys Enter
	tui_wait "^ Stack of thread $2 \"$1\"" "the stack of $1"
}

# watches_of TID FILTER - one dump; FILTER holds for the thread's watches.
watches_of()
{
	json_true "$f" "[.processes[].threads[] | select(.tid == $1) |
		.watches | $2] == [true]"
}

# counter_shown - the counter value on the screen, into $T/counter.
counter_shown()
{
	tui_screen | sed -n 's/^ \[0\] counter = \([0-9][0-9]*\) .*/\1/p' >"$T/counter"
	[ -s "$T/counter" ]
}
counter_changed() { counter_shown && [ "$(cat "$T/counter")" != "$1" ]; }

tui_start 120 32 "$RBMON" -d 1 "$f"
tui_wait "PID $pid watch" "the process row"
select_thread ticker "$K"
tui_wait "^ Watches of thread $K: none \(w adds one\)" "the empty watch pane"

# w, "cou", Tab: counter; Enter: its value, changing.
tui_keys w
tui_wait '^Watch: ?$' "the watch prompt"
tui_keys -l cou
tui_keys Tab
tui_wait '^Watch: counter$' "counter completed"
tui_keys Enter
tui_wait "^ Watches of thread $K \(1 of 4\)" "the watch pane title"
tui_wait '^ \[0\] counter = [0-9]+ +[0-9.]+s$' "the counter's value and age"
tui_wait "^watch 0 of thread $K: counter" "the message"
counter_shown || tui_fail "no counter value"
first=$(cat "$T/counter")
poll "the counter to change from $first" counter_changed "$first"
wait_for "the entry in the JSON" watches_of "$K" \
	'length == 1 and .[0].entry == 0 and .[0].expr == "counter" and .[0].inuse == 1'

# Tab does not complete members; an unknown name says so.
tui_keys w
tui_keys -l cfg.
tui_keys Tab
tui_wait '^members are not completed' "no completion after ."
tui_keys C-u
tui_keys -l zzqq
tui_keys Tab
tui_wait '^no variable starts with "zzqq"' "no completion of an unknown name"
tui_keys Escape
tui_wait_gone '^Watch: ' "the prompt"

# e: the prompt has the expression; cfg.pos replaces it.
tui_keys e
tui_wait '^Edit watch 0: counter$' "the edit prompt"
tui_keys C-u
tui_keys -l cfg.pos
tui_keys Enter
tui_wait '^ \[[0-3]\] cfg\.pos = \{x = 3, y = 4\} +[0-9.]+s$' "cfg.pos's value"
tui_wait_gone 'counter' "the old expression"
wait_for "cfg.pos alone in the JSON" watches_of "$K" \
	'length == 1 and .[0].expr == "cfg.pos"'

# The history: Up recalls cfg.pos, then counter; Esc adds nothing.
tui_keys w
tui_wait '^Watch: ?$' "the watch prompt"
tui_keys Up
tui_wait '^Watch: cfg\.pos$' "the last expression recalled"
tui_keys Up
tui_wait '^Watch: counter$' "the one before"
tui_keys Down
tui_wait '^Watch: cfg\.pos$' "Down: the last one again"
tui_keys Escape
tui_wait_gone '^Watch: ' "the prompt"

# An error is shown as such, in the error colour.
tui_keys w
tui_keys -l cfg.nope
tui_keys Enter
tui_wait '^ \[[0-3]\] cfg\.nope: error: no member "nope" in struct config' "the error"
tui_wait "^ Watches of thread $K \(2 of 4\)" "two watches"
error_red() { screen_attrs && grep -P '^[0-9]+\tfg=31 [^\t]*\t *\[[0-3]\] cfg\.nope: error:' "$T/runs"; }
poll "the error in red" error_red

# Tab to the watch pane: the cursor is on the watch added last (entry 0,
# freed by the edit); Down, Up move it; d removes that one, Delete the other.
tui_keys Tab Tab
poll "the watch pane focused" attrs_are "^ Watches of thread $K :$TITLE_FOCUS" \
	'^ \[0\] cfg\.nope:'"$SEL" '^ \[1\] cfg\.pos = :fg=39 bg=49'
tui_keys Down
poll "Down: the cursor on cfg.pos" attrs_are '^ \[1\] cfg\.pos = :'"$SEL"
tui_keys k
poll "k: the cursor on cfg.nope" attrs_are '^ \[0\] cfg\.nope:'"$SEL"
tui_keys d
tui_wait "^watch 0 of thread $K removed" "the removal message"
tui_wait_gone 'cfg\.nope' "the removed watch"
tui_keys Delete
tui_wait "^watch 1 of thread $K removed" "the removal message"
tui_wait "^ Watches of thread $K: none \(w adds one\)" "the empty pane"
wait_for "no watches in the JSON" watches_of "$K" '. == []'
tui_keys Escape

# W: tls_value in every thread; each shows its own.
tui_keys W
tui_wait "^Watch in every thread of PID $pid: ?\$" "the W prompt"
tui_keys -l tls_value
tui_keys Enter
tui_wait "^tls_value: watch added to 5 of 5 threads of PID $pid" "the W message"
for t in "$K" "$W1" "$W2" "$P" "$pid"; do
	wait_for "tls_value in thread $t" watches_of "$t" \
		'length == 1 and .[0].expr == "tls_value" and .[0].inuse == 1'
done
tui_wait '^ \[0\] tls_value = 1000 ' "the ticker's own value"
select_thread w1 "$W1"
tui_wait '^ \[0\] tls_value = 1001 ' "w1's own value"
select_thread w2 "$W2"
tui_wait '^ \[0\] tls_value = 1002 ' "w2's own value"

# The parked thread passes no hook: its watch turns stale (-d 1: 2 s).
select_thread parked "$P"
tui_wait '^ \[0\] tls_value .* stale [0-9]+s$' "the stale watch"
stale_yellow() { screen_attrs && grep -P '^[0-9]+\tfg=33 [^\t]*\t *stale [0-9]+s$' "$T/runs"; }
poll "stale in yellow" stale_yellow

# Quitting removes them: no question, the threads that pass hooks free them.
tui_quit "quitting with watches"
for t in "$K" "$W1" "$W2"; do
	wait_for "thread $t's watches gone" watches_of "$t" '. == []'
done
# The parked thread and main pass no hook: their removal is asked.
for t in "$P" "$pid"; do
	watches_of "$t" 'length == 1 and .[0].inuse == -2' ||
		fail "thread $t's watch not asked to go: $(cat "$T/json")"
done
kill -0 "$pid" || fail "the program died"
exit 0
