#!/bin/bash
# SPDX-License-Identifier: MIT
# latency: rbmon latency on a recording of tests/apps/latency, made by
# rbtrace record in drain mode with nothing lost: three threads call
# lat_sleeper (1 ms) 1000 times in all and lat_quick (returns at once)
# 100000 times.  The counts are exact, the sleeper's p50 is 1 ms or more
# (and under 5 ms, the machine loaded), max >= p99 >= p50 everywhere, the
# quick one's p50 far below; the text has the table and a histogram; the
# sort and --function select; a truncated or corrupt recording gets a
# clear error, never a crash.
. "$(dirname "$0")/lib.sh"

BIN=$APPS/latency

(cd "$T" && "$RBTRACE" record -o "$T/run.rbr" --file "$T/run.trace" -- \
	"$BIN" 1000 100000 >"$T/record.out" 2>"$T/record.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/record.err")"
grep -q '^rbmon: recorded [0-9,]* events of 4 threads in 1 process into .*, 0 lost$' "$T/record.err" ||
	fail "no summary of 4 threads, 0 lost: $(cat "$T/record.err")"

"$RBMON" latency --json "$T/run.rbr" >"$T/json" 2>"$T/lat.err" ||
	fail "rbmon latency --json exited $?: $(cat "$T/lat.err")"
[ -s "$T/lat.err" ] && fail "rbmon latency said: $(cat "$T/lat.err")"
expect_jq "a recording, drain, exact, nothing lost" \
	'.source == "recording" and .policy == "drain" and .exact == true and
	 .losses.records == 0 and .losses.calls_cut == 0 and .losses.entries_lost == 0 and
	 .threads == 4'
calls() { jq -r --arg f "$1" '.functions[] | select(.name == $f) | .calls' "$T/json"; }
expect "calls of lat_sleeper lat_quick lat_worker main" "1000 100000 3 1" \
	"$(for f in lat_sleeper lat_quick lat_worker main; do calls $f; done | tr '\n' ' ' | sed 's/ $//')"
expect_jq "the sleeper's p50 at least 1 ms and under 5 ms" \
	'.functions[] | select(.name == "lat_sleeper") | .p50_ns >= 1000000 and .p50_ns < 5000000'
expect_jq "max >= p99 >= p50 for every function, totals add up" \
	'[.functions[] | .max_ns >= .p99_ns and .p99_ns >= .p50_ns and .total_ns >= .max_ns] | all'
expect_jq "the quick one's p50 under a tenth of the sleeper's" \
	'([.functions[] | select(.name == "lat_quick") | .p50_ns][0]) * 10 <
	 ([.functions[] | select(.name == "lat_sleeper") | .p50_ns][0])'
expect_jq "the histograms count every call" \
	'[.functions[] | ([.histogram[].count] | add) == .calls] | all'
expect_jq "exact percentiles, sorted by calls" \
	'([.functions[] | .exact_percentiles] | all) and (.functions[0].name == "lat_quick") and .sort == "calls"'
expect_jq "the sleeper's histogram has nothing under 512 us" \
	'.functions[] | select(.name == "lat_sleeper") | [.histogram[] | select(.from_ns < 524288)] | length == 0'

# Text: the header, the table, the first row's histogram.
"$RBMON" latency "$T/run.rbr" >"$T/text" 2>"$T/lat.err" ||
	fail "rbmon latency exited $?: $(cat "$T/lat.err")"
grep -q '^exact: no record lost, every call counted$' "$T/text" || fail "no exact line: $(cat "$T/text")"
grep -Eq '^ +CALLS +TOTAL +P50 +P99 +MAX  FUNCTION$' "$T/text" || fail "no table head: $(cat "$T/text")"
grep -Eq '^ +1000 +[0-9.]+ s +[0-9.]+ ms +[0-9.]+ m?s +[0-9.]+ m?s  lat_sleeper$' "$T/text" ||
	fail "no lat_sleeper row: $(cat "$T/text")"
grep -q '^lat_quick (latency.c), 100000 calls$' "$T/text" || fail "no histogram of the first row: $(cat "$T/text")"
grep -q ' value  -* Distribution -* count$' "$T/text" || fail "no histogram head: $(cat "$T/text")"

# --function: the sleeper alone, with its histogram; --sort and --top.
"$RBMON" latency -F 'lat_sl*' "$T/run.rbr" >"$T/text" 2>/dev/null || fail "latency -F exited $?"
expect "-F lat_sl*: one row" "1" "$(grep -c '  lat_' "$T/text")"
grep -q '^lat_sleeper (latency.c), 1000 calls$' "$T/text" || fail "no sleeper histogram: $(cat "$T/text")"
grep -Eq '^ +1\.05 ms \|@+ +[0-9]+$' "$T/text" || fail "no 1 ms bucket with a bar: $(cat "$T/text")"
expect "--sort name --top 2" "lat_quick lat_sleeper" \
	"$("$RBMON" latency --json --sort name --top 2 "$T/run.rbr" | jq -r '[.functions[].name] | join(" ")')"
expect "--sort p50: main, the longest call, first" "main" \
	"$("$RBMON" latency --json --sort p50 "$T/run.rbr" | jq -r '.functions[0].name')"
"$RBMON" latency --sort bogus "$T/run.rbr" >/dev/null 2>"$T/err"
expect "--sort bogus" "2 rbmon latency: invalid sort key 'bogus' (calls, total, p50, p99, max, name)" \
	"$? $(head -1 "$T/err")"
"$RBMON" latency --help | grep -q '^Usage: rbmon latency \[OPTIONS\] FILE|RECORDING$' || fail "no usage in --help"

# Hostile recordings: a clear error (or an incomplete read said so), never a crash.
size=$(stat -c %s "$T/run.rbr")
head -c $((size / 2)) "$T/run.rbr" >"$T/half.rbr"
head -c 20 "$T/run.rbr" >"$T/head.rbr"
cp "$T/run.rbr" "$T/bad.rbr"
dd if=/dev/urandom of="$T/bad.rbr" bs=1 seek=200 count=4096 conv=notrunc status=none
printf 'RBTRREC\032garbage' >"$T/magic.rbr"
printf 'not a trace file at all, just some bytes of text\n' >"$T/text.trace"
for f in half head bad magic; do
	"$RBMON" latency --json "$T/$f.rbr" >"$T/$f.out" 2>"$T/$f.err"
	rc=$?
	[ "$rc" -lt 128 ] || fail "latency on $f.rbr crashed ($rc): $(cat "$T/$f.err")"
	[ "$rc" -eq 0 ] && fail "latency on $f.rbr succeeded silently"
	[ -s "$T/$f.err" ] || fail "latency on $f.rbr: exit $rc without a word"
	grep -q "^rbmon latency: $T/$f.rbr: " "$T/$f.err" || fail "latency on $f.rbr: $(cat "$T/$f.err")"
done
"$RBMON" latency "$T/text.trace" >/dev/null 2>"$T/t.err"
rc=$?
[ "$rc" -eq 1 ] && [ -s "$T/t.err" ] || fail "latency on a text file: $rc $(cat "$T/t.err")"
"$RBMON" latency "$T/none.rbr" >/dev/null 2>"$T/n.err"
rc=$?
[ "$rc" -eq 1 ] && [ -s "$T/n.err" ] || fail "latency on no file: $rc $(cat "$T/n.err")"
exit 0
