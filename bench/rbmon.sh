#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/rbmon.sh - what rbmon itself costs while it watches 256 busy threads.
#
# Target: with 256 rings in use and a 0.1 s refresh, rbmon uses under 3% of
# a core once its symbol data is cached, and shows its first screen in
# under 0.3 s.
#
# It runs bench/apps/many (256 traced threads whose stacks change all the
# time) under LD_PRELOAD of the freshly built librbtrace.so with
# RBTRACE_RINGS=300, waits until rbmon --dump --json sees 256 rings used,
# then runs the real rbmon full-screen view in a detached tmux session of
# its own (socket in a temporary directory) and measures:
#   first screen  wall time from starting the session (tmux server already
#                 up) until the thread list is on screen, polled with
#                 capture-pane every ~5 ms; median of BENCH_RUNS runs at
#                 80x24, -d 1.  Also split out: from rbmon's exec on (a
#                 wrapper notes the time, then execs rbmon), and the harness
#                 floor (the same for a command that prints a matching
#                 list at once: tmux, the shell and the polling);
#   CPU           utime+stime of the rbmon process (/proc/PID/stat) over a
#                 BENCH_SECONDS window that starts BENCH_SETTLE seconds after
#                 the first screen (symbols resolved and cached by then), as
#                 % of one core: 80x24 at -d 1 (0.1 s) and at the default
#                 -d 10, and 200x60 at -d 1.  The traced program's and the
#                 tmux server's CPU over the same window are shown for scale.
# It prints a table with the machine; a missed target is reported
# ("MISSED"), never an error: the exit status is 0 when it measured, 77
# when a tool it needs is missing, 1 when the harness itself broke.
#
# Run it alone from the build directory (after `make all bench/apps/many`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/rbmon.sh
# or as part of `make bench`.  Knobs (environment): BENCH_SECONDS (20),
# BENCH_RUNS (5), BENCH_SETTLE (1), BENCH_THREADS (256), BENCH_RINGS (300),
# WAIT_TIMEOUT (30, seconds for anything the harness waits on), RBMON (the
# rbmon to measure, default $top_builddir/rbmon).

set -u

NAME=rbmon
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

SECS=${BENCH_SECONDS:-20}
RUNS=${BENCH_RUNS:-5}
SETTLE=${BENCH_SETTLE:-1}
THREADS=${BENCH_THREADS:-256}
RINGS=${BENCH_RINGS:-300}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}
LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
RBMON=${RBMON:-$top_builddir/rbmon}
MANY=$top_builddir/bench/apps/many

TARGET_CPU=3		# % of one core, at 0.1 s refresh
TARGET_FIRST_MS=300	# first screen

for tool in tmux jq setsid; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -f "$LIBRBTRACE" ] || broke "library not built: $LIBRBTRACE"
[ -x "$RBMON" ] || broke "rbmon not built: $RBMON"
[ -x "$MANY" ] || broke "benchmark program not built: $MANY (make bench/apps/many)"
[ -r /proc/self/stat ] || skip "no /proc"
for v in SECS RUNS SETTLE THREADS RINGS WAIT_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] ||
		broke "$v must be a positive integer, not '${!v}'"
done

. "$(dirname "$0")/rbmon-lib.sh"

read -r LOAD0 _ </proc/loadavg

# --- the traced program -------------------------------------------------
app_start "$MANY" "$THREADS"
RINGS_USED=$("$RBMON" --dump --json "$TRACE" | jq -r '.rings.used')
SLOTS=${RBTRACE_SLOTS:-64 (default)}

# --- one session ------------------------------------------------------------
SCREEN_RE="^PID $APP_PID many"
THREAD_RE="[0-9]+ many(-[0-9]+)? +running"

# $T/wrap STAMP CMD... - note when CMD starts (exec, so the pane's pid is
# CMD's), then become CMD.
cat >"$T/wrap" <<'EOF_WRAP'
#!/bin/bash
printf '%s\n' "$EPOCHREALTIME" >"$1"
shift
exec "$@"
EOF_WRAP
chmod +x "$T/wrap"

# start_session COLS ROWS CMD... - run CMD in a new session $S of COLS x
# ROWS and wait until the thread list is on its screen: $FIRST_US is the
# wall time from starting the session, $EXEC_US from CMD's start, $PANE_PID
# CMD's pid.
start_session()
{
	local cols=$1 rows=$2 t0 t1 deadline
	shift 2
	SESSION=$((SESSION + 1))
	S=s$SESSION
	now_us; t0=$NOW
	tmx new-session -d -s "$S" -x "$cols" -y "$rows" \
		"exec $(printf '%q ' "$T/wrap" "$T/$S.exec" "$@") 2>$(printf '%q' "$T/$S.err")" ||
		broke "tmux new-session failed"
	deadline=$((SECONDS + WAIT_TIMEOUT))
	while :; do
		on_screen "$S"
		case $? in
		0) break;;
		2)	grep -q '[^[:space:]]' "$T/screen" 2>/dev/null &&
				{ echo "--- last screen of: $*" >&2; cat "$T/screen" >&2; }
			cat "$T/$S.err" >&2 2>/dev/null
			broke "the session ended before showing the thread list (${cols}x$rows: $*)";;
		esac
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "--- screen of: $*" >&2
			cat "$T/screen" >&2
			cat "$T/$S.err" >&2 2>/dev/null
			broke "timed out after ${WAIT_TIMEOUT}s waiting for the thread list (${cols}x$rows: $*)"
		fi
		sleep 0.005
	done
	now_us
	FIRST_US=$((NOW - t0))
	read -r t1 <"$T/$S.exec" || broke "no start time from $T/wrap"
	t1=${t1/[.,]/}
	EXEC_US=$((NOW - t1))
	PANE_PID=$(tmx display-message -p -t "$S" '#{pane_pid}') ||
		broke "no pane pid for $S"
}

# start_rbmon COLS ROWS TENTHS - start_session with rbmon -d TENTHS;
# $RBMON_PID, and $FIRST_TICKS the CPU it used until the first screen.
start_rbmon()
{
	start_session "$1" "$2" env TERM=screen LANG=C.UTF-8 LC_ALL= \
		"$RBMON" -d "$3" "$TRACE"
	RBMON_PID=$PANE_PID
	[ "$(cat "/proc/$RBMON_PID/comm" 2>/dev/null)" = rbmon ] ||
		broke "pane pid $RBMON_PID of $S is not rbmon"
	ticks "$RBMON_PID" || broke "rbmon ($RBMON_PID) is gone"
	FIRST_TICKS=$TICKS
}

# cpu_window - CPU over SECS seconds, SETTLE seconds after the first
# screen: $CPU_RBMON (user $CPU_USER, system $CPU_SYS), $CPU_MANY,
# $CPU_TMUX (% of a core).
cpu_window()
{
	local t0 r0 u0 s0 m0 x0 us
	sleep "$SETTLE"
	tmx capture-pane -p -t "$S" >"$T/screen.before" 2>/dev/null
	now_us; t0=$NOW
	ticks "$RBMON_PID" || broke "rbmon died before the window"
	r0=$TICKS u0=$UTICKS s0=$STICKS
	ticks "$APP_PID" || broke "many died before the window"; m0=$TICKS
	ticks "$TMUX_PID" || broke "the tmux server died"; x0=$TICKS
	sleep "$SECS"
	now_us; us=$((NOW - t0))
	ticks "$RBMON_PID" || broke "rbmon died during the window (stderr: $(cat "$T/$S.err"))"
	CPU_RBMON=$(pct $((TICKS - r0)) "$us")
	CPU_USER=$(pct $((UTICKS - u0)) "$us")
	CPU_SYS=$(pct $((STICKS - s0)) "$us")
	ticks "$APP_PID" || broke "many died during the window"
	CPU_MANY=$(pct $((TICKS - m0)) "$us")
	ticks "$TMUX_PID" || broke "the tmux server died during the window"
	CPU_TMUX=$(pct $((TICKS - x0)) "$us")
	tmx capture-pane -p -t "$S" >"$T/screen.after" 2>/dev/null
	cmp -s "$T/screen.before" "$T/screen.after" &&
		note "warning: the screen did not change during the window"
	:
}

runs() { local us r=; for us; do r+=" $(ms "$us")"; done; echo "${r# }"; }
ms() { LC_ALL=C awk -v us="$1" 'BEGIN { printf "%.3f", us / 1e6 }'; }

# --- (a) first screen -----------------------------------------------------
# The harness floor: a command that prints the thread list at once.
BASE=()
for ((i = 1; i <= RUNS; i++)); do
	start_session 80 24 bash -c 'printf "PID %s many: alive\n    1 many running\n" "$1"; exec sleep 100000' - "$APP_PID"
	BASE+=("$FIRST_US")
	kill -TERM "$PANE_PID" 2>/dev/null
	tmx kill-session -t "$S" >/dev/null 2>&1
done
FIRSTS=()
EXECS=()
FIRST_CPU=()
for ((i = 1; i <= RUNS; i++)); do
	start_rbmon 80 24 1
	FIRSTS+=("$FIRST_US")
	EXECS+=("$EXEC_US")
	FIRST_CPU+=("$FIRST_TICKS")
	# The last one stays: its CPU window is the 80x24, -d 1 row.
	[ "$i" -lt "$RUNS" ] && stop_rbmon
done
MEDIAN_US=$(median "${FIRSTS[@]}")
MEDIAN_EXEC_US=$(median "${EXECS[@]}")
MEDIAN_BASE_US=$(median "${BASE[@]}")
MEDIAN_FIRST_CPU=$(median "${FIRST_CPU[@]}")

# --- (b) CPU ----------------------------------------------------------------
ROWS=()
ROW_FMT='%-9s %-8s %7s %7s %7s  %-16s %7s %7s'
measure()	# measure COLS ROWS TENTHS TARGET(yes/no) [already started]
{
	local cols=$1 rows=$2 tenths=$3 judged=$4 started=${5:-} v=-
	[ -n "$started" ] || start_rbmon "$cols" "$rows" "$tenths"
	note "CPU window: ${cols}x$rows, -d $tenths, ${SECS}s"
	cpu_window
	stop_rbmon
	[ "$judged" = yes ] && v="<$TARGET_CPU%: $(verdict "$CPU_RBMON" "$TARGET_CPU")"
	ROWS+=("$(printf "$ROW_FMT" "${cols}x$rows" \
		"$(LC_ALL=C awk -v t="$tenths" 'BEGIN { printf "%.1f s", t / 10 }')" \
		"$CPU_RBMON" "$CPU_USER" "$CPU_SYS" "$v" "$CPU_MANY" "$CPU_TMUX")")
}
measure 80 24 1 yes started
measure 80 24 10 no
measure 200 60 1 yes

# --- report -------------------------------------------------------------------
read -r LOAD1 _ </proc/loadavg
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
[ -n "$model" ] || model=$(uname -m)

echo
echo "rbmon benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:  $model, nproc $(nproc), $(uname -sr), load average before $LOAD0, after $LOAD1"
echo "traced:   bench/apps/many, $THREADS threads, $RINGS rings ($RINGS_USED used), slots $SLOTS"
echo "rbmon:    $RBMON in tmux $(tmux -V | cut -d' ' -f2), TERM=screen"
echo
echo "first screen, 80x24, -d 1: median of $RUNS runs (each run, s)"
printf '  %-34s %7s s   %-18s (%s)\n' "session start -> thread list" \
	"$(ms "$MEDIAN_US")" \
	"target < $(ms $((TARGET_FIRST_MS * 1000))) s: $(verdict "$MEDIAN_US" $((TARGET_FIRST_MS * 1000)))" \
	"$(runs "${FIRSTS[@]}")"
printf '  %-34s %7s s   %-18s (%s)\n' "rbmon exec -> thread list" \
	"$(ms "$MEDIAN_EXEC_US")" \
	"(alone: $(verdict "$MEDIAN_EXEC_US" $((TARGET_FIRST_MS * 1000))))" \
	"$(runs "${EXECS[@]}")"
printf '  %-34s %7s s   %-18s (%s)\n' "harness floor (instant command)" \
	"$(ms "$MEDIAN_BASE_US")" "" "$(runs "${BASE[@]}")"
printf '  %-34s %7s s\n' "rbmon CPU time until then" \
	"$(LC_ALL=C awk -v t="$MEDIAN_FIRST_CPU" -v hz="$HZ" 'BEGIN { printf "%.3f", t / hz }')"
echo
echo "CPU, % of one core, over ${SECS} s starting ${SETTLE} s after the first screen:"
printf "$ROW_FMT\n" terminal refresh rbmon user system target many tmux
for r in "${ROWS[@]}"; do echo "$r"; done
echo
exit 0
