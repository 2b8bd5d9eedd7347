#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/attach.sh - how long rbtrace -p holds a program up, attaching and
# detaching.
#
# bench/apps/gapmeter, started without the library: its main thread sleeps
# 1 ms per loop (the thread rbtrace stops: blocked in nanosleep) and keeps
# the longest overrun; two workers call instrumented functions without
# pause and keep their longest gap between two calls.  Then BENCH_RUNS
# (20) rounds of: attach, detach, each followed by SIGUSR1 for the
# program's "gap" line.  The first attach loads the library (dlopen); the
# later ones find it loaded.  For each of the first attach, later attaches
# and detaches: rbtrace's own figure (the stopped thread, from its stop to
# its release), the stopped thread's overrun as the program saw it, and
# the workers' longest gap, which is the hold-up of a thread that is not
# stopped.  A baseline round without rbtrace gives the machine's own
# noise.  Medians and maxima, in ms.
#
# Target (rbtrace(1)): the program never stops for more than a few ms.
# Run as part of `make bench`, or alone from the build directory (after
# `make all bench/apps/gapmeter`).
set -u

NAME=attach
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
RUNS=${BENCH_RUNS:-20}
RBTRACE=$top_builddir/rbtrace
APP=$top_builddir/bench/apps/gapmeter
[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
[ "$scope" -ge 1 ] && [ "$(id -u)" -ne 0 ] && skip "ptrace_scope $scope, not root"
[ -x "$APP" ] || broke "$APP not built"
T=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT

"$APP" 2 >"$T/out" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q '^ready' "$T/out" && break; sleep 0.01; done

# gap - ask for the program's gap line, print "GAP_MS WGAP_MS".
gap()
{
	local c

	c=$(grep -c '^gap' "$T/out")
	kill -USR1 "$pid"
	for _ in $(seq 500); do
		[ "$(grep -c '^gap' "$T/out")" -gt "$c" ] && break
		sleep 0.01
	done
	grep '^gap' "$T/out" | tail -n 1 |
		awk '{ printf "%.3f %.3f\n", $2 / 1e6, $4 / 1e6 }'
}

# stopped FILE - rbtrace's own "stopped for X ms".
stopped() { sed -n 's/.*stopped for \([0-9.]*\) ms$/\1/p' "$1"; }

sleep 0.3
gap >/dev/null
for i in $(seq "$RUNS"); do
	sleep 0.1
	echo "base $(gap)" >>"$T/rows"
	"$RBTRACE" -p "$pid" --file "$T/g.trace" >/dev/null 2>"$T/a.err" ||
		{ echo "$NAME: attach failed: $(cat "$T/a.err")"; exit 1; }
	kind=attach
	[ "$i" -eq 1 ] && kind=first
	echo "$kind $(stopped "$T/a.err") $(gap)" >>"$T/rows"
	sleep 0.1
	"$RBTRACE" -p "$pid" --detach >/dev/null 2>"$T/d.err" ||
		{ echo "$NAME: detach failed: $(cat "$T/d.err")"; exit 1; }
	echo "detach $(stopped "$T/d.err") $(gap)" >>"$T/rows"
done

# stats KIND COLUMN - "median max" of a column over the rows of a kind.
stats()
{
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$T/rows" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "- -"; exit }
			printf "%.2f %.2f\n", v[int((NR + 1) / 2)], v[NR] }'
}

echo "$NAME: $RUNS rounds on $(nproc) CPUs; ms, median and max"
printf '%-22s %-16s %-16s %-16s\n' "" "rbtrace: stopped" "that thread" "other threads"
printf '%-22s %-16s %-16s %-16s\n' "no rbtrace (noise)" "-" "$(stats base 2)" "$(stats base 3)"
printf '%-22s %-16s %-16s %-16s\n' "first attach (dlopen)" "$(stats first 2)" "$(stats first 3)" "$(stats first 4)"
printf '%-22s %-16s %-16s %-16s\n' "attach again" "$(stats attach 2)" "$(stats attach 3)" "$(stats attach 4)"
printf '%-22s %-16s %-16s %-16s\n' "detach" "$(stats detach 2)" "$(stats detach 3)" "$(stats detach 4)"
exit 0
