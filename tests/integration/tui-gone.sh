#!/bin/bash
# SPDX-License-Identifier: MIT
# tui-gone: the interactive monitor outlives its program.  SIGKILLed, the
# program turns "gone" on screen within a bounded wait ("[program gone]"
# header, the process and thread rows "gone", TIME blank, a message) while
# the last stacks stay shown with the same functions and lines; rbmon keeps
# running and still takes keys (moving the selection shows the other
# thread's stack).  A program whose threads all end by themselves turns
# "exited" instead, with the stacks they ended with.  q then quits with
# status 0 and the terminal restored.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui.sh"

src=$APPS_SRC/tuilife.c
L_MAIN_WAIT=$(line_of "$src" life_main_wait_def)
L_CALL_MAIN_WAIT=$(line_of "$src" call_main_wait)
L_INNER=$(line_of "$src" life_inner_def)
L_CALL_INNER=$(line_of "$src" call_inner)
L_CALL_OUTER=$(line_of "$src" call_outer)
L_LEAVE=$(line_of "$src" life_leave_def)
L_CALL_LEAVE=$(line_of "$src" call_leave)
MAIN_STACK="life_main_wait tuilife.c:$L_MAIN_WAIT|main tuilife.c:$L_CALL_MAIN_WAIT|"
WORKER_STACK="life_inner tuilife.c:$L_INNER|life_outer tuilife.c:$L_CALL_INNER|life_worker_main tuilife.c:$L_CALL_OUTER|"
LEAVE_STACK="life_leave tuilife.c:$L_LEAVE|main tuilife.c:$L_CALL_LEAVE|"

# stack_pane - the stack pane's frames in $T/screen: "FUNCTION FILE:LINE|"
# each, innermost first.
stack_pane()
{
	awk '/^ Watches of thread/ { s = 0 }
		s && /^#[0-9]+ / { printf "%s %s|", $2, $3 }
		/^ Stack of thread/ { s = 1 }' "$T/screen"
}

# wait_stack TID NAME STATE DEPTH FRAMES - wait until the stack pane shows
# thread TID with exactly FRAMES (as stack_pane prints them), title and
# frames on one screen (a capture may catch a redraw half done).
wait_stack()
{
	local title="^ Stack of thread $1 \"$2\": $3, depth $4 *\$"
	local deadline=$((SECONDS + WAIT_TIMEOUT))
	until tui_has "$title" && [ "$(stack_pane)" == "$5" ]; do
		[ "$SECONDS" -ge "$deadline" ] &&
			tui_fail "timed out waiting for the stack of $2 ($3): /$title/ with frames '$5', shown: '$(stack_pane)'"
		sleep 0.1
	done
}

# row TID NAME STATE DEPTH TIME FUNCTION - ERE of a thread row; TIME is an
# ERE too ("" for a blank column).
row() { echo "^[^ 0-9A-Za-z]+ +$1 +$2 +$3 +$KC +$4 +${5:+$5 +}$6 *\$"; }

AGE='[0-9][0-9.]*(ns|us|µs|ms|s|m[0-9]+s|h[0-9]+m)'

# 1. SIGKILL: gone.
f=$T/killed.trace
traced app RBTRACE_FILE="$f" "$APPS/tuilife"
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
wait_ready "lifeworker [0-9]+" "$pid"
wtid=$(ready_field lifeworker 2)

tui_start 80 24 "$RBMON" "$f"
tui_wait "$(row "$wtid" lifeworker running 3 "$AGE" life_inner)" "the worker running in life_inner"
tui_has "$(row "$pid" tuilife running 2 "$AGE" life_main_wait)" ||
	tui_fail "no row of the main thread running in life_main_wait"
tui_has "^PID $pid tuilife: alive, 2 threads *\$" || tui_fail "no alive process row"
tui_lacks "program gone" || tui_fail "says gone while the program runs"
wait_stack "$pid" tuilife running 2 "$MAIN_STACK"
wait_for "rbmon's pid" rbmon_pid
mon=$(cat "$T/wait.last")

kill -KILL "$pid"
{ wait "$pid"; } 2>/dev/null
[ -d "/proc/$pid" ] && fail "process $pid still exists after SIGKILL"
# rbmon refreshes every second: gone is seen within a few of them.
WAIT_TIMEOUT=10 tui_wait '\[program gone\] refresh 1s' "the [program gone] header"
tui_wait "^the program is gone; its last stacks stay on screen *\$" "the gone message"
tui_wait "^PID $pid tuilife: gone, 2 threads *\$" "the process row saying gone"
tui_wait "^Processes 0 alive, 0 exited, 1 gone  Threads 0 alive, 0 exited, 2 gone *\$" \
	"header counts of 1 process and 2 threads gone"
tui_wait "$(row "$pid" tuilife gone 2 "" life_main_wait)" \
	"the main thread row 'gone ... life_main_wait', TIME blank"
tui_wait "$(row "$wtid" lifeworker gone 3 "" life_inner)" \
	"the worker row 'gone ... life_inner', TIME blank"
tui_lacks "^[^ 0-9A-Za-z]+ +[0-9]+ .* running " || tui_fail "something still shows as running"
wait_stack "$pid" tuilife gone 2 "$MAIN_STACK"

# rbmon is still there and takes keys.
kill -0 "$mon" 2>/dev/null || fail "rbmon ($mon) ended when the program died"
tui_keys j
wait_stack "$wtid" lifeworker gone 3 "$WORKER_STACK"
tui_keys k
wait_stack "$pid" tuilife gone 2 "$MAIN_STACK"
tui_keys Down
wait_stack "$wtid" lifeworker gone 3 "$WORKER_STACK"
tui_has "\[program gone\]" || tui_fail "the gone header went away"

tui_keys q
tui_wait_exit
expect "rbmon status after q (program gone)" 0 "$TUI_RC"
tui_restored
[ -s "$T/tui.err" ] && fail "rbmon wrote to stderr: $(cat "$T/tui.err")"

# 2. Every thread ends by itself: exited, with the stacks they ended with.
tmx kill-server 2>/dev/null
: >"$RBT_READY"
f=$T/exited.trace
traced app2 RBTRACE_FILE="$f" "$APPS/tuilife" -e 0
pid=$LAUNCHED
wait_ready "main $pid" "$pid"
wait_ready "lifeworker [0-9]+" "$pid"
wtid=$(ready_field lifeworker 2)

tui_start 80 24 "$RBMON" "$f"
tui_wait "$(row "$wtid" lifeworker running 3 "$AGE" life_inner)" "the worker running in life_inner"
wait_stack "$pid" tuilife running 2 "$MAIN_STACK"
stop_and_reap "$pid"
expect "tuilife status after SIGTERM" 0 "$REAPED"
WAIT_TIMEOUT=10 tui_wait '\[program gone\] refresh 1s' "the [program gone] header"
tui_wait "^the program is gone; its last stacks stay on screen *\$" "the gone message"
tui_wait "^PID $pid tuilife: exited, 2 threads *\$" "the process row saying exited"
tui_wait "^Processes 0 alive, 1 exited, 0 gone  Threads 0 alive, 2 exited, 0 gone *\$" \
	"header counts of 1 process and 2 threads exited"
tui_wait "$(row "$pid" tuilife exited 2 "" life_leave)" \
	"the main thread row 'exited ... life_leave', TIME blank"
tui_wait "$(row "$wtid" lifeworker exited 3 "" life_inner)" \
	"the worker row 'exited ... life_inner', TIME blank"
tui_lacks "^[^ 0-9A-Za-z]+ +[0-9]+ .* (running|gone) " || tui_fail "a thread is not shown as exited"
wait_stack "$pid" tuilife exited 2 "$LEAVE_STACK"
tui_keys j
wait_stack "$wtid" lifeworker exited 3 "$WORKER_STACK"

tui_keys q
tui_wait_exit
expect "rbmon status after q (program exited)" 0 "$TUI_RC"
tui_restored
exit 0
