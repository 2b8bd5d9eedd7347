#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/exports.sh - how fast rbmon reads a recording back, and how large
# what it writes is: replay, report, hot and each export format (Chrome
# JSON, folded stacks, speedscope, Perfetto protobuf), unfiltered and with
# some filters (rbmon(1), FILTERS), on a recording of bench/apps/fib (a few
# million events, one deep recursive function).  Per reader: events (the
# records of the recording) a second, output MiB a second and bytes per
# event (the output piped to wc -c), and for the exports the size rbmon
# export estimated before writing (RBMON_EXPORT_WARN=1 makes it say it)
# against the size written.  No targets: it measures and prints.
#
# Run it alone from the build directory (after `make all bench/apps/fib`):
#	top_builddir=$PWD top_srcdir=/path/to/src bash /path/to/src/bench/exports.sh
# or as part of `make bench` (make bench BENCHMARKS=bench/exports.sh).
# The recording has logs of a million records a thread (rbtrace record
# --events), so that it loses nothing on a loaded machine; its summary line
# is printed.
# Knobs (environment): BENCH_EXPORT_FIB_N (29: fib(29) twice on one thread,
# about 6.6 M events), BENCH_EXPORT_RUNS (3, the median is said),
# RUN_TIMEOUT (600, seconds any one run may take).

set -u

NAME=exports
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$PWD}"
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"

RBMON=$top_builddir/rbmon
RBTRACE=$top_builddir/rbtrace
FIB=$top_builddir/bench/apps/fib
FIB_N=${BENCH_EXPORT_FIB_N:-29}
RUNS=${BENCH_EXPORT_RUNS:-3}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}

for p in "$RBMON" "$RBTRACE" "$FIB"; do
	[ -x "$p" ] || broke "not built: $p (make all bench/apps/fib)"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/rbt-bench-exports.XXXXXX") || broke "mktemp failed"
trap 'rm -rf "$T"' EXIT

note "recording fib $FIB_N 1 2"
(cd "$T" && timeout -k 5 "$RUN_TIMEOUT" "$RBTRACE" record --events 1048576 --file "$T/fib.trace" \
	-o "$T/fib.rbr" -- "$FIB" "$FIB_N" 1 2 >"$T/rec.out" 2>"$T/rec.err") ||
	broke "rbtrace record of fib $FIB_N failed: $(head -c 500 "$T/rec.err")"
EVENTS=$(sed -n 's/^rbmon: recorded \([0-9,]*\) events.*/\1/p' "$T/rec.err" | tr -d ,)
[ -n "$EVENTS" ] && [ "$EVENTS" -gt 0 ] || broke "no event count: $(cat "$T/rec.err")"
RECBYTES=$(stat -c %s "$T/fib.rbr")

# The readers: a label, then rbmon's arguments (the recording last).
READERS=(
	"replay|replay"
	"report|report"
	"hot|hot"
	"export --chrome|export --chrome"
	"export --folded|export --folded"
	"export --speedscope|export --speedscope"
	"export --perfetto|export --perfetto"
	"export --chrome -D 12|export --chrome -D 12"
	"export --chrome --min-duration 1us|export --chrome --min-duration 1us"
	"export --chrome --time-range ~10ms|export --chrome --time-range ~10ms"
	"export --perfetto -N fib|export --perfetto -N fib"
)

declare -A WALL BYTES EST
for ((run = 0; run < RUNS; run++)); do
	for r in "${READERS[@]}"; do
		label=${r%%|*}
		read -r -a args <<<"${r#*|}"
		now_us; t0=$NOW
		b=$(RBMON_EXPORT_WARN=1 timeout -k 5 "$RUN_TIMEOUT" "$RBMON" "${args[@]}" \
			"$T/fib.rbr" 2>"$T/err" | wc -c) || broke "$label failed"
		now_us
		[ "$b" -gt 0 ] || broke "rbmon $label wrote nothing: $(head -c 500 "$T/err")"
		WALL[$label]+=" $((NOW - t0))"
		BYTES[$label]=$b
		EST[$label]=$(sed -n 's/.*about \([0-9.]* [KMG]iB\) of.*/\1/p' "$T/err")
	done
	note "run $((run + 1))/$RUNS done"
done

echo "exports: $(grep '^rbmon: recorded' "$T/rec.err")"
echo "exports: fib $FIB_N 1 2 recorded: $(group "$EVENTS") events in" \
	"$(calc "printf \"%.1f\", $RECBYTES / 1048576") MiB; median of $RUNS runs; events = the recording's records"
printf '  %-40s %10s %12s %9s %8s %10s %s\n' reader seconds "events/s" "MiB/s" "B/event" "output" "estimated"
for r in "${READERS[@]}"; do
	label=${r%%|*}
	# shellcheck disable=SC2086
	us=$(median ${WALL[$label]})
	b=${BYTES[$label]}
	printf '  %-40s %10s %12s %9s %8s %10s %s\n' "$label" \
		"$(calc "printf \"%.2f\", $us / 1e6")" \
		"$(group "$(calc "printf \"%d\", $EVENTS / ($us / 1e6)")")" \
		"$(calc "printf \"%.1f\", $b / 1048576 / ($us / 1e6)")" \
		"$(calc "printf \"%.1f\", $b / $EVENTS")" \
		"$(calc "printf \"%.1f MiB\", $b / 1048576")" "${EST[$label]:--}"
done
exit 0
