#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/hotshare.sh - does rbmon hot's measured cost of the hooks agree with
# the slowdown they cause?  No targets: it measures and prints.
#
# 1. bench/apps/fib N (one thread): its CPU time (user + system, the
#    recorder's included) without librbtrace and under `rbtrace record`
#    (default logs: most records dropped), alternating, BENCH_RUNS times.
#    What the hooks added is the difference of the medians, less the
#    recorder's own CPU time (its summary's "the recorder used S s of
#    CPU"); rbmon hot --json on each recording estimates it
#    (.measured.hook_bounded_ns: its cost a call times every call made,
#    those in lost records too, at most each thread's recorded time), and
#    the nominal 15 ns a call times the same calls.  Printed: both, the
#    ratio estimate / measured, and the slowdowns.
# 2. redis (when BENCH_REDIS names a directory holding an instrumented
#    src/redis-server and src/redis-benchmark, by default
#    /work/real/redis-7.0.15): redis-benchmark -t set,get -n
#    BENCH_REDIS_N -c 50 against redis-server without librbtrace and
#    under `rbtrace record`: the requests a second, and the CPU time
#    redis-server used (/proc/PID/stat); what the hooks added is the
#    difference of the CPU times (the requests a second depend on the
#    client and on what else runs), against rbmon hot's estimate
#    (.measured.hook_bounded_ns).
#
# Run it alone from the build directory (after `make all bench/apps/fib`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/hotshare.sh
# or as part of `make bench` (make bench BENCHMARKS=bench/hotshare.sh).
# Knobs (environment): BENCH_RUNS (5), BENCH_FIB_N (30), BENCH_REDIS
# (/work/real/redis-7.0.15; empty: leave redis out), BENCH_REDIS_N
# (100000 requests of each test), BENCH_REDIS_PORT (7793).

set -u

NAME=hotshare
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
RUNS=${BENCH_RUNS:-5}
FIBN=${BENCH_FIB_N:-30}
REDIS=${BENCH_REDIS-/work/real/redis-7.0.15}
REDIS_N=${BENCH_REDIS_N:-100000}
PORT=${BENCH_REDIS_PORT:-7793}
RBTRACE=$top_builddir/rbtrace
RBMON=$top_builddir/rbmon
FIB=$top_builddir/bench/apps/fib

command -v jq >/dev/null || skip "jq is not installed"
[ -x "$FIB" ] || skip "bench/apps/fib is not built (make bench/apps/fib)"
[ -x "$RBTRACE" ] && [ -x "$RBMON" ] || broke "rbtrace or rbmon is not built"
T=$(mktemp -d "${TMPDIR:-/tmp}/hotshare.XXXXXX") || broke "no temporary directory"
trap 'rm -rf "$T"' EXIT

echo "$NAME: $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 1. fib ----------------------------------------------------------------------
# cpu_ns CMD... - the CPU time (user + system) of CMD and its children, ns;
# CMD's output in $T/out, less the CPU time rbtrace record's summary says
# the recorder used (its stderr in $T/err).  CPU time, not fib's own wall
# clock: what the hooks cost must not depend on how many other programs
# share the cores.
cpu_ns()
{
	local TIMEFORMAT='%3U %3S' t r
	t=$( { time "$@" >"$T/out" 2>"$T/err"; } 2>&1) || return 1
	r=$(sed -n 's/.*the recorder used \([0-9.]*\) s of CPU.*/\1/p' "$T/err" | tail -1)
	calc "printf \"%.1f\\n\", ($(echo "$t" | tr ' ' '+') - ${r:-0}) * 1e9"
}
plain=() rec=() est=() nom=() made=()
for ((i = 0; i < RUNS; i++)); do
	p=$(cpu_ns "$FIB" "$FIBN" 1 2) || broke "fib failed"
	r=$(cpu_ns "$RBTRACE" record -q -o "$T/fib.rbr" --file "$T/fib.trace" -- \
		"$FIB" "$FIBN" 1 2) || broke "rbtrace record of fib failed"
	"$RBMON" hot --json "$T/fib.rbr" >"$T/fib.hot" 2>/dev/null ||
		broke "rbmon hot exited $?"
	plain+=("$p") rec+=("$r")
	# As reals: median's integers are C ints in some awks.
	est+=("$(jq .measured.hook_bounded_ns "$T/fib.hot").5")
	nom+=("$(jq '.measured.calls * 15' "$T/fib.hot").5")
	made+=("$(jq .measured.calls "$T/fib.hot").5")
	rm -f "$T/fib.rbr" "$T/fib.trace"
done
p=$(median "${plain[@]}") r=$(median "${rec[@]}") e=$(median "${est[@]}")
n=$(median "${nom[@]}") c=$(median "${made[@]}")
calc "printf \"$NAME: fib $FIBN: %.0f calls; CPU without librbtrace %.1f ms, recorded %.1f ms: the hooks added (the recorder's CPU left out) %.1f ms (%.0f ns a call, %.2fx slower)\\n\", $c, $p / 1e6, $r / 1e6, ($r - $p) / 1e6, ($r - $p) / $c, $r / $p"
calc "printf \"$NAME: fib $FIBN: rbmon hot measured %.1f ms (%.0f ns a call, %.2fx slower): %.2f times what they added; at the nominal 15 ns %.1f ms: %.3f times\\n\", $e / 1e6, $e / $c, ($p + $e) / $p, $e / ($r - $p), $n / 1e6, $n / ($r - $p)"

# ---- 2. redis ---------------------------------------------------------------------
[ -n "$REDIS" ] || exit 0
S=$REDIS/src
if [ ! -x "$S/redis-server" ] || [ ! -x "$S/redis-benchmark" ] || [ ! -x "$S/redis-cli" ]; then
	note "no redis in '$REDIS' (BENCH_REDIS): redis left out"
	exit 0
fi

# serve LABEL LAUNCHER... - redis-server under LAUNCHER: the median
# requests a second of redis-benchmark's set and get, and the CPU time
# redis-server used, ns, as "RPS CPU".
serve()
{
	local label=$1 pid rpid i v t
	shift
	"$@" "$S/redis-server" --bind 127.0.0.1 --port "$PORT" --save "" \
		--appendonly no --daemonize no >"$T/$label.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		"$S/redis-cli" -p "$PORT" ping 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	[ "$i" -lt 100 ] || broke "redis-server ($label) did not answer: $(cat "$T/$label.log")"
	rpid=$("$S/redis-cli" -p "$PORT" info server | tr -d '\r' |
		sed -n 's/^process_id:\([0-9]*\)$/\1/p')
	v=$("$S/redis-benchmark" -h 127.0.0.1 -p "$PORT" -t set,get -n "$REDIS_N" \
		-c 50 -q 2>/dev/null | tr '\r' '\n' |
		sed -n 's/^[A-Z]*: \([0-9.]*\) requests per second.*/\1/p' | tail -2)
	# utime + stime, in clock ticks (fields 14 and 15 after the name).
	t=$(sed 's/.*) //' "/proc/$rpid/stat" | awk '{ print $12 + $13 }')
	"$S/redis-cli" -p "$PORT" shutdown nosave >/dev/null 2>&1
	wait "$pid"
	echo "$(median $v) $(calc "printf \"%.1f\", $t * 1e9 / $(getconf CLK_TCK)")"
}
rp=() rr=() cp=() cr=() re=() rs=()
for ((i = 0; i < RUNS; i++)); do
	read -r a b <<<"$(serve plain env)"
	rp+=("$a") cp+=("$b")
	read -r a b <<<"$(serve rec "$RBTRACE" record -q -o "$T/redis.rbr" \
		--file "$T/redis.trace" --)"
	rr+=("$a") cr+=("$b")
	"$RBMON" hot --json "$T/redis.rbr" >"$T/redis.hot" 2>/dev/null ||
		broke "rbmon hot on redis exited $?"
	re+=("$(jq .measured.hook_bounded_ns "$T/redis.hot").5")
	rs+=("$(jq .measured.calls "$T/redis.hot").5")
	note "redis run $((i + 1)): ${rp[-1]} and ${rr[-1]} requests/s, CPU ${cp[-1]} and ${cr[-1]} ns; hot: $(jq -c '.measured | {cost_ns, calls, hook_ns, hook_bounded_ns, share, slowdown}' "$T/redis.hot")"
	rm -f "$T/redis.rbr" "$T/redis.trace"
done
a=$(median "${rp[@]}") b=$(median "${rr[@]}") p=$(median "${cp[@]}")
r=$(median "${cr[@]}") e=$(median "${re[@]}") c=$(median "${rs[@]}")
calc "printf \"$NAME: redis: %.0f requests/s without librbtrace, %.0f recorded (%.2fx slower); redis-server's CPU %.2f s and %.2f s: the hooks added %.2f s (%.0f ns a call, %.0f calls, %.2fx the CPU)\\n\", $a, $b, $a / $b, $p / 1e9, $r / 1e9, ($r - $p) / 1e9, ($r - $p) / $c, $c, $r / $p"
calc "printf \"$NAME: redis: rbmon hot measured %.2f s (%.0f ns a call, %.2fx the CPU): %.2f times what they added\\n\", $e / 1e9, $e / $c, ($p + $e) / $p, $e / ($r - $p)"
exit 0
