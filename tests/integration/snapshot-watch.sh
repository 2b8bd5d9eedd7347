#!/bin/bash
# SPDX-License-Identifier: MIT
# snapshot-watch: a watch as a snapshot trigger (rbtrace(5), "SNAPSHOTS").
# `rbmon snapshot --watch snap_flag` has the main thread of tests/apps/
# snapper evaluate "@snapshot snap_flag" every millisecond; at SIGUSR1 the
# program calls flag_before() and sets snap_flag to 1, and the thread's
# next evaluation, 0 to 1, triggers: the snapshot holds flag_before(),
# ended before the trigger, and the four threads' chains.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

f=$T/s.trace
traced app RBTRACE_FILE="$f" "$APPS/snapper" -f
pid=$LAUNCHED
wait_ready "ready $pid" "$pid"

mkdir "$T/snaps"
launch writer "$RBMON" snapshot -o "$T/snaps" --count 1 --timeout 120 --watch snap_flag "$f"
wpid=$LAUNCHED
# The trigger's value seen false first: only a change to true triggers.
wait_json "$f" "[.processes[].threads[] | select(.tid == $pid) | .watches[] |
	select(.expr == \"@snapshot snap_flag\" and .value == \"0\")] | length == 1" \
	"the main thread to evaluate the trigger's watch as 0"
dump_json "$f"
expect_jq "nothing taken before the flag" '.snapshots.taken == 0'

kill -USR1 "$pid"
rc=0
wait "$wpid" || rc=$?
[ "$rc" -eq 0 ] || fail "rbmon snapshot exited $rc: $(cat "$T/writer.err")"
ready "flag $pid" || fail "snapper did not set its flag: $(cat "$RBT_READY")"
rec=$T/snaps/snapper.$pid.snap.1.rbr
[ -f "$rec" ] || fail "no $rec: $(ls "$T/snaps"); $(cat "$T/writer.out" "$T/writer.err")"
grep -q "^$rec: snapshot 1 of process $pid: watch 0 of thread $pid turned true$" "$T/writer.out" ||
	fail "the writer did not name the watch: $(cat "$T/writer.out")"

"$RBMON" export --chrome "$rec" >"$T/chrome.json" 2>"$T/chrome.err" ||
	fail "rbmon export exited $?: $(cat "$T/chrome.err")"
at=$(sed -n "s/^rbmon export: .*: snapshot 1 of process $pid: a watch of thread $pid turned true, at \([0-9.]*\) us$/\1/p" \
	"$T/chrome.err")
[ -n "$at" ] || fail "the export does not name the trigger and its time: $(cat "$T/chrome.err")"
python3 - "$T/chrome.json" "$at" "$pid" <<'PY' || fail "the snapshot does not hold the calls before the flag"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
at, pid = float(sys.argv[2]), int(sys.argv[3])
fb = [e for e in ev if e.get("ph") == "X" and e["name"] == "flag_before"]
ok = True
if len(fb) != 1 or fb[0]["tid"] != pid or fb[0]["ts"] + fb[0]["dur"] > at:
    print("flag_before: %s, trigger at %s us" % (fb, at))
    ok = False
for chain in ("alpha_1", "beta_1", "gamma_1", "delta_1"):
    if not any(e.get("ph") == "X" and e["name"] == chain and e["ts"] < at for e in ev):
        print("no %s before the trigger" % chain)
        ok = False
sys.exit(0 if ok else 1)
PY

dump_json "$f"
expect_jq "the file counts one taken and written" \
	'.snapshots.taken == 1 and .snapshots.written == 1 and .snapshots.writer == null'
wait_json "$f" "[.processes[].threads[] | select(.tid == $pid) | .watches[]] | length == 0" \
	"the writer's watch to be removed"
stop_and_reap "$pid"
expect "snapper's exit status" 0 "$REAPED"
exit 0
