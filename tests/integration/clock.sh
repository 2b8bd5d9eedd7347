#!/bin/bash
# SPDX-License-Identifier: MIT
# clock: RBTRACE_CLOCK and rbtrace --clock.  The default is the CPU's
# counter where /proc/cpuinfo says it is invariant (nonstop_tsc), a bad
# word is refused with one line and the default used; with mono frames
# have ages.  With none: the header says clock 3, frames have no age but
# "seen" (0 in one dump, growing under --follow while the frame stays), in
# the text dump and the JSON; the event log has the exact calls in order
# with no times and no durations; a recording says "no times", replay
# shows the calls without durations, report counts them with null times,
# hot and export refuse it.
. "$(dirname "$0")/lib.sh"

case $(uname -m) in
x86_64 | i?86) COUNTER=tsc COUNTER_NO=2 OTHER=cntvct WORDS="tsc, mono or none";;
aarch64) COUNTER=cntvct COUNTER_NO=4 OTHER=tsc WORDS="cntvct, mono or none";;
*) COUNTER= COUNTER_NO= OTHER=tsc WORDS="mono or none";;
esac
DEFAULT=mono DEFAULT_NO=1
if [ "$COUNTER" = cntvct ] ||
	{ [ "$COUNTER" = tsc ] && grep -qw nonstop_tsc /proc/cpuinfo; }; then
	DEFAULT=$COUNTER DEFAULT_NO=$COUNTER_NO
fi

STACK="simple_leaf simple_work main"

# run NAME VAR=VALUE... - simple -p traced into $T/NAME.trace, parked.
run()
{
	local name=$1
	shift
	F=$T/$name.trace
	: >"$RBT_READY"
	traced "$name" RBTRACE_FILE="$F" "$@" "$APPS/simple" -p
	PID=$LAUNCHED
	wait_ready "parked $PID" "$PID"
}

# ---- the default, and bad words ------------------------------------------------
run default
expect "default: stderr" "" "$(cat "$T/default.err")"
expect "default: header clock" "$DEFAULT_NO" "$(header_get "$F" clock)"
dump_json "$F"
expect "default: --json clock" "$DEFAULT" "$(jqv .clock)"
expect_jq "default: every frame aged, none 'seen'" \
	'.processes[0].threads[0].frames | all(.age_ns > 0 and (has("seen_ns") | not))'
stop_and_reap "$PID"

n=0
for w in bogus "" NONE "$OTHER" "none "; do
	n=$((n + 1))
	run "bad$n" RBTRACE_CLOCK="$w"
	expect "RBTRACE_CLOCK='$w': stderr" \
		"rbtrace: RBTRACE_CLOCK=$w: not $WORDS; using the default" "$(cat "$T/bad$n.err")"
	expect "RBTRACE_CLOCK='$w': the default clock" "$DEFAULT_NO" "$(header_get "$F" clock)"
	dump_json "$F"
	expect "RBTRACE_CLOCK='$w': traced as usual" "$STACK" \
		"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
	stop_and_reap "$PID"
done

# ---- mono: ages from CLOCK_MONOTONIC -------------------------------------------
run mono RBTRACE_CLOCK=mono
expect "mono: stderr" "" "$(cat "$T/mono.err")"
expect "mono: header clock" 1 "$(header_get "$F" clock)"
dump_json "$F"
expect "mono: --json clock" mono "$(jqv .clock)"
expect_jq "mono: every frame aged" '.processes[0].threads[0].frames | all(.age_ns > 0)'
stop_and_reap "$PID"

# ---- none: how long rbmon has seen a frame -------------------------------------
run none RBTRACE_CLOCK=none
expect "none: stderr" "" "$(cat "$T/none.err")"
expect "none: header clock" 3 "$(header_get "$F" clock)"
dump_json "$F"
expect "none: --json clock" none "$(jqv .clock)"
expect "none: the stack" "$STACK" \
	"$(jqv '.processes[0].threads[0].frames | map(.function) | join(" ")')"
expect "none: no ages; seen 0 ns in one dump" "null:0 null:0 null:0" \
	"$(jqv '.processes[0].threads[0].frames | map("\(.age_ns):\(.seen_ns)") | join(" ")')"
"$RBMON" --dump "$F" >"$T/none.txt" 2>&1 || fail "rbmon --dump: $(cat "$T/none.txt")"
expect "none: the text dump says so" 1 \
	"$(grep -c '^no clock (RBTRACE_CLOCK=none): frames show how long rbmon has seen them, not their age$' "$T/none.txt")"
expect "none: every frame 'seen 0ns'" "#0 simple_leaf|#1 simple_work|#2 main|" \
	"$(sed -n 's/^    \(#[0-9]* [a-z_]*\) .* seen 0ns$/\1/p' "$T/none.txt" | tr '\n' '|')"

# --follow: the same frames, seen longer at each output (0.5 s apart).
launch follow "$RBMON" --dump --json --follow -d 5 "$F"
fpid=$LAUNCHED
lines_ge() { [ "$(wc -l <"$1")" -ge "$2" ]; }
wait_for "three --follow outputs" lines_ge "$T/follow.out" 3
kill "$fpid"
head -n 3 "$T/follow.out" >"$T/json"
expect "follow: the stack, three times" "$STACK|$STACK|$STACK" \
	"$(jq -rs 'map(.processes[0].threads[0].frames | map(.function) | join(" ")) | join("|")' "$T/json")"
expect "follow: first output seen 0" "0 0 0" \
	"$(jq -rs '.[0].processes[0].threads[0].frames | map(.seen_ns) | join(" ")' "$T/json")"
expect_jq "follow: seen grows by at least the interval, alike for every frame" \
	'map(.processes[0].threads[0].frames | map(.seen_ns)) as $s |
	 ($s[1] | all(. >= 500000000)) and ($s[2] | all(. >= 1000000000)) and
	 ($s | all(unique | length == 1)) and $s[0][0] < $s[1][0] and $s[1][0] < $s[2][0] and
	 ($s | all(all(. != null)))' -s
expect_jq "follow: never an age" 'all(.[].processes[0].threads[0].frames[]; .age_ns == null)' -s
stop_and_reap "$PID"

# rbtrace --clock: the same through the launcher, checked first.
rc=0
"$RBTRACE" --clock bogus -- "$APPS/simple" >"$T/l.out" 2>"$T/l.err" || rc=$?
expect "rbtrace --clock bogus: status" 2 "$rc"
expect "rbtrace --clock bogus: message" "rbtrace: --clock 'bogus': not $WORDS" "$(head -n 1 "$T/l.err")"
"$RBTRACE" -q --clock none --file "$T/launched.trace" -- "$APPS/simple" >"$T/l.out" 2>"$T/l.err" ||
	fail "rbtrace --clock none exited $?: $(cat "$T/l.err")"
expect "rbtrace --clock none: header clock" 3 "$(header_get "$T/launched.trace" clock)"

# ---- none: the event log has the calls, in order, and no times -----------------
round()
{
	local d=$1
	echo "entry:seq_round:$d entry:phase:$((d + 1)) entry:seq_a:$((d + 2))" \
		"entry:seq_b:$((d + 3)) exit:seq_b:$((d + 3)) line:-:$((d + 3))" \
		"entry:seq_c:$((d + 3)) exit:seq_c:$((d + 3)) exit:seq_a:$((d + 2))" \
		"exit:phase:$((d + 1)) exit:seq_round:$d"
}
SEQ="entry:main:0 entry:seq_run:1 $(round 2) $(round 2) $(round 2) exit:seq_run:1 entry:seq_park:1"
RECS='.processes[0].threads[0].records'
f=$T/ev.trace
: >"$RBT_READY"
launch ev env LD_PRELOAD="$RB_PRELOAD" RBTRACE_FILE="$f" RBTRACE_CLOCK=none "$APPS/evseq" -n 3
pid=$LAUNCHED
wait_ready "done $pid" "$pid"
events_json "$f" "$pid"
expect "events: clock" none "$(jqv .events.clock)"
expect "events: the calls in order" "$SEQ" \
	"$(jqv "[$RECS[] | \"\(.kind):\(.function // \"-\"):\(.depth // \"-\")\"] | join(\" \")")"
expect "events: 40 written" 40 "$(jqv '.processes[0].threads[0].written')"
expect_jq "events: no times" "[$RECS[] | .ts_ns] | all(. == null)"
expect_jq "events: the last call open" "$RECS | last | .open == true"
"$RBMON" --events "$f" >"$T/ev.txt" 2>&1 || fail "rbmon --events: $(cat "$T/ev.txt")"
expect "events: the first line says there are no times" \
	"event log: ring policy, 4096 records per thread; no times (RBTRACE_CLOCK=none): the calls in order only" \
	"$(head -n 1 "$T/ev.txt")"
grep -Eq '[0-9]\.[0-9]{3} [um]?s \|' "$T/ev.txt" && fail "events: a duration shown: $(cat "$T/ev.txt")"
grep -Eq '^ +\| +seq_b\(\);$' "$T/ev.txt" || fail "events: no untimed 'seq_b();': $(cat "$T/ev.txt")"
grep -Eq '^ +open \|    seq_park\(\) \{$' "$T/ev.txt" || fail "events: seq_park not open: $(cat "$T/ev.txt")"
grep -q '?' "$T/ev.txt" && fail "events: an unknown duration shown as '?': $(cat "$T/ev.txt")"
stop_and_reap "$pid"

# ---- none: a recording with no times -------------------------------------------
(cd "$T" && "$RBTRACE" record --clock none -o "$T/r.rbr" --file "$T/r.trace" -- \
	"$APPS/evseq" -n 2 -e >"$T/rec.out" 2>"$T/rec.err") ||
	fail "rbtrace record --clock none exited $?: $(cat "$T/rec.err")"
grep -q '^rbmon:   no times: the program ran with RBTRACE_CLOCK=none (the calls in order only)$' "$T/rec.err" ||
	fail "record: the summary does not say there are no times: $(cat "$T/rec.err")"
NOTIMES="rbmon %s: $T/r.rbr: no times: the program ran with RBTRACE_CLOCK=none (the calls in order only)"
"$RBMON" replay "$T/r.rbr" >"$T/replay.out" 2>"$T/replay.err" || fail "replay exited $?: $(cat "$T/replay.err")"
expect "replay: stderr" "$(printf "$NOTIMES" replay)" "$(cat "$T/replay.err")"
# The rows without the duration column, which must be blank on every one.
RPID=$(sed -n 's/^ \{10\} \[ *\([0-9]*\)\] | main() {$/\1/p' "$T/replay.out")
[ -n "$RPID" ] || fail "replay: no 'main() {' row: $(cat "$T/replay.out")"
r1="seq_round() { phase() { seq_a() { seq_b(); /* line 42 */ seq_c(); } /* seq_a */ } /* phase */ } /* seq_round */"
expect "replay: the calls in order, no durations" \
	"# DURATION TID FUNCTION|main() { seq_run() { $r1 $r1 } /* seq_run */ seq_park(); } /* main */" \
	"$(sed -n '1s/  */ /gp' "$T/replay.out")|$(sed -n "s/^ \{10\} \[ *$RPID\] | *//p" "$T/replay.out" | tr '\n' ' ' | sed 's/ $//')"
expect "replay: every row blank in DURATION" "$(($(wc -l <"$T/replay.out") - 1))" \
	"$(grep -Ec "^ {10} \[ *$RPID\] \| " "$T/replay.out")"
"$RBMON" report --json "$T/r.rbr" >"$T/json" 2>"$T/report.err" || fail "report exited $?: $(cat "$T/report.err")"
expect "report: stderr" "$(printf "$NOTIMES" report)" "$(cat "$T/report.err")"
expect "report: calls, by calls, no times" "phase:2 seq_a:2 seq_b:2 seq_c:2 seq_round:2 main:1 seq_park:1 seq_run:1" \
	"$(jqv '.functions | map("\(.function):\(.calls)") | join(" ")')"
expect_jq "report: times null" '.functions | all(.total_ns == null and .self_ns == null)'
"$RBMON" report "$T/r.rbr" >"$T/report.txt" 2>/dev/null || fail "report (text) exited $?"
expect "report text: '-' for the times" "- - 2 phase" "$(awk 'NR == 3 { print $1, $2, $3, $4 }' "$T/report.txt")"
for cmd in "hot" "export --chrome" "replay --min 1us"; do
	rc=0
	# shellcheck disable=SC2086
	"$RBMON" $cmd "$T/r.rbr" >"$T/refused.out" 2>"$T/refused.err" || rc=$?
	expect "$cmd: refused" 1 "$rc"
	case $cmd in hot) what=hot;; export*) what="an export";; *) what=--min;; esac
	expect "$cmd: says why" "rbmon ${cmd%% *}: $T/r.rbr: $what needs times: the program ran with RBTRACE_CLOCK=none" \
		"$(cat "$T/refused.err")"
	expect "$cmd: writes nothing" "" "$(cat "$T/refused.out")"
done
exit 0
