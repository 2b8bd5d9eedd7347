#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/snapshot.sh - what a storm of snapshot triggers costs a program
# (rbtrace(5), "SNAPSHOTS"): tests/apps/snapper's four threads run
# BENCH_SNAP_ROUNDS (200,000) rounds of their call chains each, traced
# (the default event log), while main sends the process the snapshot
# signal BENCH_SNAP_RATE (10,000) times a second from its start:
#	quiet	no signal at all;
#	missed	the storm, no writer attached: every trigger counted missed;
#	writer	the storm with `rbmon snapshot --interval 1` attached: one
#		freeze (and one recording) a second at most, the rest
#		suppressed.
# The program's own wall time (its elapsed_ms), BENCH_RUNS (3) repetitions
# of each mode in turn, medians, and each mode as a multiple of quiet.
# In writer mode the writer attaches first, then SIGUSR1 starts the storm
# (snapper -f), so its time includes that wait (a few tens of ms).
#
# Run it as part of `make bench`, or alone from the build directory (after
# `make all tests/apps/snapper`).
set -u

NAME=snapshot
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
ROUNDS=${BENCH_SNAP_ROUNDS:-200000}
RATE=${BENCH_SNAP_RATE:-10000}
RUNS=${BENCH_RUNS:-3}
RBMON=$top_builddir/rbmon
LIB=$top_builddir/lib/.libs/librbtrace.so
APP=$top_builddir/tests/apps/snapper
[ -x "$APP" ] || broke "$APP not built (make tests/apps/snapper)"
[ -f "$LIB" ] || broke "$LIB not built"
command -v jq >/dev/null || skip "jq is not installed"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# one MODE - run snapper once; its elapsed_ms into $MS, snapshots into $SNAPS.
one()
{
	local mode=$1 f=$T/$1.trace pid w args=(-r "$ROUNDS") i
	rm -f "$f" "$T/ready"
	rm -rf "$T/snaps"
	mkdir "$T/snaps"
	[ "$mode" = quiet ] || args+=(-k "$RATE")
	[ "$mode" = writer ] && args+=(-f)
	RBTRACE_FILE=$f RBTRACE_SNAPSHOT_SIGNAL=USR2 RBT_READY=$T/ready \
		LD_PRELOAD=$LIB "$APP" "${args[@]}" >"$T/out" 2>"$T/err" &
	pid=$!
	if [ "$mode" = writer ]; then
		for i in $(seq 3000); do [ -s "$f" ] && break; sleep 0.01; done
		"$RBMON" snapshot -o "$T/snaps" --interval 1 "$f" >/dev/null 2>"$T/w.err" &
		w=$!
		for i in $(seq 3000); do
			"$RBMON" --json "$f" 2>/dev/null | jq -e ".snapshots.writer == $w" \
				>/dev/null && break
			sleep 0.01
		done
		kill -USR1 "$pid"
	fi
	wait "$pid" || broke "snapper ($mode) failed: $(cat "$T/out" "$T/err")"
	[ "$mode" = writer ] && wait "$w"
	MS=$(awk '$1 == "rounds" && $4 == 0 { print $6 }' "$T/out")
	[ -n "$MS" ] || broke "snapper ($mode) said: $(cat "$T/out")"
	SNAPS=$(ls "$T/snaps" | wc -l)
	COUNTS=$("$RBMON" --json "$f" 2>/dev/null |
		jq -r '.snapshots | "\(.taken) taken, \(.missed) missed, \(.suppressed) suppressed"' 2>/dev/null)
}

declare -A ms
for mode in quiet missed writer; do ms[$mode]=""; done
for r in $(seq "$RUNS"); do
	for mode in quiet missed writer; do
		one "$mode"
		ms[$mode]+=" $MS"
		note "run $r $mode: $MS ms, $SNAPS recordings ($COUNTS)"
	done
done
q=$(median ${ms[quiet]})
for mode in quiet missed writer; do
	m=$(median ${ms[$mode]})
	printf '%s %s: %s ms (median of %s), x%s of quiet\n' "$NAME" "$mode" "$m" \
		"$RUNS" "$(calc "printf \"%.2f\", $m / $q")"
done
exit 0
