#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot: trigger snapshots of every thread (rbtrace(5), "SNAPSHOTS").
# tests/apps/snapper runs four threads, each its own chain of calls.  The
# snapshot signal with no writer attached is counted missed and freezes
# nothing.  With `rbmon snapshot` waiting, kill -USR2 makes one recording
# whose export shows all four chains, each in its own thread, from before
# the trigger's time to after it; the program's logs record again after,
# it runs on and its results do not change.  --now triggers one itself.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

f=$T/s.trace
traced app RBTRACE_FILE="$f" RBTRACE_SNAPSHOT_SIGNAL=USR2 "$APPS/snapper"
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

# written FILE TID - records the thread's log was ever offered.
written() { "$RBMON" --events --json "$1" |
	jq -r --argjson t "$2" '.processes[].threads[] | select(.tid == $t) | .written'; }
# moved FILE TID FROM - the thread's log records again, past FROM.
moved()
{
	local w
	w=$(written "$1" "$2")
	echo "written $w, from $3"
	[ -n "$w" ] && [ "$w" -gt "$3" ] &&
		"$RBMON" --events --json "$1" | jq -e --argjson t "$2" \
		'.processes[].threads[] | select(.tid == $t) | .recording' >/dev/null
}

# ---- no writer: missed, nothing frozen ------------------------------------------
kill -USR2 "$pid"
wait_json "$f" '.snapshots.missed == 1' "the trigger without a writer counted missed"
expect_jq "nothing taken, no writer, nothing frozen" \
	'.snapshots.taken == 0 and .snapshots.writer == null and .snapshots.frozen == false'
W1=$(jqv '.processes[0].threads[] | select(.name == "w1") | .tid')
[ -n "$W1" ] || fail "no thread w1 in the dump"
w=$(written "$f" "$W1")
wait_for "w1's log to record after the missed trigger" moved "$f" "$W1" "$w"
kill -0 "$pid" || fail "the program died of the snapshot signal"

# ---- a writer, and the signal -----------------------------------------------------
mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --count 1 --timeout 120 "$f"
wpid=$LAUNCHED
wait_json "$f" ".snapshots.writer == $wpid" "the writer to attach"
kill -USR2 "$pid"
rc=0
wait "$wpid" || rc=$?
[ "$rc" -eq 0 ] || fail "rbmon snapshot exited $rc: $(cat "$T/writer.err")"
rec=$T/snaps/snapper.$pid.snap.1.rbr
[ -f "$rec" ] || fail "no $rec: $(ls "$T/snaps"); $(cat "$T/writer.out" "$T/writer.err")"
expect "snapshots written" 1 "$(ls "$T/snaps" | wc -l)"
grep -q "^$rec: snapshot 1 of process $pid: signal 12 in thread [0-9]*$" "$T/writer.out" ||
	fail "the writer did not name the recording: $(cat "$T/writer.out")"
dump_json "$f"
expect_jq "the file counts it taken and written, the missed one too" \
	'.snapshots.taken == 1 and .snapshots.written == 1 and .snapshots.missed == 1 and .snapshots.frozen == false'

"$RBMON" export --chrome "$rec" >"$T/chrome.json" 2>"$T/chrome.err" ||
	fail "rbmon export exited $?: $(cat "$T/chrome.err")"
at=$(sed -n "s/^rbmon export: .*: snapshot 1 of process $pid: signal 12 in thread [0-9]*, at \([0-9.]*\) us$/\1/p" \
	"$T/chrome.err")
[ -n "$at" ] || fail "the export does not name the trigger and its time: $(cat "$T/chrome.err")"
python3 - "$T/chrome.json" "$at" <<'PY' || fail "the snapshot does not show the four threads around the trigger"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
at = float(sys.argv[2])
names = {e["tid"]: e["args"]["name"] for e in ev
         if e.get("ph") == "M" and e["name"] == "thread_name"}
ok = True
for chain, thread in (("alpha", "w1"), ("beta", "w2"), ("gamma", "w3"), ("delta", "w4")):
    calls = [e for e in ev if e.get("ph") == "X" and e["name"].startswith(chain + "_")]
    tids = {e["tid"] for e in calls}
    if len(calls) == 0 or len(tids) != 1 or names.get(tids.pop()) != thread:
        print("%s: %d calls in threads %s (names %s)" % (chain, len(calls), tids, names))
        ok = False
        continue
    if min(e["ts"] for e in calls) >= at:
        print("%s: no call before the trigger at %s us" % (chain, at))
        ok = False
last = max(e["ts"] + e.get("dur", 0) for e in ev if e.get("ph") in ("X", "i"))
if last < at:
    print("the recording ends at %s us, before the trigger at %s us" % (last, at))
    ok = False
sys.exit(0 if ok else 1)
PY

# Logging is back on, the program runs on.
w=$(written "$f" "$W1")
wait_for "w1's log to record after the snapshot" moved "$f" "$W1" "$w"

# ---- --now, into a directory it makes ---------------------------------------------------
rc=0
"$RBMON" snapshot --now -o "$T/none/deeper" "$f" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
expect "--now into a directory whose parent is missing: exit status" 1 "$rc"
grep -q "cannot make the directory .*/none/deeper: No such file or directory" "$T/bad.err" ||
	fail "no clear error for a directory that cannot be made: $(cat "$T/bad.err")"
"$RBMON" snapshot --now -o "$T/made" "$f" >"$T/now.out" 2>"$T/now.err" ||
	fail "rbmon snapshot --now exited $?: $(cat "$T/now.err")"
[ -f "$T/made/snapper.$pid.snap.2.rbr" ] || fail "--now wrote no snap.2: $(cat "$T/now.out" "$T/now.err")"
mv "$T/made/snapper.$pid.snap.2.rbr" "$T/snaps/"
"$RBMON" report "$T/snaps/snapper.$pid.snap.2.rbr" >"$T/report" 2>"$T/report.err" ||
	fail "rbmon report exited $?: $(cat "$T/report.err")"
for fn in alpha_3 beta_3 gamma_3 delta_3 main_tick; do
	grep -q " $fn\$" "$T/report" || fail "report of the --now snapshot has no $fn: $(cat "$T/report")"
done
grep -q "snapshot 2 of process $pid: rbmon snapshot --now" "$T/report.err" ||
	fail "report does not name the --now trigger: $(cat "$T/report.err")"
w=$(written "$f" "$W1")
wait_for "w1's log to record after --now" moved "$f" "$W1" "$w"

stop_and_reap "$pid"
expect "snapper's exit status" 0 "$REAPED"
grep -q '^rounds [0-9]* bad 0 elapsed_ms [0-9]*$' "$T/app.out" ||
	fail "snapper's results changed: $(cat "$T/app.out")"
exit 0
