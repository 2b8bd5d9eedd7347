#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/capture.sh - what captures of slow calls (rbtrace(5), "CAPTURES")
# and the minimum duration (rbtrace(5), "EVENT LOG", "Short calls") cost
# the calls of bench/apps/fib under librbtrace's defaults:
#   none       nothing armed, no minimum duration (the defaults);
#   idle       RBTRACE_CAPTURE='fib_idle_0>1ms': one function armed that
#              fib never calls (every exit pays the depth compare);
#   hot        RBTRACE_CAPTURE='fib>10s': fib itself armed, never slow
#              (every call takes the cold entry and measures its exit);
#   mind-1ns   RBTRACE_MIN_DURATION=1ns: no call is short, every exit is
#              timed out of line and recorded;
#   mind-1s    RBTRACE_MIN_DURATION=1s: every call is short and taken back
#              at its exit (under callgrind no call of fib lasts less
#              than 1 us: what 1us does shows in the times only);
#   mind-1us   (times only) RBTRACE_MIN_DURATION=1us, fib's calls deep
#              down short, those above them kept.
# 1. Instructions per call pair (valgrind --tool=callgrind, Ir), marginal
#    between two sizes (free of start-up costs), less fib's own (the
#    baseline run, no library: bench/overhead.sh's figure).  Each run's
#    call count is checked against callgrind's, and the capture runs'
#    trace file must hold no capture.
# 2. Time: fib BENCH_CAPTURE_FIB_N (30) on 1 thread, BENCH_RUNS (7)
#    repetitions each running every variant once, in an order that
#    rotates; the nanoseconds each adds per call pair over the
#    instrumented binary alone (glibc's empty hooks), medians, and that as
#    a multiple of what the store-only stack-and-log reference adds in
#    the same run (bench/ref's ref-events, as bench/overhead.sh has it;
#    its ref-stack shown too: it adds next to nothing to an empty hook).
# Reported, no target.
#
# Run from the build directory (after `make all bench/apps/fib`), or as
# part of `make bench BENCHMARKS=bench/capture.sh`.  Knobs: BENCH_CG_N
# ("20 24", the two fib sizes), BENCH_CAPTURE_FIB_N, BENCH_RUNS.
set -u

NAME=capture
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
RBMON=$top_builddir/rbmon
FIB=$top_builddir/bench/apps/fib
read -r -a SIZES <<<"${BENCH_CG_N:-20 24}"
[ "${#SIZES[@]}" -eq 2 ] || broke "BENCH_CG_N: two sizes"
command -v valgrind >/dev/null || skip "valgrind is not installed (bench/setup installs it)"
[ -x "$FIB" ] || broke "$FIB is not built (make bench/apps/fib)"
[ -r "$LIBRBTRACE" ] || broke "$LIBRBTRACE is not built"
T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-capture.XXXXXX") || broke "mktemp"
trap 'rm -rf "$T"' EXIT
unset RBTRACE_EVENTS RBTRACE_POLICY RBTRACE_CLOCK RBTRACE_CAPTURE

# cg N VARIANT - callgrind run of fib N 1 2; sets IR and CALLS.
cg()
{
	local out=$T/cg.$1.$2 cap= pre=(LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$T/f.trace")
	case $2 in
	baseline) pre=();;
	none) ;;
	idle) cap='fib_idle_0>1ms';;
	hot) cap='fib>10s';;
	mind-1ns) pre+=(RBTRACE_MIN_DURATION=1ns);;
	mind-1s) pre+=(RBTRACE_MIN_DURATION=1s);;
	esac
	rm -f "$T/f.trace"
	env "${pre[@]}" ${cap:+RBTRACE_CAPTURE="$cap"} \
		valgrind --tool=callgrind --callgrind-out-file="$out" "$FIB" "$1" 1 2 \
		>"$T/out" 2>"$T/err" || broke "callgrind of fib $1 ($2): $(tail -n 3 "$T/err")"
	read -r _ CALLS _ <<<"$(grep -E '^calls [0-9]+ ' "$T/out")"
	IR=$(sed -n 's/^totals: *\([0-9][0-9]*\).*/\1/p' "$out" | head -n 1)
	[ -n "$IR" ] && [ -n "$CALLS" ] || broke "no totals or calls ($2)"
	if [ -n "$cap" ]; then
		"$RBMON" captures --json "$T/f.trace" >"$T/j" || broke "rbmon captures ($2)"
		[ "$(jq -r '.armed | length' "$T/j")" -ge 1 ] || broke "$cap was not armed"
		[ "$(jq -r '.captures | length' "$T/j")" -eq 0 ] || broke "$cap captured calls"
	fi
}

printf '%-9s %14s %14s\n' variant "Ir/call pair" "vs none"
for v in baseline none idle hot mind-1ns mind-1s; do
	cg "${SIZES[0]}" "$v"; ir0=$IR c0=$CALLS
	cg "${SIZES[1]}" "$v"; ir1=$IR c1=$CALLS
	per=$(calc "printf \"%.1f\", ($ir1 - $ir0) / ($c1 - $c0)")
	if [ "$v" = baseline ]; then
		fib=$per
		continue
	fi
	per=$(calc "printf \"%.1f\", $per - $fib")
	[ "$v" = none ] && base=$per
	printf '%-9s %14s %+14.1f\n' "$v" "$per" "$(calc "print $per - $base")"
done

# --- time ----------------------------------------------------------------------
REFLIB_DIR=$top_builddir/bench/ref/.libs
N=${BENCH_CAPTURE_FIB_N:-30}
RUNS=${BENCH_RUNS:-7}
TVARIANTS="hooks ref-stack ref-events none idle hot mind-1ns mind-1us mind-1s"
declare -A NS
# timed VARIANT - fib N 1 1 once; appends its work_ns per call pair.
timed()
{
	local pre=() line
	case $1 in
	hooks) ;;
	ref-stack | ref-events)
		pre=(LD_PRELOAD="$REFLIB_DIR/lib$(echo "$1" | tr -d -).so");;
	*)
		pre=(LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$T/t.trace")
		case $1 in
		idle) pre+=(RBTRACE_CAPTURE='fib_idle_0>1ms');;
		hot) pre+=(RBTRACE_CAPTURE='fib>10s');;
		mind-1ns) pre+=(RBTRACE_MIN_DURATION=1ns);;
		mind-1us) pre+=(RBTRACE_MIN_DURATION=1us);;
		mind-1s) pre+=(RBTRACE_MIN_DURATION=1s);;
		esac;;
	esac
	rm -f "$T/t.trace"
	line=$(env "${pre[@]}" "$FIB" "$N" 1 1 2>"$T/err") ||
		broke "fib $N ($1): $(tail -n 3 "$T/err")"
	set -- "$1" $line
	# calls C timed_calls TC threads 1 work_ns W ...
	NS[$1]="${NS[$1]:-} $(calc "printf \"%.3f\", $9 / $3")"
}
[ -r "$REFLIB_DIR/librefstack.so" ] || TVARIANTS=${TVARIANTS/ref-stack ref-events /}
set -- $TVARIANTS
for r in $(seq "$RUNS"); do
	for v in "$@"; do
		timed "$v"
	done
	set -- "${@:2}" "$1"
done
hooks=$(median ${NS[hooks]})
printf '\nfib %s, 1 thread, medians of %s: ns per call pair added over the empty hooks (%.2f ns)\n' \
	"$N" "$RUNS" "$hooks"
printf '%-10s %10s %12s\n' variant "+ns" "x ref-events"
for v in $TVARIANTS; do
	[ "$v" = hooks ] && continue
	m=$(calc "printf \"%.2f\", $(median ${NS[$v]}) - $hooks")
	re=-
	[ -n "${NS[ref-events]:-}" ] &&
		re=$(calc "printf \"%.2f\", $m / ($(median ${NS[ref-events]}) - $hooks)")
	printf '%-10s %10s %12s\n' "$v" "$m" "$re"
done
