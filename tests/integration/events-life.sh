#!/bin/bash
# SPDX-License-Identifier: MIT
# events-life: the event log over a program's life.  Killed with SIGKILL
# mid-run, its file still gives every thread's last records, whole and
# named (the black box); EVOF and EVON switch recording per thread and per
# process (threads started later included), marked in the log; a fork
# child and an exec'd program have logs of their own; rbtrace --events and
# --policy set the log up.
. "$(dirname "$0")/lib.sh"

# The calls of one round from seq_round on, as "kind:function", cyclic.
ROUND="entry:seq_round entry:phase entry:seq_a entry:seq_b exit:seq_b line:- entry:seq_c exit:seq_c exit:seq_a exit:phase exit:seq_round"
seq_of() { jqv "[$1.records[] | \"\(.kind):\(.function // \"-\")\"] | join(\" \")"; }
# in_rounds SEQ - is SEQ a stretch of rounds run back to back?
in_rounds()
{
	local r="$ROUND $ROUND $ROUND $ROUND $ROUND $ROUND $ROUND $ROUND $ROUND $ROUND"
	case " $r " in
	*" $1 "*) return 0;;
	esac
	return 1
}
TH() { echo ".processes[0].threads[] | select(.tid == $1)"; }

# ---- SIGKILL mid-run: the last 63 records of each thread, readable --------
f=$T/killed.trace
launch killed env RBTRACE_FILE="$f" RBTRACE_EVENTS=64 "$APPS/evseq" -s -w
pid=$LAUNCHED
wait_ready "spun $pid" "$pid"
wait_ready "worker [0-9]+" "$pid"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
events_json "$f"
expect "killed: not alive" false "$(jqv '.processes[0].alive')"
M=$(TH "$pid")
n=$(jqv "[$M | .records[] | select(.kind != \"line\")] | length")
# 63 of the 64 slots are readable in ring mode (the 64th is the next to be
# written); the text record of a named frame is part of its entry.
[ "$(jqv "$M | .buffered")" -eq 64 ] || fail "killed: buffered $(jqv "$M | .buffered"), not 64"
expect_jq "killed: many more written than kept" "$M | .written > 1000 and .overwritten == .written - 64"
s=$(seq_of "$M")
# The oldest record kept may be a named frame's text: at most one fewer.
r=$(jqv "$M | .records | length")
[ "$r" -ge 55 ] && [ "$r" -le 63 ] || fail "killed: $r records shown, expected 55..63: $s"
# From the first seq_round entry to the last seq_round exit, without the
# seq_run calls between runs: whole rounds, back to back.
mid=$(echo "$s" | tr ' ' '\n' | awk '
	{ t[NR] = $0 }
	$0 == "entry:seq_round" && !first { first = NR }
	$0 == "exit:seq_round" { last = NR }
	END { for (i = first; i <= last; i++) if (t[i] !~ /:seq_run$/) printf "%s%s", (i > first ? " " : ""), t[i] }')
[ -n "$mid" ] || fail "killed: no whole round in: $s"
in_rounds "$mid" || fail "killed: the records are not rounds run back to back: $s"
expect_jq "killed: every function named" "[$M | .records[] | select(.function != null) | .function] | all(test(\"^0x\") | not)"
expect "killed: the worker's log, whole (parked before the kill)" \
	"entry:worker entry:seq_run $ROUND $ROUND $ROUND exit:seq_run entry:seq_park" \
	"$(seq_of "$(TH "$(ready_field worker 2)")")"
"$RBMON" --events "$f" >"$T/text" 2>&1 || fail "rbmon --events after SIGKILL: $(cat "$T/text")"
grep -q "older records overwritten" "$T/text" || fail "no overwritten note: $(head -5 "$T/text")"
grep -q "seq_b();" "$T/text" || fail "no seq_b(); after SIGKILL"

# ---- EVOF / EVON per thread, marked in the log --------------------------------
# evseq -c blocks in seq_c in rounds 1 and 2: switched off while blocked,
# the thread marks it at its next hook; on again the same way.
: >"$RBT_READY"
f=$T/mark.trace
launch mark env RBTRACE_FILE="$f" "$APPS/evseq" -c
pid=$LAUNCHED
waiting() { [ "$(grep -c "^waiting $pid\$" "$RBT_READY")" -ge "$1" ]; }
wait_for "round 1 blocked" waiting 1
out=$("$RBMON" -p "$pid" --thread "$pid" --send EVOF 2>&1) || fail "EVOF: $out"
expect "EVOF answer" "recording off for thread $pid" "$out"
events_json "$f"
expect "EVOF: not recording" false "$(jqv "$(TH "$pid") | .recording")"
kill -USR1 "$pid"
wait_for "round 2 blocked" waiting 2
out=$("$RBMON" -p "$pid" --thread "$pid" --send EVON 2>&1) || fail "EVON: $out"
expect "EVON answer" "recording on for thread $pid" "$out"
kill -USR1 "$pid"
wait_ready "done $pid" "$pid"
events_json "$f"
A="entry:seq_round entry:phase entry:seq_a entry:seq_b exit:seq_b line:- entry:seq_c"
B="exit:seq_c exit:seq_a exit:phase exit:seq_round"
expect "EVOF then EVON: the calls between are not recorded, the switches are" \
	"entry:main entry:seq_run $ROUND $A off:- on:- $B exit:seq_run entry:seq_park" \
	"$(seq_of "$(TH "$pid")")"

# ---- EVOF per thread while it runs ----------------------------------------
: >"$RBT_READY"
f=$T/switch.trace
launch switch env RBTRACE_FILE="$f" "$APPS/evseq" -s -w -t
pid=$LAUNCHED
wait_ready "spun $pid" "$pid"
wait_ready "worker [0-9]+" "$pid"
"$RBMON" -p "$pid" --thread "$pid" --send EVOF >"$T/out" 2>&1 || fail "EVOF: $(cat "$T/out")"
wait_for "the spinning thread's log marked off" events_true "$f" "[$(TH "$pid") | .records | last | .kind] == [\"off\"]"
events_json "$f"
expect "EVOF: the worker still records" true "$(jqv "$(TH "$(ready_field worker 2)") | .recording")"
w1=$(jqv "$(TH "$pid") | .written")
events_json "$f"
expect "EVOF: nothing written while off, though it spins" "$w1" "$(jqv "$(TH "$pid") | .written")"
"$RBMON" -p "$pid" --thread "$pid" --send EVON >"$T/out" 2>&1 || fail "EVON: $(cat "$T/out")"
wait_for "the spinning thread recording again" events_true "$f" "$(TH "$pid") | .recording and .written > $w1 + 100"

# ---- EVOF per process: every thread, and the ones it starts later ----------
out=$("$RBMON" -p "$pid" --send EVOF 2>&1) || fail "EVOF for the process: $out"
case $out in
"recording off for 2 threads and the threads started later") ;;
*) fail "EVOF for the process answered: $out";;
esac
wait_for "both threads off" events_true "$f" "[.processes[0].threads[] | .recording] == [false, false]"
kill -USR1 "$pid"
wait_ready "late [0-9]+" "$pid"
late=$(ready_field late 2)
events_json "$f"
expect "a thread started after EVOF: not recording" false "$(jqv "$(TH "$late") | .recording")"
expect "a thread started after EVOF: nothing written" 0 "$(jqv "$(TH "$late") | .written")"
out=$("$RBMON" -p "$pid" --send EVON 2>&1) || fail "EVON for the process: $out"
wait_for "every thread recording" events_true "$f" "[.processes[0].threads[] | .recording] | all"
# Errors: no such thread; arguments; a file without a log.
"$RBMON" -p "$pid" --thread 1 --send EVOF >"$T/err" 2>&1 && fail "EVOF for no thread succeeded"
"$RBMON" -p "$pid" --thread "$pid" --send "EVOF x" >"$T/err" 2>&1 && fail "EVOF x succeeded"
grep -q "takes no argument" "$T/err" || fail "EVOF x: $(cat "$T/err")"

# ---- a fork child and an exec'd program: logs of their own ------------------
: >"$RBT_READY"
f=$T/fork.trace
launch fork env RBTRACE_FILE="$f" "$APPS/evseq" -n 2 -f
pid=$LAUNCHED
wait_ready "done $pid" "$pid"
wait_ready "child [0-9]+" "$pid"
child=$(ready_field child 2)
events_json "$f"
C=".processes[] | select(.pid == $child) | .threads[0]"
expect "fork child: its own log, from its first call after fork()" \
	"entry:seq_run $ROUND $ROUND exit:seq_run entry:seq_park" "$(seq_of "$C")"
P=".processes[] | select(.pid == $pid) | .threads[0]"
expect "fork parent: its log unchanged" \
	"entry:main entry:seq_run $ROUND $ROUND exit:seq_run entry:seq_park" "$(seq_of "$P")"

: >"$RBT_READY"
f=$T/exec.trace
launch exec env RBTRACE_FILE="$f" "$APPS/evseq" -x
pid=$LAUNCHED
wait_ready "done $pid" "$pid"
events_json "$f"
expect "exec: the new program's log" \
	"entry:main entry:seq_run $ROUND exit:seq_run entry:seq_park" \
	"$(seq_of ".processes[] | select(.pid == $pid) | .threads[] | select(.state != \"exited\")")"

# ---- rbtrace --events --policy ----------------------------------------------
: >"$RBT_READY"
f=$T/launcher.trace
launch launcher "$RBTRACE" -q --events 32 --policy fill -o "$f" -- "$APPS/evseq" -n 2
wait_ready "done [0-9]+"
events_json "$f"
expect "rbtrace --events --policy" "32 fill" "$(jqv '"\(.events.size) \(.events.policy)"')"
"$RBTRACE" --events 33 -- true >"$T/err" 2>&1 && fail "--events 33 accepted"
grep -q "power of two" "$T/err" || fail "--events 33: $(cat "$T/err")"
"$RBTRACE" --events 1 -- true >"$T/err" 2>&1 && fail "--events 1 accepted"
grep -q "from 2 to" "$T/err" || fail "--events 1: $(cat "$T/err")"
"$RBTRACE" --policy switch -- true >"$T/err" 2>&1 && fail "--policy switch accepted"
grep -q "not ring, fill or drain" "$T/err" || fail "--policy switch: $(cat "$T/err")"
# A bad environment value: one line, the default kept.
: >"$RBT_READY"
f=$T/badenv.trace
launch badenv env RBTRACE_FILE="$f" RBTRACE_EVENTS=1000 RBTRACE_POLICY=bogus "$APPS/evseq" -n 1
wait_ready "done $LAUNCHED" "$LAUNCHED"
grep -q "RBTRACE_EVENTS=1000: not 0 or a power of two" "$T/badenv.err" || fail "no RBTRACE_EVENTS warning: $(cat "$T/badenv.err")"
grep -q "RBTRACE_POLICY=bogus: not ring, fill or drain; using ring" "$T/badenv.err" || fail "no RBTRACE_POLICY warning: $(cat "$T/badenv.err")"
events_json "$f"
expect "bad values: the defaults" "4096 ring" "$(jqv '"\(.events.size) \(.events.policy)"')"
exit 0
