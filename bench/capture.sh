#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/capture.sh - what captures of slow calls (rbtrace(5), "CAPTURES")
# cost the calls that are never captured: instructions per call pair
# (valgrind --tool=callgrind, Ir) of bench/apps/fib under librbtrace's
# defaults, marginal between two sizes (free of start-up costs), less
# fib's own (the baseline run, no library: bench/overhead.sh's figure):
#   none       nothing armed;
#   idle       RBTRACE_CAPTURE='fib_idle_0>1ms': one function armed that
#              fib never calls (every exit pays the depth compare);
#   hot        RBTRACE_CAPTURE='fib>10s': fib itself armed, never slow
#              (every call takes the cold entry and measures its exit).
# Each run's call count is checked against callgrind's, and the hot run's
# trace file must hold no capture.  Reported, no target.
#
# Run from the build directory (after `make all bench/apps/fib`), or as
# part of `make bench BENCHMARKS=bench/capture.sh`.  Knobs: BENCH_CG_N
# ("20 24", the two fib sizes).
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

printf '%-6s %14s %14s\n' variant "Ir/call pair" "vs none"
for v in baseline none idle hot; do
	cg "${SIZES[0]}" "$v"; ir0=$IR c0=$CALLS
	cg "${SIZES[1]}" "$v"; ir1=$IR c1=$CALLS
	per=$(calc "printf \"%.1f\", ($ir1 - $ir0) / ($c1 - $c0)")
	if [ "$v" = baseline ]; then
		fib=$per
		continue
	fi
	per=$(calc "printf \"%.1f\", $per - $fib")
	[ "$v" = none ] && base=$per
	printf '%-6s %14s %+14.1f\n' "$v" "$per" "$(calc "print $per - $base")"
done
