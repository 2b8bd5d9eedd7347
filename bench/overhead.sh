#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/overhead.sh - what librbtrace adds to every traced call, next to
# uftrace and LTTng-UST on the same binaries.
#
# Targets (reported as met or MISSED, never an error):
#   - fib, 1 thread: librbtrace adds at most 15 ns per call pair (one
#     __cyg_profile_func_enter + one __cyg_profile_func_exit) over the
#     baseline;
#   - that is at least 10 times less than `uftrace record` adds on the same
#     binary, at the same size, in the same run;
#   (both judged twice: with librbtrace's defaults, the stack and the event
#   log, and with the stack alone, RBTRACE_EVENTS=0);
#   - fib on 2 threads: the overhead per call pair within 1.25 x the
#     1-thread figure;
#   - depth: the overhead per call pair with the calls DEPTH frames down
#     (the deepest far deeper than the ring's slots, so the ring wraps)
#     within 1.25 x the figure at the shallowest depth (where the default
#     ring holds the whole stack; also run with 16 slots, wrapping);
#   - breakpoints: fib's cost per call pair (work time / call pairs) with
#     1 and with 16 breakpoints set on functions never called within
#     1.2 x the cost with none;
#   - event log: fib, 1 thread: "stack + events" (librbtrace's defaults:
#     the live stack and a 4096-record event log, ring policy) adds at
#     most 1.25 x what the reference event logger ref-events adds per call
#     pair.
# Reported without a target: "stack only" (RBTRACE_EVENTS=0), its ratio to
# ref-stack and to stack + events (that the stack-only hook is no slower
# than before the event log existed takes the older library:
# bench/ab-events.sh), and stack + events with the fill and drain policies
# (full after the first 4096 records, they then go out of line to count
# what they drop).
# The clocks (RBTRACE_CLOCK): what one read of each costs here
# (bench/apps/clockcost: the counter the hooks read inline, rdtsc or
# CNTVCT, and clock_gettime(CLOCK_MONOTONIC)), next to the hooks' cost
# per call pair with each clock, all also as multiples of an empty call
# measured the same way (the no-op reference), so that figures of
# machines whose counter costs 5 or 20 ns compare.
#
# Workloads (bench/apps, built with -O2 -g -finstrument-functions):
#   fib   fib N 1 2: fib(N) twice, on 1 thread (a pure call-heavy loop);
#   fib2  fib N 2 2: the same work, one fib(N) on each of 2 threads;
#   work  work ROUNDS: hash table and quicksort of string keys (mixed call
#         depths, malloc and memory work between the calls);
#   depth fib N 1 2 D: fib(N) twice at the bottom of D frames.
# Each program counts its call pairs exactly and times its own work section
# with CLOCK_MONOTONIC in uninstrumented code after main() (instrumented)
# let the tracer start up; for fib2 the work time is the sum of the two
# threads' (thread-seconds, comparable with 1 thread).  The whole process's
# wall time (fork to exit, seen from this script) is reported too.
#
# Variants, alternated within each repetition (the order rotates from one
# repetition to the next) to cancel machine drift; median of BENCH_RUNS:
#   baseline    the binary alone (glibc's no-op hooks);
#   librbtrace  LD_PRELOAD of the freshly built librbtrace.so, default
#               settings, RBTRACE_FILE in a temporary directory (removed
#               after each run): "stack + events";
#   librbtrace-noev  the same with RBTRACE_EVENTS=0, no event log: "stack
#               only"; fib only;
#   librbtrace-fill, librbtrace-drain  the same with RBTRACE_POLICY=fill,
#               drain; fib only;
#   librbtrace-mono, librbtrace-none  the same with RBTRACE_CLOCK=mono,
#               none; librbtrace-none-noev with RBTRACE_CLOCK=none and
#               RBTRACE_EVENTS=0; fib only;
#   librbtrace-bpN  the same, the program waiting (FIB_GO, see fib.c)
#               until rbmon --send has set N breakpoints (0, 1, 16) on
#               fib_idle_0 .. fib_idle_N-1, never called; fib only;
#   ref-stack   LD_PRELOAD of bench/ref/librefstack.so, a store-only
#               reference for the live stack (the function stored in a
#               per-thread array on entry, the depth moved back on exit; no
#               clock, no shared file); fib only;
#   ref-events  LD_PRELOAD of bench/ref/librefevents.so, a store-only
#               reference event logger (one TSC read and two stores per
#               event into a per-thread ring): the figure an event log is
#               held to; fib only;
#   uftrace     uftrace record --no-libcall -d DIR (libmcount's
#               -finstrument-functions hooks on every instrumented function;
#               --no-libcall so that it traces the same functions as the
#               others and not also the PLT calls to libc);
#   LTTng-UST   LD_PRELOAD of liblttng-ust-cyg-profile-fast.so, in a fresh
#               session per run recording all userspace events (lttng create
#               --output DIR, enable-event -u -a, start; run; stop, destroy).
#               A session daemon already running is used; otherwise one is
#               started (lttng-sessiond --daemonize --no-kernel, LTTNG_HOME in
#               the temporary directory; as root its run directory is the
#               system one, /var/run/lttng) and stopped at the end.
# The peers trace into files at 100-200 ns a call, so they run at a smaller
# size ("peer size") than the main one, next to a baseline and a librbtrace
# run of that size: the ratio to librbtrace compares figures of one size.
# A peer that is not installed, or cannot run here, is reported as such.
#
# RBTRACE_EVENTS, RBTRACE_POLICY and RBTRACE_CLOCK are taken out of the
# environment, so that "default" means the library's defaults; before the
# runs, each librbtrace variant's trace file of a small fib is checked with
# rbmon --events (no log for noev; for the others the policy, 4096
# records, two records written per call pair and those beyond 4096
# overwritten, ring, or dropped, fill and drain; the clock the file has).
#
# Also: instructions per call pair (valgrind --tool=callgrind, Ir) of fib
# alone, under librbtrace (stack + events), librbtrace with
# RBTRACE_EVENTS=0 (stack only), with RBTRACE_CLOCK=none and the two
# references, at two sizes (the
# marginal figure is free of start-up costs), with the call counts checked
# against callgrind's; and the trace file's size for the default geometry
# and for RBTRACE_RINGS=1024 RBTRACE_SLOTS=64.
#
# It prints tables with the machine; the exit status is 0 when it
# measured, 77 when it cannot run here, 1 when the harness itself broke.
#
# Run it alone from the build directory (after `make all bench/apps/fib
# bench/apps/work bench/apps/clockcost`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/overhead.sh
# or as part of `make bench`.  Knobs (environment): BENCH_RUNS (7),
# BENCH_QUICK=1 (small sizes and 3 runs: a smoke test), BENCH_FIB_N (36),
# BENCH_FIB_PEER_N (29), BENCH_WORK_ROUNDS (40), BENCH_WORK_PEER_ROUNDS (4),
# BENCH_DEPTH_N (33), BENCH_DEPTHS ("10 100 1000 5000"), BENCH_CG_N ("20
# 24", two callgrind sizes), WAIT_TIMEOUT (30, seconds for anything the
# harness waits on).  bench/setup installs the peers.

set -u

NAME=overhead
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	RUNS=${BENCH_RUNS:-3}
	FIB_N=${BENCH_FIB_N:-30}
	FIB_PEER_N=${BENCH_FIB_PEER_N:-24}
	WORK_ROUNDS=${BENCH_WORK_ROUNDS:-4}
	WORK_PEER_ROUNDS=${BENCH_WORK_PEER_ROUNDS:-1}
	DEPTH_N=${BENCH_DEPTH_N:-27}
	CG_N=${BENCH_CG_N:-16 18}
else
	RUNS=${BENCH_RUNS:-7}
	FIB_N=${BENCH_FIB_N:-36}
	FIB_PEER_N=${BENCH_FIB_PEER_N:-29}
	WORK_ROUNDS=${BENCH_WORK_ROUNDS:-40}
	WORK_PEER_ROUNDS=${BENCH_WORK_PEER_ROUNDS:-4}
	DEPTH_N=${BENCH_DEPTH_N:-33}
	CG_N=${BENCH_CG_N:-20 24}
fi
DEPTHS=${BENCH_DEPTHS:-10 100 1000 5000}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}
LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
REFLIB_DIR=$top_builddir/bench/ref/.libs
RBMON=$top_builddir/rbmon
FIB=$top_builddir/bench/apps/fib
WORK=$top_builddir/bench/apps/work
CLOCKCOST=$top_builddir/bench/apps/clockcost

TARGET_NS=15		# fib, 1 thread: ns per call pair over the baseline
TARGET_UFTRACE=10	# uftrace's overhead / librbtrace's, at least
TARGET_THREADS=1.25	# 2 threads / 1 thread, at most
TARGET_DEPTH=1.25	# deepest / shallowest, at most
TARGET_BP=1.2		# cost per call pair with 1 or 16 breakpoints / with none, at most
TARGET_EVENTS=1.25	# stack + events' +ns per call pair / ref-events', at most
DEFAULT_SLOTS=64	# man/rbtrace.5: RBTRACE_SLOTS default
DEFAULT_EVENTS=4096	# man/rbtrace.5: RBTRACE_EVENTS default

# The variants set these themselves; librbtrace means the defaults.
unset RBTRACE_EVENTS RBTRACE_POLICY RBTRACE_CLOCK

[ "$(uname -s)" = Linux ] || skip "Linux only"
[ -f "$LIBRBTRACE" ] || broke "library not built: $LIBRBTRACE"
[ -x "$RBMON" ] || broke "rbmon not built: $RBMON"
for p in "$FIB" "$WORK" "$CLOCKCOST"; do
	[ -x "$p" ] || broke "benchmark program not built: $p (make bench/apps/fib bench/apps/work bench/apps/clockcost)"
done
for v in RUNS FIB_N FIB_PEER_N WORK_ROUNDS WORK_PEER_ROUNDS DEPTH_N WAIT_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] ||
		broke "$v must be a positive integer, not '${!v}'"
done
for d in $DEPTHS $CG_N; do
	[[ $d =~ ^[0-9]+$ ]] && [ "$d" -gt 0 ] || broke "bad depth or callgrind size '$d'"
done
read -r -a CG_SIZES <<<"$CG_N"
[ "${#CG_SIZES[@]}" -eq 2 ] && [ "${CG_SIZES[0]}" -lt "${CG_SIZES[1]}" ] ||
	broke "BENCH_CG_N must be two increasing sizes, not '$CG_N'"

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-$NAME.XXXXXX") || broke "mktemp failed"
TRACE=$T/rbtrace.trace

LTTNG_STARTED_PID=	# the session daemon this script started, if any
LTTNG_RUNDIR_MADE=	# its run directory, when it did not exist before
LTTNG_SESSION=		# the session in use, if any

# gone PID - PID no longer exists (or is a zombie).
gone()
{
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 0
	s=${s##*) }
	[ "${s:0:1}" = Z ] || [ "${s:0:1}" = X ]
}

# wait_gone PID SECONDS - poll until PID is gone; false on time-out.
wait_gone()
{
	local deadline=$((SECONDS + $2))
	until gone "$1"; do
		[ "$SECONDS" -ge "$deadline" ] && return 1
		sleep 0.1
	done
}

cleanup()
{
	if [ -n "$LTTNG_SESSION" ]; then
		lttng destroy "$LTTNG_SESSION" >/dev/null 2>&1
		LTTNG_SESSION=
	fi
	if [ -n "$LTTNG_STARTED_PID" ]; then
		kill -TERM "$LTTNG_STARTED_PID" 2>/dev/null
		wait_gone "$LTTNG_STARTED_PID" "$WAIT_TIMEOUT" ||
			{ note "lttng-sessiond $LTTNG_STARTED_PID did not stop on SIGTERM; killing it"
			  kill -KILL "$LTTNG_STARTED_PID" 2>/dev/null; }
		LTTNG_STARTED_PID=
		# Only if empty: the daemon removes what it put there.
		[ -n "$LTTNG_RUNDIR_MADE" ] && rmdir "$LTTNG_RUNDIR_MADE" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

verdict() { if le "$1" "$2"; then echo met; else echo MISSED; fi; }

read -r LOAD0 _ </proc/loadavg

# --- the peers ----------------------------------------------------------------
UFTRACE=$(command -v uftrace 2>/dev/null)
UFTRACE_STATE=
if [ -z "$UFTRACE" ]; then
	UFTRACE_STATE="not installed (bench/setup installs it)"
fi

CYG=
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib /usr/local/lib64; do
	[ -f "$d/liblttng-ust-cyg-profile-fast.so" ] && { CYG=$d/liblttng-ust-cyg-profile-fast.so; break; }
done
LTTNG_STATE=
if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
	LTTNG_STATE="not installed (lttng-tools; bench/setup installs it)"
elif [ -z "$CYG" ]; then
	LTTNG_STATE="not installed (liblttng-ust-cyg-profile-fast.so: liblttng-ust-dev; bench/setup installs it)"
fi

# lttng_daemon - use a running session daemon, or start one of our own.
lttng_daemon()
{
	local rundir pidf pid err
	if lttng list >/dev/null 2>&1; then
		LTTNG_DAEMON="already running (used, left running)"
		return 0
	fi
	export LTTNG_HOME=$T/lttng-home
	mkdir -p "$LTTNG_HOME" || return 1
	if [ "$(id -u)" -eq 0 ]; then
		rundir=/var/run/lttng
	else
		rundir=$LTTNG_HOME/.lttng
	fi
	pidf=$rundir/lttng-sessiond.pid
	[ -d "$rundir" ] || LTTNG_RUNDIR_MADE=$rundir
	# --daemonize returns once the daemon accepts commands.
	if ! err=$(lttng-sessiond --daemonize --no-kernel 2>&1); then
		LTTNG_STATE="unavailable: lttng-sessiond --daemonize failed: $(printf '%s' "$err" | grep -v '^$' | tail -n 1)"
		return 1
	fi
	pid=
	{ read -r pid <"$pidf"; } 2>/dev/null
	if [[ ! $pid =~ ^[0-9]+$ ]] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != lttng-sessiond ]; then
		LTTNG_STATE="unavailable: lttng-sessiond started but left no pid in $pidf"
		return 1
	fi
	LTTNG_STARTED_PID=$pid
	if ! err=$(lttng list 2>&1); then
		LTTNG_STATE="unavailable: the session daemon does not answer: $(printf '%s' "$err" | tail -n 1)"
		return 1
	fi
	LTTNG_DAEMON="started for this run (pid $pid, LTTNG_HOME=$LTTNG_HOME, stopped at the end)"
}
LTTNG_DAEMON=
[ -z "$LTTNG_STATE" ] && lttng_daemon
LTTNG_DISCARDED=0

# lttng_session_start - a fresh session recording every userspace event.
lttng_session_start()
{
	local err
	LTTNG_SESSION=rbt-bench-$$-$RANDOM
	rm -rf "$T/lttng.out"
	if ! err=$({ lttng create "$LTTNG_SESSION" --output "$T/lttng.out" &&
		     lttng enable-event -u -a -s "$LTTNG_SESSION" &&
		     lttng start "$LTTNG_SESSION"; } 2>&1 >/dev/null); then
		lttng destroy "$LTTNG_SESSION" >/dev/null 2>&1
		LTTNG_SESSION=
		LTTNG_STATE="unavailable: $(printf '%s' "$err" | grep -v '^$' | tail -n 1)"
		return 1
	fi
}

# lttng_session_end - stop (waits for the data) and destroy the session;
# counts discarded events; false unless the trace holds data.
lttng_session_end()
{
	local out n
	out=$(lttng stop "$LTTNG_SESSION" 2>&1)
	n=$(printf '%s\n' "$out" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) events\{0,1\} \(were\|was\) discarded.*/\1/p' | head -n 1)
	[ -n "$n" ] && LTTNG_DISCARDED=$((LTTNG_DISCARDED + n))
	lttng destroy "$LTTNG_SESSION" >/dev/null 2>&1
	LTTNG_SESSION=
	if [ -z "$(find "$T/lttng.out" -type f -size +0 -name '*_[0-9]*' 2>/dev/null | head -n 1)" ]; then
		LTTNG_STATE="failed: no event data in the trace (lttng stop said: $(printf '%s' "$out" | tr '\n' ' '))"
		return 1
	fi
	rm -rf "$T/lttng.out"
}

# --- one run ------------------------------------------------------------------
# variant_env VARIANT - the settings of a librbtrace variant into knobs[]
# (the caller's local array).
variant_env()
{
	case $1 in
	librbtrace) knobs=();;
	librbtrace-s16) knobs=(RBTRACE_SLOTS=16);;
	librbtrace-noev) knobs=(RBTRACE_EVENTS=0);;
	librbtrace-fill) knobs=(RBTRACE_POLICY=fill);;
	librbtrace-drain) knobs=(RBTRACE_POLICY=drain);;
	librbtrace-mono) knobs=(RBTRACE_CLOCK=mono);;
	librbtrace-none) knobs=(RBTRACE_CLOCK=none);;
	librbtrace-none-noev) knobs=(RBTRACE_CLOCK=none RBTRACE_EVENTS=0);;
	*) broke "unknown variant $1";;
	esac
}

# run_once VARIANT PROGRAM ARGS... - run once; sets R_CALLS R_TIMED R_WORK
# (ns) R_PROC (ns, whole process).  Exits for baseline and librbtrace
# failures; for a peer, marks it failed and returns 1.
run_once()
{
	local v=$1 rc=0 t0 line
	shift
	rm -f "$T/run.out" "$T/run.err"
	case $v in
	baseline)
		now_us; t0=$NOW
		"$@" >"$T/run.out" 2>"$T/run.err" || rc=$?
		now_us;;
	librbtrace-bp*)
		rm -f "$TRACE" "$T/go"
		mkfifo "$T/go" || broke "mkfifo $T/go"
		now_us; t0=$NOW
		env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" FIB_GO="$T/go" "$@" \
			>"$T/run.out" 2>"$T/run.err" &
		local pid=$!
		bp_arm "$pid" "${v#librbtrace-bp}" ||
			{ kill -KILL "$pid" 2>/dev/null; wait "$pid"; broke "$BP_ERROR"; }
		# Opening the FIFO for writing lets the program's open() return.
		timeout "$WAIT_TIMEOUT" bash -c 'printf x >"$1"' _ "$T/go" ||
			{ kill -KILL "$pid" 2>/dev/null; wait "$pid"; broke "fib did not take the go-ahead"; }
		wait "$pid" || rc=$?
		now_us
		[ "$rc" -eq 0 ] && [ -s "$T/run.err" ] &&
			broke "librbtrace complained: $(cat "$T/run.err")"
		rm -f "$TRACE" "$T/go";;
	librbtrace | librbtrace-*)
		rm -f "$TRACE"
		local knobs=()
		variant_env "$v"
		now_us; t0=$NOW
		env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "${knobs[@]}" "$@" \
			>"$T/run.out" 2>"$T/run.err" || rc=$?
		now_us
		[ "$rc" -eq 0 ] && [ ! -f "$TRACE" ] &&
			broke "librbtrace left no trace file: is it preloaded? ($*; stderr: $(cat "$T/run.err"))"
		[ "$rc" -eq 0 ] && [ -s "$T/run.err" ] &&
			broke "librbtrace complained: $(cat "$T/run.err")"
		rm -f "$TRACE";;
	ref-stack | ref-events)
		now_us; t0=$NOW
		env LD_PRELOAD="$REFLIB_DIR/lib$(echo "$v" | tr -d -).so" "$@" \
			>"$T/run.out" 2>"$T/run.err" || rc=$?
		now_us;;
	uftrace)
		rm -rf "$T/uftrace.data"
		now_us; t0=$NOW
		"$UFTRACE" record --no-libcall -d "$T/uftrace.data" "$@" \
			>"$T/run.out" 2>"$T/run.err" || rc=$?
		now_us
		if [ "$rc" -ne 0 ] || [ -z "$(find "$T/uftrace.data" -name '*.dat' -size +0 2>/dev/null | head -n 1)" ]; then
			UFTRACE_STATE="failed: exit $rc, $(tr '\n' ' ' <"$T/run.err" | cut -c1-200)"
			rm -rf "$T/uftrace.data"
			return 1
		fi
		rm -rf "$T/uftrace.data";;
	lttng)
		lttng_session_start || return 1
		now_us; t0=$NOW
		env LD_PRELOAD="$CYG" "$@" >"$T/run.out" 2>"$T/run.err" || rc=$?
		now_us
		if [ "$rc" -ne 0 ]; then
			LTTNG_STATE="failed: exit $rc, $(tr '\n' ' ' <"$T/run.err" | cut -c1-200)"
			lttng destroy "$LTTNG_SESSION" >/dev/null 2>&1
			LTTNG_SESSION=
			return 1
		fi
		lttng_session_end || return 1;;
	*) broke "unknown variant $v";;
	esac
	R_PROC=$(((NOW - t0) * 1000))
	[ "$rc" -eq 0 ] || broke "$v: $* exited $rc: $(cat "$T/run.err")"
	line=$(grep -E '^calls [0-9]+ timed_calls [0-9]+ threads [0-9]+ work_ns [0-9]+ wall_ns [0-9]+ result [0-9]+$' "$T/run.out" | tail -n 1)
	[ -n "$line" ] || broke "$v: $* printed no result line: $(cat "$T/run.out" "$T/run.err")"
	read -r _ R_CALLS _ R_TIMED _ _ _ R_WORK _ _ _ _ <<<"$line"
}

# bp_arm PID N - once PID (fib waiting for FIB_GO) has its trace file, set
# breakpoints on fib_idle_0 .. fib_idle_N-1 with rbmon and check BLST lists
# exactly them; false with BP_ERROR set otherwise.
bp_arm()
{
	local pid=$1 n=$2 i deadline=$((SECONDS + WAIT_TIMEOUT)) out
	BP_ERROR=
	until [ -f "$TRACE" ] && "$RBMON" --thread "$pid" --send BLST "$TRACE" >/dev/null 2>&1; do
		if gone "$pid" || [ "$SECONDS" -ge "$deadline" ]; then
			BP_ERROR="fib's main thread never showed up in $TRACE: $(cat "$T/run.err")"
			return 1
		fi
		sleep 0.05
	done
	for ((i = 0; i < n; i++)); do
		out=$("$RBMON" --thread "$pid" --send "BRKP fib_idle_$i" "$TRACE" 2>&1)
		[[ $out =~ ^breakpoint\ [0-9]+\ at\ fib_idle_$i$ ]] ||
			{ BP_ERROR="BRKP fib_idle_$i: $out"; return 1; }
	done
	out=$("$RBMON" --thread "$pid" --send BLST "$TRACE" 2>&1)
	if [ "$n" -eq 0 ]; then
		[ "$out" = "no breakpoints" ] || { BP_ERROR="BLST with none set: $out"; return 1; }
	elif [ "$(grep -c ' fib_idle_[0-9]*$' <<<"$out")" -ne "$n" ]; then
		BP_ERROR="BLST does not list $n breakpoints: $out"
		return 1
	fi
}

# --- the sets -----------------------------------------------------------------
# A set: one command line and the variants run on it.  Every set's runs
# are collected per variant: W[set:variant] (work ns), P[...] (process ns).
declare -A SET_CMD SET_VARIANTS W P CALLS TIMED
SETS=()
add_set()	# add_set NAME "VARIANTS" PROGRAM ARGS...
{
	local name=$1 vars=$2
	shift 2
	SETS+=("$name")
	SET_CMD[$name]=$(printf '%q ' "$@")
	SET_VARIANTS[$name]=$vars
}

PEERS="baseline librbtrace"
[ -z "$UFTRACE_STATE" ] && PEERS+=" uftrace"
[ -z "$LTTNG_STATE" ] && PEERS+=" lttng"

REFS=
[ -f "$REFLIB_DIR/librefstack.so" ] && [ -f "$REFLIB_DIR/librefevents.so" ] &&
	REFS=" ref-stack ref-events"
add_set fib "baseline librbtrace-noev librbtrace librbtrace-fill librbtrace-drain librbtrace-mono librbtrace-none librbtrace-none-noev$REFS" "$FIB" "$FIB_N" 1 2
add_set fib-bp "baseline librbtrace-bp0 librbtrace-bp1 librbtrace-bp16" "$FIB" "$FIB_N" 1 2
add_set fib-peer "$PEERS librbtrace-noev" "$FIB" "$FIB_PEER_N" 1 2
add_set fib2 "baseline librbtrace" "$FIB" "$FIB_N" 2 2
add_set fib2-peer "$PEERS" "$FIB" "$FIB_PEER_N" 2 2
add_set work "baseline librbtrace" "$WORK" "$WORK_ROUNDS"
add_set work-peer "$PEERS" "$WORK" "$WORK_PEER_ROUNDS"
SHALLOW=
DEEP=
for d in $DEPTHS; do
	[ -z "$SHALLOW" ] || [ "$d" -lt "$SHALLOW" ] && SHALLOW=$d
	[ -z "$DEEP" ] || [ "$d" -gt "$DEEP" ] && DEEP=$d
done
for d in $DEPTHS; do
	vars="baseline librbtrace"
	# The shallowest also with 16 slots: DEPTH + N + 2 levels > 16, so
	# that ring wraps at every call as the deep ones do.
	[ "$d" = "$SHALLOW" ] && [ $((d + DEPTH_N + 2)) -gt 16 ] && vars+=" librbtrace-s16"
	add_set "depth-$d" "$vars" "$FIB" "$DEPTH_N" 1 2 "$d"
done

# drop_variant NAME - a peer that failed leaves every set.
drop_variant()
{
	local s
	for s in "${SETS[@]}"; do
		SET_VARIANTS[$s]=$(printf '%s\n' ${SET_VARIANTS[$s]} | grep -vx "$1" | tr '\n' ' ')
	done
}

# ev_check VARIANT - the variant's event log is what it claims: none for
# noev; otherwise its policy, the default size, and every hook's record
# written, kept, overwritten or dropped as the policy says (rbmon --events
# on the trace file of a small fib).
ev_check()
{
	local v=$1 knobs=() rc=0 out calls want policy clock
	variant_env "$v"
	rm -f "$TRACE"
	env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "${knobs[@]}" "$FIB" 16 1 2 \
		>"$T/ev.out" 2>"$T/ev.err" || rc=$?
	[ "$rc" -eq 0 ] && [ ! -s "$T/ev.err" ] ||
		broke "$v: fib 16 exited $rc: $(cat "$T/ev.err")"
	read -r _ calls _ <"$T/ev.out"
	[[ $calls =~ ^[0-9]+$ ]] || broke "$v: fib 16 printed no call count"
	out=$("$RBMON" --events "$TRACE" 2>&1) || broke "$v: rbmon --events failed: $out"
	clock=$("$RBMON" --json "$TRACE" 2>&1 | sed -n 's/.*"clock": "\([a-z]*\)".*/\1/p')
	rm -f "$TRACE"
	want=$DEFAULT_CLOCK
	case $v in librbtrace-mono) want=mono;; librbtrace-none*) want=none;; esac
	[ "$clock" = "$want" ] || broke "$v: the trace file's clock is '$clock', not $want"
	if [ "$v" = librbtrace-noev ] || [ "$v" = librbtrace-none-noev ]; then
		grep -q '^no event log' <<<"$out" ||
			broke "$v: RBTRACE_EVENTS=0 left an event log: $(head -n 3 <<<"$out")"
		return 0
	fi
	policy=ring
	case $v in librbtrace-fill) policy=fill;; librbtrace-drain) policy=drain;; esac
	grep -q "^event log: $policy policy, $DEFAULT_EVENTS records per thread" <<<"$out" ||
		broke "$v: not a $policy log of $DEFAULT_EVENTS records: $(head -n 1 <<<"$out")"
	# fib 16 makes more records than the log holds: ring overwrites the
	# oldest, fill and drain (never consumed here) drop the newest.
	want=$((2 * calls))
	if [ "$policy" = ring ]; then
		want="$want written, $((want - DEFAULT_EVENTS)) overwritten, 0 dropped"
	else
		want="$want written, 0 overwritten, $((want - DEFAULT_EVENTS)) dropped"
	fi
	grep -q "): $want, " <<<"$out" ||
		broke "$v: $calls call pairs should give \"$want\": $(sed -n 3p <<<"$out")"
}
# The clock a file gets by default: the CPU's counter where it is one.
DEFAULT_CLOCK=$(env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "$FIB" 1 >/dev/null 2>&1 &&
	"$RBMON" --json "$TRACE" 2>/dev/null | sed -n 's/.*"clock": "\([a-z]*\)".*/\1/p')
rm -f "$TRACE"
[ -n "$DEFAULT_CLOCK" ] || broke "no clock in the trace file of fib 1"
for v in librbtrace librbtrace-noev librbtrace-fill librbtrace-drain librbtrace-mono \
	 librbtrace-none librbtrace-none-noev; do
	ev_check "$v"
done

# The clocks' own cost per read, and an empty call's (bench/apps/clockcost).
CLOCK_NOOP= CLOCK_COUNTER= CLOCK_COUNTER_NAME= CLOCK_MONO=
clockcost_out=$("$CLOCKCOST") || broke "$CLOCKCOST failed"
while read -r key val name; do
	case $key in
	noop_ns) CLOCK_NOOP=$val;;
	counter_ns) CLOCK_COUNTER=$val CLOCK_COUNTER_NAME=$name;;
	mono_ns) CLOCK_MONO=$val;;
	esac
done <<<"$clockcost_out"
[ -n "$CLOCK_NOOP" ] && [ -n "$CLOCK_MONO" ] || broke "clockcost printed: $clockcost_out"

note "$RUNS runs of: ${SETS[*]}"
for ((run = 0; run < RUNS; run++)); do
	for s in "${SETS[@]}"; do
		read -r -a vars <<<"${SET_VARIANTS[$s]}"
		cmd=()
		eval "cmd=(${SET_CMD[$s]})"
		nv=${#vars[@]}
		for ((k = 0; k < nv; k++)); do
			v=${vars[$(((k + run) % nv))]}
			# A peer dropped during this repetition.
			[[ " ${SET_VARIANTS[$s]} " == *" $v "* ]] || continue
			if ! run_once "$v" "${cmd[@]}"; then
				note "$v dropped: $([ "$v" = uftrace ] && echo "$UFTRACE_STATE" || echo "$LTTNG_STATE")"
				drop_variant "$v"
				continue
			fi
			if [ -n "${CALLS[$s]:-}" ] && [ "${CALLS[$s]}" != "$R_CALLS" ]; then
				broke "$s: $v counted $R_CALLS calls, another variant ${CALLS[$s]}"
			fi
			CALLS[$s]=$R_CALLS
			TIMED[$s]=$R_TIMED
			W[$s:$v]="${W[$s:$v]:-} $R_WORK"
			P[$s:$v]="${P[$s:$v]:-} $R_PROC"
		done
	done
	note "run $((run + 1))/$RUNS done"
done

# med SET VARIANT W|P - median ns of that set and variant ("" if none).
med()
{
	local key=$1:$2 vals
	if [ "$3" = W ]; then vals=${W[$key]:-}; else vals=${P[$key]:-}; fi
	[ -n "$vals" ] || return 0
	# shellcheck disable=SC2086
	median $vals
}

# per_call SET VARIANT W|P - overhead in ns per call pair over the baseline.
per_call()
{
	local b v n
	b=$(med "$1" baseline "$3")
	v=$(med "$1" "$2" "$3")
	[ -n "$b" ] && [ -n "$v" ] || return 0
	if [ "$3" = W ]; then n=${TIMED[$1]}; else n=${CALLS[$1]}; fi
	calc "printf \"%.2f\", ($v - $b) / $n"
}

# --- callgrind ----------------------------------------------------------------
CG_STATE=
CG_CLOCK=
CG_VARIANTS="baseline librbtrace librbtrace-noev librbtrace-none$REFS"
declare -A CGI CGC CGL CG_FUNCS
# cg_calls FILE FUNCTION - calls to FUNCTION recorded in a callgrind file.
cg_calls()
{
	awk -v want="$2" '
	/^c?fn=/ {
		s = $0; iscall = (substr(s, 1, 1) == "c"); sub(/^c?fn=/, "", s)
		id = s; sub(/ .*/, "", id)
		if (index(s, " ")) { name = s; sub(/^[^ ]* /, "", name); names[id] = name }
		else name = names[id]
		cur = iscall ? name : ""
		next
	}
	/^calls=/ { if (cur == want) { split(substr($0, 7), a, " "); total += a[1] } cur = ""; next }
	END { print total + 0 }' "$1"
}
cg_total() { sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$1" | head -n 1; }
# cg_lib ANNOTATED LIB - Ir spent in LIB's own code (callgrind_annotate's output).
cg_lib() { awk -v lib="[/]$2[.]so" '$0 ~ lib { gsub(/,/, "", $1); s += $1 } END { print s + 0 }' "$1"; }

# cg_run N VARIANT - callgrind run of fib N 1 2 alone (baseline), under
# librbtrace (librbtrace, librbtrace-noev, librbtrace-none) or a
# reference; sets CG_IR
# CG_CALLS CG_LIBIR (Ir in the preloaded library's own code).
cg_run()
{
	local out=$T/cg.$1.$2 rc=0 line enter exit pre=() lib=
	rm -f "$TRACE"
	case $2 in
	baseline) ;;
	librbtrace | librbtrace-noev | librbtrace-none)
		local knobs=()
		variant_env "$2"
		lib=librbtrace
		pre=(LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "${knobs[@]}");;
	ref-stack | ref-events)
		lib=lib$(echo "$2" | tr -d -)
		pre=(LD_PRELOAD="$REFLIB_DIR/$lib.so");;
	*) broke "callgrind: unknown variant $2";;
	esac
	# valgrind keeps the client's LD_PRELOAD, adding its own preloads to it.
	env "${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$out" "$FIB" "$1" 1 2 \
		>"$T/cg.out" 2>"$T/cg.err" || rc=$?
	[ "$rc" -eq 0 ] || broke "callgrind of fib $1 ($2) exited $rc: $(tail -n 5 "$T/cg.err")"
	line=$(grep -E '^calls [0-9]+ ' "$T/cg.out") || broke "callgrind: fib printed no result line"
	read -r _ CG_CALLS _ <<<"$line"
	CG_IR=$(cg_total "$out")
	[ -n "$CG_IR" ] || broke "no totals in $out"
	enter=$(cg_calls "$out" __cyg_profile_func_enter)
	exit=$(cg_calls "$out" __cyg_profile_func_exit)
	# glibc's no-op hooks are one function (callgrind names it either way).
	[ $((enter + exit)) -eq $((2 * CG_CALLS)) ] ||
		broke "callgrind saw $enter + $exit hook calls, fib claims $CG_CALLS call pairs ($2)"
	CG_LIBIR=0
	if [ -n "$lib" ]; then
		[ "$enter" -eq "$CG_CALLS" ] ||
			broke "callgrind: $enter calls of __cyg_profile_func_enter, not $CG_CALLS ($2)"
		callgrind_annotate --auto=no --threshold=100 "$out" >"$out.txt" 2>&1 ||
			broke "callgrind_annotate $out failed"
		grep -q "__cyg_profile_func_enter.*/$lib\.so" "$out.txt" ||
			broke "callgrind does not show $lib.so's __cyg_profile_func_enter: was it preloaded?"
		CG_LIBIR=$(cg_lib "$out.txt" "$lib")
	fi
	# Under valgrind the CPU may not report an invariant TSC: then the hooks read CLOCK_MONOTONIC.
	[ "$lib" = librbtrace ] && [ "$(cg_calls "$out" rb_clock_mono_ns)" -gt $((CG_CALLS / 2)) ] &&
		CG_CLOCK="note: under valgrind librbtrace's hooks read CLOCK_MONOTONIC, not the TSC (and the event log goes out of line)"
	rm -f "$TRACE"
}

if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	CG_STATE="not installed (valgrind; bench/setup installs it)"
else
	note "callgrind: fib ${CG_SIZES[*]}: $CG_VARIANTS"
	for n in "${CG_SIZES[@]}"; do
		for v in $CG_VARIANTS; do
			cg_run "$n" "$v"
			CGI[$n:$v]=$CG_IR; CGL[$n:$v]=$CG_LIBIR
			[ -z "${CGC[$n]:-}" ] || [ "${CGC[$n]}" = "$CG_CALLS" ] ||
				broke "callgrind: call counts differ ($v: $CG_CALLS, before: ${CGC[$n]})"
			CGC[$n]=$CG_CALLS
		done
	done
	# librbtrace's hook functions at the larger size, self Ir per call pair.
	for v in librbtrace librbtrace-noev librbtrace-none; do
		CG_FUNCS[$v]=$(awk -v n="${CGC[${CG_SIZES[1]}]}" '/librbtrace\.so/ && /hooks\.c/ {
			c = $1; gsub(/,/, "", c); f = $0; sub(/.*:/, "", f); sub(/ .*/, "", f)
			if (c / n >= 0.5) printf "%s%s %.1f", sep, f, c / n; sep = ", " }' "$T/cg.${CG_SIZES[1]}.$v.txt")
	done
fi

# --- trace file sizes -----------------------------------------------------------
# fsize VAR=VALUE... - size of the file a tiny traced run creates: "BYTES ALLOCATED".
fsize()
{
	local rc=0
	rm -f "$TRACE"
	env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "$@" "$FIB" 1 >/dev/null 2>"$T/size.err" || rc=$?
	[ "$rc" -eq 0 ] || broke "fib 1 under librbtrace exited $rc"
	[ -s "$T/size.err" ] && broke "librbtrace complained ($*): $(cat "$T/size.err")"
	[ -f "$TRACE" ] || broke "no trace file from fib 1"
	echo "$(stat -c %s "$TRACE") $(($(stat -c '%b * %B' "$TRACE")))"
	rm -f "$TRACE"
}
read -r SIZE_DEF ALLOC_DEF <<<"$(fsize)"
read -r SIZE_BIG ALLOC_BIG <<<"$(fsize RBTRACE_RINGS=1024 RBTRACE_SLOTS=64)"

# --- report -------------------------------------------------------------------
read -r LOAD1 _ </proc/loadavg
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
[ -n "$model" ] || model=$(uname -m)
ms() { calc "printf \"%.1f\", $1 / 1e6"; }
label()
{
	case $1 in
	baseline) echo baseline;;
	librbtrace) echo librbtrace;;
	librbtrace-noev) echo "librbtrace, EVENTS=0";;
	librbtrace-fill) echo "librbtrace, fill";;
	librbtrace-drain) echo "librbtrace, drain";;
	librbtrace-mono) echo "librbtrace, CLOCK=mono";;
	librbtrace-none) echo "librbtrace, CLOCK=none";;
	librbtrace-none-noev) echo "librbtrace, none, EV=0";;
	librbtrace-s16) echo "librbtrace, 16 slots";;
	librbtrace-bp1) echo "librbtrace, 1 breakpoint";;
	librbtrace-bp*) echo "librbtrace, ${1#librbtrace-bp} breakpoints";;
	ref-stack) echo "ref: stack, stores";;
	ref-events) echo "ref: events, tsc+2 st";;
	uftrace) echo "uftrace record";;
	lttng) echo LTTng-UST;;
	esac
}

ev_label()
{
	case $1 in
	librbtrace-noev) echo "stack only (EVENTS=0)";;
	librbtrace) echo "stack + events (ring, default)";;
	librbtrace-fill) echo "stack + events (fill)";;
	librbtrace-drain) echo "stack + events (drain)";;
	librbtrace-mono) echo "stack + events, mono";;
	librbtrace-none) echo "stack + events, no clock";;
	librbtrace-none-noev) echo "stack only, no clock";;
	*) label "$1";;
	esac
}
# ratio A B - A / B to 2 places; "-" when B is missing or not above 0.
ratio()
{
	if [ -z "$1" ] || [ -z "$2" ] || le "$2" 0; then
		echo -
	else
		calc "printf \"%.2f\", $1 / $2"
	fi
}

ROW_FMT='  %-22s %13s %10s %10s %10s %10s %10s %9s\n'
# table SET [REF_SET] - the rows of one set; the ratio is to librbtrace of the same set.
table()
{
	local s=$1 v w p ow op ratio rb
	rb=$(per_call "$s" librbtrace W)
	for v in baseline librbtrace-noev librbtrace librbtrace-fill librbtrace-drain librbtrace-mono \
		 librbtrace-none librbtrace-none-noev librbtrace-s16 ref-stack ref-events uftrace lttng; do
		w=$(med "$s" "$v" W)
		[ -n "$w" ] || continue
		p=$(med "$s" "$v" P)
		ow=- op=- ratio=-
		if [ "$v" != baseline ]; then
			ow=$(per_call "$s" "$v" W)
			op=$(per_call "$s" "$v" P)
			if [ -n "$rb" ] && ! le "$rb" 0; then
				ratio=$(calc "printf \"%.1f x\", $ow / $rb")
			fi
		fi
		printf "$ROW_FMT" "$(label "$v")" "$(group "${CALLS[$s]}")" "$(ms "$w")" "$(ms "$p")" \
			"$(calc "printf \"%.2f\", $w / ${TIMED[$s]}")" "$ow" "$op" "$ratio"
	done
}
header()
{
	printf "$ROW_FMT" variant "call pairs" "work ms" "process ms" "work ns/c" "+ns/c work" "+ns/c proc" "x rbtrace"
}
peer_notes()
{
	[ -n "$UFTRACE_STATE" ] && echo "  uftrace: $UFTRACE_STATE"
	[ -n "$LTTNG_STATE" ] && echo "  LTTng-UST: $LTTNG_STATE"
	:
}

echo
echo "librbtrace overhead benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:  $model, nproc $(nproc), $(uname -sr), load average before $LOAD0, after $LOAD1"
echo "library:  $LIBRBTRACE (default geometry: 64 rings x $DEFAULT_SLOTS slots)"
if [ -n "$UFTRACE" ] && [ -z "$UFTRACE_STATE" ]; then
	echo "uftrace:  $("$UFTRACE" --version 2>/dev/null | head -n 1), record --no-libcall"
else
	echo "uftrace:  $UFTRACE_STATE"
fi
if [ -z "$LTTNG_STATE" ] || [ -n "$LTTNG_DAEMON" ]; then
	echo "LTTng:    $(lttng --version 2>/dev/null | head -n 1), $CYG; session daemon $LTTNG_DAEMON${LTTNG_STATE:+; $LTTNG_STATE}"
else
	echo "LTTng:    $LTTNG_STATE"
fi
echo "runs:     median of $RUNS, variants alternated (order rotated each run)${BENCH_QUICK:+ BENCH_QUICK=$BENCH_QUICK}"
echo "columns:  work ms = the program's own timing of its work section (fib2: sum of both threads');"
echo "          process ms = fork to exit; work ns/c = work time per call pair;"
echo "          +ns/c = (variant - baseline) / call pairs, for the work section and the whole process"
echo "          (fib2's process figure is wall time with both threads running at once: about half);"
echo "          x rbtrace = +ns/c work / librbtrace's +ns/c work at the same size"
echo "          librbtrace = its defaults, the stack + a $DEFAULT_EVENTS-record event log, ring policy;"
echo "          EVENTS=0 = the stack only; fill, drain = RBTRACE_POLICY=fill, drain"
echo "          ref: stack = a store-only live stack; ref: events = a store-only event logger"
echo "          (a TSC read and two stores per event), preloaded in place of librbtrace"
echo
echo "fib: recursive fib(N) twice, 1 thread (bench/apps/fib N 1 2)"
header
echo " main size, N=$FIB_N"; table fib
echo " peer size, N=$FIB_PEER_N"; table fib-peer
echo
{
	echo "event log: fib($FIB_N) twice, 1 thread (the fib runs above): the stack alone, the stack"
	echo "with the event log, the store-only references; x = ratio of the +ns/c work figures"
	printf '  %-30s %10s %10s %12s %12s %12s\n' variant "work ns/c" "+ns/c work" "x ref-events" "x ref-stack" "x stack only"
	for v in librbtrace-noev librbtrace librbtrace-fill librbtrace-drain ref-stack ref-events; do
		w=$(med fib "$v" W)
		[ -n "$w" ] || continue
		ow=$(per_call fib "$v" W)
		printf '  %-30s %10s %10s %12s %12s %12s\n' "$(ev_label "$v")" \
			"$(calc "printf \"%.2f\", $w / ${TIMED[fib]}")" "$ow" \
			"$(ratio "$ow" "$(per_call fib ref-events W)")" \
			"$(ratio "$ow" "$(per_call fib ref-stack W)")" \
			"$(ratio "$ow" "$(per_call fib librbtrace-noev W)")"
	done
	echo "  the event log's own cost (stack + events - stack only): $(calc "printf \"%.2f\", $(per_call fib librbtrace W) - $(per_call fib librbtrace-noev W)") ns per call pair"
	if [ -n "$REFS" ]; then
		echo "  ref: events - ref: stack: $(calc "printf \"%.2f\", $(per_call fib ref-events W) - $(per_call fib ref-stack W)") ns (the stack hook reads the TSC at entry already,"
		echo "  the event log adds the exit's read; ref: stack reads none, ref: events two)"
	else
		echo "  (ref: stack, ref: events: not built; make bench builds them)"
	fi
	echo
}
{
	# The clocks: one read's cost, and the hooks' with each clock.
	cname=${CLOCK_COUNTER_NAME:-counter}
	echo "clocks (RBTRACE_CLOCK): one read, timed in a loop of 10,000,000 (bench/apps/clockcost, median"
	echo "of 7), and the hooks' +ns per call pair (the fib runs above: one entry and one exit) with"
	echo "each clock; x no-op = / an empty call timed the same way, a reference that travels between"
	echo "machines; the default clock here: $DEFAULT_CLOCK"
	printf '  %-40s %10s %8s\n' what ns "x no-op"
	printf '  %-40s %10s %8s\n' "an empty call (the no-op reference)" "$CLOCK_NOOP" 1.00
	if [ -n "$CLOCK_COUNTER" ]; then
		printf '  %-40s %10s %8s\n' "read the counter inline ($cname)" "$CLOCK_COUNTER" \
			"$(ratio "$CLOCK_COUNTER" "$CLOCK_NOOP")"
	fi
	printf '  %-40s %10s %8s\n' "clock_gettime(CLOCK_MONOTONIC)" "$CLOCK_MONO" \
		"$(ratio "$CLOCK_MONO" "$CLOCK_NOOP")"
	for v in librbtrace librbtrace-mono librbtrace-none librbtrace-noev librbtrace-none-noev ref-stack ref-events; do
		ow=$(per_call fib "$v" W)
		[ -n "$ow" ] || continue
		case $v in
		librbtrace) what="hooks, stack + events, $DEFAULT_CLOCK (default)";;
		librbtrace-mono) what="hooks, stack + events, mono";;
		librbtrace-none) what="hooks, stack + events, none";;
		librbtrace-noev) what="hooks, stack only, $DEFAULT_CLOCK";;
		librbtrace-none-noev) what="hooks, stack only, none";;
		ref-stack) what="ref: stack (stores, no clock)";;
		ref-events) what="ref: events (tsc + 2 stores, twice)";;
		esac
		printf '  %-40s %10s %8s\n' "$what" "$ow" "$(ratio "$ow" "$CLOCK_NOOP")"
	done
	a=$(per_call fib librbtrace W) b=$(per_call fib librbtrace-none W)
	c=$(per_call fib librbtrace-noev W) d=$(per_call fib librbtrace-none-noev W)
	if [ -n "$b" ] && [ -n "$d" ]; then
		echo "  what the clock costs the hooks: stack + events $(calc "printf \"%.2f\", $a - $b") ns (two reads: entry, exit),"
		echo "  stack only $(calc "printf \"%.2f\", $c - $d") ns (one read, at entry); none / $DEFAULT_CLOCK: stack + events $(ratio "$b" "$a") x,"
		echo "  stack only $(ratio "$d" "$c") x"
	fi
	echo
}
echo "fib2: the same work on 2 threads, one fib(N) each (bench/apps/fib N 2 2)"
header
echo " main size, N=$FIB_N"; table fib2
echo " peer size, N=$FIB_PEER_N"; table fib2-peer
echo
echo "work: hash table + quicksort of 20000 string keys per round (bench/apps/work ROUNDS)"
header
echo " main size, $WORK_ROUNDS rounds"; table work
echo " peer size, $WORK_PEER_ROUNDS rounds"; table work-peer
peer_notes
[ "$LTTNG_DISCARDED" -gt 0 ] && echo "  LTTng-UST discarded $LTTNG_DISCARDED events in all (lttng stop)"
echo
echo "depth: fib($DEPTH_N) twice at the bottom of D frames (bench/apps/fib $DEPTH_N 1 2 D);"
echo "the calls run at levels D .. D+$((DEPTH_N + 1)): with $DEFAULT_SLOTS slots the ring wraps where D+$((DEPTH_N + 2)) > $DEFAULT_SLOTS"
printf '  %-7s %-22s %13s %10s %10s %10s\n' D variant "call pairs" "work ms" "+ns/c work" "+ns/c proc"
for d in $DEPTHS; do
	for v in baseline librbtrace librbtrace-s16; do
		w=$(med "depth-$d" "$v" W)
		[ -n "$w" ] || continue
		ow=- op=-
		[ "$v" != baseline ] && { ow=$(per_call "depth-$d" "$v" W); op=$(per_call "depth-$d" "$v" P); }
		printf '  %-7s %-22s %13s %10s %10s %10s\n' "$d" "$(label "$v")" \
			"$(group "${CALLS[depth-$d]}")" "$(ms "$w")" "$ow" "$op"
	done
done
[ -n "$(med "depth-$SHALLOW" librbtrace-s16 W)" ] &&
	echo "  (16 slots: depth $SHALLOW + $((DEPTH_N + 2)) levels do not fit, so that ring wraps at every call)"
echo
echo "breakpoints: fib($FIB_N) twice, 1 thread, with N breakpoints set on functions never called"
echo "(the program waits until rbmon --send has set them; process time includes that: not shown)"
printf '  %-28s %13s %10s %10s %10s %12s %12s\n' variant "call pairs" "work ms" "work ns/c" "+ns/c work" "ns/c / none" "+ns/c / none"
for v in baseline librbtrace-bp0 librbtrace-bp1 librbtrace-bp16; do
	w=$(med fib-bp "$v" W)
	[ -n "$w" ] || continue
	ow=- r1=- r2=-
	if [ "$v" != baseline ]; then
		ow=$(per_call fib-bp "$v" W)
		r1=$(calc "printf \"%.3f\", $w / $(med fib-bp librbtrace-bp0 W)")
		r2=$(per_call fib-bp librbtrace-bp0 W)
		if le "$r2" 0; then r2=-; else r2=$(calc "printf \"%.2f\", $ow / $r2"); fi
	fi
	printf '  %-28s %13s %10s %10s %10s %12s %12s\n' "$(label "$v")" "$(group "${CALLS[fib-bp]}")" \
		"$(ms "$w")" "$(calc "printf \"%.2f\", $w / ${TIMED[fib-bp]}")" "$ow" "$r1" "$r2"
done
echo

echo "instructions per call pair, callgrind (Ir), fib N 1 2:"
if [ -n "$CG_STATE" ]; then
	echo "  $CG_STATE"
else
	a=${CG_SIZES[0]} b=${CG_SIZES[1]}
	echo "  call pairs: $(group "${CGC[$a]}") at N=$a, $(group "${CGC[$b]}") at N=$b;"
	echo "  marginal = N=$b minus N=$a, per call pair (free of start-up); lib = the preloaded library's own code"
	printf '  %-24s %14s %14s %10s %10s %14s %14s\n' variant "Ir N=$a" "Ir N=$b" "+Ir/c" "lib Ir/c" \
		"marginal +Ir/c" "marginal lib"
	for v in $CG_VARIANTS; do
		if [ "$v" = baseline ]; then
			printf '  %-24s %14s %14s %10s %10s %14s %14s\n' baseline "$(group "${CGI[$a:$v]}")" \
				"$(group "${CGI[$b:$v]}")" - - - -
			continue
		fi
		printf '  %-24s %14s %14s %10s %10s %14s %14s\n' "$(label "$v")" \
			"$(group "${CGI[$a:$v]}")" "$(group "${CGI[$b:$v]}")" \
			"$(calc "printf \"%.1f\", (${CGI[$b:$v]} - ${CGI[$b:baseline]}) / ${CGC[$b]}")" \
			"$(calc "printf \"%.1f\", ${CGL[$b:$v]} / ${CGC[$b]}")" \
			"$(calc "printf \"%.1f\", ((${CGI[$b:$v]} - ${CGI[$b:baseline]}) - (${CGI[$a:$v]} - ${CGI[$a:baseline]})) / (${CGC[$b]} - ${CGC[$a]})")" \
			"$(calc "printf \"%.1f\", (${CGL[$b:$v]} - ${CGL[$a:$v]}) / (${CGC[$b]} - ${CGC[$a]})")"
	done
	ev=$(calc "printf \"%.1f\", ((${CGL[$b:librbtrace]} - ${CGL[$a:librbtrace]}) - (${CGL[$b:librbtrace-noev]} - ${CGL[$a:librbtrace-noev]})) / (${CGC[$b]} - ${CGC[$a]})")
	echo "  the event log's own marginal lib Ir per call pair (librbtrace - EVENTS=0): $ev"
	echo "  librbtrace's hook functions at N=$b, self Ir per call pair:"
	echo "    librbtrace:          ${CG_FUNCS[librbtrace]}"
	echo "    librbtrace, EVENTS=0: ${CG_FUNCS[librbtrace-noev]}"
	echo "    librbtrace, CLOCK=none: ${CG_FUNCS[librbtrace-none]}"
	[ -n "$CG_CLOCK" ] && echo "  $CG_CLOCK"
	echo "  (call counts checked against callgrind's calls of __cyg_profile_func_enter/exit)"
fi
echo
echo "trace file (fib 1 under librbtrace; stat size, allocated):"
printf '  %-36s %12s bytes  (%s MiB), allocated %s MiB\n' "default (64 rings x $DEFAULT_SLOTS slots)" \
	"$(group "$SIZE_DEF")" "$(calc "printf \"%.2f\", $SIZE_DEF / 1048576")" "$(calc "printf \"%.2f\", $ALLOC_DEF / 1048576")"
printf '  %-36s %12s bytes  (%s MiB), allocated %s MiB\n' "RBTRACE_RINGS=1024 RBTRACE_SLOTS=64" \
	"$(group "$SIZE_BIG")" "$(calc "printf \"%.2f\", $SIZE_BIG / 1048576")" "$(calc "printf \"%.2f\", $ALLOC_BIG / 1048576")"
echo

# --- targets --------------------------------------------------------------------
echo "targets:"
RB1=$(per_call fib librbtrace W)
RN1=$(per_call fib librbtrace-noev W)
# The per-call and uftrace targets, judged for the defaults (the stack and
# the event log) and for the stack alone (--events 0).
for v in librbtrace librbtrace-noev; do
	if [ "$v" = librbtrace ]; then what="defaults (stack + events)"; x=$RB1; else what="stack only (EVENTS=0)"; x=$RN1; fi
	printf '  %-72s %8s ns   %s\n' "fib, 1 thread, $what: +ns per call pair <= $TARGET_NS" "$x" "$(verdict "$x" "$TARGET_NS")"
done
UF=$(per_call fib-peer uftrace W)
for v in librbtrace librbtrace-noev; do
	if [ "$v" = librbtrace ]; then what="defaults"; else what="stack only"; fi
	RBP=$(per_call fib-peer "$v" W)
	if [ -n "$UF" ] && [ -n "$RBP" ]; then
		if le "$RBP" 0; then
			printf '  %-72s %8s      %s\n' "fib: uftrace's overhead >= ${TARGET_UFTRACE}x librbtrace's, $what (N=$FIB_PEER_N)" "inf x" met
		else
			r=$(calc "printf \"%.1f\", $UF / $RBP")
			if le "$TARGET_UFTRACE" "$r"; then vv=met; else vv=MISSED; fi
			printf '  %-72s %8s x    %s\n' "fib: uftrace's overhead >= ${TARGET_UFTRACE}x librbtrace's, $what (N=$FIB_PEER_N)" "$r" "$vv"
		fi
	else
		printf '  %-72s %8s      %s\n' "fib: uftrace's overhead >= ${TARGET_UFTRACE}x librbtrace's, $what" - "not measured: uftrace ${UFTRACE_STATE:-did not run}"
	fi
done
RB2=$(per_call fib2 librbtrace W)
if le "$RB1" 0; then
	r2=-
	v2=$(verdict "$RB2" 0)
else
	r2=$(calc "printf \"%.2f\", $RB2 / $RB1")
	v2=$(verdict "$r2" "$TARGET_THREADS")
fi
printf '  %-72s %8s x    %s\n' "fib2: 2 threads' +ns per call pair <= ${TARGET_THREADS}x 1 thread's ($RB2 / $RB1)" "$r2" "$v2"
DS=$(per_call "depth-$SHALLOW" librbtrace W)
DD=$(per_call "depth-$DEEP" librbtrace W)
if le "$DS" 0; then
	rd=-
	vd=$(verdict "$DD" 0)
else
	rd=$(calc "printf \"%.2f\", $DD / $DS")
	vd=$(verdict "$rd" "$TARGET_DEPTH")
fi
printf '  %-72s %8s x    %s\n' "depth: +ns per call pair at D=$DEEP <= ${TARGET_DEPTH}x D=$SHALLOW's ($DD / $DS)" "$rd" "$vd"
B0=$(med fib-bp librbtrace-bp0 W)
for n in 1 16; do
	Bn=$(med fib-bp "librbtrace-bp$n" W)
	rb=$(calc "printf \"%.3f\", $Bn / $B0")
	printf '  %-72s %8s x    %s\n' "breakpoints: fib's ns per call pair with $n / with none <= ${TARGET_BP}x" "$rb" "$(verdict "$rb" "$TARGET_BP")"
done
RE=$(per_call fib ref-events W)
if [ -n "$RE" ]; then
	if le "$RE" 0; then
		re=-
		ve=$(verdict "$RB1" 0)
	else
		re=$(calc "printf \"%.2f\", $RB1 / $RE")
		ve=$(verdict "$re" "$TARGET_EVENTS")
	fi
	printf '  %-72s %8s x    %s\n' "fib: stack + events +ns/pair <= ${TARGET_EVENTS}x ref-events' ($RB1 / $RE)" "$re" "$ve"
	RN=$(per_call fib librbtrace-noev W)
	RS=$(per_call fib ref-stack W)
	printf '  %-72s %8s ns\n' "  (information: fib, stack only (EVENTS=0), +ns per call pair" "$RN"
	printf '  %-72s %8s x\n' "   stack only / ref-stack, +ns per call pair ($RN / $RS)" "$(ratio "$RN" "$RS")"
	# ref-stack adds next to nothing: the whole cost per call pair too.
	printf '  %-72s %8s x\n' "   stack only / ref-stack, work ns per call pair" \
		"$(ratio "$(med fib librbtrace-noev W)" "$(med fib ref-stack W)")"
	printf '  %-72s %8s x\n' "   stack only / stack + events ($RN / $RB1)" "$(ratio "$RN" "$RB1")"
	for v in fill drain; do
		RP=$(per_call fib "librbtrace-$v" W)
		printf '  %-72s %8s x\n' "   stack + events, $v / ref-events ($RP / $RE)" "$(ratio "$RP" "$RE")"
	done
	printf '  %-72s\n' "   the stack only against the library before the event log: bench/ab-events.sh)"
else
	printf '  %-72s %8s      %s\n' "fib: stack + events +ns/pair <= ${TARGET_EVENTS}x ref-events'" - \
		"not measured: bench/ref not built (make bench builds it)"
fi
DN=$(per_call "depth-$SHALLOW" librbtrace-s16 W)
if [ -n "$DN" ] && ! le "$DN" 0; then
	printf '  %-72s %8s x    %s\n' "  (information: D=$DEEP vs D=$SHALLOW with 16 slots, both wrap: $DD / $DN)" \
		"$(calc "printf \"%.2f\", $DD / $DN")" ""
fi
echo
exit 0
