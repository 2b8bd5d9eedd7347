#!/bin/bash
# SPDX-License-Identifier: MIT
# rec-losses: every reader of a recording states what each thread lost
# and marks its counts as lower bounds.  A crafted recording (tests/mkrec
# -L) whose two threads each lose 7 records in one gap of 50 ns, which cuts
# 2 calls (their exits lost) and leaves 2 without their entry; the same
# shape without the loss, where nothing may be said or marked; and a real
# recording with logs too small (tests/apps/evcount, logs of 64 records),
# whose losses must be the recorder's summary's.  rbmon hot's estimate of
# the hooks' cost comes from the recording's own leaf calls.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip "jq is not installed"
MKREC=$top_builddir/tests/mkrec
[ -x "$MKREC" ] || fail "tests/mkrec not built"

"$MKREC" -L -o "$T/l.rbr" threads 2 || fail "mkrec -L"
"$MKREC" -o "$T/ok.rbr" threads 2 || fail "mkrec"

# run NAME ARGS... - rbmon ARGS..., stdout in $T/NAME, stderr in $T/NAME.err
run()
{
	local name=$1
	shift
	"$RBMON" "$@" >"$T/$name" 2>"$T/$name.err" ||
		fail "rbmon $* exited $?: $(cat "$T/$name.err")"
}

SAY='l\.rbr: 14 records lost in 2 threads \(per thread [a-z ]*\): counts and times are lower bounds; 2 gaps, 4 calls cut at one \(exit lost\), 4 without an entry$'
ROW='^ *7 +8 +1 +50 ns +2 +2 +100[01] +end[12]$'

# ---- the text outputs: a line on stderr, a table per thread, >= -----------
for cmd in report hot replay; do
	run "$cmd.txt" "$cmd" "$T/l.rbr"
	grep -Eq "^rbmon $cmd: .*$SAY" "$T/$cmd.txt.err" ||
		fail "rbmon $cmd: no statement of the losses: $(cat "$T/$cmd.txt.err")"
	expect "rbmon $cmd: rows of the loss table" 2 \
		"$(sed 's/^# *//' "$T/$cmd.txt" | grep -Ec "$ROW")"
	grep -q 'Gaps  *In gaps  *Exit lost  *Entry lost' "$T/$cmd.txt" ||
		fail "rbmon $cmd: no loss table header: $(cat "$T/$cmd.txt")"
	run "$cmd.ok" "$cmd" "$T/ok.rbr"
	[ -s "$T/$cmd.ok.err" ] && fail "rbmon $cmd said of a whole recording: $(cat "$T/$cmd.ok.err")"
	grep -q '>=' "$T/$cmd.ok" && fail "rbmon $cmd marked a whole recording's counts: $(cat "$T/$cmd.ok")"
done
expect "report's rows marked >= (calls and total)" 4 \
	"$(grep -Ec '^ *>=[0-9]+ ns +[0-9]+ ns +>=2  0x4010[0-3]0$' "$T/report.txt")"
expect "hot's rows marked >=" 4 "$(grep -Ec '^ *>=2 ' "$T/hot.txt")"

# ---- JSON: a "losses" object in total and per thread, "lower_bound" ---------
check_json()
{
	local what=$1 file=$2 want
	want='{"records":14,"unknown":false,"threads":2,"gaps":2,"gap_ns":100,"exits_lost":4,"entries_lost":4}'
	expect "$what: losses" "$want" "$(jq -c "${3:-}.losses" "$file")"
	# mkrec's second thread runs after the first: its gap 400 ns later.
	want='{"records":7,"unknown":false,"gaps":1,"gap_ns":50,"first_gap_ns":150,"exits_lost":2,"entries_lost":2}'
	expect "$what: each thread's losses" "$want
${want/150/550}" "$(jq -c "${3:-}.threads[] | .losses" "$file")"
	expect "$what: each thread a lower bound" "true
true" "$(jq -c "${3:-}.threads[] | .lower_bound" "$file")"
}
run report.json report --json "$T/l.rbr"
check_json "report --json" "$T/report.json"
expect "report --json: every function a lower bound" "true" \
	"$(jq -c '[.functions[].lower_bound] | all' "$T/report.json")"
run hot.json hot --json "$T/l.rbr"
check_json "hot --json" "$T/hot.json"
expect "hot --json: every function a lower bound" "true" \
	"$(jq -c '[.functions[].lower_bound] | all' "$T/hot.json")"
run report.okjson report --json "$T/ok.rbr"
expect "a whole recording: no function a lower bound" "false" \
	"$(jq -c '[.functions[].lower_bound] | any' "$T/report.okjson")"
expect "a whole recording's threads" '{"records":0,"unknown":false,"gaps":0,"gap_ns":0,"first_gap_ns":null,"exits_lost":0,"entries_lost":0} false' \
	"$(jq -r '.threads[0] | "\(.losses | tojson) \(.lower_bound)"' "$T/report.okjson")"

# hot's estimate: the leaves took 50 ns; recorded on no known boot, so
# neither the clock reads nor the calls are timed: 2 x 50 ns a call, for
# the 8 calls kept and the 7 in the records lost (14 / 2).
expect "hot's measured cost" '{"cost_ns":100,"leaf_median_ns":50,"leaves":4,"timed_here":false,"calls":15,"hook_ns":1500}' \
	"$(jq -c '.measured | {cost_ns, leaf_median_ns, leaves, timed_here, calls, hook_ns}' "$T/hot.json")"
grep -q '^Measured in this run: about 100 ns a call in the hooks' "$T/hot.txt" ||
	fail "no measured cost in hot's text: $(cat "$T/hot.txt")"
# Each thread's hooks fit in the time it was recorded for (350 ns, 7.5
# calls at 100 ns being more): the share is at most all of it, and no
# slowdown is told.
expect "hot's bounded estimate" '{"hook_bounded_ns":700,"capped":true,"share":1,"slowdown":null}' \
	"$(jq -c '.measured | {hook_bounded_ns, capped, share, slowdown}' "$T/hot.json")"
expect "hot's estimate in its text" "about 700 ns of the threads' 700 ns (100.0%: a thread's estimate exceeded its time and was taken as all of it;" \
	"$(sed -n 2p "$T/hot.txt")"
grep -o '[0-9.]*%' "$T/hot.txt" | awk '$1 + 0 > 100 { bad = 1 } END { exit !bad }' &&
	fail "a share over 100%: $(cat "$T/hot.txt")"
# Threads that end mid-call have no call that called nothing and left:
# the cost cannot be measured, the nominal 15 ns is used, and said.
"$MKREC" -M -o "$T/m.rbr" threads 1 || fail "mkrec -M"
run hot.m hot "$T/m.rbr"
expect "hot's first line at the nominal cost" "4 calls; the hooks, at 15 ns a call (nominal: not measurable, below), took" \
	"$(head -1 "$T/hot.m")"
grep -q "^The hooks' cost was not measured" "$T/hot.m" ||
	fail "no word of the cost not measured: $(cat "$T/hot.m")"
run hot.mjson hot --json "$T/m.rbr"
expect "hot --json at the nominal cost" '{"cost_ns":15,"cost_basis":"nominal","hook_ns":60}' \
	"$(jq -c '{cost_ns, cost_basis, hook_ns}' "$T/hot.mjson")"

# ---- the exports: the statement on stderr; Chrome's otherData ---------------
for f in chrome folded speedscope; do
	run "x.$f" export "--$f" "$T/l.rbr"
	grep -Eq "^rbmon export: .*$SAY" "$T/x.$f.err" ||
		fail "export --$f: no statement of the losses: $(cat "$T/x.$f.err")"
done
check_json "the Chrome export's otherData" "$T/x.chrome" .otherData
expect "Chrome instant events where records were lost" 2 \
	"$(jq '[.traceEvents[] | select(.ph == "i" and .name == "[LOST 7 EVENTS]")] | length' "$T/x.chrome")"
"$RBMON" export --perfetto -o "$T/x.pb" "$T/l.rbr" 2>"$T/x.pb.err" ||
	fail "export --perfetto exited $?"
grep -Eq "^rbmon export: .*$SAY" "$T/x.pb.err" ||
	fail "export --perfetto: no statement of the losses: $(cat "$T/x.pb.err")"

# ---- a real recording: the readers' losses are the recorder's ---------------
(cd "$T" && "$RBTRACE" record -o "$T/real.rbr" --file "$T/real.trace" --events 64 -- \
	"$APPS/evcount" -t 2 -n 5000 >"$T/real.out" 2>"$T/real.summary")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/real.summary")"
said=$(sed -n 's/^rbmon: recorded .*, \([0-9,]*\) lost$/\1/p' "$T/real.summary")
lost=$(echo "$said" | tr -d ,)
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "no losses in the summary: $(cat "$T/real.summary")"
run real.json report --json "$T/real.rbr"
expect "report's losses against the summary's" "$lost" "$(jq .losses.records "$T/real.json")"
expect "lossy threads' losses add up" "$lost" \
	"$(jq '[.threads[] | select(.lower_bound) | .losses.records] | add' "$T/real.json")"
[ "$(jq '.losses.gaps' "$T/real.json")" -gt 0 ] || fail "no gaps counted: $(cat "$T/real.json")"
grep -Eq "^rbmon report: .*: $said records lost in [0-9]+ threads? " "$T/real.json.err" ||
	fail "no statement of the summary's losses: $(cat "$T/real.json.err")"
exit 0
