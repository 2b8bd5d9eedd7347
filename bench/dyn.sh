#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/dyn.sh - what dynamic tracing saves on real programs, and how long
# switching the sites of a running program holds its threads.
#
# 1. Cost, per program and build, as seconds and as a multiple of the
#    plain build's (no instrumentation) in the same repetition.
#    Programs: fib (bench/apps/fib.c: fib N 1 2, BENCH_DYN_FIB_N, 36),
#    Lua 5.4 running bench/lua/work.lua (BENCH_DYN_LUA_SCALE, 25), and the
#    sqlite3 shell on a generated SQL script in :memory: (inserts of
#    BENCH_DYN_SQL_ROWS rows, 60000, in one transaction, two indexes,
#    selects through them, a join and a group by).  Lua and sqlite3 from
#    Debian sources (`apt-get source lua5.4 sqlite3`) under
#    BENCH_SITES_SRC (default /work/real/h7), as bench/sites.sh finds
#    them; a program whose sources are missing is skipped.
#    Builds, into BENCH_DYN_BUILD (default $BENCH_SITES_SRC/dyn-build),
#    once: plain (gcc -g -O2), gcc-fi (gcc -g -O2 -finstrument-functions),
#    and with clang (if installed) clang-plain (clang -g -O2) and clang-fi
#    (clang -g -O2 -finstrument-functions-after-inlining).  x_plain is the
#    ratio to the plain build of the same compiler, x_gcc to gcc's.
#    Modes of each instrumented build:
#	hooks	the binary alone: glibc's empty hooks, no preload;
#	nop	a copy with every site overwritten by a NOP of its length on
#		disk (a tail call by a ret), from the site table that
#		tests/sites/sitesdump prints (bench/apps/nopsites): the floor
#		of dynamic tracing, every site off and no library;
#	dormant	librbtrace preloaded, RBTRACE_DORMANT=1: every site off;
#	stack	librbtrace, RBTRACE_EVENTS=0: the live stack only;
#	traced	librbtrace, its defaults (stack + event log);
#	auto	librbtrace, RBTRACE_AUTO_EXCLUDE=1: the hottest shortest
#		functions switched off after a warm-up.
#    A mode the built library does not have (dormant and auto need the
#    dynamic tracing engine: its RBTRACE_DORMANT / RBTRACE_AUTO_EXCLUDE
#    settings) is reported "not available".  Every run's output must
#    match the plain build's.  The time is the process's wall time, fork
#    to exit; BENCH_RUNS (5) repetitions, each running every variant once
#    in an order that rotates from one repetition to the next; medians.
#
# 2. The hold probe (bench/apps/holdprobe, gcc, instrumented):
#    BENCH_DYN_THREADS (4) threads spin on short instrumented calls and
#    keep the largest gap between two iterations in each 1 ms window.
#    Started dormant, it is woken (rbtrace -p PID) and put back to sleep
#    (rbtrace -p PID --detach) BENCH_DYN_TRANSITIONS (20) times each.  Per
#    transition: the longest hold any thread saw while the command ran
#    (its largest gap less its usual iteration time) and the command's
#    time; medians and maxima.  Next to them, as the reference, the same
#    figure over an interval as long with no transition, right after each
#    one: on a loaded machine preemption alone makes gaps of milliseconds.
#    And what rbtrace says it held: the thread it stops to start the
#    request (the probe's main, blocked in read), and at a wake every
#    thread while it reads their registers for seeding.
#    Without the engine only the reference is measured.
#
# Exit status: 0 measured, 77 cannot run here, 1 the harness broke.
# Run it alone from the build directory (after `make all
# tests/sites/sitesdump bench/apps/holdprobe bench/apps/nopsites`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/dyn.sh
# or with `make bench BENCHMARKS=bench/dyn.sh`.  Knobs (environment):
# BENCH_RUNS, BENCH_DYN_PROGRAMS ("fib lua sqlite3"; empty: the probe only),
# the sizes above,
# BENCH_DYN_PROBE=0 (no hold probe), WAIT_TIMEOUT (30 s).
set -u

NAME=dyn
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}" "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
RUNS=${BENCH_RUNS:-5}
SRC=${BENCH_SITES_SRC:-/work/real/h7}
OUT=${BENCH_DYN_BUILD:-$SRC/dyn-build}
PROGRAMS=${BENCH_DYN_PROGRAMS-fib lua sqlite3}
FIB_N=${BENCH_DYN_FIB_N:-36}
LUA_SCALE=${BENCH_DYN_LUA_SCALE:-25}
SQL_ROWS=${BENCH_DYN_SQL_ROWS:-60000}
THREADS=${BENCH_DYN_THREADS:-4}
TRANSITIONS=${BENCH_DYN_TRANSITIONS:-20}
WAIT_TIMEOUT=${WAIT_TIMEOUT:-30}
RUN_TIMEOUT=300
LIB=$top_builddir/lib/.libs/librbtrace.so
RBTRACE=$top_builddir/rbtrace
DUMP=$top_builddir/tests/sites/sitesdump
NOPSITES=$top_builddir/bench/apps/nopsites
PROBE=$top_builddir/bench/apps/holdprobe

[ "$(uname -m)" = x86_64 ] || skip "x86_64 only (the site table)"
for f in "$LIB" "$RBTRACE" "$DUMP" "$NOPSITES" "$PROBE"; do
	[ -x "$f" ] || [ -f "$f" ] || broke "$f not built"
done
mkdir -p "$OUT" || broke "cannot create $OUT"
T=$(mktemp -d) || broke "mktemp"
PROBE_PID=
cleanup() {
	[ -n "$PROBE_PID" ] && kill "$PROBE_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
unset RBTRACE_EVENTS RBTRACE_POLICY RBTRACE_CLOCK RBTRACE_DORMANT \
    RBTRACE_AUTO_EXCLUDE RBTRACE_EXCLUDE RBTRACE_INCLUDE

# What the library can do: the engine's settings are strings in it.
has_setting() { LC_ALL=C grep -qa "$1" "$LIB"; }
HAVE_DORMANT=0 HAVE_AUTO=0
has_setting RBTRACE_DORMANT && HAVE_DORMANT=1
has_setting RBTRACE_AUTO_EXCLUDE && HAVE_AUTO=1
HAVE_CLANG=0
command -v clang >/dev/null && HAVE_CLANG=1

GCC_FI="-g -O2 -finstrument-functions"
CLANG_FI="-g -O2 -finstrument-functions-after-inlining"
BUILDS="gcc-fi" PLAINS=plain
[ $HAVE_CLANG = 1 ] && BUILDS="$BUILDS clang-fi" PLAINS="$PLAINS clang-plain"

# build_cc VARIANT - the compiler and flags of a build, into CC_ and CF_.
build_cc() {
	case $1 in
	plain)		CC_=gcc CF_="-g -O2";;
	clang-plain)	CC_=clang CF_="-g -O2";;
	gcc-fi)		CC_=gcc CF_=$GCC_FI;;
	clang-fi)	CC_=clang CF_=$CLANG_FI;;
	esac
}

# stamped DIR CMD... - run CMD (a build into DIR) unless DIR's stamp says
# it was done with the same command.
stamped() {
	local dir=$1; shift
	[ -x "$dir/prog" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$*" ] && return 0
	mkdir -p "$dir" && rm -f "$dir/prog" "$dir/stamp" || return 1
	"$@" > "$dir/build.log" 2>&1 || { note "build failed: $* (see $dir/build.log)"; return 1; }
	echo "$*" > "$dir/stamp"
}

build_fib() {
	build_cc "$1"
	stamped "$OUT/fib/$1" $CC_ $CF_ -pthread -I"$top_srcdir/tests/apps" \
	    -o "$OUT/fib/$1/prog" "$top_srcdir/bench/apps/fib.c"
}

build_lua() {
	local d; d=$(ls -d "$SRC"/lua5.4-*/src 2>/dev/null | head -1)
	[ -n "$d" ] || return 1
	build_cc "$1"
	stamped "$OUT/lua/$1" sh -c "make -s -f '$top_srcdir/bench/lua/lua.mk' \
	    SRC='$d' OUT='$OUT/lua/$1' CC=$CC_ CFLAGS='$CF_' &&
	    mv '$OUT/lua/$1/lua' '$OUT/lua/$1/prog'"
}

# The amalgamation: bench/sites.sh's if it made one, else made here.
sqlite_amalgamation() {
	local d
	for d in "$SRC/build/sqlite-build" "$OUT/sqlite-build"; do
		[ -f "$d/sqlite3.c" ] && [ -f "$d/shell.c" ] && { SQLITE_AM=$d; return 0; }
	done
	d=$(ls -d "$SRC"/sqlite3-3* 2>/dev/null | head -1)
	[ -n "$d" ] || return 1
	note "sqlite3: making the amalgamation from $d"
	mkdir -p "$OUT/sqlite-build" &&
	    (cd "$OUT/sqlite-build" && "$d/configure" -q >/dev/null &&
	    make -s sqlite3.c shell.c >/dev/null) || return 1
	SQLITE_AM=$OUT/sqlite-build
}

build_sqlite3() {
	[ -n "${SQLITE_AM:-}" ] || sqlite_amalgamation || return 1
	build_cc "$1"
	stamped "$OUT/sqlite3/$1" $CC_ $CF_ -DSQLITE_THREADSAFE=1 \
	    -I"$SQLITE_AM" -o "$OUT/sqlite3/$1/prog" "$SQLITE_AM/sqlite3.c" \
	    "$SQLITE_AM/shell.c" -lpthread -ldl -lm
}

# nop_copy PROG BUILD - the build's copy with every site a NOP.
nop_copy() {
	local dir=$OUT/$1/$2
	[ -x "$dir/nop" ] && [ "$dir/nop" -nt "$dir/prog" ] && return 0
	cp "$dir/prog" "$dir/nop.tmp" &&
	    "$DUMP" "$dir/prog" > "$dir/sites.txt" &&
	    "$NOPSITES" "$dir/nop.tmp" < "$dir/sites.txt" > "$dir/nop.log" &&
	    mv "$dir/nop.tmp" "$dir/nop" || return 1
	# None left: the table of the copy is empty.
	"$DUMP" -s "$dir/nop" | grep -q '^sites 0 ' ||
	    broke "$1 $2: sites left in the NOP copy"
}

# The workloads: ARGS of each program, and its output reduced to what
# every build must agree on (the SQL script: bench_sql_script, lib.sh).
set_workload() {
	case $1 in
	fib)	ARGS=("$FIB_N" 1 2) STDIN=/dev/null;;
	lua)	ARGS=("$top_srcdir/bench/lua/work.lua" "$LUA_SCALE") STDIN=/dev/null;;
	sqlite3) ARGS=(-batch :memory:) STDIN=$T/work.sql;;
	esac
}
reduce() {
	case $1 in
	fib)	sed -n 's/.* result \([0-9]*\)$/result \1/p';;
	*)	cat;;
	esac
}

# run_variant PROG VARIANT - one run; its wall time in seconds into SECS.
# VARIANT: plain, or BUILD/MODE.
run_variant() {
	local prog=$1 v=$2 bin build mode t0 t1 rc
	local -a env=()
	build=${v%/*} mode=${v#*/}
	case $v in *plain) build=$v mode=hooks;; esac
	bin=$OUT/$prog/$build/prog
	case $mode in
	nop)	bin=$OUT/$prog/$build/nop;;
	dormant) env=(LD_PRELOAD="$LIB" RBTRACE_DORMANT=1);;
	stack)	env=(LD_PRELOAD="$LIB" RBTRACE_EVENTS=0);;
	traced)	env=(LD_PRELOAD="$LIB");;
	auto)	env=(LD_PRELOAD="$LIB" RBTRACE_AUTO_EXCLUDE=1);;
	esac
	set_workload "$prog"
	now_us; t0=$NOW
	rc=0
	env "${env[@]}" RBTRACE_FILE="$T/run.trace" timeout -k 5 "$RUN_TIMEOUT" \
	    "$bin" "${ARGS[@]}" < "$STDIN" > "$T/run.out" 2> "$T/run.err" || rc=$?
	now_us; t1=$NOW
	rm -f "$T/run.trace"
	[ $rc = 0 ] || broke "$prog $v exited $rc: $(head -c 300 "$T/run.err" | tr -cd '[:print:]\n')"
	# What the library said of switching sites (a refusal, say), once.
	if [ "$mode" = dormant ] || [ "$mode" = auto ] && [ -z "${SAID[$prog/$v]:-}" ] &&
	    grep -q '^rbtrace:' "$T/run.err"; then
		note "$prog $v: $(grep -m1 '^rbtrace:' "$T/run.err" | head -c 300 | tr -cd '[:print:]')"
		SAID[$prog/$v]=1
	fi
	reduce "$prog" < "$T/run.out" > "$T/run.red"
	if [ "$v" = plain ]; then
		[ -s "$T/run.red" ] || broke "$prog plain: no output"
		cp "$T/run.red" "$T/$prog.expect"
	elif ! cmp -s "$T/run.red" "$T/$prog.expect"; then
		broke "$prog $v: output differs from the plain build's: $(head -c 200 "$T/run.red" | tr -cd '[:print:]\n')"
	fi
	SECS=$(calc "printf \"%.4f\", ($t1 - $t0) / 1e6")
}

available() {
	case $1 in
	dormant) [ $HAVE_DORMANT = 1 ];;
	auto)	[ $HAVE_AUTO = 1 ];;
	*)	true;;
	esac
}

MODES="hooks nop dormant stack traced auto"
declare -A SAID=()
bench_sql_script "$SQL_ROWS" > "$T/work.sql" || broke "the SQL script"

note "library: dormant $([ $HAVE_DORMANT = 1 ] && echo available || echo 'not available')," \
    "auto-exclude $([ $HAVE_AUTO = 1 ] && echo available || echo 'not available')"
[ -n "${PROGRAMS// /}" ] &&
    printf '%-8s %-11s %-8s %9s %8s %8s\n' program build mode seconds x_plain x_gcc
for prog in $PROGRAMS; do
	ok=1
	for b in $PLAINS $BUILDS; do
		"build_$prog" "$b" || { ok=0; break; }
	done
	[ $ok = 1 ] || { note "$prog: no sources or no build: skipped"; continue; }
	for b in $BUILDS; do
		nop_copy "$prog" "$b" || broke "$prog $b: the NOP copy"
	done
	variants=($PLAINS)
	for b in $BUILDS; do
		for m in $MODES; do
			available "$m" && variants+=("$b/$m")
		done
	done
	declare -A times=()
	nv=${#variants[@]}
	# The plain run first in the first repetition: it sets the output
	# every other run must match.
	run_variant "$prog" plain >/dev/null
	for r in $(seq 0 $((RUNS - 1))); do
		for i in $(seq 0 $((nv - 1))); do
			v=${variants[$(( (i + r) % nv ))]}
			run_variant "$prog" "$v"
			times[$v]="${times[$v]:-} $SECS"
		done
	done
	gbase=$(median ${times[plain]})
	for b in $BUILDS; do
		p=plain; [ "$b" = clang-fi ] && p=clang-plain
		base=$(median ${times[$p]})
		printf '%-8s %-11s %-8s %9.3f %8.2f %8.2f\n' "$prog" "$p" - "$base" 1 \
		    "$(calc "printf \"%.4f\", $base / $gbase")"
		for m in $MODES; do
			if ! available "$m"; then
				printf '%-8s %-11s %-8s %18s\n' "$prog" "$b" "$m" "not available"
				continue
			fi
			s=$(median ${times[$b/$m]})
			printf '%-8s %-11s %-8s %9.3f %8.2f %8.2f\n' "$prog" "$b" "$m" "$s" \
			    "$(calc "printf \"%.4f\", $s / $base")" \
			    "$(calc "printf \"%.4f\", $s / $gbase")"
		done
	done
	unset times
done

[ "${BENCH_DYN_PROBE:-1}" = 0 ] && exit 0

# The hold probe.  probe CMD... - send a command, its answer into REPLY.
probe() {
	echo "$*" >&"${HP[1]}" || broke "probe: write"
	read -r -t "$WAIT_TIMEOUT" -u "${HP[0]}" REPLY || broke "probe: no answer to $*"
}
# window - the probe's current 1 ms window into W.
window() { probe t; W=${REPLY#t }; }
# held A B - the hold over windows A..B (inclusive) into HOLD, GAP, ITER
# (microseconds).
held() {
	sleep 0.003	# let window B end
	probe q "$1" $(($2 + 1))
	set -- $REPLY
	HOLD=$(calc "printf \"%.1f\", $2 / 1000") GAP=$(calc "printf \"%.1f\", $3 / 1000")
	ITER=$4
}

# rbtrace -p tells the library it would load from one loaded at start by
# the file's identity: both are copied, so that a relink of the build
# tree meanwhile does not make them differ.
mkdir -p "$T/bin" && cp "$LIB" "$T/bin/librbtrace.so" && cp "$RBTRACE" "$T/bin/rbtrace" ||
    broke "cannot copy librbtrace and rbtrace"
RBTRACE_LIB=$T/bin/librbtrace.so
export RBTRACE_LIB
if [ $HAVE_DORMANT = 1 ]; then
	coproc HP { exec env LD_PRELOAD="$RBTRACE_LIB" RBTRACE_DORMANT=1 \
	    RBTRACE_FILE="$T/probe.trace" "$PROBE" "$THREADS" 2> "$T/probe.err"; }
else
	coproc HP { exec "$PROBE" "$THREADS" 2> "$T/probe.err"; }
fi
PROBE_PID=$HP_PID
read -r -t "$WAIT_TIMEOUT" -u "${HP[0]}" REPLY || broke "probe: not ready: $(head -c 300 "$T/probe.err" | tr -cd "[:print:]")"
[[ $REPLY =~ ^ready\ [0-9]+$ ]] || broke "probe: said $(printf %s "$REPLY" | tr -cd "[:print:]")"
PROBE_PID=${REPLY#ready }
sleep 0.2

# reference SECONDS - the hold over an interval as long, no transition.
reference() {
	local a
	window; a=$W
	sleep "$1"
	window
	held "$a" "$W"
	ref_hold="$ref_hold $HOLD"
}

ref_hold= wake_hold= wake_ms= sleep_hold= sleep_ms= iter_dormant= iter_awake=
wake_borrow= sleep_borrow= seed_all=
transitions=0
if [ $HAVE_DORMANT = 1 ]; then
	for i in $(seq "$TRANSITIONS"); do
		for kind in wake sleep; do
			opt=; [ $kind = sleep ] && opt=--detach
			window; a=$W
			now_us; t0=$NOW
			if ! "$T/bin/rbtrace" -p "$PROBE_PID" $opt > "$T/cmd.out" 2>&1; then
				note "rbtrace -p $PROBE_PID $opt failed: $(head -c 300 "$T/cmd.out" | tr -cd "[:print:]")"
				break 2
			fi
			now_us; t1=$NOW
			# What rbtrace says it held: the thread it borrowed, and
			# on a wake every thread while it read their registers.
			b=$(sed -n 's/.*its thread [0-9]* stopped for \([0-9.]*\) ms.*/\1/p' "$T/cmd.out")
			[ -n "$b" ] && eval "${kind}_borrow=\"\$${kind}_borrow $b\""
			b=$(sed -n 's/.*its [0-9]* threads\{0,1\} stopped for \([0-9.]*\) ms.*/\1/p' "$T/cmd.out")
			[ -n "$b" ] && seed_all="$seed_all $b"
			window
			held "$a" "$W"
			ms=$(calc "printf \"%.2f\", ($t1 - $t0) / 1000")
			eval "${kind}_hold=\"\$${kind}_hold $HOLD\" ${kind}_ms=\"\$${kind}_ms $ms\""
			sleep 0.05
			reference "$(calc "printf \"%.4f\", ($t1 - $t0) / 1e6")"
			# The usual iteration in the state just entered.
			[ $kind = wake ] && iter_awake="$iter_awake $ITER"
			[ $kind = sleep ] && iter_dormant="$iter_dormant $ITER"
		done
		transitions=$i
	done
fi
if [ $transitions = 0 ]; then
	for i in $(seq "$TRANSITIONS"); do
		reference 0.05
	done
fi
echo x >&"${HP[1]}"
wait "$HP_PID" 2>/dev/null
PROBE_PID=

maxof() { printf '%s\n' "$@" | LC_ALL=C sort -g | tail -1; }
echo "hold probe: $THREADS threads, $(nproc) cores, $transitions wake/sleep pairs" \
    "(rbtrace -p PID, rbtrace -p PID --detach); holds in microseconds"
printf '%-10s %12s %12s %10s %10s\n' what hold_med_us hold_max_us cmd_med_ms cmd_max_ms
if [ $transitions -gt 0 ]; then
	printf '%-10s %12s %12s %10s %10s\n' wake "$(median $wake_hold)" \
	    "$(maxof $wake_hold)" "$(median $wake_ms)" "$(maxof $wake_ms)"
	printf '%-10s %12s %12s %10s %10s\n' sleep "$(median $sleep_hold)" \
	    "$(maxof $sleep_hold)" "$(median $sleep_ms)" "$(maxof $sleep_ms)"
else
	printf '%-10s %25s\n' wake "not available" sleep "not available"
fi
printf '%-10s %12s %12s %10s %10s\n' reference "$(median $ref_hold)" \
    "$(maxof $ref_hold)" - -
[ -n "$wake_borrow" ] && echo "the thread rbtrace -p stops to start the request (its main," \
    "blocked in read): held $(median $wake_borrow) ms to wake (max $(maxof $wake_borrow))," \
    "$(median ${sleep_borrow:-0}) ms to put to sleep (max $(maxof ${sleep_borrow:-0}))"
[ -n "$seed_all" ] && echo "every thread, stopped at a wake to read their registers" \
    "(seeding): $(median $seed_all) ms (max $(maxof $seed_all))"
[ -n "$iter_awake" ] && echo "usual iteration: $(median $iter_dormant) ns dormant," \
    "$(median $iter_awake) ns awake"
exit 0
