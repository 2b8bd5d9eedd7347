#!/bin/bash
# SPDX-License-Identifier: MIT
# mindur: the event log's minimum duration (rbtrace(5), "EVENT LOG",
# "Short calls").  Threads of tests/apps/shortcalls.c make 100000 quick
# calls and 50 slow ones (3 ms, each calling a quick one): with rbtrace
# --min-duration 1ms the default 4096-record ring keeps every slow call,
# entry and exit, and of the quick ones only those that happened to be
# held up past 1 ms; every other quick call is counted as a short call
# dropped, exactly: short calls + quick calls kept == quick calls made.
# The readers show the count (--events --json and text, --dump --json and
# text).  Then the threshold set live with rbmon --set, and off again.
. "$(dirname "$0")/lib.sh"

[ -x "$RBTRACE" ] || fail "rbtrace not built: $RBTRACE"
QUICK=100000 SLOW=50 THREADS=3

f=$T/threads.trace
launch threads "$RBTRACE" -q --file "$f" --min-duration 1ms -- \
	"$APPS/shortcalls" -t "$THREADS" -n "$QUICK" -s "$SLOW"
wait_ready "done [0-9]+" "$LAUNCHED"
pid=$(ready_field done 2)
expect "every thread worked" "$THREADS" "$(grep -c "^worked $pid " "$RBT_READY")"

events_json "$f"
expect "min_duration_ns in the header" 1000000 "$(jqv .events.min_duration_ns)"
for k in $(seq 1 "$THREADS"); do
	T_=".processes[0].threads[] | select(.name == \"short-$k\")"
	R="$T_ | .records"
	n() { jqv "[$R[] | select(.kind == \"$1\" and .function == \"$2\")] | length"; }
	expect "short-$k: slow calls entered" "$SLOW" "$(n entry slow_call)"
	expect "short-$k: slow calls returned" "$SLOW" "$(n exit slow_call)"
	expect "short-$k: short_work kept" "1 1" "$(n entry short_work) $(n exit short_work)"
	kept=$(n entry quick_call)
	expect "short-$k: quick calls kept return" "$kept" "$(n exit quick_call)"
	short=$(jqv "$T_ | .short_calls")
	expect "short-$k: short calls dropped + quick calls kept" \
		"$((QUICK + SLOW))" "$((short + kept))"
	[ "$kept" -le $((QUICK / 100)) ] ||
		fail "short-$k: $kept quick calls kept of $QUICK (1 ms is long)"
	expect_jq "short-$k: nothing overwritten" "[$T_ | .overwritten] == [0]"
	expect_jq "short-$k: written counts the short calls' records" \
		"[$T_ | .written == .buffered + .overwritten + .dropped + 2 * .short_calls] == [true]"
	expect_jq "short-$k: timestamps never go back" "[$R[] | .ts_ns] | . == sort"
done

# The text outputs say it too.
"$RBMON" --events "$f" >"$T/text" 2>"$T/text.err" ||
	fail "rbmon --events exited $?: $(cat "$T/text.err")"
grep -q "^calls shorter than 1000000 ns that kept nothing they called are dropped" "$T/text" ||
	fail "no min-duration line in: $(head -3 "$T/text")"
[ "$(grep -c 'short calls dropped$' "$T/text")" -ge "$THREADS" ] ||
	fail "no 'short calls dropped' per thread in: $(grep '^pid' "$T/text")"
dump_json "$f"
expect "--dump --json: min_duration_ns" 1000000 "$(jqv .min_duration_ns)"
expect_jq "--dump --json: every worker's short calls" \
	"[.processes[0].threads[] | select(.name | startswith(\"short-\")) | .short_calls > $((QUICK / 2))] == [true, true, true]"
"$RBMON" --dump "$f" >"$T/dump" 2>&1 || fail "rbmon --dump exited $?"
grep -q "calls shorter than 1000000 ns dropped" "$T/dump" || fail "--dump: no min-duration line"

# ---- live: off, set with rbmon --set, off again -----------------------------
Q=2000 S=5
f=$T/live.trace
: >"$RBT_READY"
traced live RBTRACE_FILE="$f" RBTRACE_EVENTS=65536 "$APPS/shortcalls" -p -n $Q -s $S
lp=$LAUNCHED
quick_kept() { jqv "[$RECS[] | select(.kind == \"entry\" and .function == \"quick_call\")] | length"; }
RECS='.processes[0].threads[0].records'
wait_ready "phase 1 $lp" "$lp"
events_json "$f"
expect "phase 1 (off): no short calls" 0 "$(jqv '.processes[0].threads[0].short_calls')"
expect "phase 1 (off): every quick call kept" $((Q + S)) "$(quick_kept)"
"$RBMON" --set min-duration=1ms "$f" 2>"$T/set.err" || fail "--set min-duration=1ms: $(cat "$T/set.err")"
dump_json "$f"
expect "set live: the header says" 1000000 "$(jqv .min_duration_ns)"
kill -USR1 "$lp"
wait_ready "phase 2 $lp" "$lp"
events_json "$f"
s2=$(jqv '.processes[0].threads[0].short_calls')
k2=$(quick_kept)
expect "phase 2 (1ms): short + kept" $((2 * (Q + S))) $((s2 + k2))
[ "$s2" -ge $((Q / 2)) ] || fail "phase 2: only $s2 short calls"
"$RBMON" --set min-duration=0 "$f" 2>"$T/set.err" || fail "--set min-duration=0: $(cat "$T/set.err")"
kill -USR1 "$lp"
wait_ready "phase 3 $lp" "$lp"
events_json "$f"
expect "phase 3 (off again): no more short calls" "$s2" "$(jqv '.processes[0].threads[0].short_calls')"
expect "phase 3 (off again): every quick call kept" $((k2 + Q + S)) "$(quick_kept)"

# ---- a recording carries the count ---------------------------------------------
f=$T/rec.trace
: >"$RBT_READY"
traced rec RBTRACE_FILE="$f" RBTRACE_MIN_DURATION=1ms "$APPS/shortcalls" -t 1 -n $Q -s $S
rp=$LAUNCHED
wait_ready "done $rp" "$rp"
launch recorder "$RBMON" record -o "$T/run.rbr" "$f"
recp=$LAUNCHED
wait_for "the recorder's first sweep" test -s "$T/run.rbr"
events_json "$f"
rs=$(jqv '.processes[0].threads[] | select(.name == "short-1") | .short_calls')
kill -TERM "$rp"
wait "$recp" || fail "rbmon record exited $?: $(cat "$T/recorder.err")"
"$RBMON" report --json "$T/run.rbr" >"$T/json" 2>"$T/report.err" ||
	fail "rbmon report exited $?: $(cat "$T/report.err")"
expect "report --json: the recording's short calls" "$rs" "$(jqv .short_calls)"
expect "report --json: per thread" "0 $rs" "$(jqv '[.threads[].short_calls] | sort | map(tostring) | join(" ")')"
"$RBMON" replay "$T/run.rbr" >"$T/replay" 2>&1 || fail "rbmon replay exited $?"
grep -q "^# $(printf "%'d" "$rs" 2>/dev/null || echo "$rs") short calls dropped at record time" "$T/replay" ||
	grep -q "short calls dropped at record time" "$T/replay" ||
	fail "replay does not say the short calls: $(tail -3 "$T/replay")"
expect "replay: every slow call" "$S" "$(grep -c 'slow_call();' "$T/replay")"

# ---- readers racing threads that take calls back constantly ---------------------
# 2 us: most quick calls taken back, some kept (held up), the slow ones
# kept, round after round; 20 copies rbmon makes meanwhile must nest and
# keep time in order.
f=$T/stress.trace
: >"$RBT_READY"
traced stress RBTRACE_FILE="$f" RBTRACE_MIN_DURATION=2us "$APPS/shortcalls" -t 2 -n 200000 -s 2 -r
sp=$LAUNCHED
wait_ready "running $sp" "$sp"
NESTS='def nests: reduce .[] as $r ({s: [], ok: true};
	if $r.kind == "entry" then .s += [$r.function]
	elif $r.kind == "exit" then
		(if (.s | length) == 0 then . elif .s[-1] == $r.function
		 then .s |= .[:-1] else .ok = false end)
	else . end) | .ok;'
copies=0
while [ "$copies" -lt 20 ]; do
	events_json "$f"
	expect_jq "copy $copies: every thread's records nest" \
		"$NESTS [.processes[0].threads[] | .records | nests] | all"
	expect_jq "copy $copies: timestamps never go back" \
		'[.processes[0].threads[] | [.records[].ts_ns] | . == sort] | all'
	copies=$((copies + 1))
done
kill -USR1 "$sp"
wait_ready "done $sp" "$sp"
events_json "$f"
expect_jq "the workers took calls back" \
	'[.processes[0].threads[] | select(.name | startswith("short-")) | .short_calls > 0] == [true, true]'

# Refused: drain, bad values.
"$RBMON" --set min-duration=5 "$f" 2>"$T/bad.err" && fail "--set min-duration=5 (no unit) accepted"
grep -q "min-duration wants" "$T/bad.err" || fail "no clear message: $(cat "$T/bad.err")"
rc=0
"$RBTRACE" -q --policy drain --min-duration 10us -- "$APPS/simple" >"$T/drain.out" 2>"$T/drain.err" || rc=$?
expect "rbtrace --policy drain --min-duration: usage error" 2 "$rc"
grep -q "does not go with --policy drain" "$T/drain.err" || fail "no clear message: $(cat "$T/drain.err")"
rc=0
env LD_PRELOAD="$RB_PRELOAD" RBTRACE_FILE="$T/envbad.trace" RBTRACE_MIN_DURATION=fast \
	"$APPS/simple" >"$T/envbad.out" 2>"$T/envbad.err" || rc=$?
grep -q "RBTRACE_MIN_DURATION=fast: not 0 or a whole number" "$T/envbad.err" ||
	fail "RBTRACE_MIN_DURATION=fast: no clear message: $(cat "$T/envbad.err")"
exit 0
