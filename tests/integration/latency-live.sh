#!/bin/bash
# SPDX-License-Identifier: MIT
# latency-live: rbmon latency on the live trace file of tests/apps/latency
# -l (its workers started over and over: a 1 ms sleeper, a quick one a
# hundred times as often).  Over a second of its event logs, copied as
# they grow: both functions with calls, the sleeper's p50 of 1 ms or more,
# the losses stated as fields (0 or not, never missing); with logs too
# small to follow (64 records), records overwritten between copies are
# counted and said, never silently; drain logs no one consumes: what full
# logs dropped is counted.  --pid finds the file.
. "$(dirname "$0")/lib.sh"

BIN=$APPS/latency

live()
{
	local f=$1 rc=0
	shift
	"$RBMON" latency --seconds 1 --json "$@" "$f" >"$T/json" 2>"$T/lat.err" || rc=$?
	[ "$rc" -eq 0 ] || fail "rbmon latency $* $f exited $rc: $(cat "$T/lat.err")"
}
calls() { jq -r --arg f "$1" '[.functions[] | select(.name == $f) | .calls] | add // 0' "$T/json"; }

f=$T/lat.trace
traced app RBTRACE_FILE="$f" "$BIN" -l 300 30000
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
live "$f"
expect_jq "live, ring policy, the losses as fields" \
	'.source == "live" and .policy == "ring" and .seconds >= 1 and .records > 0 and
	 (.exact | type) == "boolean" and ([.losses.records, .losses.dropped, .losses.calls_cut,
	 .losses.entries_lost, .losses.torn] | map(type == "number") | all)'
expect_jq "exact only when nothing was lost" \
	'.exact == (.losses.records == 0 and .losses.dropped == 0 and .losses.torn == 0)'
s=$(calls lat_sleeper)
q=$(calls lat_quick)
[ "$s" -gt 0 ] && [ "$q" -gt "$s" ] || fail "implausible counts: sleeper $s, quick $q: $(cat "$T/json")"
expect_jq "the sleeper's p50 at least 1 ms, max >= p99 >= p50" \
	'(.functions[] | select(.name == "lat_sleeper") | .p50_ns >= 1000000) and
	 ([.functions[] | .max_ns >= .p99_ns and .p99_ns >= .p50_ns] | all)'

# The text says where what it counts comes from, and --pid finds the file.
"$RBMON" latency --seconds 1 -p "$pid" -F lat_sleeper >"$T/text" 2>"$T/lat.err" ||
	fail "rbmon latency -p exited $?: $(cat "$T/lat.err")"
grep -Eq "^$f: [0-9]+\.[0-9] s of live event logs \(ring policy\), [0-9]+ threads?, [0-9]+ records$" "$T/text" ||
	fail "no live header: $(cat "$T/text")"
grep -Eq '^ +[0-9]+ +[0-9.]+ m?s +[0-9.]+ ms +[0-9.]+ m?s +[0-9.]+ m?s  lat_sleeper' "$T/text" ||
	fail "no sleeper row: $(cat "$T/text")"
stop_and_reap "$pid"

# 64 records a thread: the writer overwrites what was not copied yet.
f=$T/small.trace
traced small RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$BIN" -l 300 30000
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
live "$f"
expect_jq "records overwritten between copies counted, not exact" \
	'.losses.records > 0 and .exact == false'
grep -q "^rbmon latency: $f: [0-9]* records overwritten before a copy, [0-9]* dropped (log full), [0-9]* calls cut: counts are lower bounds$" "$T/lat.err" ||
	fail "the losses not said: $(cat "$T/lat.err")"
"$RBMON" latency --seconds 1 "$f" >"$T/text" 2>/dev/null || fail "rbmon latency exited $?"
grep -Eq '^LOST: [0-9]+ records overwritten before a copy, [0-9]+ dropped \(log full\); [0-9]+ calls? cut' "$T/text" ||
	fail "no LOST line: $(cat "$T/text")"
stop_and_reap "$pid"

# Drain, no recorder: full logs drop, counted; latency says it is no consumer.
f=$T/drain.trace
traced drain RBTRACE_FILE="$f" RBTRACE_EVENTS=64 RBTRACE_POLICY=drain "$BIN" -l 300 30000
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"
live "$f"
expect_jq "drain: records dropped by full logs counted" \
	'.policy == "drain" and .losses.dropped > 0 and .exact == false'
grep -q "^rbmon latency: $f: drain policy: latency only reads the logs (it is no consumer)" "$T/lat.err" ||
	fail "drain not said: $(cat "$T/lat.err")"
stop_and_reap "$pid"
exit 0
