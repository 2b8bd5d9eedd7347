#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-control: the control keys of the real rbmon, in tmux, on the real
# tests/apps/ctl.  b sets a breakpoint with Tab completion (the thread
# stops at that function, shown as stopped:break 1 with "(at alpha_leaf)"
# in the stack title, and the answer on the message line); c continues; B
# lists breakpoints and d deletes one; p, s, n, f pause and step (each
# reason shown); t turns tracing off and on; g, C, T toggle the global
# flags (header and threads follow); a command to a thread blocked in a
# system call is withdrawn after 5 s with a message, but a breakpoint is
# set for its process at once and stops it once it is released.  While
# rbmon runs, its heartbeat keeps a stopped thread stopped past
# RBTRACE_ORPHAN_TIMEOUT; killed, the thread resumes by itself, which the
# next rbmon says on its message line and in the thread's stack title.
# Quitting asks whether to undo
# what this rbmon did: y resumes and clears, n leaves the thread stopped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

f=$T/ctl.trace
traced app RBTRACE_FILE="$f" RBTRACE_ORPHAN_TIMEOUT=3 "$APPS/ctl"
pid=$LAUNCHED
wait_threads "$pid" alpha beta seq blocked
A=$(tid_of alpha)
B=$(tid_of beta)
S=$(tid_of seq)
K=$(tid_of blocked)

# select NAME TID - select a thread through the search.
select_thread()
{
	tui_keys /
	tui_wait '^Search: ?$' "the search prompt"
	tui_keys -l "$1"
	tui_keys Enter
	tui_wait "^ Stack of thread $2 \"$1\"" "the stack of $1"
}

# state_of TID - the thread's JSON state and stop reason, "running" or
# "stopped:REASON".
state_of()
{
	"$RBMON" --json "$f" >"$T/json" 2>/dev/null || return 1
	jq -r --argjson t "$1" '.processes[].threads[] | select(.tid == $t) |
		if .state == "stopped" then "stopped:" + .stop.reason else .state end' "$T/json"
}
json_state() { [ "$(state_of "$1")" == "$2" ]; }
wait_state() { wait_for "thread $1 $2" json_state "$1" "$2"; }

tui_start 120 32 "$RBMON" -d 1 "$f"
tui_wait "PID $pid ctl" "the process row"

# b with Tab completion: "alpha_l" completes to the static alpha_leaf.
select_thread alpha "$A"
tui_keys b
tui_wait '^Break at: ?$' "the breakpoint prompt"
tui_keys -l alpha
tui_keys Tab
tui_wait 'matches: .*alpha_leaf .*alpha_work' "the candidates for alpha"
tui_keys -l _l
tui_keys Tab
tui_wait '^Break at: alpha_leaf ?$' "alpha_leaf completed"
tui_keys Enter
tui_wait "^thread $A: breakpoint 1 at alpha_leaf" "the answer to BRKP"
tui_wait "^.* +$A alpha +stopped:break 1 " "alpha stopped at breakpoint 1"
tui_wait "^ Stack of thread $A \"alpha\": stopped:break 1, depth 3 \(at alpha_leaf\)" "the stop in the stack title"
tui_has "^#0 +alpha_leaf " || tui_fail "alpha_leaf is not on top"
wait_state "$A" stopped:breakpoint
tui_has "^.* +$B beta +running " || tui_fail "beta stopped too"

# c continues; alpha_leaf runs again at once, so it stops again.
stops=$(jq --argjson t "$A" '.processes[].threads[] | select(.tid == $t) | .stops' "$T/json")
tui_keys c
tui_wait "^thread $A: continuing" "the answer to CONT"
more_stops() { "$RBMON" --json "$f" | jq -e --argjson t "$A" --argjson n "$stops" \
	'.processes[].threads[] | select(.tid == $t) | .stops > $n and .state == "stopped"' >/dev/null; }
wait_for "alpha to stop again at the breakpoint" more_stops

# B lists it; d deletes it; the list says so.
tui_keys B
tui_wait '^ Breakpoints of process' "the breakpoint list"
tui_has "^ 1 hits=[0-9]+ from=1 thread=all at=0x[0-9a-f]+ alpha_leaf" ||
	tui_fail "breakpoint 1 not listed"
tui_keys d
tui_wait 'no breakpoints \(b sets one\)' "the empty list after d"
tui_keys Escape
tui_wait '^F1Help' "the main screen again"
tui_keys c
wait_state "$A" running

# p, s, n, f on seq, each stop with its reason; c runs it again.
select_thread seq "$S"
tui_keys p
tui_wait "^.* +$S seq +stopped:stop " "seq paused"
tui_keys s
tui_wait "^.* +$S seq +stopped:step " "seq stepped"
tui_keys n
tui_wait "^.* +$S seq +stopped:next " "seq stepped over"
tui_keys f
tui_wait "^.* +$S seq +stopped:finish " "seq finished a function"
tui_wait "^ Stack of thread $S \"seq\": stopped:finish, depth [0-9]+ \(returned from seq_" "the function finished"
tui_keys c
wait_state "$S" running

# t: trace off and on again.
select_thread beta "$B"
tui_keys t
tui_wait "^thread $B: trace off" "the answer to TROF"
tui_wait "^.* +$B beta +untraced " "beta untraced"
tui_keys t
tui_wait "^thread $B: trace on" "the answer to TRON"
tui_wait "^.* +$B beta +running " "beta traced again"
# Frames entered while untraced are not known: the stack starts afresh.
traced_again() { "$RBMON" --json "$f" | jq -e --argjson t "$B" \
	'.processes[].threads[] | select(.tid == $t) | .trace == true' >/dev/null; }
wait_for "beta's trace flag on" traced_again

# g: single stepping stops every thread that passes hooks; g again ends it.
tui_keys g
tui_wait 'single on' "the header saying single on"
for t in "$A" "$B" "$S"; do
	wait_state "$t" stopped:single
done
tui_keys g
tui_wait 'single off' "the header saying single off"
for t in "$A" "$B" "$S"; do
	wait_state "$t" running
done

# C: stop-on-create; a new thread stops before its body; C again, T twice.
tui_keys C
tui_wait 'stop-on-create on' "the header saying stop-on-create on"
kill -USR1 "$pid"
late_stopped() { "$RBMON" --json "$f" >"$T/json" &&
	jq -e '[.processes[].threads[] | select(.state == "stopped" and .stop.reason == "stop_on_create")] | length == 1' "$T/json" >/dev/null; }
wait_for "the new thread stopped on creation" late_stopped
ready "late running" && fail "the late thread ran its body while stopped on creation"
L=$(jq '.processes[].threads[] | select(.stop.reason == "stop_on_create") | .tid' "$T/json")
tui_keys C
tui_wait 'stop-on-create off' "the header saying stop-on-create off"
tui_keys T
tui_wait 'trace-on-create off' "the header saying trace-on-create off"
tui_keys T
tui_wait 'trace-on-create on' "the header saying trace-on-create on"
"$RBMON" --thread "$L" --send CONT "$f" >/dev/null || fail "CONT to the late thread"
wait_ready "late running" "$pid"

# A thread blocked in read() cannot answer: withdrawn after 5 s.
select_thread blocked "$K"
tui_keys p
tui_wait "^thread $K did not answer STOP within 5 s: .*withdrawn" "the withdrawn command"
json_state "$K" running || fail "the blocked thread is marked $(state_of "$K")"

# A breakpoint needs no thread: set at once for the blocked thread's
# process, listed, and hit once the thread is released.
tui_keys b
tui_wait '^Break at: ?$' "the breakpoint prompt"
tui_keys -l blocked_loop
tui_keys Enter
tui_wait "^thread $K: breakpoint 2 at blocked_loop" "the answer to BRKP for the blocked thread"
tui_has "sent to thread" && tui_fail "BRKP went to the blocked thread"
tui_keys B
tui_wait "^ 2 hits=0 from=1 thread=all at=0x[0-9a-f]+ blocked_loop" "the breakpoint listed"
tui_keys Escape
kill -USR2 "$pid"
tui_wait "^.* +$K blocked +stopped:break 2 " "the released thread stopped at breakpoint 2"
tui_keys B
tui_wait "^ 2 hits=1 from=1 thread=all at=0x[0-9a-f]+ blocked_loop" "the hit counted"
tui_keys d
tui_wait 'no breakpoints \(b sets one\)' "the empty list after d"
tui_keys Escape
tui_keys c
wait_state "$K" running

# The heartbeat keeps a stopped thread stopped past the 3 s orphan timeout.
select_thread alpha "$A"
tui_keys p
tui_wait "^.* +$A alpha +stopped:stop " "alpha paused"
start=$SECONDS
while [ $((SECONDS - start)) -lt 5 ]; do
	json_state "$A" stopped:stop || fail "alpha resumed while rbmon runs (after $((SECONDS - start)) s)"
	sleep 0.5
done
# Killed, rbmon shows no heartbeat: alpha resumes by itself.
kill -KILL "$(rbmon_pid)"
wait_state "$A" running
grep -q "rbtrace: thread $A resumed by itself: no monitor for 3 s" "$T/app.err" ||
	fail "no note of the orphan resume on the program's stderr: $(cat "$T/app.err")"
tmx kill-server

# Quitting asks: y resumes what this rbmon stopped and clears its breakpoint.
tui_start 120 32 "$RBMON" -d 1 "$f"
tui_wait "PID $pid ctl" "the process row"
# The next screen says so: once on the message line, and in alpha's stack.
tui_wait "^thread $A resumed by itself: no monitor was left, and what monitors had set to stop threads lapsed" \
	"the note of the orphan resume"
select_thread alpha "$A"
tui_wait "^ Stack of thread $A \"alpha\": running, depth [0-9]+; resumed by itself 1 time \(no monitor left\)" \
	"alpha's stack title saying it resumed by itself"
select_thread beta "$B"
tui_keys b
tui_keys -l 'beta_odd'
tui_keys Enter
tui_wait "^thread $B: breakpoint [0-9]+ at beta_odd" "the answer to BRKP"
wait_state "$B" stopped:breakpoint
select_thread seq "$S"
tui_keys p
tui_wait "^.* +$S seq +stopped:stop " "seq paused"
tui_keys q
tui_wait '^Quit: resume 2 stopped threads, clear 1 breakpoint first\? y yes, n no' "the question on quitting"
tui_keys Escape
tui_wait '^not quitting' "Esc staying"
tui_keys q
tui_wait '^Quit: ' "the question again"
tui_keys y
tui_wait_exit
expect "rbmon exit status" 0 "$TUI_RC"
tui_restored
wait_state "$B" running
wait_state "$S" running
"$RBMON" --thread "$B" --send BLST "$f" >"$T/blst" || fail "BLST"
expect "breakpoints left" "no breakpoints" "$(cat "$T/blst")"
tmx kill-server

# n leaves a stopped thread stopped.
tui_start 120 32 "$RBMON" -d 1 "$f"
tui_wait "PID $pid ctl" "the process row"
select_thread seq "$S"
tui_keys p
tui_wait "^.* +$S seq +stopped:stop " "seq paused"
tui_keys q
tui_wait '^Quit: resume 1 stopped thread first\?' "the question on quitting"
tui_keys n
tui_wait_exit
expect "rbmon exit status" 0 "$TUI_RC"
json_state "$S" stopped:stop || fail "seq did not stay stopped after n: $(state_of "$S")"
"$RBMON" --thread "$S" --send CONT "$f" >/dev/null || fail "CONT to seq"
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"
exit 0
