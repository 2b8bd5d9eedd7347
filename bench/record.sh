#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record.sh - what recording every call costs and how fast the
# recordings read back, on micro benchmarks and on a real interpreter.
# No targets: it measures and prints.
#
# 1. Recorder throughput.  bench/apps/pace (an instrumented leaf called
#    RATE times a second on each of 1 and 2 threads, busy between the calls)
#    under `rbtrace record`, for a ladder of rates up to "as fast as it
#    goes", with logs of 16384 records per thread (rbtrace record's
#    default is 131072), the same with RBTRACE_RECORD_WAIT=10 in the environment (16384+wait:
#    the program waits at its first hook until the recorder has attached,
#    as rbtrace(1) says it does), and larger logs (--events 262144): per
#    rate the events offered and kept a second, the share dropped, the
#    recording's bytes per event and the recorder's CPU (all from its end
#    summary), and how many runs lost nothing.  "Sustained" is the highest
#    rate at which every run, at that rate and below, lost nothing.  With
#    the default logs and a rate up to 2 M call pairs a second, where the
#    first gap came (rbmon replay of the first run).  The recorder sweeps
#    again at once while logs fill up and sleeps 0.1 to 10 ms while they do
#    not, woken by a thread whose log fills (monitor/history/record.c), so
#    what a log holds, and how long the recorder waits for a core, bound
#    what it keeps (bench/recorder.sh compares the lossless --blocking).
# 2. Exporter speed.  rbmon replay, report, hot, export --chrome, --folded,
#    --speedscope (and --perfetto when `rbmon export --help` lists it) on
#    a recording of fib (a few million events, one deep recursive
#    function) and on one of Lua running bench/lua/work.lua (many
#    functions): events a second, output MiB a second and bytes per event,
#    the output piped to wc -c.
# 3. Overhead of recording.  fib N on 1 and 2 threads (bench/apps/fib N T
#    2, its own timing of the work section): no tracing, the store-only
#    reference hooks (bench/ref), librbtrace with RBTRACE_EVENTS=0 (stack
#    only), librbtrace's defaults (stack + event log), `rbtrace record`:
#    ns per call pair and the ratio to no tracing.
# 4. A real call-heavy program: the lua interpreter of Debian's lua5.4
#    sources (fetched once with `apt-get source` into BENCH_CACHE; when
#    the system has no deb-src entry, with a private apt configuration in
#    the cache that adds deb-src for the system's own Debian entries: the
#    system's configuration is never touched), built by bench/lua/lua.mk
#    five ways: gcc -O2 -g (the baseline, uninstrumented); gcc -O2 -g
#    -finstrument-functions; the same plus the exclusion list that
#    `rbmon hot --flags` gives on a recording of that build running the
#    workload; clang -O2 -g -finstrument-functions; clang -O2 -g
#    -finstrument-functions-after-inlining.  Each runs bench/lua/work.lua
#    (fib, binary trees, strings, a sort) with no tracing (the hooks are
#    glibc's empty ones), under librbtrace's defaults and under librbtrace
#    with RBTRACE_EVENTS=0 (LD_PRELOAD, as `rbtrace` runs it): wall time,
#    the ratio to the uninstrumented baseline, the calls (exact: the event
#    log's written count, rbmon --events, halved), calls a second of the
#    uninstrumented-hooks run, and ns added per call.  Builds are kept in
#    the cache and reused while compiler and flags are the same.  Without
#    the sources (no network, no apt-get), or without gcc, this part says
#    why and is skipped; clang's builds only without clang.
#
# Runs alternate (the order of the variants rotates from one repetition to
# the next) and the medians are shown; the machine and its load are
# printed.  The exit status is 0 when it measured, 77 when it cannot run
# here (it says why), 1 when the harness broke.
#
# Run it alone from the build directory (after `make all bench/apps/fib
# bench/apps/pace bench/ref/librefstack.la bench/ref/librefevents.la`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/record.sh
# or as part of `make bench` (make bench BENCHMARKS=bench/record.sh).
# Knobs (environment): BENCH_RUNS (5: fib and Lua repetitions),
# BENCH_QUICK=1 (smaller sizes, fewer runs: a smoke test), BENCH_FIB_N (31),
# BENCH_REC_RATES ("250000 500000 1000000 2000000 4000000 8000000 0", call
# pairs a second and thread, 0 as fast as it goes), BENCH_REC_THREADS ("1
# 2"), BENCH_REC_EVENTS ("16384 16384+wait 262144", log sizes for rbtrace
# record, +wait: with RBTRACE_RECORD_WAIT=10),
# BENCH_REC_SECONDS (1), BENCH_REC_RUNS (3), BENCH_EXPORT_FIB_N (28),
# BENCH_EXPORT_RUNS (3), BENCH_LUA (1; 0 leaves Lua out), BENCH_LUA_SCALE
# (25: about 0.5 s uninstrumented), BENCH_LUA_REC_SCALE (1: the recording
# for hot and the exporters), BENCH_CACHE ($top_builddir/bench/cache),
# RUN_TIMEOUT (600, seconds any one run may take).

set -u

NAME=record
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	RUNS=${BENCH_RUNS:-3}
	FIB_N=${BENCH_FIB_N:-28}
	REC_RATES=${BENCH_REC_RATES:-250000 2000000 0}
	REC_EVENTS=${BENCH_REC_EVENTS:-16384 16384+wait}
	REC_RUNS=${BENCH_REC_RUNS:-1}
	EXPORT_FIB_N=${BENCH_EXPORT_FIB_N:-24}
	EXPORT_RUNS=${BENCH_EXPORT_RUNS:-1}
	LUA_SCALE=${BENCH_LUA_SCALE:-5}
else
	RUNS=${BENCH_RUNS:-5}
	FIB_N=${BENCH_FIB_N:-31}
	REC_RATES=${BENCH_REC_RATES:-250000 500000 1000000 2000000 4000000 8000000 0}
	REC_EVENTS=${BENCH_REC_EVENTS:-16384 16384+wait 262144}
	REC_RUNS=${BENCH_REC_RUNS:-3}
	EXPORT_FIB_N=${BENCH_EXPORT_FIB_N:-28}
	EXPORT_RUNS=${BENCH_EXPORT_RUNS:-3}
	LUA_SCALE=${BENCH_LUA_SCALE:-25}
fi
REC_THREADS=${BENCH_REC_THREADS:-1 2}
REC_SECONDS=${BENCH_REC_SECONDS:-1}
LUA=${BENCH_LUA:-1}
LUA_REC_SCALE=${BENCH_LUA_REC_SCALE:-1}
CACHE=${BENCH_CACHE:-$top_builddir/bench/cache}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}

LIBRBTRACE=$top_builddir/lib/.libs/librbtrace.so
REFLIB_DIR=$top_builddir/bench/ref/.libs
RBMON=$top_builddir/rbmon
RBTRACE=$top_builddir/rbtrace
FIB=$top_builddir/bench/apps/fib
PACE=$top_builddir/bench/apps/pace
WORKLUA=$top_srcdir/bench/lua/work.lua
LUAMK=$top_srcdir/bench/lua/lua.mk
REC_DEFAULT_EVENTS=16384	# the small logs of part 1

# The variants set these themselves; librbtrace means the defaults.
unset RBTRACE_EVENTS RBTRACE_POLICY RBTRACE_RINGS RBTRACE_SLOTS

[ "$(uname -s)" = Linux ] || skip "Linux only"
command -v timeout >/dev/null || skip "timeout (coreutils) is not installed"
[ -f "$LIBRBTRACE" ] || broke "library not built: $LIBRBTRACE"
[ -x "$RBMON" ] || broke "rbmon not built: $RBMON"
[ -x "$RBTRACE" ] || broke "rbtrace not built: $RBTRACE"
for p in "$FIB" "$PACE"; do
	[ -x "$p" ] || broke "benchmark program not built: $p (make bench/apps/fib bench/apps/pace)"
done
[ -f "$WORKLUA" ] && [ -f "$LUAMK" ] || broke "bench/lua is missing from $top_srcdir"
for v in RUNS FIB_N REC_SECONDS REC_RUNS EXPORT_FIB_N EXPORT_RUNS LUA_SCALE LUA_REC_SCALE RUN_TIMEOUT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] ||
		broke "$v must be a positive integer, not '${!v}'"
done
for r in $REC_RATES; do [[ $r =~ ^[0-9]+$ ]] || broke "bad rate '$r' in BENCH_REC_RATES"; done
for t in $REC_THREADS; do [[ $t =~ ^[1-9][0-9]*$ ]] || broke "bad thread count '$t' in BENCH_REC_THREADS"; done
for e in $REC_EVENTS; do
	[[ $e =~ ^([0-9]+)(\+wait)?$ ]] && e=${BASH_REMATCH[1]} && [ "$e" -ge 2 ] && [ $((e & (e - 1))) -eq 0 ] ||
		broke "bad log size '$e' in BENCH_REC_EVENTS (a power of two, +wait optional)"
done
[ "$FIB_N" -le 40 ] && [ "$EXPORT_FIB_N" -le 36 ] || broke "BENCH_FIB_N at most 40, BENCH_EXPORT_FIB_N at most 36"

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-$NAME.XXXXXX") || broke "mktemp failed"
TRACE=$T/run.trace
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

nocomma() { echo "${1//,/}"; }
# mega X - X / 1e6 to 1 place, or "-".
mega() { if [ -z "$1" ]; then echo -; else calc "printf \"%.1f\", $1 / 1e6"; fi; }
# ratio A B - A / B to 2 places; "-" when either is missing or B is 0.
ratio()
{
	if [ -z "$1" ] || [ -z "$2" ] || [ "$(calc "print ($2 == 0)")" = 1 ]; then
		echo -
	else
		calc "printf \"%.2f\", $1 / $2"
	fi
}

read -r LOAD0 _ </proc/loadavg

# --- one run of a program, a few ways -------------------------------------------
# run_fib VARIANT PROGRAM ARGS... - run fib or pace (their result line) as
# VARIANT: baseline, ref-stack, ref-events, noev, default, record[:EVENTS].
# Sets R_TIMED R_WORK R_WALL (fib.c's timed_calls, work_ns, wall_ns), and for
# record REC_* (rec_parse).
run_fib()
{
	local v=$1 rc=0 line ev
	shift
	rm -f "$TRACE" "$T/rec.rbr"
	case $v in
	baseline)
		timeout -k 5 "$RUN_TIMEOUT" "$@" >"$T/run.out" 2>"$T/run.err" || rc=$?;;
	ref-stack | ref-events)
		env LD_PRELOAD="$REFLIB_DIR/lib$(echo "$v" | tr -d -).so" \
			timeout -k 5 "$RUN_TIMEOUT" "$@" >"$T/run.out" 2>"$T/run.err" || rc=$?;;
	noev | default)
		local knobs=()
		[ "$v" = noev ] && knobs=(RBTRACE_EVENTS=0)
		env LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" "${knobs[@]}" \
			timeout -k 5 "$RUN_TIMEOUT" "$@" >"$T/run.out" 2>"$T/run.err" || rc=$?
		[ "$rc" -eq 0 ] && [ ! -f "$TRACE" ] &&
			broke "$v: librbtrace left no trace file: is it preloaded? ($*)"
		[ "$rc" -eq 0 ] && [ -s "$T/run.err" ] &&
			broke "$v: librbtrace complained: $(head -c 300 "$T/run.err")";;
	record*)
		# record:N: logs of N records; record:N+wait: and the program
		# told to wait for the recorder (RBTRACE_RECORD_WAIT=10).
		local wait=()
		ev=${v#record}; ev=${ev#:}
		case $ev in *+wait) ev=${ev%+wait}; wait=(RBTRACE_RECORD_WAIT=10);; esac
		env "${wait[@]}" timeout -k 5 "$RUN_TIMEOUT" "$RBTRACE" record ${ev:+--events "$ev"} --file "$TRACE" \
			-o "$T/rec.rbr" -- "$@" >"$T/run.out" 2>"$T/run.err" || rc=$?
		[ "$rc" -eq 0 ] && rec_parse "$T/run.err" "$T/rec.rbr";;
	*) broke "unknown variant $v";;
	esac
	[ "$rc" -eq 0 ] || broke "$v: $* exited $rc: $(head -c 500 "$T/run.err")"
	line=$(grep -E '^calls [0-9]+ timed_calls [0-9]+ threads [0-9]+ work_ns [0-9]+ wall_ns [0-9]+ result [0-9]+$' "$T/run.out" | tail -n 1)
	[ -n "$line" ] || broke "$v: $* printed no result line: $(head -c 500 "$T/run.out" "$T/run.err")"
	read -r _ _ _ R_TIMED _ _ _ R_WORK _ R_WALL _ _ <<<"$line"
	rm -f "$TRACE"
}

# rec_parse STDERR RECORDING - the recorder's end summary into REC_KEPT
# REC_LOST REC_CPU_S REC_CPU_PCT, REC_BYTES the recording's size.
rec_parse()
{
	local l1 l3 re1 re3
	re1='^rbmon: recorded ([0-9,]+) events of [0-9]+ threads? in [0-9]+ process(es)? into .*, ([0-9,]+) lost$'
	re3='^rbmon:   ([0-9.]+) MiB \(([0-9.]+) bytes per event\) in ([0-9.]+) s \(([0-9.]+) MiB/s\); the recorder used ([0-9.]+) s of CPU \(([0-9.]+)%\)$'
	l1=$(grep -E '^rbmon: recorded ' "$1" | tail -n 1)
	l3=$(grep -E '^rbmon:   [0-9.]+ MiB ' "$1" | tail -n 1)
	[[ $l1 =~ $re1 ]] || broke "record: no summary line from the recorder: $(head -c 500 "$1")"
	REC_KEPT=$(nocomma "${BASH_REMATCH[1]}")
	REC_LOST=$(nocomma "${BASH_REMATCH[3]}")
	[[ $l3 =~ $re3 ]] || broke "record: no size and CPU line in the recorder's summary: $(head -c 500 "$1")"
	REC_CPU_S=${BASH_REMATCH[5]} REC_CPU_PCT=${BASH_REMATCH[6]}
	[ -f "$2" ] || broke "record: no recording $2"
	REC_BYTES=$(stat -c %s "$2")
}

# --- 1. recorder throughput -------------------------------------------------------
declare -A RL_OFF RL_KEPT RL_DROP RL_CPU RL_BPE RL_ZERO RL_N
RL_STUCK=()
declare -A GAP
note "recorder: pace at ${REC_RATES// /, } call pairs/s per thread, ${REC_THREADS// /, } threads, logs of ${REC_EVENTS// /, } records, $REC_RUNS x ${REC_SECONDS} s each"
for ((run = 0; run < REC_RUNS; run++)); do
	for ev in $REC_EVENTS; do
		for th in $REC_THREADS; do
			for rate in $REC_RATES; do
				run_fib "record:$ev" "$PACE" "$rate" "$REC_SECONDS" "$th"
				k="$ev:$th:$rate"
				total=$((REC_KEPT + REC_LOST))
				# Events offered a second: the program's own count over its timed window.
				off=$(calc "printf \"%.0f\", 2 * $R_TIMED / ($R_WALL / 1e9)")
				RL_OFF[$k]="${RL_OFF[$k]:-} $off"
				RL_KEPT[$k]="${RL_KEPT[$k]:-} $(calc "printf \"%.0f\", $off * $REC_KEPT / $total")"
				RL_DROP[$k]="${RL_DROP[$k]:-} $(calc "printf \"%.2f\", 100 * $REC_LOST / $total")"
				RL_CPU[$k]="${RL_CPU[$k]:-} $REC_CPU_PCT"
				RL_BPE[$k]="${RL_BPE[$k]:-} $(calc "printf \"%.2f\", $REC_BYTES / $REC_KEPT")"
				RL_N[$k]=$((${RL_N[$k]:-0} + 1))
				[ "$REC_LOST" -eq 0 ] && RL_ZERO[$k]=$((${RL_ZERO[$k]:-0} + 1))
				# The recorder kept no more than one log's worth of many.
				if [ "$REC_KEPT" -le $((${ev%+wait} * th)) ] && [ "$total" -gt $((8 * ${ev%+wait} * th)) ]; then
					RL_STUCK+=("logs of $ev, $th thread(s), rate $rate: kept $REC_KEPT of $total events, recorder CPU $REC_CPU_S s")
					note "recorder kept only $REC_KEPT of $total events (pace $rate $REC_SECONDS $th, logs of $ev)"
				fi
				# Where the default log loses, 1 thread, first run: the first
				# gap in the replay, and how many events came before it.
				if [ "$run" = 0 ] && [ "$ev" = "$REC_DEFAULT_EVENTS" ] && [ "$th" = 1 ] &&
				   [ "$rate" -gt 0 ] && [ "$rate" -le 2000000 ] && [ "$REC_LOST" -gt 0 ]; then
					GAP[$rate]="$("$RBMON" replay "$T/rec.rbr" 2>/dev/null | awk '
						/\[LOST [0-9]+ EVENTS\]/ { match($0, /LOST [0-9]+/); print 2 * n + 1, substr($0, RSTART + 5, RLENGTH - 5); exit }
						/ leaf\(\);$/ { n++ }') $REC_LOST"
				fi
				rm -f "$T/rec.rbr"
			done
		done
	done
	note "recorder: run $((run + 1))/$REC_RUNS done"
done

# --- 3. overhead of recording: fib ---------------------------------------------
REFS=
[ -f "$REFLIB_DIR/librefstack.so" ] && [ -f "$REFLIB_DIR/librefevents.so" ] && REFS="ref-stack ref-events"
FIB1_VARIANTS="baseline $REFS noev default record"
FIB2_VARIANTS="baseline noev default record"
declare -A FW FCALLS FKEPT FCPU FBPE
note "fib: $RUNS runs of fib $FIB_N 1 2 ($FIB1_VARIANTS) and fib $FIB_N 2 2 ($FIB2_VARIANTS)"
for ((run = 0; run < RUNS; run++)); do
	for th in 1 2; do
		if [ "$th" = 1 ]; then read -r -a vars <<<"$FIB1_VARIANTS"; else read -r -a vars <<<"$FIB2_VARIANTS"; fi
		nv=${#vars[@]}
		for ((j = 0; j < nv; j++)); do
			v=${vars[$(((j + run) % nv))]}
			run_fib "$v" "$FIB" "$FIB_N" "$th" 2
			k="$th:$v"
			[ -z "${FCALLS[$th]:-}" ] || [ "${FCALLS[$th]}" = "$R_TIMED" ] ||
				broke "fib $FIB_N $th 2: $v counted $R_TIMED calls, another variant ${FCALLS[$th]}"
			FCALLS[$th]=$R_TIMED
			FW[$k]="${FW[$k]:-} $R_WORK"
			if [ "$v" = record ]; then
				FKEPT[$th]="${FKEPT[$th]:-} $(calc "printf \"%.2f\", 100 * $REC_KEPT / ($REC_KEPT + $REC_LOST)")"
				FCPU[$th]="${FCPU[$th]:-} $REC_CPU_PCT"
				FBPE[$th]="${FBPE[$th]:-} $(calc "printf \"%.2f\", $REC_BYTES / $REC_KEPT")"
				rm -f "$T/rec.rbr"
			fi
		done
	done
	note "fib: run $((run + 1))/$RUNS done"
done
# fib_ns THREADS VARIANT - median work ns per call pair.
fib_ns()
{
	local m
	# shellcheck disable=SC2086
	m=$(median ${FW[$1:$2]:-})
	[ -n "$m" ] || return 0
	calc "printf \"%.2f\", $m / ${FCALLS[$1]}"
}

# --- 4a. Lua: sources and builds -------------------------------------------------
LUA_STATE=			# why Lua is left out, if it is
LUA_SRC=
LUA_CACHE=$CACHE/lua
LUA_LOG=$LUA_CACHE/fetch.log
declare -A LUA_BIN LUA_BSTATE
LUA_BUILDS="gcc gcc-fi gcc-ex clang-fi clang-ai"
JOBS=$(nproc 2>/dev/null || echo 2)

# lua_find - the unpacked sources' src/ into LUA_SRC, if there.
lua_find()
{
	local d
	LUA_SRC=
	for d in "$LUA_CACHE"/src/lua5.4-*/src; do
		[ -f "$d/lua.c" ] && [ -f "$d/lvm.c" ] && LUA_SRC=$d
	done
	[ -n "$LUA_SRC" ]
}

# lua_fetch - apt-get source lua5.4 into the cache: with the system's
# configuration when it has deb-src entries, else with a private one that
# adds them (the lists and archives in the cache, the system's untouched).
lua_fetch()
{
	local apt=$LUA_CACHE/apt opts=() f
	command -v apt-get >/dev/null || { LUA_STATE="no apt-get: cannot fetch Debian's lua5.4 sources"; return 1; }
	command -v dpkg-source >/dev/null || { LUA_STATE="no dpkg-source (dpkg-dev): cannot unpack Debian's lua5.4 sources"; return 1; }
	mkdir -p "$LUA_CACHE/src" || { LUA_STATE="cannot create $LUA_CACHE"; return 1; }
	: >"$LUA_LOG"
	if ! apt-get source --print-uris lua5.4 >>"$LUA_LOG" 2>&1; then
		note "lua: no deb-src entry in the system's apt sources: using a private configuration in $apt"
		mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" || return 1
		rm -f "$apt/parts/"*
		# deb822 files: their Types become deb-src; one-line files: each deb line.
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			sed 's/^Types:.*/Types: deb-src/' "$f" >"$apt/parts/$(basename "$f")"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >"$apt/parts/src-$(basename "$f")"
		done
		opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt/parts"
		      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives"
		      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
		[ "$(id -u)" -eq 0 ] && opts+=(-o "APT::Sandbox::User=root")
		# Entries without sources (third-party) fail; the others still count.
		timeout -k 5 "$RUN_TIMEOUT" apt-get "${opts[@]}" update >>"$LUA_LOG" 2>&1
	fi
	(cd "$LUA_CACHE/src" && timeout -k 5 "$RUN_TIMEOUT" apt-get "${opts[@]}" source lua5.4) >>"$LUA_LOG" 2>&1 &&
		lua_find && return 0
	LUA_STATE="apt-get source lua5.4 failed (no network, or no Debian sources?): see $LUA_LOG"
	return 1
}

# lua_build NAME CC CFLAGS - build NAME with bench/lua/lua.mk, reusing the
# cached one when compiler and flags are the same; LUA_BSTATE[NAME] says
# why not when it cannot.
lua_build()
{
	local name=$1 cc=$2 cflags=$3 out=$LUA_CACHE/build/$1 stamp
	if ! command -v "$cc" >/dev/null; then
		LUA_BSTATE[$name]="$cc is not installed"
		return 1
	fi
	stamp="$cc: $("$cc" --version 2>/dev/null | head -n 1); $cflags; $LUA_SRC; $(cksum <"$LUAMK")"
	if [ -x "$out/lua" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
		note "lua: $name: cached ($out)"
	else
		note "lua: building $name: $cc $cflags"
		rm -rf "$out"
		mkdir -p "$out" || broke "cannot create $out"
		if ! make -s -j"$JOBS" -f "$LUAMK" SRC="$LUA_SRC" OUT="$out" CC="$cc" CFLAGS="$cflags" \
			>"$out/build.log" 2>&1; then
			LUA_BSTATE[$name]="build failed: $(tail -n 3 "$out/build.log" | tr '\n' ' ' | cut -c1-200)"
			return 1
		fi
		printf '%s\n' "$stamp" >"$out/stamp"
	fi
	LUA_BIN[$name]=$out/lua
}

LUA_SUM=
LUA_FLAGS=
LUA_REC=			# the recording of gcc-fi, for hot and the exporters
if [ "$LUA" != 1 ]; then
	LUA_STATE="left out (BENCH_LUA=$LUA)"
elif ! command -v gcc >/dev/null || ! command -v make >/dev/null; then
	LUA_STATE="gcc or make is not installed"
elif lua_find || lua_fetch; then
	note "lua: sources in ${LUA_SRC%/src}"
	if lua_build gcc gcc "-O2 -g" && lua_build gcc-fi gcc "-O2 -g -finstrument-functions"; then
		out=$("${LUA_BIN[gcc]}" "$WORKLUA" "$LUA_SCALE" 2>&1)
		[[ $out =~ ^work\ $LUA_SCALE\ checksum\ [0-9]+$ ]] || broke "lua: work.lua printed: $out"
		LUA_SUM=$out
		# The recording the exclusion list comes from (and the exporters read).
		rm -f "$TRACE"
		timeout -k 5 "$RUN_TIMEOUT" "$RBTRACE" record --file "$TRACE" -o "$T/lua.rbr" -- \
			"${LUA_BIN[gcc-fi]}" "$WORKLUA" "$LUA_REC_SCALE" >"$T/lua.out" 2>"$T/lua.err" ||
			broke "lua: rbtrace record of gcc-fi failed: $(head -c 500 "$T/lua.err")"
		rm -f "$TRACE"
		rec_parse "$T/lua.err" "$T/lua.rbr"
		LUA_REC="$REC_KEPT $REC_LOST $REC_BYTES $REC_CPU_PCT"
		LUA_FLAGS=$("$RBMON" hot --flags "$T/lua.rbr" 2>"$T/hot.err") ||
			broke "lua: rbmon hot --flags failed: $(cat "$T/hot.err")"
		"$RBMON" hot --json "$T/lua.rbr" >"$T/hot.json" 2>"$T/hot.err" ||
			broke "lua: rbmon hot --json failed: $(cat "$T/hot.err")"
		"$RBMON" hot "$T/lua.rbr" >"$T/hot.txt" 2>&1 || broke "lua: rbmon hot failed"
		if [ -z "$LUA_FLAGS" ]; then
			LUA_BSTATE[gcc-ex]="rbmon hot suggested nothing to exclude"
		elif ! [[ $LUA_FLAGS =~ ^-finstrument-functions-exclude-function-list=[A-Za-z0-9_.,\$]+$ ]]; then
			broke "lua: unexpected flags from rbmon hot --flags: $LUA_FLAGS"
		else
			lua_build gcc-ex gcc "-O2 -g -finstrument-functions $LUA_FLAGS"
		fi
		lua_build clang-fi clang "-O2 -g -finstrument-functions"
		lua_build clang-ai clang "-O2 -g -finstrument-functions-after-inlining"
	else
		LUA_STATE="the gcc builds failed: ${LUA_BSTATE[gcc]:-}${LUA_BSTATE[gcc-fi]:-}"
	fi
fi
[ -n "$LUA_STATE" ] && note "lua: SKIPPED: $LUA_STATE"

# --- 2. exporter speed ---------------------------------------------------------
EXPORTS="replay report hot export:--chrome export:--folded export:--speedscope"
PERFETTO_STATE=
if "$RBMON" export --help 2>&1 | grep -q -- '--perfetto'; then
	EXPORTS+=" export:--perfetto"
else
	PERFETTO_STATE="rbmon export --help lists no --perfetto: not measured"
fi
rm -f "$TRACE"
timeout -k 5 "$RUN_TIMEOUT" "$RBTRACE" record --file "$TRACE" -o "$T/fib.rbr" -- "$FIB" "$EXPORT_FIB_N" 1 2 \
	>"$T/fibrec.out" 2>"$T/fibrec.err" || broke "rbtrace record of fib $EXPORT_FIB_N failed: $(head -c 500 "$T/fibrec.err")"
rm -f "$TRACE"
rec_parse "$T/fibrec.err" "$T/fib.rbr"
declare -A XREC XKEPT XUS XOUT
XRECS="fib"
XREC[fib]=$T/fib.rbr; XKEPT[fib]=$REC_KEPT
if [ -n "$LUA_REC" ]; then
	XRECS+=" lua"
	XREC[lua]=$T/lua.rbr; read -r 'XKEPT[lua]' _ <<<"$LUA_REC"
fi
read -r -a xcmds <<<"$EXPORTS"
note "exporters: $EXPORT_RUNS runs of ${EXPORTS//:/ } on: $XRECS"
for ((run = 0; run < EXPORT_RUNS; run++)); do
	for r in $XRECS; do
		nx=${#xcmds[@]}
		for ((j = 0; j < nx; j++)); do
			c=${xcmds[$(((j + run) % nx))]}
			now_us; t0=$NOW
			# shellcheck disable=SC2086
			bytes=$(timeout -k 5 "$RUN_TIMEOUT" "$RBMON" ${c//:/ } "${XREC[$r]}" 2>"$T/x.err" | wc -c)
			st=("${PIPESTATUS[@]}")
			now_us
			[ "${st[0]}" -eq 0 ] || broke "rbmon ${c//:/ } ${XREC[$r]} exited ${st[0]}: $(head -c 300 "$T/x.err")"
			[ "$bytes" -gt 0 ] || broke "rbmon ${c//:/ } printed nothing"
			XUS[$r:$c]="${XUS[$r:$c]:-} $((NOW - t0))"
			[ -z "${XOUT[$r:$c]:-}" ] || [ "${XOUT[$r:$c]}" = "$bytes" ] ||
				broke "rbmon ${c//:/ }: $bytes bytes, before ${XOUT[$r:$c]}"
			XOUT[$r:$c]=$bytes
		done
	done
	note "exporters: run $((run + 1))/$EXPORT_RUNS done"
done

# --- 4b. Lua: the runs ---------------------------------------------------------
declare -A LUS LCPU LCALLS
LUA_RUNS=()
if [ -z "$LUA_STATE" ]; then
	for b in $LUA_BUILDS; do
		[ -n "${LUA_BIN[$b]:-}" ] || continue
		if [ "$b" = gcc ]; then LUA_RUNS+=("$b:none"); continue; fi
		LUA_RUNS+=("$b:none" "$b:default" "$b:noev")
	done
fi

TIMEFORMAT='%3U %3S'
# lua_run BUILD VARIANT - one run of work.lua; sets L_US (wall time), L_CPU
# (user + system ms) and,
# for default, L_CALLS (the event log's written records / 2).
lua_run()
{
	local b=$1 v=$2 rc=0 knobs=() out w cu cs
	rm -f "$TRACE"
	case $v in
	none) ;;
	default) knobs=(LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE");;
	noev) knobs=(LD_PRELOAD="$LIBRBTRACE" RBTRACE_FILE="$TRACE" RBTRACE_EVENTS=0);;
	esac
	now_us; t0=$NOW
	# time: the CPU the process used too (user and system), in ms.
	{ time env "${knobs[@]}" timeout -k 5 "$RUN_TIMEOUT" "${LUA_BIN[$b]}" "$WORKLUA" "$LUA_SCALE" \
		>"$T/lua.run.out" 2>"$T/lua.run.err"; } 2>"$T/lua.time" || rc=$?
	now_us
	L_US=$((NOW - t0))
	[ "$rc" -eq 0 ] || broke "lua $b $v exited $rc: $(head -c 300 "$T/lua.run.err")"
	read -r cu cs <"$T/lua.time"
	[[ "$cu $cs" =~ ^[0-9]+[.,][0-9]+\ [0-9]+[.,][0-9]+$ ]] ||
		broke "lua $b $v: no CPU time: $(head -c 200 "$T/lua.time")"
	L_CPU=$(calc "printf \"%.0f\", (${cu/,/.} + ${cs/,/.}) * 1000")
	out=$(cat "$T/lua.run.out")
	[ "$out" = "$LUA_SUM" ] || broke "lua $b $v printed '$out', the baseline '$LUA_SUM'"
	[ -s "$T/lua.run.err" ] && broke "lua $b $v complained: $(head -c 300 "$T/lua.run.err")"
	if [ "$v" != none ]; then
		[ -f "$TRACE" ] || broke "lua $b $v: no trace file: librbtrace not preloaded?"
	fi
	if [ "$v" = default ]; then
		w=$("$RBMON" --events "$TRACE" 2>&1 | sed -n 's/.*: \([0-9][0-9]*\) written, .*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		[ "$w" -gt 0 ] || broke "lua $b: rbmon --events shows no records written"
		L_CALLS=$((w / 2))
	fi
	rm -f "$TRACE"
}

if [ ${#LUA_RUNS[@]} -gt 0 ]; then
	note "lua: $RUNS runs of work.lua $LUA_SCALE: ${LUA_RUNS[*]}"
	nl=${#LUA_RUNS[@]}
	for ((run = 0; run < RUNS; run++)); do
		for ((j = 0; j < nl; j++)); do
			bv=${LUA_RUNS[$(((j + run) % nl))]}
			lua_run "${bv%%:*}" "${bv#*:}"
			LUS[$bv]="${LUS[$bv]:-} $L_US"
			LCPU[$bv]="${LCPU[$bv]:-} $L_CPU"
			[ "${bv#*:}" = default ] && LCALLS[${bv%%:*}]="${LCALLS[${bv%%:*}]:-} $L_CALLS"
		done
		note "lua: run $((run + 1))/$RUNS done"
	done
fi

# =============================== report =======================================
read -r LOAD1 _ </proc/loadavg
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
[ -n "$model" ] || model=$(uname -m)
# shellcheck disable=SC2086
med() { median $1; }
pct() { calc "printf \"%.1f\", $1"; }

echo
echo "recording benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine:  $model, nproc $(nproc), $(uname -sr), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),"
echo "          load average before $LOAD0, after $LOAD1"
echo "tools:    $(gcc --version 2>/dev/null | head -n 1); $(clang --version 2>/dev/null | head -n 1)"
echo "runs:     fib and Lua: median of $RUNS, variants alternated; recorder ladder: $REC_RUNS runs of"
echo "          ${REC_SECONDS} s per rate; exporters: median of $EXPORT_RUNS${BENCH_QUICK:+ (BENCH_QUICK=$BENCH_QUICK)}"
echo

echo "1. recorder throughput: bench/apps/pace RATE $REC_SECONDS THREADS under rbtrace record (drain logs)"
echo "   rate = call pairs a second and thread asked (0: as fast as it goes); offered, kept = events"
echo "   a second (2 per call pair, all threads); drop = share dropped by the threads; cpu = the"
echo "   recorder's CPU over the recording, % of one core; B/ev = recording bytes per event kept"
printf '   %-11s %-3s %-10s %11s %10s %8s %7s %6s %8s\n' log thr rate "offered M/s" "kept M/s" "drop %" "cpu %" "B/ev" "0 lost"
declare -A SUSTAIN SUSTAIN_CPU
# The rates in increasing order, "as fast as it goes" last.
RATES_UP="$(printf '%s\n' $REC_RATES | grep -vx 0 | sort -n -u | tr '\n' ' ')"
printf '%s\n' $REC_RATES | grep -qx 0 && RATES_UP+="0"
for ev in $REC_EVENTS; do
	for th in $REC_THREADS; do
		lossless=1
		for rate in $RATES_UP; do
			k="$ev:$th:$rate"
			off=$(med "${RL_OFF[$k]}")
			printf '   %-11s %-3s %-10s %11s %10s %8s %7s %6s %8s\n' "$ev" "$th" \
				"$([ "$rate" = 0 ] && echo max || echo "$rate")" "$(mega "$off")" \
				"$(mega "$(med "${RL_KEPT[$k]}")")" "$(med "${RL_DROP[$k]}")" \
				"$(med "${RL_CPU[$k]}")" "$(med "${RL_BPE[$k]}")" "${RL_ZERO[$k]:-0}/${RL_N[$k]}"
			# Sustained: this rate and every lower one lost nothing in any run.
			if [ "$lossless" = 1 ] && [ "${RL_ZERO[$k]:-0}" = "${RL_N[$k]}" ]; then
				SUSTAIN[$ev:$th]=$off
				SUSTAIN_CPU[$ev:$th]=$(med "${RL_CPU[$k]}")
			else
				lossless=0
			fi
		done
	done
done
for rate in $RATES_UP; do
	[ -n "${GAP[$rate]:-}" ] || continue
	read -r b g l <<<"${GAP[$rate]}"
	[ -n "$l" ] || continue
	echo "   logs of $REC_DEFAULT_EVENTS, 1 thread, rate $rate, first run: the first gap came after $(group "$b") events"
	echo "     and lost $(group "$g") of the $(group "$l") events lost in all (rbmon replay)"
done
for x in "${RL_STUCK[@]}"; do
	echo "   NOTE: a run where the recorder kept no more than one log's worth: $x"
done
for ev in $REC_EVENTS; do
	for th in $REC_THREADS; do
		s=${SUSTAIN[$ev:$th]:-}
		if [ -n "$s" ]; then
			echo "   sustained (no event lost at this rate or below): $(mega "$s") M events/s, $th thread(s), logs of $ev (recorder ${SUSTAIN_CPU[$ev:$th]}% of a core)"
		else
			echo "   sustained: even the lowest rate lost events, $th thread(s), logs of $ev"
		fi
	done
done
echo

echo "2. exporters: events (records in the recording) a second, output MiB a second, bytes per event"
echo "   fib: rbtrace record of fib $EXPORT_FIB_N 1 2: $(group "${XKEPT[fib]}") events in $(calc "printf \"%.1f\", $(stat -c %s "$T/fib.rbr") / 1048576") MiB"
if [ -n "$LUA_REC" ]; then
	read -r lk ll lb lc <<<"$LUA_REC"
	echo "   lua: rbtrace record of lua (gcc -finstrument-functions) work.lua $LUA_REC_SCALE: $(group "$lk") events in $(calc "printf \"%.1f\", $lb / 1048576") MiB ($(group "$ll") dropped)"
fi
printf '   %-4s %-20s %10s %12s %12s %10s %10s\n' rec command "ms" "M events/s" "out bytes" "MiB/s" "B/event"
for r in $XRECS; do
	for c in $EXPORTS; do
		us=$(med "${XUS[$r:$c]}")
		b=${XOUT[$r:$c]}
		printf '   %-4s %-20s %10s %12s %12s %10s %10s\n' "$r" "${c//:/ }" "$(calc "printf \"%.0f\", $us / 1000")" \
			"$(calc "printf \"%.2f\", ${XKEPT[$r]} / $us")" "$(group "$b")" \
			"$(calc "printf \"%.1f\", $b / 1048576 / ($us / 1e6)")" "$(calc "printf \"%.2f\", $b / ${XKEPT[$r]}")"
	done
done
[ -n "$PERFETTO_STATE" ] && echo "   export --perfetto: $PERFETTO_STATE"
echo

echo "3. overhead: fib $FIB_N (its own timing of the work section, thread-seconds); ns per call pair"
for th in 1 2; do
	echo "   $th thread(s), $(group "${FCALLS[$th]}") call pairs timed:"
	printf '     %-30s %10s %10s %10s %22s\n' variant "ns/call" "+ns/call" "x none" "kept % (recorder cpu)"
	if [ "$th" = 1 ]; then vs=$FIB1_VARIANTS; else vs=$FIB2_VARIANTS; fi
	b=$(fib_ns "$th" baseline)
	for v in $vs; do
		n=$(fib_ns "$th" "$v")
		extra=
		[ "$v" = record ] && extra="$(med "${FKEPT[$th]}")% ($(med "${FCPU[$th]}")%)"
		case $v in
		baseline) l="no tracing (glibc's hooks)";;
		ref-stack) l="ref: store-only stack";;
		ref-events) l="ref: store-only event log";;
		noev) l="librbtrace, EVENTS=0";;
		default) l="librbtrace defaults";;
		record) l="rbtrace record";;
		esac
		printf '     %-30s %10s %10s %10s %22s\n' "$l" "$n" \
			"$([ "$v" = baseline ] && echo - || calc "printf \"%.2f\", $n - $b")" "$(ratio "$n" "$b")" "$extra"
	done
done
echo "   kept = share of the events rbtrace record kept (the recorder's CPU, % of one core);"
echo "   bytes per event kept: $(med "${FBPE[1]:-}") (1 thread), $(med "${FBPE[2]:-}") (2 threads)"
echo

echo "4. Lua 5.4 (Debian's lua5.4 sources), work.lua $LUA_SCALE; wall ms of the process, median of $RUNS"
if [ -n "$LUA_STATE" ]; then
	echo "   SKIPPED: $LUA_STATE"
else
	echo "   sources: ${LUA_SRC%/src}"
	[ -n "$LUA_REC" ] && {
		read -r lk ll lb lc <<<"$LUA_REC"
		echo "   exclusion list from rbmon hot --flags on rbtrace record of gcc-fi, work.lua $LUA_REC_SCALE"
		echo "   ($(group "$lk") events kept, $(group "$ll") dropped; recorder $lc% of a core):"
		echo "     ${LUA_FLAGS:-(none)}"
		echo "   rbmon hot (its first rows; at $REC_DEFAULT_EVENTS records a log the recording is a sample):"
		sed -n '1p; 3,11p' "$T/hot.txt" | sed 's/^/     /'
		echo "     left after the exclusion, says rbmon hot: $(jq -r '"\(100 * .hook_ns_after / .hook_ns | . * 10 | floor / 10)% of the calls"' "$T/hot.json" 2>/dev/null || echo "(jq not installed)")"
	}
	base=$(med "${LUS[gcc:none]}")
	printf '   %-10s %-10s %8s %8s %7s %8s %7s %9s %7s %10s %9s %9s\n' build instr "calls M" "none ms" "x base" \
		"rbtrace" "x base" "EVENTS=0" "x base" "M calls/s" "+ns/call" "+ns EV=0"
	for b in $LUA_BUILDS; do
		case $b in
		gcc) i="none";;
		gcc-fi) i="gcc -fif";;
		gcc-ex) i="gcc +excl";;
		clang-fi) i="clang -fif";;
		clang-ai) i="clang -ai";;
		esac
		if [ -z "${LUA_BIN[$b]:-}" ]; then
			printf '   %-10s %-10s %s\n' "$b" "$i" "not measured: ${LUA_BSTATE[$b]:-}"
			continue
		fi
		if [ "$b" = gcc ]; then
			printf '   %-10s %-10s %8s %8s %7s %8s %7s %9s %7s %10s %9s %9s\n' "$b" "$i" 0 \
				"$(calc "printf \"%.0f\", $base / 1000")" 1.00 - - - - - - -
			continue
		fi
		n=$(med "${LUS[$b:none]}"); d=$(med "${LUS[$b:default]}"); e=$(med "${LUS[$b:noev]}")
		c=$(med "${LCALLS[$b]}")
		printf '   %-10s %-10s %8s %8s %7s %8s %7s %9s %7s %10s %9s %9s\n' "$b" "$i" "$(mega "$c")" \
			"$(calc "printf \"%.0f\", $n / 1000")" "$(ratio "$n" "$base")" \
			"$(calc "printf \"%.0f\", $d / 1000")" "$(ratio "$d" "$base")" \
			"$(calc "printf \"%.0f\", $e / 1000")" "$(ratio "$e" "$base")" \
			"$(calc "printf \"%.1f\", $c / $n")" "$(calc "printf \"%.1f\", ($d - $n) * 1000 / $c")" \
			"$(calc "printf \"%.1f\", ($e - $n) * 1000 / $c")"
	done
	echo "   the same by CPU time (user + system of the process, ms), less sensitive to a busy machine:"
	cbase=$(med "${LCPU[gcc:none]}")
	printf '   %-10s %9s %7s %9s %7s %9s %7s\n' build "none cpu" "x base" "rbtrace" "x base" "EVENTS=0" "x base"
	for b in $LUA_BUILDS; do
		[ -n "${LUA_BIN[$b]:-}" ] || continue
		if [ "$b" = gcc ]; then
			printf '   %-10s %9s %7s %9s %7s %9s %7s\n' "$b" "$cbase" 1.00 - - - -
			continue
		fi
		n=$(med "${LCPU[$b:none]}"); d=$(med "${LCPU[$b:default]}"); e=$(med "${LCPU[$b:noev]}")
		printf '   %-10s %9s %7s %9s %7s %9s %7s\n' "$b" "$n" "$(ratio "$n" "$cbase")" \
			"$d" "$(ratio "$d" "$cbase")" "$e" "$(ratio "$e" "$cbase")"
	done
	for pair in gcc-ex:gcc-fi clang-ai:clang-fi; do
		a=$(med "${LCALLS[${pair%%:*}]:-}"); z=$(med "${LCALLS[${pair#*:}]:-}")
		[ -n "$a" ] && [ -n "$z" ] &&
			echo "   ${pair%%:*} makes $(calc "printf \"%.1f\", 100 * $a / $z")% of the calls ${pair#*:} makes"
	done
	echo "   gcc -fif = -finstrument-functions; +excl = plus the list above; -ai = -finstrument-functions-after-inlining"
	echo "   calls = instrumented calls made (the event log's written records / 2); M calls/s = calls over the"
	echo "   none run's time; +ns/call = (rbtrace - none) / calls, +ns EV=0 the same with RBTRACE_EVENTS=0;"
	echo "   x base = wall time over the uninstrumented gcc -O2 -g build's"
fi
echo

echo "summary"
for ev in $REC_EVENTS; do
	for th in $REC_THREADS; do
		s=${SUSTAIN[$ev:$th]:-}
		k="$ev:$th:0"
		line="sustained $( [ -n "$s" ] && echo "$(mega "$s") M events/s" || echo "none of the rates" )"
		[ -n "${RL_N[$k]:-}" ] &&
			line+="; as fast as it goes: kept $(mega "$(med "${RL_KEPT[$k]}")") M/s, dropped $(med "${RL_DROP[$k]}")%"
		printf '   %-60s %s\n' "recorder, logs of $ev, $th thread(s)" "$line"
	done
done
printf '   %-60s %s\n' "recording bytes per event kept (fib, 1 thread)" "$(med "${FBPE[1]:-}")"
for c in $EXPORTS; do
	line=
	for r in $XRECS; do
		b=$(med "${XUS[$r:$c]}")
		line+="$r $(calc "printf \"%.2f\", ${XKEPT[$r]} / $b") M ev/s, "
		if [ "${XOUT[$r:$c]}" -ge "${XKEPT[$r]}" ]; then
			line+="$(calc "printf \"%.0f\", ${XOUT[$r:$c]} / ${XKEPT[$r]}") B/ev; "
		else
			line+="$(group "${XOUT[$r:$c]}") B; "
		fi
	done
	printf '   %-60s %s\n' "rbmon ${c//:/ }" "${line%; }"
done
b1=$(fib_ns 1 baseline)
for v in noev default record; do
	n=$(fib_ns 1 "$v")
	printf '   %-60s %s\n' "fib, 1 thread, $v" "$n ns/call, +$(calc "printf \"%.2f\", $n - $b1") ns, $(ratio "$n" "$b1") x none"
done
if [ -z "$LUA_STATE" ]; then
	base=$(med "${LUS[gcc:none]}")
	for b in $LUA_BUILDS; do
		[ "$b" != gcc ] && [ -n "${LUA_BIN[$b]:-}" ] || continue
		printf '   %-60s %s\n' "lua $b: none / rbtrace / EVENTS=0, x uninstrumented" \
			"$(ratio "$(med "${LUS[$b:none]}")" "$base") / $(ratio "$(med "${LUS[$b:default]}")" "$base") / $(ratio "$(med "${LUS[$b:noev]}")" "$base"), $(mega "$(med "${LCALLS[$b]}")") M calls"
	done
else
	printf '   %-60s %s\n' "lua" "skipped: $LUA_STATE"
fi
echo
exit 0
