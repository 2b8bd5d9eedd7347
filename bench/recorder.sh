#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/recorder.sh - whether the recorder keeps up with a busy program,
# and what the lossless mode costs it.  No targets: it measures and prints.
#
# 1. fib N on 2 threads (bench/apps/fib N 2 2, its own timing of the work
#    section): untraced; `rbtrace record` (the recorder drops what does not
#    fit the logs); `rbtrace record --blocking` (the threads wait for the
#    recorder instead); and, with BENCH_OLD_BUILDDIR set to the build
#    directory of an older rbtrace, its `rbtrace record` (say, the recorder
#    before it swept again at once).  Per variant, the medians of the work
#    section's wall time and its ratio to untraced (the program's
#    slowdown), the events kept and dropped, and the recorder's CPU (its
#    getrusage(2), as its summary says: the user and system time of
#    /proc/PID/stat) in seconds and in % of the recording's wall time.
# 2. A real program: redis-server from BENCH_REDIS (a source tree built
#    with -finstrument-functions; default /work/real/redis-7.0.15, left
#    out when it is not there), driven by its redis-benchmark (SET and GET,
#    BENCH_REDIS_REQUESTS requests, 50 clients): requests a second
#    untraced (the instrumented binary with glibc's empty hooks), under
#    rbtrace (stack and event log, no recorder), under `rbtrace record`
#    and `rbtrace record --blocking`, and the events kept and dropped and
#    the recorder's CPU.
#
# Run it alone from the build directory (after `make all bench/apps/fib`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/recorder.sh
# or as part of `make bench` (make bench BENCHMARKS=bench/recorder.sh).
# Knobs (environment): BENCH_RUNS (3), BENCH_FIB_N (30), BENCH_REC_EVENTS
# (empty: rbtrace record's default log size), BENCH_OLD_BUILDDIR (unset),
# BENCH_REDIS (/work/real/redis-7.0.15), BENCH_REDIS_REQUESTS (200000),
# RUN_TIMEOUT (600, seconds any one run may take).

set -u

NAME=recorder
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${BENCH_RUNS:=3}"
: "${BENCH_FIB_N:=30}"
: "${BENCH_REC_EVENTS:=}"
: "${BENCH_OLD_BUILDDIR:=}"
: "${BENCH_REDIS:=/work/real/redis-7.0.15}"
: "${BENCH_REDIS_REQUESTS:=200000}"
: "${RUN_TIMEOUT:=600}"

RBTRACE=$top_builddir/rbtrace
FIB=$top_builddir/bench/apps/fib
[ -x "$RBTRACE" ] || skip "no $RBTRACE: build first"
[ -x "$FIB" ] || skip "no $FIB: make bench/apps/fib"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-recorder.XXXXXX") || broke "mktemp"
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T

note "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
events=()
[ -n "$BENCH_REC_EVENTS" ] && events=(--events "$BENCH_REC_EVENTS")

# summary FILE - "kept dropped cpu_s cpu_pct" from a recorder's summary.
summary()
{
	LC_ALL=C awk '
		/^rbmon: recorded / { k = $3; l = $(NF - 1); gsub(",", "", k); gsub(",", "", l) }
		/the recorder used/ {
			for (i = 1; i <= NF; i++) if ($i == "used") c = $(i + 1)
			p = $NF; sub(/^\(/, "", p); sub(/%\).*/, "", p)
		}
		END { if (k == "") exit 1; print k, l, c, p }' "$1"
}

# ---- 1. fib on 2 threads ----------------------------------------------------------
variants=(plain record blocking)
[ -n "$BENCH_OLD_BUILDDIR" ] && variants+=(old)
declare -A wall kept lost cpu pct
for v in "${variants[@]}"; do
	wall[$v]=""; kept[$v]=""; lost[$v]=""; cpu[$v]=""; pct[$v]=""
done
for ((run = 0; run < BENCH_RUNS; run++)); do
	for v in "${variants[@]}"; do
		rm -f "$T"/*.rbr "$T"/*.trace
		case $v in
		plain) cmd=("$FIB" "$BENCH_FIB_N" 2 2) ;;
		record) cmd=("$RBTRACE" record "${events[@]}" -o "$T/r.rbr" -- "$FIB" "$BENCH_FIB_N" 2 2) ;;
		blocking) cmd=("$RBTRACE" record --blocking "${events[@]}" -o "$T/r.rbr" -- "$FIB" "$BENCH_FIB_N" 2 2) ;;
		old) cmd=("$BENCH_OLD_BUILDDIR/rbtrace" record "${events[@]}" -o "$T/r.rbr" -- "$FIB" "$BENCH_FIB_N" 2 2) ;;
		esac
		timeout "$RUN_TIMEOUT" "${cmd[@]}" >"$T/out" 2>"$T/err" ||
			broke "$v: ${cmd[*]} exited $?: $(tail -3 "$T/err")"
		w=$(sed -n 's/.* wall_ns \([0-9]*\) .*/\1/p' "$T/out")
		[ -n "$w" ] || broke "$v: no wall_ns from fib: $(cat "$T/out")"
		wall[$v]+=" $w"
		calls=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' "$T/out")
		[ "$v" = plain ] && continue
		s=$(summary "$T/err") || broke "$v: no recorder summary: $(cat "$T/err")"
		set -- $s
		kept[$v]+=" $1"; lost[$v]+=" $2"; cpu[$v]+=" $3"; pct[$v]+=" $4"
	done
done
base=$(median ${wall[plain]})
printf '%s: fib %s on 2 threads, %d runs, medians (events per run: %s)\n' "$NAME" \
	"$BENCH_FIB_N" "$BENCH_RUNS" "$(group $((2 * calls)))"
printf '%-9s %12s %9s %14s %14s %9s %8s\n' variant "wall ms" slowdown kept dropped "rec CPU s" "rec CPU%"
for v in "${variants[@]}"; do
	w=$(median ${wall[$v]})
	if [ "$v" = plain ]; then
		printf '%-9s %12s %9s %14s %14s %9s %8s\n' "$v" "$(calc "printf \"%.1f\", $w / 1e6")" 1.00 - - - -
		continue
	fi
	printf '%-9s %12s %9s %14s %14s %9s %8s\n' "$v" "$(calc "printf \"%.1f\", $w / 1e6")" \
		"$(calc "printf \"%.2f\", $w / $base")" "$(group "$(median ${kept[$v]})")" \
		"$(group "$(median ${lost[$v]})")" "$(median ${cpu[$v]})" "$(median ${pct[$v]})"
done

# ---- 2. redis ----------------------------------------------------------------------
SRV=$BENCH_REDIS/src/redis-server
CLI=$BENCH_REDIS/src/redis-cli
RB=$BENCH_REDIS/src/redis-benchmark
if [ ! -x "$SRV" ] || [ ! -x "$RB" ] || [ ! -x "$CLI" ]; then
	note "no redis-server, redis-cli and redis-benchmark in $BENCH_REDIS/src: part 2 left out"
	exit 0
fi
# A port nothing answers on yet.
for ((port = 20000 + $$ % 20000, i = 0; i < 50; i++, port++)); do
	"$CLI" -p "$port" ping >/dev/null 2>&1 || break
done
# redis VARIANT - one server under VARIANT, one benchmark; "SET GET" in
# requests a second into $RPS, the recorder's summary into $T/err.
redis()
{
	local v=$1 pid i
	local srv=("$SRV" --port "$port" --save "" --appendonly no --dir "$T")
	case $v in
	plain) ;;
	traced) srv=("$RBTRACE" -- "${srv[@]}") ;;
	record) srv=("$RBTRACE" record "${events[@]}" -o "$T/r.rbr" -- "${srv[@]}") ;;
	blocking) srv=("$RBTRACE" record --blocking "${events[@]}" -o "$T/r.rbr" -- "${srv[@]}") ;;
	old) srv=("$BENCH_OLD_BUILDDIR/rbtrace" record "${events[@]}" -o "$T/r.rbr" -- "${srv[@]}") ;;
	esac
	rm -f "$T"/*.rbr
	"${srv[@]}" >"$T/srv.out" 2>"$T/err" &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		"$CLI" -p "$port" ping 2>/dev/null | grep -q PONG && break
		kill -0 "$pid" 2>/dev/null ||
			broke "redis ($v) did not start: $(tail -n 3 "$T/err" "$T/srv.out")"
		sleep 0.1
	done
	[ "$i" -lt 300 ] || { kill "$pid"; broke "redis ($v) did not answer within 30 s"; }
	RPS=$(timeout "$RUN_TIMEOUT" "$RB" -p "$port" -t set,get -n "$BENCH_REDIS_REQUESTS" -c 50 --csv 2>/dev/null |
		LC_ALL=C awk -F'"' '$2 == "SET" { s = $4 } $2 == "GET" { g = $4 } END { print s, g }')
	"$CLI" -p "$port" shutdown nosave >/dev/null 2>&1
	for ((i = 0; i < 600; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; broke "redis ($v) did not end"; }
	wait "$pid"
}
rvariants=(plain traced record blocking)
[ -n "$BENCH_OLD_BUILDDIR" ] && rvariants+=(old)
declare -A sets gets
for v in "${rvariants[@]}"; do
	sets[$v]=""; gets[$v]=""; kept[$v]=""; lost[$v]=""; cpu[$v]=""; pct[$v]=""
done
for ((run = 0; run < BENCH_RUNS; run++)); do
	for v in "${rvariants[@]}"; do
		redis "$v"
		set -- $RPS
		[ $# -eq 2 ] || broke "redis ($v): no requests a second from redis-benchmark"
		sets[$v]+=" $1"; gets[$v]+=" $2"
		case $v in
		record|blocking|old)
			s=$(summary "$T/err") || broke "redis ($v): no recorder summary: $(cat "$T/err")"
			set -- $s
			kept[$v]+=" $1"; lost[$v]+=" $2"; cpu[$v]+=" $3"; pct[$v]+=" $4" ;;
		esac
	done
done
sbase=$(median ${sets[plain]})
gbase=$(median ${gets[plain]})
printf '%s: redis-server, redis-benchmark -t set,get -n %s -c 50, %d runs, medians\n' "$NAME" \
	"$BENCH_REDIS_REQUESTS" "$BENCH_RUNS"
printf '%-9s %10s %6s %10s %6s %14s %14s %9s %8s\n' variant "SET/s" ratio "GET/s" ratio kept dropped "rec CPU s" "rec CPU%"
for v in "${rvariants[@]}"; do
	s=$(median ${sets[$v]})
	g=$(median ${gets[$v]})
	printf '%-9s %10.0f %6s %10.0f %6s' "$v" "$s" "$(calc "printf \"%.2f\", $s / $sbase")" \
		"$g" "$(calc "printf \"%.2f\", $g / $gbase")"
	if [ -n "${kept[$v]}" ]; then
		printf ' %14s %14s %9s %8s\n' "$(group "$(median ${kept[$v]})")" \
			"$(group "$(median ${lost[$v]})")" "$(median ${cpu[$v]})" "$(median ${pct[$v]})"
	else
		printf ' %14s %14s %9s %8s\n' - - - -
	fi
done
exit 0
