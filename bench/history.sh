#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/history.sh - how much time the default event log (4096 records
# per thread, ring) holds of real programs, with no minimum duration and
# with --min-duration 1us and 10us (rbtrace(5), "EVENT LOG", "Short
# calls"): a short call taken back leaves room for older history.
#
# Programs: Lua 5.4 running bench/lua/work.lua (BENCH_HISTORY_LUA_SCALE,
# 5) and the sqlite3 shell on bench/dyn.sh's SQL script in :memory:
# (BENCH_HISTORY_SQL_ROWS rows, 60000), their -finstrument-functions
# builds as bench/dyn.sh makes them (BENCH_DYN_BUILD, default
# /work/real/h7/dyn-build, PROG/gcc-fi/prog); a missing one is skipped.
# Each runs under the freshly built librbtrace with
# RBTRACE_MIN_DURATION=T; after it ends, rbmon --events --json reads its
# main thread's log: the history is the span between the oldest and the
# newest timestamps of the records kept, next to the records kept, the
# records written and the short calls taken back.  BENCH_RUNS (3)
# repetitions, medians.
#
# Exit status: 0 measured, 77 cannot run here, 1 the harness broke.
# Run it from the build directory:
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/history.sh
# or with `make bench BENCHMARKS=bench/history.sh`.
set -u

NAME=history
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}" "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
RUNS=${BENCH_RUNS:-3}
OUT=${BENCH_DYN_BUILD:-${BENCH_SITES_SRC:-/work/real/h7}/dyn-build}
LUA_SCALE=${BENCH_HISTORY_LUA_SCALE:-5}
SQL_ROWS=${BENCH_HISTORY_SQL_ROWS:-60000}
THRESHOLDS=${BENCH_HISTORY_THRESHOLDS:-0 1us 10us}
LIB=$top_builddir/lib/.libs/librbtrace.so
RBMON=$top_builddir/rbmon

command -v jq >/dev/null || skip "jq is not installed"
[ -f "$LIB" ] && [ -x "$RBMON" ] || broke "build first: no $LIB or $RBMON"
T=$(mktemp -d) || broke "mktemp"
trap 'rm -rf "$T"' EXIT

# The SQL script of bench/dyn.sh, at this script's size.
bench_sql_script "$SQL_ROWS" >"$T/work.sql" || broke "the SQL script"

# run PROG T - one run; "span_s kept written short" of its main thread.
run() {
	local bin=$OUT/$1/gcc-fi/prog f=$T/run.trace rc=0
	rm -f "$f"
	case $1 in
	lua)	env LD_PRELOAD="$LIB" RBTRACE_FILE="$f" RBTRACE_MIN_DURATION="$2" \
		    "$bin" "$top_srcdir/bench/lua/work.lua" "$LUA_SCALE" \
		    </dev/null >/dev/null 2>"$T/run.err" || rc=$?;;
	sqlite3) env LD_PRELOAD="$LIB" RBTRACE_FILE="$f" RBTRACE_MIN_DURATION="$2" \
		    "$bin" -batch :memory: <"$T/work.sql" >/dev/null \
		    2>"$T/run.err" || rc=$?;;
	esac
	[ "$rc" = 0 ] || broke "$1 (min-duration $2) exited $rc: $(head -c 300 "$T/run.err")"
	"$RBMON" --events --json "$f" >"$T/ev.json" 2>"$T/ev.err" ||
		broke "rbmon --events: $(head -c 300 "$T/ev.err")"
	jq -r '.processes[0].threads[0] | [.records[].ts_ns] as $t |
	    "\((($t | max) - ($t | min)) / 1e9) \(.records | length) \(.written) \(.short_calls)"' \
	    "$T/ev.json" || broke "$1: no main thread in the log"
}

printf '%-8s %-6s %14s %8s %14s %14s\n' program min history_s kept written short_calls
for prog in lua sqlite3; do
	if [ ! -x "$OUT/$prog/gcc-fi/prog" ]; then
		note "$prog: no instrumented build in $OUT/$prog/gcc-fi (bench/dyn.sh makes it): skipped"
		continue
	fi
	for th in $THRESHOLDS; do
		spans=() kept=() written=() short=()
		for ((i = 0; i < RUNS; i++)); do
			s= k= w= n=
			read -r s k w n < <(run "$prog" "$th")
			[ -n "$n" ] || broke "$prog (min-duration $th): no figures"
			spans+=("$s") kept+=("$k") written+=("$w") short+=("$n")
		done
		printf '%-8s %-6s %14s %8s %14s %14s\n' "$prog" "$th" \
		    "$(median "${spans[@]}")" "$(median "${kept[@]}")" \
		    "$(group "$(median "${written[@]}")")" \
		    "$(group "$(median "${short[@]}")")"
	done
done
exit 0
