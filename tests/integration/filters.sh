#!/bin/bash
# SPDX-License-Identifier: MIT
# filters: the filters every reader of a recording shares (rbmon(1),
# FILTERS) on a program whose calls are known exactly (tests/apps/evseq.c:
# five rounds on main and on a worker thread): report's counts, replay's
# lines, the folded stacks, the Chrome and speedscope events, each filter
# keeping what it says; a name no call has is said; an export over
# RBMON_EXPORT_WARN says its size on standard error first.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

BIN=$APPS/evseq

(cd "$T" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
	"$RBTRACE" record -o "$T/run.rbr" --file "$T/run.trace" -- \
	"$BIN" -n 5 -w -e >"$T/record.out" 2>"$T/record.err")
rc=$?
[ "$rc" -eq 0 ] || fail "rbtrace record exited $rc: $(cat "$T/record.err")"
R=$T/run.rbr
main=$(ready_field done 2)
worker=$(ready_field worker 2)
[ -n "$main" ] && [ -n "$worker" ] || fail "evseq did not report: $(cat "$RBT_READY")"

# report: "calls function" lines, by name, of the table.
counts()
{
	"$RBMON" report -s name "$@" "$R" 2>"$T/err" |
		awk 'NR > 2 && NF >= 4 && $1 != "#" { print $(NF-1), $NF }' | tr '\n' ' '
}

expect "report: all" "1 main 10 phase 10 seq_a 10 seq_b 10 seq_c 2 seq_park 10 seq_round 2 seq_run 1 worker " \
	"$(counts)"
expect "report -F seq_a: its calls and their callees" "10 seq_a 10 seq_b 10 seq_c " "$(counts -F seq_a)"
expect "report -F glob" "10 seq_b 10 seq_c " "$(counts -F 'seq_[bc]')"
expect "report -N seq_a: without it and its callees" \
	"1 main 10 phase 2 seq_park 10 seq_round 2 seq_run 1 worker " "$(counts -N seq_a)"
expect "report -D 2: two levels" "1 main 2 seq_park 2 seq_run 1 worker " "$(counts -D 2)"
expect "report -F seq_round -D 2: two levels below it" "10 phase 10 seq_round " \
	"$(counts -F seq_round -D 2)"
expect "report --thread: the worker's" \
	"5 phase 5 seq_a 5 seq_b 5 seq_c 1 seq_park 5 seq_round 1 seq_run 1 worker " \
	"$(counts --thread "$worker")"
# A filter's dropped call counts in its caller's self time.
self=$("$RBMON" report --json -N phase "$R" | python3 -c '
import json, sys
f = {x["function"]: x for x in json.load(sys.stdin)["functions"]}
print(f["seq_round"]["self_ns"] == f["seq_round"]["total_ns"])')
expect "report -N: the time of what it drops is its caller's self time" True "$self"

# --min-duration: main's own time keeps main alone (the worker ran inside it).
main_ns=$("$RBMON" report --json "$R" | python3 -c '
import json, sys
print([x for x in json.load(sys.stdin)["functions"] if x["function"] == "main"][0]["total_ns"])')
expect "report --min-duration main's time" "1 main " "$(counts --min-duration "${main_ns}ns")"
expect "report --min (its old name)" "1 main " "$(counts --min "${main_ns}ns")"

# --time-range: the worker's third round, from its start to its end.
"$RBMON" export --chrome -t "$worker" "$R" >"$T/w.json" || fail "export --chrome -t exited $?"
range=$(python3 -c '
import json, sys
from decimal import Decimal
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
      if e["ph"] == "X" and e["name"] == "seq_round"]
ev.sort(key=lambda e: Decimal(str(e["ts"])))
r = ev[2]
a = int(Decimal(str(r["ts"])) * 1000)
b = a + int(Decimal(str(r["dur"])) * 1000)
print("%dns~%dns" % (a, b))' "$T/w.json")
expect "report --time-range one round" "1 phase 1 seq_a 1 seq_b 1 seq_c 1 seq_round " \
	"$(counts -t "$worker" --time-range "$range")"
expect "report --time-range ~1ns: what began first" "1 main " "$(counts --time-range '~1ns')"

# hot: the same calls through the same filters.
hot=$("$RBMON" hot --json -F seq_a -N seq_c "$R" | python3 -c '
import json, sys
print(" ".join("%s %d" % (f["function"], f["calls"])
    for f in sorted(json.load(sys.stdin)["functions"], key=lambda f: f["function"])))')
expect "hot -F seq_a -N seq_c" "seq_a 10 seq_b 10" "$hot"

# A name no call has is said.
counts -F no_such_function >/dev/null
expect "report -F an unknown name" \
	"rbmon report: -F 'no_such_function': no function called in the recording matches it" "$(cat "$T/err")"

# replay: the lines of -F seq_a on the worker, five rounds of five.
"$RBMON" replay -t "$worker" -F seq_a "$R" >"$T/replay" || fail "replay -F exited $?"
expect "replay -F -t: lines" 25 "$(grep -c '|' "$T/replay")"
expect "replay -F -t: seq_a at the left" 5 "$(grep -c '| seq_a() {$' "$T/replay")"
expect "replay -N seq_b: none of it" 0 "$("$RBMON" replay -N seq_b "$R" | grep -c seq_b)"
expect "replay -N seq_b: the rest" 10 "$("$RBMON" replay -N seq_b "$R" | grep -c 'seq_c();')"

# folded: -F seq_a's stacks, three a thread.
"$RBMON" export --folded -F seq_a "$R" >"$T/folded" || fail "export --folded -F exited $?"
expect "folded -F: lines" 6 "$(wc -l <"$T/folded")"
expect "folded -F: all under seq_a" 6 "$(grep -c ');seq_a\(;seq_[bc]\)\? [0-9]*$' "$T/folded")"

# Chrome: events as JSON reads them.
chrome_x()
{
	"$RBMON" export --chrome "$@" "$R" | python3 -c '
import json, sys
print(sum(1 for e in json.load(sys.stdin)["traceEvents"] if e["ph"] == "X"))'
}
expect "chrome: all" 56 "$(chrome_x)"
expect "chrome -F seq_a" 30 "$(chrome_x -F seq_a)"
expect "chrome -D 2" 6 "$(chrome_x -D 2)"
expect "chrome -N 'seq_*'" 2 "$(chrome_x -N 'seq_*')"
expect "chrome --min-duration" 1 "$(chrome_x --min-duration "${main_ns}ns")"

# speedscope: frames opened.
opened=$("$RBMON" export --speedscope -F seq_a "$R" | python3 -c '
import json, sys
print(sum(1 for p in json.load(sys.stdin)["profiles"] for e in p["events"] if e["type"] == "O"))')
expect "speedscope -F seq_a" 30 "$opened"

# The size said before a large export, the filters counted.
"$RBMON" export --chrome "$R" >/dev/null 2>"$T/err"
[ -s "$T/err" ] && fail "export said something under the threshold: $(cat "$T/err")"
RBMON_EXPORT_WARN=1k "$RBMON" export --chrome "$R" >/dev/null 2>"$T/err"
grep -q '^rbmon export: ~[0-9,]* events, about [0-9]* KiB of Chrome JSON; viewers fail on JSON over 256 MB-1 GB: use --perfetto or filters (--time-range, -t, --min-duration, -D, -F, -N)$' "$T/err" ||
	fail "no size said: $(cat "$T/err")"
# -F seq_a keeps 30 calls (60 records) and the 10 line marks inside them.
RBMON_EXPORT_WARN=1 "$RBMON" export --perfetto -F seq_a -o "$T/pf" "$R" 2>"$T/err"
expect "perfetto: the size of what the filters keep" \
	"rbmon export: ~70 events, about 2 KiB of Perfetto protobuf; to make it smaller: filters (--time-range, -t, --min-duration, -D, -F, -N)" \
	"$(cat "$T/err")"

# Bad values are usage errors.
"$RBMON" report --time-range 2s~1s "$R" 2>"$T/err"
expect "time range backwards: status" 2 "$?"
grep -q "invalid time range '2s~1s': it ends before it starts" "$T/err" || fail "no word on 2s~1s: $(cat "$T/err")"
"$RBMON" export --chrome --time-range 5~ "$R" 2>"$T/err" >/dev/null
grep -q -- "--time-range 5: a duration needs a unit" "$T/err" || fail "no word on 5~: $(cat "$T/err")"
exit 0
