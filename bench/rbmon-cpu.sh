#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/rbmon-cpu.sh - what rbmon's screen costs at a 0.1 s refresh over 256
# threads that are nearly all blocked in the kernel, now that each refresh
# reads every live thread's kernel state and CPU time from /proc.
#
# Target: under 3% of a core at -d 1 (0.1 s) with 256 threads.
#
# It runs bench/apps/sleepers (256 traced threads: BENCH_BUSY of them busy
# about a quarter of a core each, the others blocked in read(), a futex or
# nanosleep()) under LD_PRELOAD of the freshly built librbtrace.so, waits
# until rbmon --dump --json sees every thread's ring, then measures the
# CPU (utime+stime from /proc/PID/stat, as % of one core) over a window of
# BENCH_SECONDS, BENCH_SETTLE seconds after the first screen, of:
#   rbmon -d 1    the full-screen view in a detached tmux session (80x24),
#                 refreshed every 0.1 s: the measured row;
#   rbmon -d 10   the same at the default 1 s refresh;
#   top -d 0.1    for reference, `top -b -H -d 0.1 -p PID` (the same 256
#                 threads, their state and CPU every 0.1 s), when top has
#                 those options.
# The traced program's and the tmux server's CPU over the same windows are
# shown for scale.  A missed target is reported ("MISSED"), never an error:
# the exit status is 0 when it measured, 77 when a tool it needs is
# missing, 1 when the harness itself broke.
#
# Run it alone from the build directory (after `make all bench/apps/sleepers`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/rbmon-cpu.sh
# or as part of `make bench`.  Knobs (environment): BENCH_SECONDS (20),
# BENCH_SETTLE (1), BENCH_THREADS (256), BENCH_BUSY (4), BENCH_RINGS (300),
# WAIT_TIMEOUT (30, seconds for anything the harness waits on), RBMON (the
# rbmon to measure, default $top_builddir/rbmon).

set -u

NAME=rbmon-cpu
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

SECS=${BENCH_SECONDS:-20}
SETTLE=${BENCH_SETTLE:-1}
THREADS=${BENCH_THREADS:-256}
BUSY=${BENCH_BUSY:-4}
RINGS=${BENCH_RINGS:-300}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}
LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
RBMON=${RBMON:-$top_builddir/rbmon}
APP=$top_builddir/bench/apps/sleepers

TARGET_CPU=3		# % of one core, at 0.1 s refresh

for tool in tmux jq setsid; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -f "$LIBRBTRACE" ] || broke "library not built: $LIBRBTRACE"
[ -x "$RBMON" ] || broke "rbmon not built: $RBMON"
[ -x "$APP" ] || broke "benchmark program not built: $APP (make bench/apps/sleepers)"
[ -r /proc/self/stat ] || skip "no /proc"
for v in SECS SETTLE THREADS RINGS WAIT_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] ||
		broke "$v must be a positive integer, not '${!v}'"
done
[[ $BUSY =~ ^[0-9]+$ ]] && [ "$BUSY" -lt "$THREADS" ] ||
	broke "BENCH_BUSY must be a number below BENCH_THREADS, not '$BUSY'"

. "$(dirname "$0")/rbmon-lib.sh"

# Blocked threads, as the kernel has them (the dump reads /proc too).
kernel_states()
{
	"$RBMON" --dump --json "$TRACE" |
		jq -r '[.processes[0].threads[].kstate] | group_by(.) |
			map("\(.[0] // "null") \(length)") | join(", ")'
}

read -r LOAD0 _ </proc/loadavg

# --- the traced program -------------------------------------------------
app_start "$APP" "$THREADS" "$BUSY"
KSTATES=$(kernel_states) || broke "rbmon --dump --json failed"

SCREEN_RE="^PID $APP_PID sleepers"
THREAD_RE="sleep-[0-9]+ "

# start_rbmon TENTHS - rbmon -d TENTHS in a new 80x24 session $S; waits for
# the thread list; $RBMON_PID.
start_rbmon()
{
	local deadline
	SESSION=$((SESSION + 1))
	S=s$SESSION
	tmx new-session -d -s "$S" -x 80 -y 24 \
		"exec env TERM=screen LANG=C.UTF-8 LC_ALL= $(printf '%q ' "$RBMON" -d "$1" "$TRACE") 2>$(printf '%q' "$T/$S.err")" ||
		broke "tmux new-session failed"
	deadline=$((SECONDS + WAIT_TIMEOUT))
	while :; do
		on_screen "$S"
		case $? in
		0) break;;
		2)	cat "$T/$S.err" >&2 2>/dev/null
			broke "the session ended before showing the thread list (-d $1)";;
		esac
		if [ "$SECONDS" -ge "$deadline" ]; then
			cat "$T/screen" "$T/$S.err" >&2 2>/dev/null
			broke "timed out after ${WAIT_TIMEOUT}s waiting for the thread list (-d $1)"
		fi
		sleep 0.02
	done
	RBMON_PID=$(tmx display-message -p -t "$S" '#{pane_pid}') ||
		broke "no pane pid for $S"
	[ "$(cat "/proc/$RBMON_PID/comm" 2>/dev/null)" = rbmon ] ||
		broke "pane pid $RBMON_PID of $S is not rbmon"
}

# cpu_window PID - CPU of PID over SECS seconds after SETTLE: $CPU_ONE
# (user $CPU_USER, system $CPU_SYS), $CPU_APP, $CPU_TMUX (% of a core).
cpu_window()
{
	local who=$1 t0 r0 u0 s0 a0 x0 us
	sleep "$SETTLE"
	now_us; t0=$NOW
	ticks "$who" || broke "process $who died before the window"
	r0=$TICKS u0=$UTICKS s0=$STICKS
	ticks "$APP_PID" || broke "sleepers died before the window"; a0=$TICKS
	ticks "$TMUX_PID" || broke "the tmux server died"; x0=$TICKS
	sleep "$SECS"
	now_us; us=$((NOW - t0))
	ticks "$who" || broke "process $who died during the window"
	CPU_ONE=$(pct $((TICKS - r0)) "$us")
	CPU_USER=$(pct $((UTICKS - u0)) "$us")
	CPU_SYS=$(pct $((STICKS - s0)) "$us")
	ticks "$APP_PID" || broke "sleepers died during the window"
	CPU_APP=$(pct $((TICKS - a0)) "$us")
	ticks "$TMUX_PID" || broke "the tmux server died during the window"
	CPU_TMUX=$(pct $((TICKS - x0)) "$us")
}

ROWS=()
ROW_FMT='%-22s %7s %7s %7s  %-14s %9s %7s'
row() { ROWS+=("$(printf "$ROW_FMT" "$1" "$CPU_ONE" "$CPU_USER" "$CPU_SYS" "$2" "$CPU_APP" "$CPU_TMUX")"); }

# --- rbmon at 0.1 s and at 1 s ----------------------------------------------
start_rbmon 1
note "CPU window: rbmon -d 1, ${SECS}s"
cpu_window "$RBMON_PID"
stop_rbmon
row "rbmon -d 1 (0.1 s)" "<$TARGET_CPU%: $(verdict "$CPU_ONE" "$TARGET_CPU")"
RBMON_FAST=$CPU_ONE

start_rbmon 10
note "CPU window: rbmon -d 10, ${SECS}s"
cpu_window "$RBMON_PID"
stop_rbmon
row "rbmon -d 10 (1 s)" ""

# --- top, for reference -------------------------------------------------------
if command -v top >/dev/null && top -b -H -n 1 -d 0.1 -p "$APP_PID" >/dev/null 2>&1; then
	top -b -H -d 0.1 -p "$APP_PID" >/dev/null 2>&1 &
	TOP_PID=$!
	note "CPU window: top -b -H -d 0.1 -p PID, ${SECS}s"
	cpu_window "$TOP_PID"
	kill -TERM "$TOP_PID" 2>/dev/null
	wait "$TOP_PID" 2>/dev/null
	TOP_PID=
	row "top -H -d 0.1 (ref)" ""
else
	note "no top with -b -H -d -p here: no reference row"
fi

# --- report -------------------------------------------------------------------
read -r LOAD1 _ </proc/loadavg
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
[ -n "$model" ] || model=$(uname -m)

echo
echo "rbmon CPU benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:  $model, nproc $(nproc), $(uname -sr), load average before $LOAD0, after $LOAD1"
echo "traced:   bench/apps/sleepers, $THREADS threads ($BUSY busy), $RINGS rings; kernel states: $KSTATES"
echo "rbmon:    $RBMON in tmux $(tmux -V | cut -d' ' -f2), 80x24, TERM=screen"
echo
echo "CPU, % of one core, over ${SECS} s starting ${SETTLE} s after the first screen:"
printf "$ROW_FMT\n" "" total user system target sleepers tmux
for r in "${ROWS[@]}"; do echo "$r"; done
echo
[ "$(verdict "$RBMON_FAST" "$TARGET_CPU")" = met ] ||
	note "MISSED: rbmon at 0.1 s used $RBMON_FAST% of a core (target < $TARGET_CPU%)"
exit 0
