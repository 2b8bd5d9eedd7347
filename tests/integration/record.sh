#!/bin/bash
# SPDX-License-Identifier: MIT
# record: the recorder on a program whose calls are known exactly
# (tests/apps/evseq.c).  rbtrace record runs it to its end with a worker
# thread and a fork child; replay gives each thread's calls exactly, nested,
# and the ping-pong of two threads in the order it happened; report counts
# the calls; the Chrome export nests per thread with names, files, lines,
# pids and tids; the folded export's weights add up to the threads' time;
# speedscope's evented profiles open and close in order.  rbmon --record on
# a program already running: a recorder held up on purpose (SIGSTOP) makes
# the threads drop, counted, and shown where it happened; a program killed
# mid-record leaves a recording that reads to its end.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
command -v gdb >/dev/null || skip "gdb is not installed"

src=$APPS_SRC/evseq.c
BIN=$APPS/evseq

# A replay's function column only: "DURATION [TID] | " cut off.
graph() { sed -n 's/^.\{10\} \[ *\([0-9]*\)\] | \(.*\)$/\1 \2/p'; }

# One round of evseq, as replay shows it, at indent $1.
round()
{
	local i=$1
	printf '%sseq_round() {\n%s  phase() {\n%s    seq_a() {\n' "$i" "$i" "$i"
	printf '%s      seq_b();\n%s      /* line 42 */\n%s      seq_c();\n' "$i" "$i" "$i"
	printf '%s    } /* seq_a */\n%s  } /* phase */\n%s} /* seq_round */\n' "$i" "$i" "$i"
}
run3() { printf '%sseq_run() {\n' "$1"; round "$1  "; round "$1  "; round "$1  "; printf '%s} /* seq_run */\n' "$1"; }

# ---- rbtrace record, to the program's end -------------------------------------
# Under LeakSanitizer, the fork child's exit finds its parent's threads
# still listed and says "not suspended, false leaks are possible": no leak
# check here (the recorder of the spinning program below has one).
(cd "$T" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
	"$RBTRACE" record -o "$T/run.rbr" --file "$T/run.trace" -- \
	"$BIN" -n 3 -w -f -e -p 4 >"$T/record.out" 2>"$T/record.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/record.err")"
grep -q '^rbmon: recorded [0-9,]* events of 3 threads in 2 processes into .*, 0 lost$' "$T/record.err" ||
	fail "no summary of 3 threads, 2 processes, 0 lost: $(cat "$T/record.err")"
pid=$(ready_field done 2)
child=$(ready_field child 2)
[ -n "$pid" ] && [ -n "$child" ] || fail "evseq did not report: $(cat "$RBT_READY")"

"$RBMON" replay "$T/run.rbr" >"$T/replay" 2>"$T/replay.err" ||
	fail "rbmon replay exited $?: $(cat "$T/replay.err")"
[ -s "$T/replay.err" ] && fail "rbmon replay said: $(cat "$T/replay.err")"
head -1 "$T/replay" | grep -q '^# DURATION' || fail "no replay header: $(head -1 "$T/replay")"

# The main thread: ping-pong, three rounds, seq_park, all closed.
want=$( {
	echo "main() {"
	for i in 1 2 3 4; do echo "  seq_ping();"; done
	run3 "  "
	echo "  seq_park();"
	echo "} /* main */"
} )
expect "main thread's calls" "$want" "$(graph <"$T/replay" | awk -v t="$pid" '$1 == t' | cut -d' ' -f2-)"

# The worker: its pongs, its rounds, its park, all closed before it ended.
wtid=$("$RBMON" replay "$T/run.rbr" | graph | awk -v p="$pid" -v c="$child" '$1 != p && $1 != c { print $1; exit }')
want=$( {
	echo "worker() {"
	for i in 1 2 3 4; do echo "  seq_pong();"; done
	run3 "  "
	echo "  seq_park();"
	echo "} /* worker */"
} )
expect "worker's calls" "$want" "$(graph <"$T/replay" | awk -v t="$wtid" '$1 == t' | cut -d' ' -f2-)"

# The fork child: its own process and log, from the fork on (main is open
# at the fork: its entry was in the parent's log).
want=$( {
	echo "main() { /* entry lost */"
	run3 "  "
	echo "  seq_park();"
	echo "} /* main */"
} )
expect "fork child's calls" "$want" "$(graph <"$T/replay" | awk -v t="$child" '$1 == t' | cut -d' ' -f2-)"

# Merged in time: every ping before its pong, every pong before the next ping.
expect "ping-pong in the order it happened" "ping pong ping pong ping pong ping pong" \
	"$(graph <"$T/replay" | sed -n 's/^[0-9]* *\(seq_p[io]ng\)() {$/\1/p; s/^[0-9]* *\(seq_p[io]ng\)();$/\1/p' |
		sed 's/seq_//' | tr '\n' ' ' | sed 's/ $//')"
grep -Eq '^ +[0-9]+(\.[0-9]{3})? [num]?s \[ *[0-9]+\] \|           seq_b\(\);$' "$T/replay" ||
	fail "no timed leaf seq_b(); in the replay: $(head -20 "$T/replay")"

# Filters: one thread, one function and its callees, a depth.
expect "--tid: only the worker" "$wtid" "$("$RBMON" replay -t "$wtid" "$T/run.rbr" | graph | cut -d' ' -f1 | sort -u)"
expect "--function seq_a --depth 1: seq_a and its callees, 9 times" \
	"$(for i in $(seq 9); do printf 'seq_a() {\n  seq_b();\n  /* line 42 */\n  seq_c();\n} /* seq_a */\n'; done)" \
	"$("$RBMON" replay -F seq_a -D 2 "$T/run.rbr" | graph | sort -s -n -k1,1 | cut -d' ' -f2-)"
expect "--depth 1: main, worker and the child's main only" "3" \
	"$("$RBMON" replay -D 1 "$T/run.rbr" | graph | grep -c '() {')"
out=$("$RBMON" replay --min 1000s "$T/run.rbr") || fail "replay --min 1000s exited $?"
expect "--min 1000s: no call that long" "# DURATION      TID     FUNCTION" "$out"
"$RBMON" replay --min 1y "$T/run.rbr" >/dev/null 2>"$T/min.err"
expect "--min 1y: not a time rbmon reads" "2 rbmon replay: invalid time '1y' (expected a number and a unit: ns, us, ms, s, m, h, d)" \
	"$? $(head -1 "$T/min.err")"
"$RBMON" replay --min 5 "$T/run.rbr" >/dev/null 2>"$T/min.err"
expect "--min 5: a number needs its unit" "2 rbmon replay: --min 5: a duration needs a unit (ns, us, ms, s, m, h, d), as in 5us" \
	"$? $(head -1 "$T/min.err")"

# ---- report ---------------------------------------------------------------------
"$RBMON" report --json "$T/run.rbr" >"$T/report.json" 2>"$T/report.err" ||
	fail "rbmon report exited $?: $(cat "$T/report.err")"
calls() { jq -r --arg f "$1" '.functions[] | select(.function == $f) | .calls' "$T/report.json"; }
expect "report: calls of seq_round seq_a seq_b seq_c phase main worker seq_ping seq_pong" \
	"9 9 9 9 9 1 1 4 4" \
	"$(for f in seq_round seq_a seq_b seq_c phase main worker seq_ping seq_pong; do calls $f; done | tr '\n' ' ' | sed 's/ $//')"
jq -e '[.functions[] | .total_ns >= .self_ns and .self_ns >= 0] | all' "$T/report.json" >/dev/null ||
	fail "a function's self time exceeds its total: $(cat "$T/report.json")"
jq -e '[.functions[] | select(.function == "seq_round" or .function == "seq_a") | .total_ns] | .[0] >= .[1]' \
	"$T/report.json" >/dev/null || fail "seq_round's total is below seq_a's"
g=$(gdb -nx -batch -ex 'info functions ^seq_b$' "$BIN" 2>/dev/null | sed -n 's/^\([0-9]*\):.*/\1/p' | head -1)
expect "report: seq_b's file and line, as gdb's info functions" "evseq.c $g" \
	"$(jq -r '.functions[] | select(.function == "seq_b") | "\(.file) \(.line)"' "$T/report.json")"
"$RBMON" report "$T/run.rbr" | grep -Eq '^ +[0-9.]+ [num]?s +[0-9.]+ [num]?s +9  seq_b$' ||
	fail "no seq_b row in the text report: $("$RBMON" report "$T/run.rbr")"

# ---- exports ----------------------------------------------------------------------
"$RBMON" export --chrome "$T/run.rbr" >"$T/chrome.json" || fail "export --chrome exited $?"
"$RBMON" export --folded "$T/run.rbr" >"$T/folded" || fail "export --folded exited $?"
"$RBMON" export --speedscope -o "$T/ss.json" "$T/run.rbr" || fail "export --speedscope exited $?"
python3 - "$T/chrome.json" "$T/folded" "$T/ss.json" "$pid" "$wtid" "$child" "$g" \
	"$(line_of "$src" call_b)" <<'EOF' || fail "the exports do not check out (above)"
import json, sys
chrome, folded, ss, pid, wtid, child, bline, cline = sys.argv[1:9]
pid, wtid, child, bline, cline = int(pid), int(wtid), int(child), int(bline), int(cline)
t = json.load(open(chrome))
ev = t["traceEvents"]
bad = []
X = [e for e in ev if e["ph"] == "X"]
meta = {(e["pid"], e["tid"], e["name"]): e["args"]["name"] for e in ev if e["ph"] == "M"}
if meta.get((pid, wtid, "thread_name")) != "worker":
    bad.append("worker's thread_name: %r" % meta.get((pid, wtid, "thread_name")))
if (child, 0, "process_name") not in meta:
    bad.append("no process_name for the child")
threads = {}
for e in X:
    threads.setdefault((e["pid"], e["tid"]), []).append(e)
if set(threads) != {(pid, pid), (pid, wtid), (child, child)}:
    bad.append("pid/tid pairs: %r" % sorted(threads))
# Nesting: sorted by start (longer first at equal starts), every event
# ends within the one it starts in, to a ns (ts + dur in floating point us
# may round past the next ts).
top = 0
for k, es in threads.items():
    es.sort(key=lambda e: (e["ts"], -e["dur"]))
    st = []
    for e in es:
        end = e["ts"] + e["dur"]
        while st and st[-1] <= e["ts"] + 1e-9:
            st.pop()
        if st and end > st[-1] + 1e-9:
            bad.append("%r: %s [%s, %s] crosses its parent's end %s" % (k, e["name"], e["ts"], end, st[-1]))
            break
        if not st:
            top += round(e["dur"] * 1000)
        st.append(end)
b = [e for e in X if e["name"] == "seq_b"]
if len(b) != 9:
    bad.append("%d seq_b events, not 9" % len(b))
for e in b:
    a = e["args"]
    if (a["file"], a["line"], a["call_file"], a["call_line"]) != ("evseq.c", bline, "evseq.c", cline):
        bad.append("seq_b args: %r" % a)
        break
lost = [e for e in X if e["args"].get("entry_lost")]
if [(e["pid"], e["name"]) for e in lost] != [(child, "main")]:
    bad.append("entry_lost events: %r" % [(e["pid"], e["name"]) for e in lost])
if sum(1 for e in ev if e["ph"] == "i" and e["name"] == "line 42") != 9:
    bad.append("not 9 line marks")
# Folded: the weights (self ns) add up to the threads' outermost calls.
s = 0
for line in open(folded):
    path, n = line.rstrip("\n").rsplit(" ", 1)
    s += int(n)
    if not path.startswith("evseq (%d);" % pid) and not path.startswith("evseq (%d);" % child):
        bad.append("folded path %r" % path)
        break
if s != top:
    bad.append("folded weights sum to %d, the Chrome events' outermost durations to %d" % (s, top))
if not any(l.startswith("evseq (%d);worker (%d);worker;seq_run;seq_round;phase;seq_a;seq_b " % (pid, wtid)) for l in open(folded)):
    bad.append("no worker;...;seq_b path in the folded stacks")
# speedscope: per profile, opens and closes pair up in time order.
p = json.load(open(ss))
frames = p["shared"]["frames"]
if len(p["profiles"]) != 3:
    bad.append("%d profiles" % len(p["profiles"]))
for pr in p["profiles"]:
    st, at = [], -1
    for e in pr["events"]:
        if e["at"] < at:
            bad.append("%s: time goes back" % pr["name"]); break
        at = e["at"]
        if e["type"] == "O":
            st.append(e["frame"])
        elif not st or st.pop() != e["frame"]:
            bad.append("%s: closes %s out of order" % (pr["name"], frames[e["frame"]]["name"])); break
    if st:
        bad.append("%s: %d frames never closed" % (pr["name"], len(st)))
    if pr["startValue"] > pr["endValue"]:
        bad.append("%s: start after end" % pr["name"])
for m in bad:
    print("record: " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# ---- rbmon --record on a running program, held up on purpose ------------------------
: >"$RBT_READY"
traced spin RBTRACE_FILE="$T/spin.trace" RBTRACE_POLICY=drain RBTRACE_EVENTS=256 "$BIN" -s -n 50
spid=$LAUNCHED
wait_ready "spinning $spid" "$spid"
launch rec "$RBMON" --record -o "$T/spin.rbr" "$T/spin.trace"
rec=$LAUNCHED
# A second recorder on the same file is refused, by the first one's pid,
# once the first holds the file (it writes its recording only then).
wait_for "the first recorder's recording" test -s "$T/spin.rbr"
timeout 60 "$RBMON" --record -o "$T/second.rbr" "$T/spin.trace" >"$T/second.out" 2>&1 &&
	fail "a second recorder was let in"
wait_for "the second recorder to name the first" grep -q "being recorded already (by process $rec)" "$T/second.out"
kill -STOP "$rec"
# Held up: the spinning thread fills its 256 records and drops.
dropped_now() { "$RBMON" --events --json "$T/spin.trace" | jq -e '.processes[0].threads[0].dropped > 1000' >/dev/null; }
wait_for "the held-up recorder's thread to drop records" dropped_now
kill -CONT "$rec"
# Killed mid-record: the recorder ends with the program, the recording reads.
kill -KILL "$spid"
wait "$spid" 2>/dev/null
wait_for "the recorder to end with the program" eval '! kill -0 '"$rec"' 2>/dev/null'
wait "$rec"
rc=$?
[ "$rc" -eq 0 ] || fail "rbmon --record exited $rc: $(cat "$T/rec.err")"
grep -Eq '^rbmon:   [1-9][0-9,]* dropped by the threads while their logs were full' "$T/rec.err" ||
	fail "no drops in the summary: $(cat "$T/rec.err")"
"$RBMON" replay "$T/spin.rbr" >"$T/spin.replay" 2>"$T/spin.err" || fail "replay of the killed program's recording exited $?"
grep -Eq '\| +\[LOST [0-9]+ EVENTS\]$' "$T/spin.replay" || fail "no [LOST N EVENTS] in the replay"
# Open at its end: still running, or cut by what it dropped after its
# last record (its log full when it was killed).
grep -Eq '(still running|records lost after it) \*/$' "$T/spin.replay" ||
	fail "the killed program's last calls are not shown open or cut at its end"
"$RBMON" export --chrome "$T/spin.rbr" | jq -e '[.traceEvents[] | select(.args.cut)] | length > 0' >/dev/null ||
	fail "no calls cut by lost records in the Chrome export"
# rbmon hot counts what was lost as the replay shows it, and says so.
lost=$(grep -o '\[LOST [0-9]* EVENTS\]' "$T/spin.replay" | awk '{ s += $2 } END { print s + 0 }')
[ "$lost" -gt 0 ] || fail "no counted [LOST N EVENTS] in the replay"
expect "rbmon hot's lost records" "$lost" "$("$RBMON" hot --json "$T/spin.rbr" | jq .lost)"
"$RBMON" hot "$T/spin.rbr" | head -n 1 | grep -q "(and $lost records lost: counts are lower bounds)" ||
	fail "rbmon hot does not say counts are lower bounds: $("$RBMON" hot "$T/spin.rbr" | head -n 1)"

# rbtrace record makes the program's first calls wait for the recorder
# (env, not instrumented, shows the environment it was given).
"$RBTRACE" record -o "$T/env.rbr" --file "$T/env.trace" -- env >"$T/env.out" 2>"$T/env.err"
grep -qx 'RBTRACE_RECORD_WAIT=10' "$T/env.out" || fail "rbtrace record does not set RBTRACE_RECORD_WAIT: $(grep RBTRACE "$T/env.out")"
grep -qx 'RBTRACE_POLICY=drain' "$T/env.out" || fail "rbtrace record does not set the drain policy"

# ---- bad input --------------------------------------------------------------------
printf 'not a recording at all, just text that goes on for a while: %s\n' "$(seq 20)" >"$T/bad.rbr"
out=$("$RBMON" replay "$T/bad.rbr" 2>&1) && fail "replay of a text file succeeded"
expect "replay of a text file" "rbmon replay: $T/bad.rbr: not a recording (no rbtrace record magic)" "$out"
# 5 bytes short: inside the last chunk (END), wherever chunks fall.  Read
# whole, said to be cut and to have no END, exit status 3.
head -c $(($(stat -c %s "$T/run.rbr") - 5)) "$T/run.rbr" >"$T/cut.rbr"
"$RBMON" replay "$T/cut.rbr" >"$T/cut.replay" 2>"$T/cut.err"
rc=$?
[ "$rc" -eq 3 ] || fail "replay of a cut recording exited $rc, not 3: $(cat "$T/cut.err")"
grep -q 'cut short' "$T/cut.err" || fail "a cut recording is not said to be cut: $(cat "$T/cut.err")"
grep -q 'incomplete: no END chunk' "$T/cut.err" || fail "a cut recording is not said to lack its END: $(cat "$T/cut.err")"
expect "a cut recording's replay" "$(cat "$T/replay")" "$(grep -v '^#' "$T/cut.replay" | sed '1i # DURATION      TID     FUNCTION')"
out=$("$RBMON" export "$T/run.rbr" 2>&1) && fail "export without a format succeeded"
expect "export without a format" "rbmon export: no format given (--chrome, --perfetto, --folded or --speedscope)
Try 'rbmon export --help'." "$out"
out=$("$RBTRACE" record --policy ring -- "$BIN" 2>&1) && fail "record --policy ring succeeded"
grep -q 'drains the event logs: --policy can only be drain' <<<"$out" || fail "record --policy ring: $out"
exit 0
